import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { TakenStep } from '../../src/graph/runPath';
import { WatchedRuns } from '../../src/run/watchedRuns';

const step = (to: string): TakenStep => ({ kind: 'handoff', from: 'Hub', to });
const run = (runId: string, ...edges: string[]) => ({ runId, agent: `Agent_${runId}`, steps: edges.map(step) });

test('the graph labels the run of the focused panel, not the one that moved on last', () => {
  const runs = new WatchedRuns();
  runs.update(run('a'), true);
  runs.update(run('b'), true); // a second panel opens and takes the focus
  assert.equal(runs.current?.runId, 'b');
  runs.update(run('a'), true); // the user goes back to the first panel
  // The second run moves on while its panel is in the background: the graph stays on the first.
  assert.equal(runs.update(run('b', 'e1'), false), false);
  assert.equal(runs.current?.runId, 'a');
  assert.equal(runs.update(run('a', 'e2'), true), true);
  assert.deepEqual(runs.current?.steps, [step('e2')]);
});

test('a run that moves on unfocused keeps its moves for when its panel is focused', () => {
  const runs = new WatchedRuns();
  runs.update(run('a'), true);
  runs.update(run('b', 'e1', 'e2'), false);
  assert.equal(runs.current?.runId, 'a');
  assert.equal(runs.update(run('b', 'e1', 'e2'), true), true);
  assert.deepEqual(runs.current?.steps, [step('e1'), step('e2')]);
});

test('when the focused run ends, the graph goes back to the run focused before it', () => {
  const runs = new WatchedRuns();
  runs.update(run('a'), true);
  runs.update(run('b'), true);
  assert.equal(runs.end('b'), true);
  assert.equal(runs.current?.runId, 'a');
  assert.equal(runs.end('a'), true);
  assert.equal(runs.current, undefined);
});

test('with no panel focused yet, the run there is is the one labelled', () => {
  const runs = new WatchedRuns();
  assert.equal(runs.update(run('a', 'e1'), false), true);
  assert.equal(runs.current?.runId, 'a');
  assert.equal(runs.end('x'), false);
});
