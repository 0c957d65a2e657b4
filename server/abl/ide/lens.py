"""Code lenses above each agent and supervisor: run it, and how many routes lead to it."""

from __future__ import annotations

from dataclasses import dataclass

from abl.ide.references import ReferenceIndex, Symbol, SymbolKind
from abl.model.types import AgentKind
from abl.text import Position, Range
from abl.workspace import Project

RUN_AGENT = "abl.runAgent"
SHOW_HANDOFFS_IN = "abl.showHandoffsIn"


@dataclass(frozen=True, slots=True)
class Lens:
    range: Range
    title: str
    command: str
    arguments: tuple[object, ...]  # plain values; the protocol layer adds the document's URI


def code_lenses(project: Project, path: str, *, can_run: bool = True) -> list[Lens]:
    """The lenses of one file. `can_run`: whether the editor can hold a conversation with a run
    (a run panel); without one a "Run agent" lens could only do nothing, so it is left out."""
    doc = project.documents.get(path)
    if doc is None:
        return []
    index = ReferenceIndex.of(project)
    lenses = []
    for agent in doc.agents:
        if agent.kind is AgentKind.BEHAVIOR_PROFILE or not agent.name.text:
            continue
        line = agent.header.head_range
        name = agent.name.text
        if can_run:
            lenses.append(Lens(line, "▶ Run agent", RUN_AGENT, (name,)))
        uses = [
            o
            for o in index.uses(Symbol(SymbolKind.AGENT, name, None))
            if o.role in ("route target", "delegate target") or o.role.startswith("on_")
        ]
        routes = [o for o in uses if o.role == "route target"]
        title = f"{len(routes)} handoff{'s' if len(routes) != 1 else ''} in"
        locations = tuple((o.path, o.range) for o in uses)
        lenses.append(Lens(line, title, SHOW_HANDOFFS_IN, (_start(agent.name.range), locations, name)))
    return lenses


def _start(r: Range) -> Position:
    return r.start
