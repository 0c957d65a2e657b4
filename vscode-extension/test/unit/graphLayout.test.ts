import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { edgeClasses, edgeLabel, Graph, GraphEdge, labelWidth, layoutGraph, sameEdge, spreadLabels } from '../../src/graph/graphLayout';

const node = (id: string, kind = 'agent') => ({ id, kind, label: id, diagnostics: [], uri: null, range: null });
const edge = (from: string, to: string, fields: Partial<GraphEdge> = {}): GraphEdge => ({ from, to, kind: 'handoff', diagnostics: [], uri: null, range: null, ...fields });

const loan: Graph = {
  roots: ['Loan'],
  unreachable: [],
  cycles: [],
  nodes: [node('Loan', 'supervisor'), node('Income'), node('Offer')],
  edges: [
    edge('Loan', 'Income', { returnable: true, condition: 'annual_income IS NOT SET', history: 'summary_only' }),
    edge('Loan', 'Offer', { returnable: false, diagnostics: ['E330'] }),
    edge('Income', 'Loan', { kind: 'return', returnable: true }),
  ],
};

test('layers follow the routes and the way back does not shape them', () => {
  const { nodes } = layoutGraph(loan);
  const x = Object.fromEntries(nodes.map((n) => [n.id, n.x]));
  assert.ok(x.Loan < x.Income && x.Income === x.Offer, JSON.stringify(x));
  const income = nodes.find((n) => n.id === 'Income')!;
  const offer = nodes.find((n) => n.id === 'Offer')!;
  assert.ok(Math.abs(income.y - offer.y) >= 64, 'nodes of a layer do not overlap');
  assert.equal(nodes.find((n) => n.id === 'Loan')!.radius, 18);
});

test('returnable edges are dashed, problem edges red, the way back curves below', () => {
  const { edges } = layoutGraph(loan);
  assert.deepEqual(edges.map((e) => e.classes), ['edge handoff returnable', 'edge handoff permanent problem', 'edge return']);
  assert.deepEqual(edges.map((e) => e.marker), ['returnable', 'problem', 'return']);
  assert.match(edges[2].path, /^M\d/);
  assert.deepEqual(edgeClasses(edge('a', 'b', { kind: 'tool' })), ['edge', 'tool']);
});

test('a cycle is laid out without looping, and edges to unknown nodes are left out', () => {
  const cycle: Graph = { roots: [], unreachable: ['B'], cycles: [['A', 'B']], nodes: [node('A'), node('B')], edges: [edge('A', 'B'), edge('B', 'A'), edge('A', 'Nowhere')] };
  const layout = layoutGraph(cycle);
  assert.equal(layout.nodes.length, 2);
  assert.equal(layout.edges.length, 2);
  assert.match(layout.nodes[1].classes, /unreachable/);
});

test('edge labels name the condition (shortened) and the history mode', () => {
  assert.equal(edgeLabel(edge('a', 'b', { condition: 'x'.repeat(50), history: 'last_n', historyCount: 3 })), `${'x'.repeat(39)}… · history last_n 3`);
  assert.equal(edgeLabel(edge('a', 'b', { via: 'ON_ERROR', history: 'full' })), 'ON_ERROR');
});

test('an edge is found again in a newer graph by its ends, kind and rank, not its position', () => {
  const moved = (e: GraphEdge, line: number): GraphEdge => ({ ...e, range: { start: { line, character: 2 }, end: { line, character: 9 } } });
  const drawn: Graph = { ...loan, edges: [edge('Loan', 'Income'), edge('Loan', 'Income', { via: 'ON_FAILURE' }), edge('Loan', 'Income')] };
  // A route was typed above: everything moved down, and a new edge comes first.
  const fresh: Graph = { ...loan, edges: [moved(edge('Loan', 'Offer'), 3), moved(drawn.edges[0], 12), moved(drawn.edges[1], 20), moved(drawn.edges[2], 30)] };
  assert.equal(sameEdge(fresh, drawn, 0), fresh.edges[1]);
  assert.equal(sameEdge(fresh, drawn, 1), fresh.edges[2]);
  assert.equal(sameEdge(fresh, drawn, 2), fresh.edges[3]);
  assert.equal(sameEdge({ ...loan, edges: [] }, drawn, 0), undefined);
  assert.equal(sameEdge(fresh, drawn, 7), undefined);
});

test('edge labels never cover each other, even for two routes between the same agents', () => {
  const twice: Graph = {
    roots: ['Hub'],
    unreachable: [],
    cycles: [],
    nodes: [node('Hub', 'supervisor'), node('Billing'), node('Orders'), node('Returns')],
    edges: [
      edge('Hub', 'Billing', { condition: 'intent.category == "billing"' }),
      edge('Hub', 'Billing', { condition: 'intent.category == "invoice"' }),
      edge('Hub', 'Orders', { condition: 'order_id IS SET', history: 'none' }),
      edge('Hub', 'Returns', { condition: 'wants_return', history: 'last_n', historyCount: 6 }),
      edge('Billing', 'Hub', { kind: 'return', returnable: true }),
    ],
  };
  const labelled = layoutGraph(twice).edges.filter((e) => e.label !== '');
  assert.equal(labelled.length, 4);
  for (const [i, a] of labelled.entries()) {
    for (const b of labelled.slice(i + 1)) {
      const apart = Math.abs(a.labelX - b.labelX) * 2 >= labelWidth(a.label) + labelWidth(b.label) || Math.abs(a.labelY - b.labelY) >= 14;
      assert.ok(apart, `"${a.label}" at ${a.labelX},${a.labelY} covers "${b.label}" at ${b.labelX},${b.labelY}`);
    }
  }
});

test('labels that do not touch stay where they are', () => {
  assert.deepEqual(spreadLabels([{ x: 0, y: 10, width: 40 }, { x: 100, y: 10, width: 40 }, { x: 0, y: 40, width: 40 }]), [10, 10, 40]);
  assert.deepEqual(spreadLabels([{ x: 0, y: 10, width: 40 }, { x: 10, y: 12, width: 40 }, { x: 5, y: 11, width: 0 }]), [10, 24, 11]);
});
