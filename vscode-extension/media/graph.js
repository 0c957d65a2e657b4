// The ABL Graph view's page: draws the layout the extension computed (src/graph/graphLayout.ts)
// as SVG, with pan (drag, arrow keys) and zoom (wheel, + and -). A click, or Enter on a focused
// node or edge, asks the extension to show where it is written. The edges the watched run took
// are highlighted and numbered in the order it took them.
(function () {
  "use strict";
  const vscode = acquireVsCodeApi();
  const NS = "http://www.w3.org/2000/svg";
  const app = document.getElementById("app");

  function make(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function html(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const header = html("div", { class: "toolbar" });
  const scopeLabel = html("span", { class: "scope", id: "scope" });
  const fitButton = html("button", { type: "button", id: "fit" }, "Fit");
  const wholeButton = html("button", { type: "button", id: "whole" }, "Whole workspace");
  const counts = html("span", { class: "counts", id: "counts" });
  const runLabel = html("span", { class: "run", id: "run", role: "status" });
  header.append(scopeLabel, counts, runLabel, fitButton, wholeButton);
  const message = html("div", { class: "message", role: "status", id: "message" });
  const svg = make("svg", { id: "graph", tabindex: "0", role: "img", "aria-label": "Handoff graph" });
  const defs = make("defs");
  for (const kind of ["plain", "returnable", "return", "escalate", "problem", "taken"]) {
    // Sized in the drawing's units: a highlighted (thicker) edge keeps the same arrowhead.
    const marker = make("marker", { id: "arrow-" + kind, class: "marker " + kind, viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "10", markerHeight: "10", markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" });
    marker.append(make("path", { d: "M0,0 L10,5 L0,10 z" }));
    defs.append(marker);
  }
  svg.append(defs);
  const scene = make("g", { id: "scene" });
  let drawn = null; // the graph on the page, for the run's highlights
  svg.append(scene);
  app.append(header, message, svg);

  const view = { x: 20, y: 20, k: 1 };
  // Once the user zooms or pans, a redraw of the same scope keeps their view; until then (and
  // after Fit, or for a new scope) every drawing is fitted to the view.
  let adjusted = false;
  function apply() { scene.setAttribute("transform", `translate(${view.x},${view.y}) scale(${view.k})`); }
  function fit() {
    adjusted = false;
    const box = scene.getBBox(), frame = svg.getBoundingClientRect();
    if (!box.width || !frame.width) return apply();
    view.k = Math.min(1.2, (frame.width - 40) / box.width, (frame.height - 40) / box.height);
    view.x = (frame.width - box.width * view.k) / 2 - box.x * view.k;
    view.y = (frame.height - box.height * view.k) / 2 - box.y * view.k;
    apply();
  }
  function zoomAt(px, py, factor) {
    adjusted = true;
    const k = Math.min(8, Math.max(0.05, view.k * factor));
    view.x = px - ((px - view.x) * k) / view.k;
    view.y = py - ((py - view.y) * k) / view.k;
    view.k = k;
    apply();
  }

  function reveal(kind, index) { vscode.postMessage({ type: "reveal", kind, index }); }
  function activatable(g, kind, index) {
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.addEventListener("click", (event) => { if (!moved) reveal(kind, index); event.stopPropagation(); });
    g.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); reveal(kind, index); } });
  }

  function draw(layout, graph, refit) {
    scene.replaceChildren();
    drawn = graph;
    const edges = make("g", { class: "edges" }), nodes = make("g", { class: "nodes" }), steps = make("g", { class: "steps", id: "steps" });
    scene.append(edges, nodes, steps);
    for (const edge of layout.edges) {
      const data = graph.edges[edge.index];
      const label = data.from + " to " + data.to + " (" + edge.classes + ")";
      const g = make("g", { class: edge.classes, "data-edge": edge.index, "data-label": label, "aria-label": label });
      g.append(make("path", { d: edge.path, class: "hit" }));
      const line = make("path", { d: edge.path, class: "line" });
      if (edge.marker) line.setAttribute("marker-end", "url(#arrow-" + edge.marker + ")");
      g.append(line);
      if (edge.label) g.append(make("text", { x: edge.labelX, y: edge.labelY, class: "label" }, edge.label));
      activatable(g, "edge", edge.index);
      edges.append(g);
    }
    for (const node of layout.nodes) {
      const g = make("g", { class: node.classes, "data-node": node.id, transform: `translate(${node.x},${node.y})`, "aria-label": node.name });
      g.append(make("rect", { width: node.w, height: node.h, rx: node.radius, ry: node.radius }));
      g.append(make("text", { x: node.w / 2, y: node.h / 2 + 4 }, node.name));
      activatable(g, "node", node.index);
      nodes.append(g);
    }
    if (refit || !adjusted) fit(); else apply();
  }

  /** Marks the edges the run took and puts the step numbers on them (1 is the first move). */
  function highlight(taken) {
    const steps = document.getElementById("steps");
    if (!steps || !drawn) return;
    steps.replaceChildren();
    for (const edge of scene.querySelectorAll("g.edge.taken")) {
      edge.classList.remove("taken", "latest");
      edge.setAttribute("aria-label", edge.dataset.label);
      const line = edge.querySelector("path.line");
      if (edge.dataset.marker) line.setAttribute("marker-end", edge.dataset.marker);
    }
    const edges = taken ? taken.edges : [];
    const last = Math.max(0, ...edges.flatMap((t) => t.order));
    runLabel.textContent = taken ? "Run of " + taken.run + ": " + (last ? last + (last === 1 ? " move" : " moves") : "no move yet") : "";
    for (const { edge, order } of edges) {
      const g = scene.querySelector('g.edge[data-edge="' + edge + '"]');
      if (!g) continue;
      g.classList.add("taken");
      if (order.includes(last)) g.classList.add("latest");
      g.setAttribute("aria-label", g.dataset.label + ", taken at step " + order.join(" and "));
      const line = g.querySelector("path.line");
      if (line.getAttribute("marker-end")) {
        g.dataset.marker = line.getAttribute("marker-end");
        line.setAttribute("marker-end", "url(#arrow-taken)");
      }
      const middle = line.getPointAtLength(line.getTotalLength() / 2);
      const badge = make("g", { class: "step", "data-edge": edge, "data-order": order.join(" "), transform: `translate(${middle.x},${middle.y})` });
      const text = order.join(", ");
      badge.append(make("rect", { x: -(4 + text.length * 3.6), y: -9, width: 8 + text.length * 7.2, height: 18, rx: 9, ry: 9 }));
      badge.append(make("text", { y: 4 }, text));
      steps.append(badge);
    }
  }

  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    const frame = svg.getBoundingClientRect();
    zoomAt(event.clientX - frame.left, event.clientY - frame.top, Math.exp(-event.deltaY * 0.0015));
  }, { passive: false });
  let drag = null, moved = false;
  svg.addEventListener("mousedown", (event) => { drag = { x: event.clientX, y: event.clientY, vx: view.x, vy: view.y }; moved = false; });
  window.addEventListener("mousemove", (event) => {
    if (!drag) return;
    const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) moved = adjusted = true;
    view.x = drag.vx + dx;
    view.y = drag.vy + dy;
    apply();
  });
  window.addEventListener("mouseup", () => { drag = null; });
  svg.addEventListener("keydown", (event) => {
    const frame = svg.getBoundingClientRect();
    const step = 40;
    const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
    if (event.target !== svg) return;
    if (moves[event.key]) { view.x += moves[event.key][0]; view.y += moves[event.key][1]; adjusted = true; apply(); }
    else if (event.key === "+" || event.key === "=") zoomAt(frame.width / 2, frame.height / 2, 1.2);
    else if (event.key === "-") zoomAt(frame.width / 2, frame.height / 2, 1 / 1.2);
    else return;
    event.preventDefault();
  });
  fitButton.addEventListener("click", fit);
  wholeButton.addEventListener("click", () => vscode.postMessage({ type: "wholeWorkspace" }));
  window.addEventListener("resize", () => { if (!adjusted) fit(); });

  window.addEventListener("message", (event) => {
    const data = event.data;
    if (data.type === "graph") {
      message.textContent = data.graph.nodes.length ? "" : "No agents here.";
      scopeLabel.textContent = data.scope;
      counts.textContent = data.graph.nodes.length + " nodes, " + data.graph.edges.length + " edges";
      draw(data.layout, data.graph, data.fit);
      highlight(data.taken);
    } else if (data.type === "taken") {
      highlight(data.taken);
    } else if (data.type === "error") {
      message.textContent = data.message;
    }
  });
  vscode.postMessage({ type: "ready" });
})();
