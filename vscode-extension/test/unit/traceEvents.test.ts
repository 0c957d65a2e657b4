import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEvent, EventFeed, levelOf, refusalLinks, TraceEvent, visibleAt } from '../../src/run/traceEvents';

const envelope = { seq: 1, turn: 1, thread: 't1', agent: 'Loan_Supervisor', ts: '2026-01-01T00:00:00Z' };
const event = (fields: Partial<TraceEvent> & { type: string }): TraceEvent => ({ ...envelope, ...fields });

test('a handoff shows its target, returnable or permanent, and the history it carries', () => {
  const returnable = describeEvent(event({ type: 'handoff', from: 'Loan_Supervisor', to: 'Income_Capture_Agent', returnExpected: true, history: { mode: 'summary_only', count: null }, historyMessages: 1 }));
  assert.equal(returnable.summary, 'Loan_Supervisor → Income_Capture_Agent · returnable · history summary_only, 1 message');
  assert.equal(returnable.level, 'minimal');
  const permanent = describeEvent(event({ type: 'handoff', from: 'A', to: 'B', returnExpected: false, history: { mode: 'last_n', count: 4 }, historyMessages: 4 }));
  assert.equal(permanent.summary, 'A → B · permanent · history last_n 4, 4 messages');
});

test('condition checks, return handlers and resumed intents show their key fields', () => {
  assert.equal(describeEvent(event({ type: 'handoff_condition_check', target: 'Offer_Agent', condition: 'annual_income IS SET', result: true })).summary, '→ Offer_Agent · WHEN annual_income IS SET · true');
  assert.equal(
    describeEvent(event({ type: 'handoff_return_handler', from: 'Income_Capture_Agent', to: 'Loan_Supervisor', action: 'resume_intent', mappedFields: ['annual_income'], setFields: [] })).summary,
    'Income_Capture_Agent → Loan_Supervisor · resume_intent · mapped annual_income',
  );
  assert.equal(describeEvent(event({ type: 'resume_intent', message: 'I want a loan offer', resumeWith: 'original_message' })).summary, 'replays "I want a loan offer" · original_message');
});

test('errors and failed tools are problems; unknown types list their own fields', () => {
  assert.equal(describeEvent(event({ type: 'error', code: 'MODEL', message: 'no answer' })).problem, true);
  assert.equal(describeEvent(event({ type: 'tool_result', tool: 'credit', success: false, error: 'timeout' })).summary, 'credit · failed: timeout');
  assert.equal(describeEvent(event({ type: 'handoff_completed', to: 'B', outcome: 'success' })).problem, false);
  const other = describeEvent(event({ type: 'thread_resume', preservedHistoryLength: 3, location: { uri: 'file:///a', range: { start: { line: 1, character: 0 }, end: { line: 1, character: 4 } } } }));
  assert.equal(other.summary, 'preservedHistoryLength=3');
  assert.equal(other.location?.range.start.line, 1);
});

test('the timeline filter keeps the events at or below the chosen level', () => {
  const entries = ['handoff', 'resume_intent', 'model_call'].map((type, seq) => describeEvent(event({ type, seq })));
  assert.deepEqual(visibleAt(entries, 'minimal').map((e) => e.type), ['handoff']);
  assert.deepEqual(visibleAt(entries, 'standard').map((e) => e.type), ['handoff', 'resume_intent']);
  assert.deepEqual(visibleAt(entries, 'debug').map((e) => e.type), ['handoff', 'resume_intent', 'model_call']);
  assert.equal(levelOf('some_future_event'), 'standard');
});

test('the event feed passes each seq once, live or in an answer, until a new conversation', () => {
  const feed = new EventFeed();
  const live = [event({ type: 'handoff', seq: 3 }), event({ type: 'handoff_completed', seq: 4 })];
  assert.deepEqual(feed.accept([live[0]]).map((e) => e.seq), [3]);
  assert.deepEqual(feed.accept([live[1]]).map((e) => e.seq), [4]);
  // The answer repeats them, and holds one the notifications missed.
  assert.deepEqual(feed.accept([...live, event({ type: 'gather', seq: 5 })]).map((e) => e.seq), [5]);
  feed.clear();
  assert.deepEqual(feed.accept([event({ type: 'session_start', seq: 1 })]).map((e) => e.seq), [1]);
});

test('a COMPLETE rule reads as its number and condition, not as JSON', () => {
  const fired = describeEvent(event({ type: 'complete', rule: { index: 0, condition: 'annual_income IS SET' }, terminal: true }));
  assert.equal(fired.summary, 'rule 1 · WHEN annual_income IS SET · the agent is done');
  assert.equal(describeEvent(event({ type: 'complete', step: 'done', terminal: false })).summary, 'step done · the conversation goes on');
});

test('a refused run links to each error it names, by file name and line', () => {
  const range = { start: { line: 11, character: 4 }, end: { line: 11, character: 9 } };
  const links = refusalLinks({ problems: ['/p/hub.abl:12:5: error[E330] …'], errors: [{ uri: 'file:///p/my%20hub.abl', range, code: 'E330', message: 'bad history' }] });
  assert.deepEqual(links, [{ label: 'my hub.abl:12: E330 bad history', location: { uri: 'file:///p/my%20hub.abl', range } }]);
  assert.deepEqual(refusalLinks(undefined), []);
  assert.deepEqual(refusalLinks({ errors: [{ uri: 3 }] }), []);
});
