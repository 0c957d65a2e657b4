import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { Box, edgeClasses, edgeLabel, Graph, GraphEdge, labelBox, labelWidth, layoutGraph, placeLabels, Point, sameEdge, segmentCrossesBox, wayBack } from '../../src/graph/graphLayout';

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

test('labels that touch nothing stay at their first place; covered ones move down below', () => {
  const at = (x: number, y: number) => ({ width: 40, places: [{ x, y }] });
  assert.deepEqual(placeLabels([at(0, 10), at(100, 10), at(0, 40)], [[], [], []], []), [{ x: 0, y: 10 }, { x: 100, y: 10 }, { x: 0, y: 40 }]);
  assert.deepEqual(placeLabels([at(0, 10), at(10, 12), { width: 0, places: [{ x: 5, y: 11 }] }], [[], [], []], []), [{ x: 0, y: 10 }, { x: 10, y: 24 }, { x: 5, y: 11 }]);
  // A line through the first place sends the label to its second; its own line does not.
  const across = [{ x: -50, y: 5 }, { x: 50, y: 5 }];
  const twoPlaces = { width: 40, places: [{ x: 0, y: 10 }, { x: 0, y: 40 }] };
  assert.deepEqual(placeLabels([twoPlaces, { width: 0, places: [{ x: 0, y: 0 }] }], [[], across], []), [{ x: 0, y: 40 }, { x: 0, y: 0 }]);
  assert.deepEqual(placeLabels([twoPlaces], [across], []), [{ x: 0, y: 10 }]);
});

test('a segment crosses a box only through its inside', () => {
  const box = { x: 0, y: 0, w: 10, h: 10 };
  assert.ok(segmentCrossesBox({ x: -5, y: -5 }, { x: 15, y: 15 }, box));
  assert.ok(segmentCrossesBox({ x: 5, y: -5 }, { x: 5, y: 5 }, box));
  assert.ok(!segmentCrossesBox({ x: -5, y: 0 }, { x: 15, y: 0 }, box), 'along the border');
  assert.ok(!segmentCrossesBox({ x: -5, y: 5 }, { x: 5, y: 15 }, box), 'through a corner');
  assert.ok(!segmentCrossesBox({ x: 11, y: -5 }, { x: 30, y: 15 }, box));
});

test("no edge's label is crossed by another edge's line where its edge offers a clear place", () => {
  // Two agents each hand off to the same two targets: two of the routes cross in the middle of
  // the gap, where a label centred on its edge would be cut through by the other route.
  const crossing: Graph = {
    roots: ['Sales', 'Support'],
    unreachable: [],
    cycles: [],
    nodes: [node('Sales', 'supervisor'), node('Support', 'supervisor'), node('Quotes'), node('Tickets')],
    edges: [
      edge('Sales', 'Quotes', { condition: 'wants_a_quote' }),
      edge('Sales', 'Tickets', { condition: 'angry' }),
      edge('Support', 'Quotes', { condition: 'upsell' }),
      edge('Support', 'Tickets', { condition: 'ticket_id IS SET' }),
    ],
  };
  const { nodes, edges } = layoutGraph(crossing);
  const crossed = (at: Point, width: number, own: number) => edges.filter((e) => e.index !== own && e.points.some((p, i) => i > 0 && segmentCrossesBox(e.points[i - 1], p, labelBox(at, width))));
  // Centred on its middle (the first place), some label is crossed: the case is real.
  const box = (id: string) => nodes.find((n) => n.id === id)!;
  const naive = edges.filter((e) => {
    const [a, b] = [box(crossing.edges[e.index].from), box(crossing.edges[e.index].to)];
    return crossed({ x: (a.x + a.w + b.x) / 2, y: (a.y + b.y) / 2 + a.h / 2 - 13 }, labelWidth(e.label), e.index).length > 0;
  });
  assert.ok(naive.length > 0, 'the middles of the crossing routes are crossed');
  for (const e of edges) {
    const by = crossed({ x: e.labelX, y: e.labelY }, labelWidth(e.label), e.index);
    assert.deepEqual(by.map((o) => o.label), [], `"${e.label}" at ${e.labelX},${e.labelY} is crossed`);
    for (const n of nodes) assert.ok(!boxOverlap(labelBox({ x: e.labelX, y: e.labelY }, labelWidth(e.label)), n), `"${e.label}" covers ${n.id}`);
  }
});

const boxOverlap = (p: Box, q: Box) => p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h;

/** Whether an axis-aligned segment passes through a box (touching its border is not). */
const crosses = (p: Point, q: Point, box: Box) =>
  Math.max(p.x, q.x) > box.x && Math.min(p.x, q.x) < box.x + box.w && Math.max(p.y, q.y) > box.y && Math.min(p.y, q.y) < box.y + box.h;

test("a child's way back passes over no box: not down through the sibling below the child, nor any other", () => {
  // Loan hands off to Income (returnable) and Offer, which sit one above the other in one layer;
  // Income's way back to Loan must not run down through Offer's box.
  const { nodes, edges } = layoutGraph(loan);
  const box = (id: string) => nodes.find((n) => n.id === id)!;
  const route = wayBack(box('Income'), box('Loan'), box('Loan').x + box('Loan').w, nodes, []);
  for (let i = 1; i < route.length; i++) {
    for (const id of ['Loan', 'Income', 'Offer']) {
      assert.ok(!crosses(route[i - 1], route[i], box(id)), `segment ${i} of the way back crosses ${id}: ${JSON.stringify(route)}`);
    }
  }
  // It leaves the child's left side and enters the parent's right side below their middles,
  // where the handoff's curve ends and starts.
  assert.deepEqual([route[0], route[route.length - 1]], [
    { x: box('Income').x, y: box('Income').y + (box('Income').h * 3) / 4 },
    { x: box('Loan').x + box('Loan').w, y: box('Loan').y + (box('Loan').h * 3) / 4 },
  ]);
  const back = edges.find((e) => e.classes === 'edge return')!;
  assert.match(back.path, /^M/);
});

test('two ways back over the same stretch run apart, and their labels sit below their runs', () => {
  const twoChildren: Graph = {
    roots: ['Hub'],
    unreachable: [],
    cycles: [],
    nodes: [node('Hub', 'supervisor'), node('A'), node('B')],
    edges: [edge('Hub', 'A', { returnable: true }), edge('Hub', 'B', { returnable: true }), edge('A', 'Hub', { kind: 'return', returnable: true }), edge('B', 'Hub', { kind: 'return', returnable: true })],
  };
  const { nodes } = layoutGraph(twoChildren);
  const box = (id: string) => nodes.find((n) => n.id === id)!;
  const right = box('Hub').x + box('Hub').w;
  const first = wayBack(box('A'), box('Hub'), right, nodes, []);
  const second = wayBack(box('B'), box('Hub'), right, nodes, [first]);
  assert.ok(second[2].y >= first[2].y + 24 + 14, `the second run (${second[2].y}) is clear of the first's label (${first[2].y})`);
});

test("a forward edge's label sits above the middle, clear of the run's step badge", () => {
  const { nodes, edges } = layoutGraph(loan);
  const loanBox = nodes.find((n) => n.id === 'Loan')!;
  const income = nodes.find((n) => n.id === 'Income')!;
  const middle = (loanBox.y + income.y) / 2 + loanBox.h / 2;
  const label = edges.find((e) => e.classes.startsWith('edge handoff returnable'))!;
  // The badge is 18px high around the middle; an 11px label's baseline 13px above clears it.
  assert.ok(middle - label.labelY >= 9 + 4, `label baseline ${label.labelY}, curve middle ${middle}`);
});

test('a way back across a layer runs below the boxes of the layer between', () => {
  const deep: Graph = {
    roots: ['Hub'],
    unreachable: [],
    cycles: [],
    nodes: [node('Hub', 'supervisor'), node('Middle'), node('Leaf')],
    edges: [edge('Hub', 'Middle'), edge('Middle', 'Leaf'), edge('Leaf', 'Hub', { kind: 'return', returnable: true })],
  };
  const { nodes } = layoutGraph(deep);
  const box = (id: string) => nodes.find((n) => n.id === id)!;
  const route = wayBack(box('Leaf'), box('Hub'), box('Hub').x + box('Hub').w, nodes, []);
  for (let i = 1; i < route.length; i++) {
    assert.ok(!crosses(route[i - 1], route[i], box('Middle')), `segment ${i} crosses Middle: ${JSON.stringify(route)}`);
  }
  assert.ok(route[2].y > box('Middle').y + box('Middle').h);
});
