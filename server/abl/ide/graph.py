"""The handoff graph as the CLI and editors show it: every node and edge with the problems that
sit on it, cut down to the neighbourhood of one agent when asked, and as the JSON of
`docs/graph.schema.json`.

A problem sits on an edge (or node) when it is an error or a warning of the edge's file whose
range lies within the edge's range: a route's `WHEN`, `HISTORY`, `MAP`... lie within the route,
so the route's edge carries them. Hints are left out: they are notes, not problems.

**Invariants.** Nothing here raises on any project or selection (an unknown agent is the
caller's to report, see `find_agent`). Positions stay in code points: callers convert ranges
(the CLI writes them as they are, the language server in the client's encoding).
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from abl.diagnostics import Diagnostic, Severity
from abl.suggest import did_you_mean
from abl.text import Range
from abl.workspace import Project
from abl.workspace.graph import EdgeKind, GraphEdge, GraphNode, NodeKind, ProjectGraph

JSON_VERSION = 1
_PROBLEMS = (Severity.ERROR, Severity.WARNING)


@dataclass(slots=True)
class GraphView:
    """What is drawn: the selected nodes and edges, with the codes of the problems on each."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    node_codes: dict[str, tuple[str, ...]]
    edge_codes: list[tuple[str, ...]]  # in the order of `edges`
    roots: list[str]
    unreachable: list[str]
    cycles: list[tuple[str, ...]]
    has_supervisor: bool = False
    # Set when several projects are drawn together: node id → the project it belongs to.
    projects: dict[str, str] = field(default_factory=dict)


# --- building a view --------------------------------------------------------------------------


def graph_view(
    graph: ProjectGraph,
    diagnostics: Mapping[str, Sequence[Diagnostic]],
    agent: str | None = None,
    depth: int | None = None,
) -> GraphView:
    """The graph (or the part `select` keeps), each node and edge with its problems."""
    keep = select(graph, agent, depth)
    nodes = [n for n in graph.nodes.values() if n.id in keep]
    edges = [e for e in graph.edges if e.source in keep and e.target in keep]
    problems = _problems_by_path(diagnostics)
    node_codes = {n.id: _codes_within(problems, n.path, n.range) for n in nodes}
    edge_codes = [_codes_within(problems, e.path, e.range) for e in edges]
    return GraphView(
        nodes,
        edges,
        node_codes,
        edge_codes,
        [r for r in graph.roots if r in keep],
        [u for u in graph.unreachable if u in keep],
        [c for c in graph.cycles if all(name in keep for name in c)],
        graph.has_supervisor,
    )


def select(graph: ProjectGraph, agent: str | None, depth: int | None) -> set[str]:
    """The node ids to draw. Around an agent: those at most `depth` edges away from it, in
    either direction (who leads to it, and where it leads). Without one: those at most `depth`
    edges down from the roots. No depth: no limit."""
    if agent is None and depth is None:
        return set(graph.nodes)
    onward: dict[str, list[str]] = {}
    for e in graph.edges:
        onward.setdefault(e.source, []).append(e.target)
        if agent is not None:
            onward.setdefault(e.target, []).append(e.source)
    starts = [agent] if agent is not None else list(graph.roots)
    seen = {s for s in starts if s in graph.nodes}
    queue = deque((s, 0) for s in seen)
    while queue:
        node, distance = queue.popleft()
        if depth is not None and distance >= depth:
            continue
        for nxt in onward.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, distance + 1))
    return seen


def find_agent(graphs: Iterable[ProjectGraph], name: str) -> tuple[bool, str | None]:
    """Whether some graph has an agent or supervisor `name`; if not, the closest name."""
    names: list[str] = []
    for graph in graphs:
        node = graph.node(name)
        if node is not None and node.kind in (NodeKind.AGENT, NodeKind.SUPERVISOR):
            return True, None
        names.extend(n.id for n in graph.nodes.values() if n.kind in (NodeKind.AGENT, NodeKind.SUPERVISOR))
    return False, did_you_mean(name, names)


def merge_views(views: Sequence[tuple[str, GraphView]]) -> GraphView:
    """Several projects in one drawing. With more than one, every node id is prefixed with its
    project's label and a slash (`retail-hub/Retail_Hub`), since projects reuse agent names."""
    if len(views) == 1:
        return views[0][1]
    merged = GraphView([], [], {}, [], [], [], [], False)
    for label, view in views:
        qualify = _qualifier(label)
        for node in view.nodes:
            merged.nodes.append(GraphNode(qualify(node.id), node.kind, node.label, node.path, node.range))
            merged.node_codes[qualify(node.id)] = view.node_codes.get(node.id, ())
            merged.projects[qualify(node.id)] = label
        for edge, codes in zip(view.edges, view.edge_codes, strict=True):
            merged.edges.append(_requalified(edge, qualify))
            merged.edge_codes.append(codes)
        merged.roots.extend(qualify(r) for r in view.roots)
        merged.unreachable.extend(qualify(u) for u in view.unreachable)
        merged.cycles.extend(tuple(qualify(n) for n in c) for c in view.cycles)
        merged.has_supervisor = merged.has_supervisor or view.has_supervisor
    return merged


def _qualifier(label: str) -> Callable[[str], str]:
    return lambda node_id: f"{label}/{node_id}"


def _requalified(edge: GraphEdge, qualify: Callable[[str], str]) -> GraphEdge:
    return replace(edge, source=qualify(edge.source), target=qualify(edge.target))


def project_label(project: Project, base: str) -> str:
    """How a project is named in a merged drawing: its root relative to `base`."""
    root = project.root.rstrip("/")
    base = base.rstrip("/")
    if root.startswith(base + "/"):
        return root[len(base) + 1 :]
    return root.rsplit("/", 1)[-1] or root


def _problems_by_path(diagnostics: Mapping[str, Sequence[Diagnostic]]) -> dict[str, list[Diagnostic]]:
    return {path: [d for d in diags if d.severity in _PROBLEMS] for path, diags in diagnostics.items()}


def _codes_within(problems: Mapping[str, list[Diagnostic]], path: str | None, where: Range | None) -> tuple[str, ...]:
    if path is None or where is None:
        return ()
    found = [d.code for d in problems.get(path, ()) if where.start <= d.range.start and d.range.end <= where.end]
    return tuple(dict.fromkeys(found))


# --- the JSON export --------------------------------------------------------------------------

# Turns a file and a range into the location fields of a node or edge: `{"path", "range"}` for
# the CLI, `{"uri", "range"}` in the client's encoding for the language server.
Locate = Callable[[str | None, Range | None], dict[str, Any]]


def range_json(r: Range) -> dict[str, Any]:
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def locate_by_path(path: str | None, where: Range | None) -> dict[str, Any]:
    return {"path": path, "range": range_json(where) if where is not None else None}


def to_json(view: GraphView, locate: Locate = locate_by_path) -> dict[str, Any]:
    """The view as `docs/graph.schema.json` describes it."""
    nodes = []
    for node in view.nodes:
        entry: dict[str, Any] = {"id": node.id, "kind": node.kind.value, "label": node.label}
        entry.update(locate(node.path, node.range))
        entry["diagnostics"] = list(view.node_codes.get(node.id, ()))
        if node.id in view.projects:
            entry["project"] = view.projects[node.id]
        nodes.append(entry)
    edges = []
    for edge, codes in zip(view.edges, view.edge_codes, strict=True):
        entry = {
            "from": edge.source,
            "to": edge.target,
            "kind": edge.kind.value,
            "returnable": edge.returnable,
            "history": edge.history,
            "historyCount": edge.history_count,
            "condition": edge.condition,
            "pass": list(edge.passes),
            "map": [{"child": child, "parent": parent} for child, parent in edge.maps],
            "via": edge.via,
            "handBack": edge.hand_back,
        }
        entry.update(locate(edge.path, edge.range))
        entry["diagnostics"] = list(codes)
        edges.append(entry)
    return {
        "version": JSON_VERSION,
        "roots": list(view.roots),
        "unreachable": list(view.unreachable),
        "cycles": [list(c) for c in view.cycles],
        "nodes": nodes,
        "edges": edges,
    }


def fingerprint(view: GraphView) -> str:
    """A digest of what a drawing of the view shows, positions left out: it changes when a
    node, an edge, a problem on one, or the lists of roots, unreachable agents and cycles do."""
    digest = hashlib.blake2b(digest_size=16)
    for node in view.nodes:
        digest.update(f"N\0{node.id}\0{node.kind.value}\0{node.path}\0{view.node_codes.get(node.id, ())}\n".encode())
    for edge, codes in zip(view.edges, view.edge_codes, strict=True):
        digest.update(
            f"E\0{edge.source}\0{edge.target}\0{edge.kind.value}\0{edge.returnable}\0{edge.history}\0"
            f"{edge.history_count}\0{edge.condition}\0{edge.passes}\0{edge.maps}\0{edge.via}\0{edge.hand_back}\0"
            f"{edge.path}\0{codes}\n".encode()
        )
    digest.update(f"{view.roots}\0{view.unreachable}\0{view.cycles}".encode())
    return digest.hexdigest()


def checked_diagnostics(project: Project) -> dict[str, list[Diagnostic]]:
    """Every file's diagnostics, for a caller that holds no analysis (the CLI)."""
    from abl.checks.engine import check_project

    return check_project(project)


__all__ = [
    "JSON_VERSION",
    "EdgeKind",
    "GraphView",
    "checked_diagnostics",
    "find_agent",
    "fingerprint",
    "graph_view",
    "locate_by_path",
    "merge_views",
    "project_label",
    "range_json",
    "select",
    "to_json",
]
