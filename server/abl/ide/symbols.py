"""The outline of a file (documents → sections → routes, fields, handlers) and the workspace
symbol search."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from abl.model import Agent, Document
from abl.model.types import AgentKind, HandoffRoute
from abl.syntax.cst import Node
from abl.text import Range
from abl.workspace import Project

# More results than this from one workspace search help nobody and slow the editor down.
WORKSPACE_SYMBOL_LIMIT = 500


class OutlineKind(enum.Enum):
    AGENT = "agent"
    SUPERVISOR = "supervisor"
    PROFILE = "profile"
    SECTION = "section"
    ROUTE = "route"
    FIELD = "field"
    VARIABLE = "variable"
    HANDLER = "handler"
    TOOL = "tool"
    STEP = "step"
    RULE = "rule"


@dataclass(slots=True)
class OutlineItem:
    name: str
    kind: OutlineKind
    range: Range  # everything the item covers
    selection: Range  # the part to reveal (its name)
    detail: str = ""
    children: list[OutlineItem] = field(default_factory=list)


_AGENT_KINDS = {
    AgentKind.AGENT: OutlineKind.AGENT,
    AgentKind.SUPERVISOR: OutlineKind.SUPERVISOR,
    AgentKind.BEHAVIOR_PROFILE: OutlineKind.PROFILE,
}


def document_outline(doc: Document) -> list[OutlineItem]:
    items: list[OutlineItem] = [_agent(agent) for agent in doc.agents]
    items.extend(
        OutlineItem(tool.name.text, OutlineKind.TOOL, tool.range, tool.name.range) for tool in doc.library_tools
    )
    return items


def agent_range(agent: Agent) -> Range:
    last = agent.sections[-1] if agent.sections else agent.header
    return Range(agent.header.head_range.start, last.range().end)


def _agent(agent: Agent) -> OutlineItem:
    name = agent.name.text or "(unnamed)"
    goal = agent.goal.text.strip().strip("\"'") if agent.goal is not None else ""
    item = OutlineItem(name, _AGENT_KINDS[agent.kind], agent_range(agent), agent.name.range, _clip(goal))
    for section in agent.sections[1:]:
        if section.is_entry:
            item.children.append(_section(agent, section))
    return item


def _section(agent: Agent, node: Node) -> OutlineItem:
    key = node.key.upper()
    item = OutlineItem(node.key, OutlineKind.SECTION, node.range(), node.key_range)
    rows = range(node.row, node.range().end.line + 1)
    if key == "HANDOFF":
        item.children = [_route(r) for r in agent.handoffs if r.range.start.line in rows]
    elif key == "GATHER":
        item.children = [
            OutlineItem(f.name.text, OutlineKind.FIELD, f.range, f.name.range, f.type.text if f.type else "")
            for f in agent.gather
        ]
    elif key == "MEMORY":
        item.children = [
            OutlineItem(v.name.text, OutlineKind.VARIABLE, v.name.range, v.name.range, v.scope) for v in agent.memory
        ]
    elif key == "RETURN_HANDLERS":
        item.children = [
            OutlineItem(h.name.text, OutlineKind.HANDLER, h.range, h.name.range) for h in agent.return_handlers
        ]
    elif key == "TOOLS":
        item.children = [OutlineItem(t.name.text, OutlineKind.TOOL, t.range, t.name.range) for t in agent.tools]
    elif key == "COMPLETE":
        item.children = [
            OutlineItem(_clip(c.when.text) if c.when else f"rule {c.index + 1}", OutlineKind.RULE, c.range, c.range)
            for c in agent.complete
        ]
    elif key == "FLOW" and agent.flow is not None:
        item.children = [
            OutlineItem(s.text, OutlineKind.STEP, s.range, s.range)
            for s in agent.flow.steps
            if s.range.start.line in rows
        ]
    return item


def _route(route: HandoffRoute) -> OutlineItem:
    target = route.target.text if route.target is not None and route.target.text else "?"
    returnable = route.returns is not None and route.returns.value.text == "true"
    mode = route.history.resolved_mode if route.history is not None else "full"
    detail = f"{'returnable' if returnable else 'permanent'} · history {mode}"
    if route.when is not None:
        detail += f" · when {_clip(route.when.text, 40)}"
    selection = route.target.range if route.target is not None else route.dash_range
    return OutlineItem(f"→ {target}", OutlineKind.ROUTE, route.range, selection, detail)


def _clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- workspace symbols ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WorkspaceSymbol:
    name: str
    kind: OutlineKind
    path: str
    range: Range
    container: str  # the agent it belongs to ("" for documents)


def workspace_symbols(projects: list[Project], query: str) -> list[WorkspaceSymbol]:
    """Documents, routes' agents, fields, variables, handlers and tools whose name holds the
    query's characters in order (ignoring case), best matches first."""
    found: list[tuple[int, WorkspaceSymbol]] = []
    for project in projects:
        for doc in project.documents.values():
            for item in document_outline(doc):
                _collect(item, doc.path, "", query, found)
    found.sort(key=lambda pair: (pair[0], pair[1].name, pair[1].path))
    return [symbol for _, symbol in found[:WORKSPACE_SYMBOL_LIMIT]]


_SEARCHED = {
    OutlineKind.AGENT,
    OutlineKind.SUPERVISOR,
    OutlineKind.PROFILE,
    OutlineKind.FIELD,
    OutlineKind.VARIABLE,
    OutlineKind.HANDLER,
    OutlineKind.TOOL,
    OutlineKind.STEP,
}


def _collect(item: OutlineItem, path: str, container: str, query: str, out: list[tuple[int, WorkspaceSymbol]]) -> None:
    stack = [(item, container)]
    while stack:
        current, owner = stack.pop()
        if current.kind in _SEARCHED:
            score = _match(query, current.name)
            if score is not None:
                out.append((score, WorkspaceSymbol(current.name, current.kind, path, current.selection, owner)))
        inner_owner = (
            current.name if current.kind in (OutlineKind.AGENT, OutlineKind.SUPERVISOR, OutlineKind.PROFILE) else owner
        )
        stack.extend((child, inner_owner) for child in current.children)


def _match(query: str, name: str) -> int | None:
    """0 for a prefix match, 1 for a substring, 2 for the characters in order; None otherwise."""
    if not query:
        return 2
    q, n = query.lower(), name.lower()
    if n.startswith(q):
        return 0
    if q in n:
        return 1
    i = 0
    for ch in n:
        if i < len(q) and ch == q[i]:
            i += 1
    return 2 if i == len(q) else None
