"""Lower an edited file again, keeping the agents whose blocks a reparse carried over untouched.

An agent is read only from its own column-0 sections, so when a reparse hands back the very same
section nodes, in the same order and on the same rows, lowering them again would rebuild an equal
agent. The old `Agent` object is kept instead, which is how later layers tell what changed: an
agent that is not the same object as before was edited (or moved, since the model's ranges are
absolute and a moved agent's ranges must be recomputed).
"""

from __future__ import annotations

from abl.model.lower import lower
from abl.model.types import Agent, Document
from abl.syntax.cst import Node, SourceFile


def relower(old: Document, source: SourceFile) -> Document:
    """Lower `source`, the reparse of `old.source`, reusing the agents it did not change."""
    moved = {id(block.node) for block in source.blocks if block.row_shift}
    by_header = {id(agent.header): agent for agent in old.agents}

    def carry(fresh: Agent) -> Agent | None:
        previous = by_header.get(id(fresh.header))
        if previous is None or previous.header is not fresh.header or previous.path != fresh.path:
            return None
        if not _same_nodes(previous.sections, fresh.sections) or any(id(n) in moved for n in fresh.sections):
            return None
        return previous

    doc = lower(source, old.path, carry)
    _restore_step_order(doc, old)
    return doc


def _same_nodes(a: list[Node], b: list[Node]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _restore_step_order(doc: Document, old: Document) -> None:
    """Column-0 flow steps are listed agent by agent; a kept agent brings its entries along."""
    kept = {id(agent) for agent in doc.agents} & {id(agent) for agent in old.agents}
    if not kept:
        return
    by_agent: dict[int, list[tuple[Agent, Node]]] = {}
    for entry in old.column_zero_steps:
        if id(entry[0]) in kept:
            by_agent.setdefault(id(entry[0]), []).append(entry)
    for entry in doc.column_zero_steps:
        by_agent.setdefault(id(entry[0]), []).append(entry)
    doc.column_zero_steps = [entry for agent in doc.agents for entry in by_agent.get(id(agent), ())]


def changed_agents(old: Document, new: Document) -> tuple[list[Agent], list[Agent]]:
    """(agents of `new` that are not carried over from `old`, agents of `old` that are gone)."""
    before = {id(a) for a in old.agents}
    after = {id(a) for a in new.agents}
    return [a for a in new.agents if id(a) not in before], [a for a in old.agents if id(a) not in after]
