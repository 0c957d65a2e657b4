// Pure layout of the handoff graph (layered as `abl graph --format html` lays it out): layers by longest
// path with the back edges set aside (the way back of a returnable child never shapes the
// layers), a few sweeps ordering each layer by the barycentre of its neighbours, then heights
// pulled towards the neighbours'. Forward edges are cubic curves; backward ones (a way back, a
// loop) run through the gaps between layers and below the boxes they pass (`wayBack`). Each
// label takes the first place along its edge, on either side, that no other edge's line, no box
// and no other label covers (`placeLabels`). The page of `abl graph --format html`
// (`server/abl/cli/graph_page.js`, which cannot import this module) lays out, routes and labels
// the graph the same way, so the two drawings agree: change both together.

export interface GraphNode {
  readonly id: string;
  readonly kind: string;
  readonly label: string;
  readonly project?: string;
  readonly diagnostics: readonly string[];
  readonly uri: string | null;
  readonly range: unknown;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: string;
  readonly returnable?: boolean;
  readonly history?: string | null;
  readonly historyCount?: number | null;
  readonly condition?: string | null;
  readonly via?: string | null;
  readonly diagnostics: readonly string[];
  readonly uri: string | null;
  readonly range: unknown;
}

export interface Graph {
  readonly roots: readonly string[];
  readonly unreachable: readonly string[];
  readonly cycles: readonly (readonly string[])[];
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export interface PlacedNode extends Box {
  readonly index: number;
  readonly id: string;
  readonly name: string;
  readonly classes: string;
  readonly radius: number;
}

export interface PlacedEdge {
  readonly index: number;
  readonly path: string;
  readonly classes: string;
  readonly marker: string;
  readonly label: string;
  readonly labelX: number;
  readonly labelY: number;
  /** The drawn line as a polyline (a curve sampled), which other edges' labels keep clear of. */
  readonly points: readonly Point[];
}

export interface Layout {
  readonly nodes: PlacedNode[];
  readonly edges: PlacedEdge[];
}

const LAYER_GAP = 90;
const ROW_GAP = 64;
const NODE_HEIGHT = 38;
const SWEEPS = 6;
const SETTLE_PASSES = 3;
// Edge labels are 11px text: about 6px a character, a line 14px high.
const LABEL_CHAR_WIDTH = 6;
const LABEL_HEIGHT = 14;
// A run's step badge (graph.js) sits on the middle of its edge, 18px high: a label's baseline
// keeps clear of it, above a forward curve's middle and below a way back's bottom run.
const LABEL_ABOVE_CURVE = 13;
const LABEL_BELOW_RUN = 24;

export function displayName(node: GraphNode): string {
  const prefix = ({ tool: 'tool ', remote: 'remote ', missing: 'missing ' } as Record<string, string>)[node.kind] ?? '';
  return (node.project ? `${node.project}: ` : '') + prefix + node.label;
}

const nodeWidth = (node: GraphNode) => Math.max(120, 7.2 * displayName(node).length + 28);

/** Edges that close a loop, found by a depth-first walk from the roots, then from every node. */
function backEdges(ids: readonly string[], roots: readonly string[], out: Map<string, string[]>): Set<string> {
  const back = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  for (const start of [...roots, ...ids]) {
    if (state.has(start) || !out.has(start)) {
      continue;
    }
    const stack: Array<[string, number]> = [[start, 0]];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const next = out.get(top[0])![top[1]++];
      if (next === undefined) {
        state.set(top[0], 'done');
        stack.pop();
      } else if (state.get(next) === 'open') {
        back.add(`${top[0]}\u0000${next}`);
      } else if (!state.has(next)) {
        state.set(next, 'open');
        stack.push([next, 0]);
      }
    }
  }
  return back;
}

/** Each node's layer: the longest path to it over the forward edges. */
function layerOf(ids: readonly string[], forward: readonly GraphEdge[]): Map<string, number> {
  const incoming = new Map(ids.map((id) => [id, 0]));
  forward.forEach((e) => incoming.set(e.to, incoming.get(e.to)! + 1));
  const layer = new Map(ids.map((id) => [id, 0]));
  const ready = ids.filter((id) => incoming.get(id) === 0);
  while (ready.length > 0) {
    const id = ready.shift()!;
    for (const e of forward.filter((edge) => edge.from === id)) {
      layer.set(e.to, Math.max(layer.get(e.to)!, layer.get(id)! + 1));
      incoming.set(e.to, incoming.get(e.to)! - 1);
      if (incoming.get(e.to) === 0) {
        ready.push(e.to);
      }
    }
  }
  return layer;
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

export function layoutGraph(graph: Graph): Layout {
  const ids = graph.nodes.map((n) => n.id);
  const known = new Set(ids);
  const shaping = graph.edges.filter((e) => e.kind !== 'return' && e.from !== e.to && known.has(e.from) && known.has(e.to));
  const out = new Map(ids.map((id) => [id, [] as string[]]));
  shaping.forEach((e) => out.get(e.from)!.push(e.to));
  const back = backEdges(ids, graph.roots, out);
  const forward = shaping.filter((e) => !back.has(`${e.from}\u0000${e.to}`));
  const layer = layerOf(ids, forward);
  const successors = new Map(ids.map((id) => [id, [] as string[]]));
  const predecessors = new Map(ids.map((id) => [id, [] as string[]]));
  forward.forEach((e) => {
    successors.get(e.from)!.push(e.to);
    predecessors.get(e.to)!.push(e.from);
  });

  const layers: string[][] = [];
  ids.forEach((id) => (layers[layer.get(id)!] ??= []).push(id));
  const row = new Map<string, number>();
  layers.forEach((members) => members.forEach((id, i) => row.set(id, i)));
  const sweep = (order: string[][], neighbours: Map<string, string[]>) => {
    for (const members of order) {
      const centre = new Map(members.map((id) => {
        const near = neighbours.get(id)!;
        return [id, near.length > 0 ? mean(near.map((n) => row.get(n)!)) : row.get(id)!];
      }));
      members.sort((a, b) => centre.get(a)! - centre.get(b)!);
      members.forEach((id, i) => row.set(id, i));
    }
  };
  for (let i = 0; i < SWEEPS; i++) {
    sweep(layers.slice(1), predecessors);
    sweep(layers.slice(0, -1).reverse(), successors);
  }

  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const left: number[] = [];
  let x = 0;
  // The gap after a layer is wide enough for the labels of the edges that leave it.
  const gapAfter = layers.map(() => LAYER_GAP);
  forward.forEach((e) => {
    const l = layer.get(e.from)!;
    gapAfter[l] = Math.max(gapAfter[l], labelWidth(edgeLabel(e)) + 24);
  });
  layers.forEach((members, l) => {
    left[l] = x;
    x += Math.max(...members.map((id) => nodeWidth(byId.get(id)!))) + gapAfter[l];
  });
  const top = new Map<string, number>();
  layers.forEach((members) => members.forEach((id, i) => top.set(id, i * ROW_GAP)));
  const settle = (members: string[], neighbours: Map<string, string[]>) => {
    let last = -Infinity;
    for (const id of members) {
      const near = neighbours.get(id)!;
      const want = near.length > 0 ? mean(near.map((n) => top.get(n)!)) : top.get(id)!;
      const at = Math.max(want, last + ROW_GAP);
      top.set(id, at);
      last = at;
    }
  };
  for (let i = 0; i < SETTLE_PASSES; i++) {
    layers.slice(1).forEach((members) => settle(members, predecessors));
    layers.slice(0, -1).reverse().forEach((members) => settle(members, successors));
  }

  const unreachable = new Set(graph.unreachable);
  const place = new Map<string, Box>();
  const nodes = graph.nodes.map((node, index): PlacedNode => {
    const box = { x: left[layer.get(node.id)!], y: top.get(node.id)!, w: nodeWidth(node), h: NODE_HEIGHT };
    place.set(node.id, box);
    const classes = ['node', node.kind];
    if (node.diagnostics.length > 0) classes.push('problem');
    if (unreachable.has(node.id)) classes.push('unreachable');
    const radius = node.kind === 'supervisor' ? 18 : node.kind === 'tool' ? 2 : 6;
    return { ...box, index, id: node.id, name: displayName(node), classes: classes.join(' '), radius };
  });
  // The right edge of each layer's widest node: a way back climbs into its target beside it.
  const layerRight = layers.map((members) => Math.max(...members.map((id) => place.get(id)!.x + place.get(id)!.w)));
  const boxes = [...place.values()];
  const wayBacks: Point[][] = [];
  const edges: PlacedEdge[] = [];
  const places: Point[][] = [];
  graph.edges.forEach((edge, index) => {
    const a = place.get(edge.from);
    const b = place.get(edge.to);
    if (a === undefined || b === undefined) {
      return;
    }
    const classes = edgeClasses(edge);
    const label = edgeLabel(edge);
    const common = { index, classes: classes.join(' '), marker: edge.kind === 'tool' ? '' : markerOf(classes), label };
    if (edge.kind === 'return' || a.x + a.w + 20 >= b.x) {
      const route = wayBack(a, b, layerRight[layer.get(edge.to)!], boxes, wayBacks);
      wayBacks.push(route);
      const labelPlaces = runLabelPlaces(route[2], route[3]);
      places.push(labelPlaces);
      edges.push({ ...common, path: roundedPath(route), labelX: labelPlaces[0].x, labelY: labelPlaces[0].y, points: route });
      return;
    }
    const along = curvePoint(a, b);
    const labelPlaces = curveLabelPlaces(along);
    places.push(labelPlaces);
    const points = Array.from({ length: CURVE_SAMPLES + 1 }, (_, i) => along(i / CURVE_SAMPLES));
    edges.push({ ...common, path: curve(a, b), labelX: labelPlaces[0].x, labelY: labelPlaces[0].y, points });
  });
  const placed = placeLabels(edges.map((e, i) => ({ width: labelWidth(e.label), places: places[i] })), edges.map((e) => e.points), boxes);
  return { nodes, edges: edges.map((e, i) => (placed[i].x === e.labelX && placed[i].y === e.labelY ? e : { ...e, labelX: placed[i].x, labelY: placed[i].y })) };
}

/** How finely a curve is sampled into the polyline that labels keep clear of. */
const CURVE_SAMPLES = 24;
/** Where along its edge a label may sit, the middle first, then further out on either side. */
const CURVE_FRACTIONS = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8];
const RUN_FRACTIONS = [0.5, 0.35, 0.65, 0.2, 0.8];

/** A forward label's places: above the curve (clear of a step badge) along it, then below it. */
function curveLabelPlaces(along: (t: number) => Point): Point[] {
  const points = CURVE_FRACTIONS.map(along);
  return [...points.map((p) => ({ x: p.x, y: p.y - LABEL_ABOVE_CURVE })), ...points.map((p) => ({ x: p.x, y: p.y + LABEL_BELOW_RUN }))];
}

/** A way back's label places: below its bottom run along it, then above it. */
function runLabelPlaces(start: Point, end: Point): Point[] {
  const points = RUN_FRACTIONS.map((f) => ({ x: start.x + (end.x - start.x) * f, y: start.y }));
  return [...points.map((p) => ({ x: p.x, y: p.y + LABEL_BELOW_RUN })), ...points.map((p) => ({ x: p.x, y: p.y - LABEL_ABOVE_CURVE }))];
}

/** The box a label of `width` covers when its baseline is centred on `at`. */
export function labelBox(at: Point, width: number): Box {
  return { x: at.x - width / 2, y: at.y - LABEL_HEIGHT + 3, w: width, h: LABEL_HEIGHT };
}

const boxesOverlap = (p: Box, q: Box) => p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h;

/** Whether the segment from `p` to `q` passes through the inside of `box` (running along its
 * border or touching a corner is not), by clipping the segment to the box. */
export function segmentCrossesBox(p: Point, q: Point, box: Box): boolean {
  const dx = q.x - p.x, dy = q.y - p.y;
  let enter = 0, leave = 1;
  for (const [towards, room] of [[-dx, p.x - box.x], [dx, box.x + box.w - p.x], [-dy, p.y - box.y], [dy, box.y + box.h - p.y]]) {
    if (towards === 0) {
      if (room <= 0) return false;
    } else if (towards < 0) {
      enter = Math.max(enter, room / towards);
    } else {
      leave = Math.min(leave, room / towards);
    }
  }
  return enter < leave;
}

const lineCrossesBox = (line: readonly Point[], box: Box) => line.some((p, i) => i > 0 && segmentCrossesBox(line[i - 1], p, box));

/**
 * Where each label goes: taken from the top, each label takes the first of its `places` (its
 * edge's middle first) that no other edge's line (`lines`, one per label), no box and no label
 * already placed covers. When every place is covered, it keeps its first place, moved down below
 * the labels it would cover: two labels never print on top of each other.
 */
export function placeLabels(labels: readonly { width: number; places: readonly Point[] }[], lines: readonly (readonly Point[])[], boxes: readonly Box[]): Point[] {
  const result = labels.map((l) => l.places[0]);
  const taken: Box[] = [];
  const order = labels.map((_, i) => i).filter((i) => labels[i].width > 0);
  order.sort((a, b) => labels[a].places[0].y - labels[b].places[0].y || labels[a].places[0].x - labels[b].places[0].x || a - b);
  for (const i of order) {
    const { width, places } = labels[i];
    const clear = (at: Point) => {
      const box = labelBox(at, width);
      return !taken.some((t) => boxesOverlap(t, box)) && !boxes.some((b) => boxesOverlap(b, box)) && !lines.some((line, j) => j !== i && lineCrossesBox(line, box));
    };
    let at = places.find(clear);
    if (at === undefined) {
      let y = places[0].y;
      for (;;) {
        const box = labelBox({ x: places[0].x, y }, width);
        const hit = taken.find((t) => boxesOverlap(t, box));
        if (hit === undefined) break;
        y = hit.y + LABEL_HEIGHT * 2 - 3; // the baseline of a label just below `hit`: strictly lower each time, so this ends
      }
      at = { x: places[0].x, y };
    }
    taken.push(labelBox(at, width));
    result[i] = at;
  }
  return result;
}

export const labelWidth = (text: string) => (text === '' ? 0 : LABEL_CHAR_WIDTH * text.length + 8);

/** `returnable` edges are drawn dashed and `problem` ones red (media/graph.css). */
export function edgeClasses(edge: GraphEdge): string[] {
  const classes = ['edge', edge.kind];
  if (edge.kind === 'handoff') classes.push(edge.returnable ? 'returnable' : 'permanent');
  if (edge.diagnostics.length > 0) classes.push('problem');
  return classes;
}

function markerOf(classes: readonly string[]): string {
  return ['problem', 'returnable', 'return', 'escalate'].find((kind) => classes.includes(kind)) ?? 'plain';
}

export function edgeLabel(edge: GraphEdge): string {
  const parts: string[] = [];
  if (edge.via) parts.push(edge.via);
  if (edge.condition) parts.push(edge.condition.length > 40 ? `${edge.condition.slice(0, 39)}…` : edge.condition);
  if (edge.kind === 'handoff' && edge.history && !edge.via) parts.push(`history ${edge.history}${edge.historyCount != null ? ` ${edge.historyCount}` : ''}`);
  return parts.join(' · ');
}

/** The point at `t` (0 to 1) along the forward curve from `a` to `b` (`curve`). */
function curvePoint(a: Box, b: Box): (t: number) => Point {
  const x1 = a.x + a.w, y1 = a.y + a.h / 2, x2 = b.x, y2 = b.y + b.h / 2;
  const dx = (x2 - x1) / 2;
  return (t) => {
    const u = 1 - t;
    const [w0, w1, w2, w3] = [u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t];
    return { x: w0 * x1 + w1 * (x1 + dx) + w2 * (x2 - dx) + w3 * x2, y: (w0 + w1) * y1 + (w2 + w3) * y2 };
  };
}

function curve(a: Box, b: Box): string {
  const x1 = a.x + a.w, y1 = a.y + a.h / 2, x2 = b.x, y2 = b.y + b.h / 2;
  const dx = (x2 - x1) / 2;
  return `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

/** Clearance between a way back and the boxes it passes under, and between two ways back. */
const WAY_BACK_CLEARANCE = 20;
/** How far a way back runs into the gap beside its ends before it turns. */
const WAY_BACK_REACH = 24;

/**
 * The route of a backward edge (a child's way back, a loop) as a polyline of right angles: out
 * of the source's left side (below its middle) into the empty gap before its layer, down below every box between
 * its ends, across, up the gap after the target's layer (`targetLayerRight`: that layer's
 * widest node) and into the target's right side. No part of it passes over a box, and its
 * bottom run lies below those of the ways back already drawn over the same stretch (`drawn`),
 * so that their runs and labels stay apart.
 */
export function wayBack(a: Box, b: Box, targetLayerRight: number, boxes: readonly Box[], drawn: readonly Point[][]): Point[] {
  const out = a.x - WAY_BACK_REACH;
  const back = targetLayerRight + WAY_BACK_REACH;
  const from = Math.min(out, back), to = Math.max(out, back);
  const over = (x: number, w: number) => x < to && x + w > from;
  let floor = Math.max(a.y + a.h, b.y + b.h, ...boxes.filter((box) => over(box.x, box.w)).map((box) => box.y + box.h)) + WAY_BACK_CLEARANCE;
  for (const route of drawn) {
    const [x1, x2] = [route[2].x, route[3].x].sort((p, q) => p - q);
    if (x1 < to && x2 > from) {
      floor = Math.max(floor, route[2].y + LABEL_BELOW_RUN + WAY_BACK_CLEARANCE);
    }
  }
  // Below the middle of the sides, where the forward edges end: the two stay apart.
  const sy = a.y + (a.h * 3) / 4, ty = b.y + (b.h * 3) / 4;
  return [
    { x: a.x, y: sy },
    { x: out, y: sy },
    { x: out, y: floor },
    { x: back, y: floor },
    { x: back, y: ty },
    { x: b.x + b.w, y: ty },
  ];
}

/** An SVG path through `points` with its corners rounded. */
function roundedPath(points: readonly Point[]): string {
  const r = 8;
  let d = `M${points[0].x},${points[0].y}`;
  for (let i = 1; i < points.length - 1; i++) {
    const [p, c, n] = [points[i - 1], points[i], points[i + 1]];
    const towards = (q: Point) => {
      const len = Math.hypot(q.x - c.x, q.y - c.y) || 1;
      const k = Math.min(r, len / 2) / len;
      return { x: c.x + (q.x - c.x) * k, y: c.y + (q.y - c.y) * k };
    };
    const inPoint = towards(p), outPoint = towards(n);
    d += ` L${inPoint.x},${inPoint.y} Q${c.x},${c.y} ${outPoint.x},${outPoint.y}`;
  }
  const last = points[points.length - 1];
  return `${d} L${last.x},${last.y}`;
}

/** The edge of `fresh` that is the `index`-th edge of `drawn`: the same ends, kind and `via`,
 * counted in order among such edges (two routes may join the same agents). */
export function sameEdge(fresh: Graph, drawn: Graph, index: number): GraphEdge | undefined {
  const edge = drawn.edges[index];
  if (edge === undefined) {
    return undefined;
  }
  const alike = (e: GraphEdge) => e.from === edge.from && e.to === edge.to && e.kind === edge.kind && (e.via ?? null) === (edge.via ?? null);
  const nth = drawn.edges.slice(0, index).filter(alike).length;
  return fresh.edges.filter(alike)[nth];
}
