import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { NOTICE_HEADING, notEnforcedNotice } from '../../src/run/localLimits';

const at = (uri: string, line: number) => ({ uri, range: { start: { line, character: 0 }, end: { line, character: 11 } } });

test('each construct is one line naming the agent, what happens instead, and file:line', () => {
  const notice = notEnforcedNotice([
    { construct: 'CONSTRAINTS', agent: 'Claims_Desk', instead: 'constraints are not enforced', location: at('file:///work/claims/desk.agent.abl', 3) },
    { construct: 'AWAIT_ATTACHMENT in step `ask`', agent: 'Photo_Agent', instead: 'the step goes on without it', location: at('file:///work/claims/photo%20desk.agent.abl', 12) },
  ]);
  assert.ok(notice);
  assert.equal(notice.heading, NOTICE_HEADING);
  assert.deepEqual(
    notice.lines.map((line) => line.text),
    [
      'Claims_Desk: CONSTRAINTS: constraints are not enforced (desk.agent.abl:4)',
      'Photo_Agent: AWAIT_ATTACHMENT in step `ask`: the step goes on without it (photo desk.agent.abl:13)',
    ],
  );
  assert.equal(notice.lines[1].location.range.start.line, 12);
});

test('nothing to say, no notice: an empty list, or a server that sends none', () => {
  assert.equal(notEnforcedNotice([]), undefined);
  assert.equal(notEnforcedNotice(undefined), undefined);
});
