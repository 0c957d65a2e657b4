import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureMessages, RecordReader, ResultRecord, runGroups, TestRecord, testArguments } from '../../src/testing/testRecords';

function read(chunks: string[]): { records: TestRecord[]; other: string[] } {
  const records: TestRecord[] = [];
  const other: string[] = [];
  const reader = new RecordReader((r) => records.push(r), (line) => other.push(line));
  chunks.forEach((chunk) => reader.push(chunk));
  reader.end();
  return { records, other };
}

test('records are read across chunk boundaries; other lines are kept as text', () => {
  const started = JSON.stringify({ type: 'started', path: '/p/a.abltest.yaml', name: 'one', line: 4 });
  const summary = JSON.stringify({ type: 'summary', passed: 1, failed: 0, skipped: 0, text: '1 passed, 0 failed' });
  const { records, other } = read([started.slice(0, 10), `${started.slice(10)}\r\nDeprecationWarning: x\n`, '{"type": "nonsense"}\n\n', summary]);
  assert.deepEqual(records.map((r) => r.type), ['started', 'summary']);
  assert.deepEqual(other, ['DeprecationWarning: x', '{"type": "nonsense"}']);
});

const result = (fields: Partial<ResultRecord>): ResultRecord => ({
  type: 'result',
  path: '/p/a.abltest.yaml',
  name: 'wrong reply',
  line: 10,
  status: 'failed',
  durationMs: 3,
  failures: [],
  error: null,
  report: null,
  ...fields,
});

test('a failed check is placed at its line in the failing turn, with expected and actual', () => {
  const messages = failureMessages(
    result({
      failures: [
        { kind: 'reply', summary: 'the reply does not match', expected: 'Something else', actual: '[Income] Thanks.', details: [], line: 16, turn: 2, turnLine: 14, user: '85000' },
        { kind: 'events', summary: 'an expected event did not happen', expected: null, actual: null, details: ['#3 handoff'], line: null, turn: 2, turnLine: 14, user: '85000' },
        { kind: 'greeting', summary: 'the greeting differs', expected: 'Hi', actual: null, details: [], line: null, turn: null, turnLine: null, user: null },
      ],
    }),
  );
  assert.deepEqual(messages, [
    { text: 'turn 2 (user: 85000): reply: the reply does not match', line: 16, expected: 'Something else', actual: '[Income] Thanks.' },
    { text: 'turn 2 (user: 85000): events: an expected event did not happen\n#3 handoff', line: 14 },
    { text: 'greeting: the greeting differs', line: 10 },
  ]);
});

test('a test that could not run gets its error at its own line', () => {
  assert.deepEqual(failureMessages(result({ status: 'error', error: 'the project cannot be used:\nE330' })), [{ text: 'the project cannot be used:\nE330', line: 10 }]);
});

test('the arguments select tests by exact name, safe from names that look like options', () => {
  assert.deepEqual(testArguments('/p/a.abltest.yaml'), ['test', '--format', 'json', '/p/a.abltest.yaml']);
  assert.deepEqual(testArguments('/p/a.abltest.yaml', ['one', '-x two']).slice(-2), ['--name=one', '--name=-x two']);
});

test('files run whole share one process; a file with chosen tests runs in its own', () => {
  const chosen = new Map<string, string[] | undefined>([['a', undefined], ['b', ['one']], ['c', undefined], ['d', ['two', 'three']]]);
  assert.deepEqual(runGroups(chosen), [{ files: ['a', 'c'] }, { files: ['b'], names: ['one'] }, { files: ['d'], names: ['two', 'three'] }]);
  assert.deepEqual(runGroups(new Map([['b', ['one']]])), [{ files: ['b'], names: ['one'] }]);
  assert.deepEqual(runGroups(new Map()), []);
  assert.deepEqual(testArguments(['/p/a.abltest.yaml', '/p/c.abltest.yaml']), ['test', '--format', 'json', '/p/a.abltest.yaml', '/p/c.abltest.yaml']);
});
