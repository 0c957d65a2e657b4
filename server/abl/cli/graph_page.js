// The handoff graph page's renderer: plain JavaScript and SVG, no library, no network.
//
// Layout: layers by longest path over the graph with its back edges set aside (the way back
// of a returnable child is drawn but never shapes the layers), then a few sweeps that order
// each layer by the barycentre of its neighbours. Drawing: one <g data-node="ID"> per node and
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

  // Labels are centred on their edge's middle; one that would cover another moves below it
  // (two routes between the same agents would otherwise print their labels on top of each other).
  const labelAt = new Map();
  const placedLabels = [];
  data.edges
    .map((edge, index) => {
      const a = place.get(edge.from), b = place.get(edge.to), text = edgeLabel(edge);
      if (!a || !b || !text) return null;
      const y = (a.y + b.y) / 2 + NODE_HEIGHT / 2 + (edge.kind === "return" ? 34 : -4);
      return { index: index, x: (a.x + a.w + b.x) / 2, y: y, width: labelWidth(text) };
    })
    .filter((label) => label !== null)
    .sort((p, q) => p.y - q.y || p.x - q.x || p.index - q.index)
    .forEach((label) => {
      let y = label.y;
      for (;;) {
        const hit = placedLabels.find((p) => Math.abs(p.x - label.x) * 2 < p.width + label.width && Math.abs(p.y - y) < LABEL_HEIGHT);
        if (!hit) break;
        y = hit.y + LABEL_HEIGHT; // strictly lower each time, so this ends
      }
      placedLabels.push({ x: label.x, y: y, width: label.width });
      labelAt.set(label.index, { x: label.x, y: y });
    });

  data.edges.forEach((edge, index) => {
    const a = place.get(edge.from), b = place.get(edge.to);
    if (!a || !b) return;
    const classes = ["edge", edge.kind];
    if (edge.kind === "handoff") classes.push(edge.returnable ? "returnable" : "permanent");
    if (edge.diagnostics.length) classes.push("problem");
    const g = make("g", { class: classes.join(" "), "data-edge": String(index) });
    const d = curve(a, b, edge.kind === "return");
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

  function curve(a, b, under) {
    const x1 = a.x + a.w, y1 = a.y + a.h / 2, x2 = b.x, y2 = b.y + b.h / 2;
    if (!under && x2 > x1 + 20) {
      const dx = (x2 - x1) / 2;
      return `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
    }
    // Backwards (a way back, a loop): leave below the source and come in below the target.
    const sx = a.x + a.w / 2, sy = a.y + a.h, tx = b.x + b.w / 2, ty = b.y + b.h;
    const dip = Math.max(sy, ty) + 46;
    return `M${sx},${sy} C${sx},${dip} ${tx},${dip} ${tx},${ty}`;
  }

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
