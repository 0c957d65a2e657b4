import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentAt, agentHeaders, looksLikeAgentBlueprint } from '../../src/agentHeaders';

test('agent and supervisor headers are found with their lines', () => {
  const text = ['SUPERVISOR: Loan_Supervisor', 'GOAL: "x"', '', 'AGENT: Income_Agent  # note', '  AGENT: Nested_Key'].join('\n');
  assert.deepEqual(agentHeaders(text), [
    { name: 'Loan_Supervisor', kind: 'supervisor', line: 0 },
    { name: 'Income_Agent', kind: 'agent', line: 3 },
  ]);
});

test('a byte-order mark and CRLF line ends do not hide a header', () => {
  assert.deepEqual(agentHeaders('\ufeffAGENT: First\r\nAGENT: Second\r\n'), [
    { name: 'First', kind: 'agent', line: 0 },
    { name: 'Second', kind: 'agent', line: 1 },
  ]);
});

test('names that are not agent names are not headers', () => {
  assert.deepEqual(agentHeaders('AGENT: 2nd_agent\nAGENT: two words\nBEHAVIOR_PROFILE: vip\n'), []);
});

test('Agent Blueprint text is told from other languages by its first significant line', () => {
  assert.equal(looksLikeAgentBlueprint('# tools\n\nTOOLS:\n  x: 1\n'), true);
  assert.equal(looksLikeAgentBlueprint('BEHAVIOR_PROFILE: vip\n'), true);
  assert.equal(looksLikeAgentBlueprint('DEFINE VARIABLE cName AS CHARACTER NO-UNDO.\n'), false);
  assert.equal(looksLikeAgentBlueprint('/* OpenEdge */\nAGENT: X\n'), false);
  assert.equal(looksLikeAgentBlueprint(''), false);
});

test('the agent at a line is the last header at or above it', () => {
  const text = 'SUPERVISOR: Hub\n  GOAL: x\n\nAGENT: Billing\n  GOAL: y\n';
  assert.equal(agentAt(text, 1)?.name, 'Hub');
  assert.equal(agentAt(text, 3)?.name, 'Billing');
  assert.equal(agentAt('# only a comment\n', 0), undefined);
});
