"""Code lenses above each agent and supervisor: run it, debug it, and how many routes lead to it."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from abl.ide.references import ReferenceIndex, Symbol, SymbolKind
from abl.model.types import AgentKind
from abl.text import Position, Range
from abl.workspace import Project


class LensKind(enum.Enum):
    RUN_AGENT = "run agent"  # start a conversation with the agent
    DEBUG_AGENT = "debug agent"  # start a debug session on the agent
    HANDOFFS_IN = "handoffs in"  # list the routes (and delegates, hooks) that lead to the agent


@dataclass(frozen=True, slots=True)
class Lens:
    range: Range
    title: str
    kind: LensKind
    agent: str
    name_start: Position  # where the agent's name starts
    uses: tuple[tuple[str, Range], ...] = ()  # a handoffs lens: the places that lead to the agent


def code_lenses(project: Project, path: str, *, can_run: bool = True, can_debug: bool = False) -> list[Lens]:
    """The lenses of one file. `can_run`: whether the editor can hold a conversation with a run
    (a run panel); without one a "Run agent" lens could only do nothing, so it is left out.
    `can_debug`: whether the editor starts a debug session (`abl dap`) for a "Debug agent" lens."""
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
            lenses.append(Lens(line, "▶ Run agent", LensKind.RUN_AGENT, name, agent.name.range.start))
        if can_debug:
            lenses.append(Lens(line, "Debug agent", LensKind.DEBUG_AGENT, name, agent.name.range.start))
        uses = [
            o
            for o in index.uses(Symbol(SymbolKind.AGENT, name, None))
            if o.role in ("route target", "delegate target") or o.role.startswith("on_")
        ]
        routes = [o for o in uses if o.role == "route target"]
        title = f"{len(routes)} handoff{'s' if len(routes) != 1 else ''} in"
        locations = tuple((o.path, o.range) for o in uses)
        lenses.append(Lens(line, title, LensKind.HANDOFFS_IN, name, agent.name.range.start, locations))
    return lenses
