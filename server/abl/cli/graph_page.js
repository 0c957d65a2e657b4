// The handoff graph page's renderer: plain JavaScript and SVG, no library, no network.
//
// Layout: layers by longest path over the graph with its back edges set aside (the way back
// of a returnable child is drawn but never shapes the layers), then a few sweeps that order
// each layer by the barycentre of its neighbours. Forward edges are cubic curves; backward ones
// (a way back, a loop) run through the gaps between layers and below every box between their
// ends; each label takes the first place along its edge, on either side, that no other edge's
// line, no box and no other label covers. The editor's graph view
// (vscode-extension/src/graph/graphLayout.ts) lays out, routes and labels the same way, so the
// two drawings agree: change both together. Drawing: one <g data-node="ID"> per node and
// one <g data-edge="N"> per edge (N its index in the data). The mouse wheel zooms, dragging
// pans, a click shows where a node or edge is written and what is wrong with it.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("graph-data").textContent);
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.getElementById("graph");
  const scene = make("g", { id: "scene" });
  svg.appendChild(scene);

  const LAYER_GAP = 90, ROW_GAP = 64, NODE_HEIGHT = 38, SWEEPS = 6;
  const ids = data.nodes.map((n) => n.id);
  const known = new Set(ids);
  const nodeById = new Map(data.nodes.map((n) => [n.id, n]));

  function make(tag, attrs, text) {
    const el = document.createElementNS(NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) el.setAttribute(key, value);
    if (text !== undefined) el.textContent = text;
    return el;
  }

  // --- layers -----------------------------------------------------------------------------
  const shaping = data.edges.filter((e) => e.kind !== "return" && e.from !== e.to && known.has(e.from) && known.has(e.to));
  const out = new Map(ids.map((id) => [id, []]));
  shaping.forEach((e) => out.get(e.from).push(e.to));
  const back = new Set(); // "from\u0000to" of edges that close a loop
  const state = new Map(); // 1: on the path, 2: done
  for (const start of data.roots.concat(ids)) {
    if (state.has(start)) continue;
    const stack = [[start, 0]];
    state.set(start, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const next = out.get(top[0])[top[1]++];
      if (next === undefined) { state.set(top[0], 2); stack.pop(); continue; }
      if (state.get(next) === 1) back.add(top[0] + "\u0000" + next);
      else if (!state.has(next)) { state.set(next, 1); stack.push([next, 0]); }
    }
  }
  const forward = shaping.filter((e) => !back.has(e.from + "\u0000" + e.to));
  const incoming = new Map(ids.map((id) => [id, 0]));
  forward.forEach((e) => incoming.set(e.to, incoming.get(e.to) + 1));
  const layer = new Map(ids.map((id) => [id, 0]));
  const ready = ids.filter((id) => incoming.get(id) === 0);
  const successors = new Map(ids.map((id) => [id, []]));
  const predecessors = new Map(ids.map((id) => [id, []]));
  forward.forEach((e) => { successors.get(e.from).push(e.to); predecessors.get(e.to).push(e.from); });
  while (ready.length) {
    const id = ready.shift();
    for (const next of successors.get(id)) {
      layer.set(next, Math.max(layer.get(next), layer.get(id) + 1));
      incoming.set(next, incoming.get(next) - 1);
      if (incoming.get(next) === 0) ready.push(next);
    }
  }

  // --- order within layers ----------------------------------------------------------------
  const layers = [];
  ids.forEach((id) => { (layers[layer.get(id)] = layers[layer.get(id)] || []).push(id); });
  const row = new Map();
  layers.forEach((ids) => ids.forEach((id, i) => row.set(id, i)));
  function sweep(order, neighbours) {
    for (const ids of order) {
      const centre = new Map(ids.map((id) => {
        const near = neighbours.get(id);
        return [id, near.length ? near.reduce((sum, n) => sum + row.get(n), 0) / near.length : row.get(id)];
      }));
      ids.sort((a, b) => centre.get(a) - centre.get(b));
      ids.forEach((id, i) => row.set(id, i));
    }
  }
  for (let i = 0; i < SWEEPS; i++) {
    sweep(layers.slice(1), predecessors);
    sweep(layers.slice(0, -1).reverse(), successors);
  }

  // --- positions ----------------------------------------------------------------------------
  // Each layer as wide as its widest node; within a layer, each node as near the mean height of
  // its neighbours in the layer before (then after) as the order and the row gap allow.
  const width = (node) => Math.max(120, 7.2 * displayName(node).length + 28);
  const left = [];
  let x = 0;
  // The gap after a layer is wide enough for the labels of the edges that leave it.
  const LABEL_CHAR_WIDTH = 5.5, LABEL_HEIGHT = 13;
  const labelWidth = (text) => (text ? LABEL_CHAR_WIDTH * text.length + 8 : 0);
  const gapAfter = layers.map(() => LAYER_GAP);
  forward.forEach((e) => {
    const l = layer.get(e.from);
    gapAfter[l] = Math.max(gapAfter[l], labelWidth(edgeLabel(e)) + 24);
  });
  layers.forEach((ids, l) => { left[l] = x; x += Math.max(...ids.map((id) => width(nodeById.get(id)))) + gapAfter[l]; });
  const top = new Map();
  layers.forEach((ids) => ids.forEach((id, i) => top.set(id, i * ROW_GAP)));
  function settle(ids, neighbours) {
    let last = -Infinity;
    for (const id of ids) {
      const near = neighbours.get(id);
      const want = near.length ? near.reduce((sum, n) => sum + top.get(n), 0) / near.length : top.get(id);
      const at = Math.max(want, last + ROW_GAP);
      top.set(id, at);
      last = at;
    }
  }
  for (let i = 0; i < 3; i++) {
    layers.slice(1).forEach((ids) => settle(ids, predecessors));
    layers.slice(0, -1).reverse().forEach((ids) => settle(ids, successors));
  }
  const place = new Map();
  layers.forEach((ids, l) => ids.forEach((id) => {
    place.set(id, { x: left[l], y: top.get(id), w: width(nodeById.get(id)), h: NODE_HEIGHT });
  }));

  function displayName(node) {
    const prefix = { tool: "tool ", remote: "remote ", missing: "missing " }[node.kind] || "";
    return (node.project ? node.project + ": " : "") + prefix + node.label;
  }

  // --- drawing ------------------------------------------------------------------------------
  const unreachable = new Set(data.unreachable);
  const edgeLayer = make("g", { class: "edges" });
  const nodeLayer = make("g", { class: "nodes" });
  scene.appendChild(edgeLayer);
  scene.appendChild(nodeLayer);

  // --- routes and label places -------------------------------------------------------------
  const LABEL_ABOVE_CURVE = 13, LABEL_BELOW_RUN = 24, WAY_BACK_CLEARANCE = 20, WAY_BACK_REACH = 24, CURVE_SAMPLES = 24;
  const CURVE_FRACTIONS = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8], RUN_FRACTIONS = [0.5, 0.35, 0.65, 0.2, 0.8];
  // The right edge of each layer's widest node: a way back climbs into its target beside it.
  const layerRight = layers.map((ids) => Math.max(...ids.map((id) => place.get(id).x + place.get(id).w)));
  const boxes = [...place.values()];
  const wayBacks = [];
  const routes = new Map(); // edge index -> { d, line: the drawn line as a polyline, places }
  data.edges.forEach((edge, index) => {
    const a = place.get(edge.from), b = place.get(edge.to);
    if (!a || !b) return;
    if (edge.kind === "return" || a.x + a.w + 20 >= b.x) {
      const route = wayBack(a, b, layerRight[layer.get(edge.to)], wayBacks);
      wayBacks.push(route);
      routes.set(index, { d: roundedPath(route), line: route, places: runLabelPlaces(route[2], route[3]) });
      return;
    }
    const along = curvePoint(a, b), line = [];
    for (let i = 0; i <= CURVE_SAMPLES; i++) line.push(along(i / CURVE_SAMPLES));
    routes.set(index, { d: curve(a, b), line: line, places: curveLabelPlaces(along) });
  });

  // Taken from the top, each label takes the first of its places that no other edge's line, no
  // box and no label already placed covers; when all are covered, it keeps the first, moved down
  // below the labels it would cover (two labels never print on top of each other).
  const labelAt = new Map();
  const taken = [];
  [...routes.entries()]
    .map(([index, route]) => ({ index: index, route: route, width: labelWidth(edgeLabel(data.edges[index])) }))
    .filter((label) => label.width > 0)
    .sort((p, q) => p.route.places[0].y - q.route.places[0].y || p.route.places[0].x - q.route.places[0].x || p.index - q.index)
    .forEach((label) => {
      const clear = (at) => {
        const box = labelBox(at, label.width);
        return !taken.some((t) => overlap(t, box)) && !boxes.some((b) => overlap(b, box)) &&
          ![...routes.entries()].some(([other, route]) => other !== label.index && lineCrosses(route.line, box));
      };
      let at = label.route.places.find(clear);
      if (!at) {
        const first = label.route.places[0];
        let y = first.y;
        for (;;) {
          const box = labelBox({ x: first.x, y: y }, label.width);
          const hit = taken.find((t) => overlap(t, box));
          if (!hit) break;
          y = hit.y + LABEL_HEIGHT * 2 - 3; // the baseline just below `hit`: strictly lower each time, so this ends
        }
        at = { x: first.x, y: y };
      }
      taken.push(labelBox(at, label.width));
      labelAt.set(label.index, at);
    });

  data.edges.forEach((edge, index) => {
    const a = place.get(edge.from), b = place.get(edge.to);
    if (!a || !b) return;
    const classes = ["edge", edge.kind];
    if (edge.kind === "handoff") classes.push(edge.returnable ? "returnable" : "permanent");
    if (edge.diagnostics.length) classes.push("problem");
    const g = make("g", { class: classes.join(" "), "data-edge": String(index) });
    const d = routes.get(index).d;
    g.appendChild(make("path", { d: d, class: "hit" }));
    const line = make("path", { d: d, class: "line" });
    if (edge.kind !== "tool") line.setAttribute("marker-end", "url(#arrow-" + markerOf(classes) + ")");
    g.appendChild(line);
    const label = edgeLabel(edge), at = labelAt.get(index);
    if (label && at) g.appendChild(make("text", { x: at.x, y: at.y, class: "label" }, label));
    g.addEventListener("click", (event) => { if (!moved) show(edgeInfo(edge)); event.stopPropagation(); });
    edgeLayer.appendChild(g);
  });

  data.nodes.forEach((node) => {
    const p = place.get(node.id);
    const classes = ["node", node.kind];
    if (node.diagnostics.length) classes.push("problem");
    if (unreachable.has(node.id)) classes.push("unreachable");
    const g = make("g", { class: classes.join(" "), "data-node": node.id, transform: "translate(" + p.x + "," + p.y + ")" });
    const radius = node.kind === "supervisor" ? 18 : node.kind === "tool" ? 2 : 6;
    g.appendChild(make("rect", { width: p.w, height: p.h, rx: radius, ry: radius }));
    g.appendChild(make("text", { x: p.w / 2, y: p.h / 2 + 4 }, displayName(node)));
    g.addEventListener("click", (event) => { if (!moved) show(nodeInfo(node)); event.stopPropagation(); });
    nodeLayer.appendChild(g);
  });

  function curve(a, b) {
    const x1 = a.x + a.w, y1 = a.y + a.h / 2, x2 = b.x, y2 = b.y + b.h / 2;
    const dx = (x2 - x1) / 2;
    return `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
  }

  // The point at t (0 to 1) along the forward curve from a to b.
  function curvePoint(a, b) {
    const x1 = a.x + a.w, y1 = a.y + a.h / 2, x2 = b.x, y2 = b.y + b.h / 2;
    const dx = (x2 - x1) / 2;
    return (t) => {
      const u = 1 - t, w0 = u * u * u, w1 = 3 * u * u * t, w2 = 3 * u * t * t, w3 = t * t * t;
      return { x: w0 * x1 + w1 * (x1 + dx) + w2 * (x2 - dx) + w3 * x2, y: (w0 + w1) * y1 + (w2 + w3) * y2 };
    };
  }

  // A forward label's places: above the curve along it, then below it.
  function curveLabelPlaces(along) {
    const points = CURVE_FRACTIONS.map(along);
    return points.map((p) => ({ x: p.x, y: p.y - LABEL_ABOVE_CURVE })).concat(points.map((p) => ({ x: p.x, y: p.y + LABEL_BELOW_RUN })));
  }

  // A way back's label places: below its bottom run along it, then above it.
  function runLabelPlaces(start, end) {
    const points = RUN_FRACTIONS.map((f) => ({ x: start.x + (end.x - start.x) * f, y: start.y }));
    return points.map((p) => ({ x: p.x, y: p.y + LABEL_BELOW_RUN })).concat(points.map((p) => ({ x: p.x, y: p.y - LABEL_ABOVE_CURVE })));
  }

  // A backward edge as right angles: out of the source's left side (below its middle) into the
  // gap before its layer, down below every box between its ends and below the ways back already
  // drawn over the same stretch, across, up the gap after the target's layer and into the
  // target's right side. No part of it passes over a box.
  function wayBack(a, b, targetLayerRight, drawn) {
    const out = a.x - WAY_BACK_REACH, back = targetLayerRight + WAY_BACK_REACH;
    const from = Math.min(out, back), to = Math.max(out, back);
    const under = boxes.filter((box) => box.x < to && box.x + box.w > from).map((box) => box.y + box.h);
    let floor = Math.max(a.y + a.h, b.y + b.h, ...under) + WAY_BACK_CLEARANCE;
    for (const route of drawn) {
      const x1 = Math.min(route[2].x, route[3].x), x2 = Math.max(route[2].x, route[3].x);
      if (x1 < to && x2 > from) floor = Math.max(floor, route[2].y + LABEL_BELOW_RUN + WAY_BACK_CLEARANCE);
    }
    const sy = a.y + (a.h * 3) / 4, ty = b.y + (b.h * 3) / 4;
    return [{ x: a.x, y: sy }, { x: out, y: sy }, { x: out, y: floor }, { x: back, y: floor }, { x: back, y: ty }, { x: b.x + b.w, y: ty }];
  }

  // An SVG path through the points with its corners rounded.
  function roundedPath(points) {
    const r = 8;
    let d = `M${points[0].x},${points[0].y}`;
    for (let i = 1; i < points.length - 1; i++) {
      const p = points[i - 1], c = points[i], n = points[i + 1];
      const towards = (q) => {
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

  // The box a label of `width` covers when its baseline is centred on `at`.
  function labelBox(at, width) { return { x: at.x - width / 2, y: at.y - LABEL_HEIGHT + 3, w: width, h: LABEL_HEIGHT }; }
  function overlap(p, q) { return p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h; }

  // Whether a segment passes through the inside of a box (along its border or through a corner
  // is not), by clipping the segment to the box.
  function segmentCrosses(p, q, box) {
    const dx = q.x - p.x, dy = q.y - p.y;
    let enter = 0, leave = 1;
    for (const [towards, room] of [[-dx, p.x - box.x], [dx, box.x + box.w - p.x], [-dy, p.y - box.y], [dy, box.y + box.h - p.y]]) {
      if (towards === 0) { if (room <= 0) return false; }
      else if (towards < 0) enter = Math.max(enter, room / towards);
      else leave = Math.min(leave, room / towards);
    }
    return enter < leave;
  }
  function lineCrosses(line, box) { return line.some((p, i) => i > 0 && segmentCrosses(line[i - 1], p, box)); }

  function markerOf(classes) {
    for (const kind of ["problem", "returnable", "return", "escalate"]) if (classes.includes(kind)) return kind;
    return "plain";
  }

  function edgeLabel(edge) {
    const parts = [];
    if (edge.via) parts.push(edge.via);
    if (edge.condition) parts.push(edge.condition.length > 40 ? edge.condition.slice(0, 39) + "…" : edge.condition);
    if (edge.kind === "handoff" && edge.history && !edge.via) parts.push("history " + edge.history + (edge.historyCount != null ? " " + edge.historyCount : ""));
    return parts.join(" · ");
  }

  // --- details --------------------------------------------------------------------------------
  const info = document.getElementById("info");
  function where(item) {
    if (!item.path || !item.range) return "not written in this project";
    return item.path + ":" + (item.range.start.line + 1) + ":" + (item.range.start.character + 1);
  }
  function nodeInfo(node) {
    return [["Node", displayName(node)], ["Kind", node.kind], ["Written at", where(node)],
      ["Problems", node.diagnostics.join(", ") || "none"], ["Unreachable", unreachable.has(node.id) ? "yes" : "no"]];
  }
  function edgeInfo(edge) {
    const rows = [["Edge", edge.from + " → " + edge.to], ["Kind", edge.kind + (edge.kind === "handoff" ? (edge.returnable ? ", returnable" : ", permanent") : "")]];
    if (edge.handBack) rows.push(["Hand-back", "resumes the waiting parent"]);
    if (edge.condition) rows.push(["When", edge.condition]);
    if (edge.history) rows.push(["History", edge.history + (edge.historyCount != null ? " " + edge.historyCount : "")]);
    if (edge.pass.length) rows.push(["Pass", edge.pass.join(", ")]);
    if (edge.map.length) rows.push(["Map", edge.map.map((m) => m.child + " → " + m.parent).join(", ")]);
    rows.push(["Written at", where(edge)], ["Problems", edge.diagnostics.join(", ") || "none"]);
    return rows;
  }
  function show(rows) {
    info.replaceChildren();
    for (const [key, value] of rows) {
      const dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = key;
      dd.textContent = value;
      info.append(dt, dd);
    }
  }

  // --- pan and zoom ---------------------------------------------------------------------------
  const view = { x: 20, y: 20, k: 1 };
  function apply() { scene.setAttribute("transform", `translate(${view.x},${view.y}) scale(${view.k})`); }
  function fit() {
    const box = scene.getBBox(), frame = svg.getBoundingClientRect();
    if (!box.width || !frame.width) return apply();
    view.k = Math.min(1.2, (frame.width - 40) / box.width, (frame.height - 40) / box.height);
    view.x = (frame.width - box.width * view.k) / 2 - box.x * view.k;
    view.y = (frame.height - box.height * view.k) / 2 - box.y * view.k;
    apply();
  }
  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    const frame = svg.getBoundingClientRect();
    const px = event.clientX - frame.left, py = event.clientY - frame.top;
    const k = Math.min(8, Math.max(0.05, view.k * Math.exp(-event.deltaY * 0.0015)));
    view.x = px - ((px - view.x) * k) / view.k;
    view.y = py - ((py - view.y) * k) / view.k;
    view.k = k;
    apply();
  }, { passive: false });
  let drag = null, moved = false;
  svg.addEventListener("mousedown", (event) => { drag = { x: event.clientX, y: event.clientY, vx: view.x, vy: view.y }; moved = false; });
  window.addEventListener("mousemove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) moved = true;
    view.x = drag.vx + dx;
    view.y = drag.vy + dy;
    apply();
  });
  window.addEventListener("mouseup", () => { drag = null; });
  document.getElementById("fit").addEventListener("click", fit);

  // --- lists --------------------------------------------------------------------------------
  function fill(id, items, empty) {
    const list = document.getElementById(id);
    list.replaceChildren();
    if (!items.length) { const li = document.createElement("li"); li.textContent = empty; li.className = "none"; list.append(li); }
    for (const item of items) { const li = document.createElement("li"); li.textContent = item; list.append(li); }
  }
  fill("unreachable", data.unreachable, "none");
  fill("cycles", data.cycles.map((c) => c.concat([c[0]]).join(" → ")), "none");
  document.getElementById("counts").textContent = data.nodes.length + " nodes, " + data.edges.length + " edges";
  fit();
})();
