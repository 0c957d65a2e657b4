import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { separateModelFailures, switchModel } from '../../src/run/modelSwitch';

test('a model that starts is the one the run uses', async () => {
  const started: string[] = [];
  const outcome = await switchModel('embedded', 'scripted', async (model) => void started.push(model));
  assert.deepEqual(outcome, { model: 'scripted' });
  assert.deepEqual(started, ['scripted']);
});

test('a model that cannot start leaves the run on the model it had, with the reason once', async () => {
  const started: string[] = [];
  const outcome = await switchModel('embedded', 'openai', async (model) => {
    if (model === 'openai') {
      throw new Error('no model is configured for openai (set OPENAI_MODEL).');
    }
    started.push(model);
  });
  assert.equal(outcome.model, 'embedded');
  assert.equal(outcome.error, 'The openai model cannot be used: no model is configured for openai (set OPENAI_MODEL). The run goes on with embedded.');
  assert.deepEqual(started, ['embedded']); // a run to send the next message to
});

test('when the model it had cannot start again either, that failure is the caller\'s', async () => {
  await assert.rejects(
    switchModel('scripted', 'openai', async () => {
      throw new Error('the server stopped');
    }),
    /the server stopped/,
  );
});

test('a model failure in a turn is an error, not the agent\'s reply', () => {
  const replies = [
    { agent: 'Loan_Supervisor', text: '[error] the model endpoint did not answer: script exhausted' },
    { agent: 'Loan_Supervisor', text: 'What is your annual income?' },
  ];
  const events = [
    { type: 'error', code: 'model_error', purpose: 'intent', message: 'script exhausted' },
    { type: 'error', code: 'model_error', purpose: 'extract', message: 'script exhausted' },
  ];
  assert.deepEqual(separateModelFailures(replies, events), { replies: [replies[1]], errors: ['script exhausted'] });
});

test('without a model failure every reply is the agent\'s, even one that starts like a notice', () => {
  const replies = [{ agent: 'A', text: '[error] is what the user typed' }];
  assert.deepEqual(separateModelFailures(replies, [{ type: 'error', code: 'tool_error', message: 'x' }]), { replies, errors: [] });
});
