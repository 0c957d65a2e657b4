"""The handoff graph for editors: the `abl/graph` request and the `abl/graphChanged` notification.

- `abl/graph` `{uri?, agent?, depth?}` → the JSON of `abl graph --format json`
  (`docs/graph.schema.json`), with `uri` in place of `path` and ranges in the client's position
  encoding. `uri` picks the project: the project of a file, or the projects at or under a
  folder; without it, every project of the workspace. `agent` and `depth` select as
  `--agent`/`--depth` do. An unknown agent gives an empty graph.
- `abl/graphChanged` `{uri}` (the project's root folder) after an analysis that changed what a
  drawing of that project's graph shows: nodes, edges, the problems on them, unreachable
  agents or loops. Positions are not part of that comparison, so a view that jumps to a source
  location should take it from a fresh `abl/graph` answer.
"""

from __future__ import annotations

import os
from typing import Any
from weakref import WeakKeyDictionary

from abl.ide import Project, Range, fingerprint, merge_views, project_label, to_json
from abl.lsp.convert import path_to_uri, uri_to_path
from abl.lsp.handlers import handler, on_install
from abl.lsp.server import AblServer

GRAPH = "abl/graph"
GRAPH_CHANGED = "abl/graphChanged"


def _param(params: Any, name: str) -> Any:
    """A field of custom params, which arrive as a mapping or as an object with attributes."""
    if params is None:
        return None
    if isinstance(params, dict):
        return params.get(name)
    return getattr(params, name, None)


def _projects_for(ls: AblServer, uri: str | None) -> list[Project]:
    analysis = ls.analysis()
    projects = [p for p in analysis.projects() if p.documents]
    if not uri:
        return projects
    path = uri_to_path(uri)
    if path is None:
        return []
    own = analysis.project(path)
    if own is not None:
        return [own]
    folder = os.path.normpath(path)
    inside = [
        p for p in projects if os.path.normpath(p.root) == folder or p.root.startswith(folder.rstrip(os.sep) + os.sep)
    ]
    if inside:
        return inside
    return [p for p in projects if folder.startswith(p.root.rstrip(os.sep) + os.sep)][:1]


class _GraphState:
    """What one server's client holds of the graph."""

    def __init__(self) -> None:
        self.seen: dict[str, tuple[object, str]] = {}  # project root → (its graph object, fingerprint)
        # Only a client that has asked for the graph is told when it changes: until then,
        # keeping a fingerprint up to date after every keystroke would be work for no one.
        self.watched = False


_STATES: WeakKeyDictionary[AblServer, _GraphState] = WeakKeyDictionary()


def _state(ls: AblServer) -> _GraphState:
    found = _STATES.get(ls)
    if found is None:
        found = _STATES[ls] = _GraphState()
    return found


@handler(GRAPH, lambda: None)
def graph(ls: AblServer, params: Any) -> dict[str, Any]:
    _state(ls).watched = True
    agent = _param(params, "agent")
    depth = _param(params, "depth")
    agent = agent if isinstance(agent, str) and agent else None
    depth = depth if isinstance(depth, int) and not isinstance(depth, bool) and depth >= 0 else None
    projects = _projects_for(ls, _param(params, "uri"))
    if agent is not None:
        projects = [p for p in projects if p.graph().node(agent) is not None]
    base = os.path.commonpath([p.root for p in projects]) if len(projects) > 1 else ""
    analysis = ls.analysis()
    views = []
    for p in projects:
        view, whole = analysis.graph(_any_file(p), agent, depth), analysis.graph(_any_file(p))
        if view is None or whole is None:
            continue
        views.append((project_label(p, base), view))
        _state(ls).seen[p.root] = (p.graph(), fingerprint(whole))  # only a change from this is announced

    def locate(path: str | None, where: Range | None) -> dict[str, Any]:
        if path is None or where is None:
            return {"uri": path_to_uri(path) if path else None, "range": None}
        client = ls.positions(path, analysis).range_to_client(where)
        start, end = client.start, client.end
        return {
            "uri": path_to_uri(path),
            "range": {
                "start": {"line": start.line, "character": start.character},
                "end": {"line": end.line, "character": end.character},
            },
        }

    if not views:
        return {"version": 1, "roots": [], "unreachable": [], "cycles": [], "nodes": [], "edges": []}
    return to_json(merge_views(views), locate)


def _after_analysis(server: AblServer, changed: set[str]) -> None:
    state = _state(server)
    if not state.watched:
        return
    analysis = server.analysis()
    for project in analysis.projects():
        if not project.documents:
            continue
        current = project.graph()
        known = state.seen.get(project.root)
        if known is not None and known[0] is current and not changed.intersection(project.documents):
            continue  # same agents, same problems: nothing a drawing shows has changed
        whole = analysis.graph(_any_file(project))
        if whole is None:
            continue
        digest = fingerprint(whole)
        state.seen[project.root] = (current, digest)
        if known is None or known[1] != digest:
            server.protocol.notify(GRAPH_CHANGED, {"uri": path_to_uri(project.root)})


@on_install
def _listen(server: AblServer) -> None:
    server.on_analysed.append(lambda changed: _after_analysis(server, changed))


def _any_file(project: Project) -> str:
    """A file of the project: the analysis's features take a path."""
    return next(iter(project.documents))
