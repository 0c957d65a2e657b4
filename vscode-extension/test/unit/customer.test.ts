import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { agentReply, programHolds } from '../../src/debug/customer';

const FOLDER = path.resolve('/work/loan');
const FILE = path.join(FOLDER, 'agents', 'loan.agent.abl');

test('a session runs the panel\'s file when its program is that file or a folder holding it', () => {
  assert.equal(programHolds(FILE, undefined, FILE), true);
  assert.equal(programHolds(FOLDER, undefined, FILE), true);
  assert.equal(programHolds('agents/loan.agent.abl', FOLDER, FILE), true, 'relative to cwd');
  assert.equal(programHolds('agents', FOLDER, FILE), true);
  assert.equal(programHolds(path.join(FOLDER, 'agents', 'other.agent.abl'), undefined, FILE), false);
  assert.equal(programHolds(path.resolve('/work/loan-other'), undefined, FILE), false, 'a sibling folder whose name starts alike');
  assert.equal(programHolds(path.join(FOLDER, 'agents', 'loan'), undefined, FILE), false);
  assert.equal(programHolds('loan.agent.abl', undefined, FILE), false, 'relative without a cwd: unknown');
  assert.equal(programHolds(undefined, FOLDER, FILE), false);
  assert.equal(programHolds(42, FOLDER, FILE), false);
});

test('agent replies are read from the adapter\'s stdout output events', () => {
  const output = (category: string, text: string) => ({ type: 'event', event: 'output', seq: 3, body: { category, output: text } });
  assert.deepEqual(agentReply(output('stdout', '[Income_Capture_Agent] What is your annual income?\n')), { agent: 'Income_Capture_Agent', text: 'What is your annual income?' });
  assert.deepEqual(agentReply(output('stdout', '[Offer_Agent] Two lines\nof offer\n')), { agent: 'Offer_Agent', text: 'Two lines\nof offer' });
  assert.equal(agentReply(output('console', '> I want a loan offer\n')), undefined, 'what the customer said');
  assert.equal(agentReply(output('console', '[Offer_Agent] logged\n')), undefined, 'a logpoint, not a reply');
  assert.equal(agentReply(output('stdout', 'no agent\n')), undefined);
  assert.equal(agentReply({ type: 'event', event: 'stopped', body: { reason: 'breakpoint' } }), undefined);
  assert.equal(agentReply({ type: 'response', command: 'evaluate', body: { result: '[A] x' } }), undefined);
  assert.equal(agentReply(null), undefined);
});
