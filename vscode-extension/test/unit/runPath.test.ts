import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { Graph, GraphEdge } from '../../src/graph/graphLayout';
import { takenEdges, takenSteps } from '../../src/graph/runPath';

const node = (id: string, kind = 'agent') => ({ id, kind, label: id, diagnostics: [], uri: null, range: null });
const edge = (from: string, to: string, kind = 'handoff'): GraphEdge => ({ from, to, kind, diagnostics: [], uri: null, range: null });

// The events of seed 004's loan flow, as the run sends them (fields trimmed to what matters).
const loanFlow = [
  { type: 'handoff_condition_check', agent: 'Loan_Supervisor', target: 'Income_Capture_Agent' },
  { type: 'handoff', agent: 'Loan_Supervisor', from: 'Loan_Supervisor', to: 'Income_Capture_Agent' },
  { type: 'handoff_completed', agent: 'Loan_Supervisor', to: 'Income_Capture_Agent' },
  { type: 'gather', agent: 'Income_Capture_Agent', field: 'annual_income' },
  { type: 'handoff_return_handler', agent: 'Loan_Supervisor', from: 'Income_Capture_Agent', to: 'Loan_Supervisor' },
  { type: 'resume_intent', agent: 'Loan_Supervisor' },
  { type: 'handoff', agent: 'Loan_Supervisor', from: 'Loan_Supervisor', to: 'Offer_Agent' },
];

const loan: Graph = {
  roots: ['Loan_Supervisor'],
  unreachable: [],
  cycles: [],
  nodes: [node('Loan_Supervisor', 'supervisor'), node('Income_Capture_Agent'), node('Offer_Agent'), node('escalation:human', 'escalation')],
  edges: [
    edge('Loan_Supervisor', 'Offer_Agent'),
    edge('Loan_Supervisor', 'Income_Capture_Agent'),
    edge('Income_Capture_Agent', 'Loan_Supervisor', 'return'),
    edge('Offer_Agent', 'escalation:human', 'escalate'),
  ],
};

test('the loan flow takes the returnable route, comes back, then takes the permanent one', () => {
  assert.deepEqual(takenSteps(loanFlow), [
    { kind: 'handoff', from: 'Loan_Supervisor', to: 'Income_Capture_Agent' },
    { kind: 'return', from: 'Income_Capture_Agent', to: 'Loan_Supervisor' },
    { kind: 'handoff', from: 'Loan_Supervisor', to: 'Offer_Agent' },
  ]);
  // Ordered by when they were taken, not by where the edges are in the graph.
  assert.deepEqual(takenEdges(loan, takenSteps(loanFlow)), [
    { edge: 1, order: [1] },
    { edge: 2, order: [2] },
    { edge: 0, order: [3] },
  ]);
});

test('an edge taken twice carries both positions; delegations and escalations count', () => {
  const steps = takenSteps([
    ...loanFlow.slice(0, 5),
    { type: 'handoff', agent: 'Loan_Supervisor', from: 'Loan_Supervisor', to: 'Income_Capture_Agent' },
    { type: 'escalate', agent: 'Offer_Agent', reason: 'asked for a human' },
    { type: 'delegate_start', agent: 'Offer_Agent', from: 'Offer_Agent', to: 'Pricing_Agent' },
  ]);
  assert.deepEqual(steps.map((s) => s.kind), ['handoff', 'return', 'handoff', 'escalate', 'delegate']);
  assert.deepEqual(takenEdges(loan, steps), [
    { edge: 1, order: [1, 3] },
    { edge: 2, order: [2] },
    { edge: 3, order: [4] },
  ]);
});

test('a graph of several projects matches its qualified ids; steps outside the drawing are left out', () => {
  const qualified: Graph = { ...loan, nodes: loan.nodes.map((n) => ({ ...n, id: `loan/${n.id}` })), edges: loan.edges.map((e) => ({ ...e, from: `loan/${e.from}`, to: `loan/${e.to}` })) };
  assert.deepEqual(takenEdges(qualified, takenSteps(loanFlow)).map((t) => t.order[0]), [1, 2, 3]);
  const elsewhere = takenSteps([{ type: 'handoff', agent: 'Hub', from: 'Hub', to: 'Orders' }, ...loanFlow.slice(0, 2)]);
  assert.deepEqual(takenEdges(loan, elsewhere), [{ edge: 1, order: [2] }]);
});

test('events without both ends are not steps', () => {
  assert.deepEqual(takenSteps([{ type: 'handoff', agent: 'A', from: 'A' }, { type: 'escalate' }, { type: 'handoff', agent: 'A', from: '', to: 'B' }]), []);
});
