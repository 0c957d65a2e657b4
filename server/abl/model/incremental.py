"""Lower an edited file again, keeping the agents whose blocks a reparse carried over untouched.

An agent is read only from its own column-0 sections, so when a reparse hands back the very same
section nodes, in the same order and on the same rows, lowering them again would rebuild an equal
agent. The old `Agent` object is kept instead, which is how later layers tell what changed: an
agent that is not the same object as before was edited, or moved. The model's ranges are
absolute, so an agent whose nodes all moved by the same number of rows (lines added or removed
above it) is copied with its positions moved (`moved`), instead of being read again; the copy
is filled in only when read (`abl.model.movable`).
"""

from __future__ import annotations

from abl.identity import same_objects
from abl.model import movable
from abl.model.lower import HEADERS, fill_agent, lower
from abl.model.types import Agent, Document
from abl.syntax.cst import Node, SourceFile


def relower(old: Document, source: SourceFile) -> Document:
    """Lower `source`, the reparse of `old.source`, reusing the agents it did not change."""
    one = _relower_one_section(old, source)
    if one is not None:
        return one
    shifts = (
        {id(block.node): block.row_shift for block in source.blocks if block.row_shift} if source.rows_moved else {}
    )
    by_header = {id(agent.header): agent for agent in old.agents}
    carried: dict[int, Agent] = {}  # id of an old agent -> the agent standing for it now

    def carry(fresh: Agent) -> Agent | None:
        previous = by_header.get(id(fresh.header))
        if previous is None or previous.header is not fresh.header or previous.path != fresh.path:
            return None
        if not same_objects(previous.sections, fresh.sections):
            return None
        deltas = {shifts.get(id(n), 0) for n in fresh.sections}
        if len(deltas) != 1:
            return None  # lines were added or removed between its sections
        delta = deltas.pop()
        kept = previous if delta == 0 else moved(previous, delta)
        carried[id(previous)] = kept
        return kept

    doc = lower(source, old.path, carry)
    _restore_step_order(doc, old, carried)
    return doc


def moved(agent: Agent, delta: int) -> Agent:
    """A copy of `agent` with every position `delta` rows further down: what lowering its
    sections again gives when they only moved (the same nodes, each `delta` rows away). The copy
    fills itself in when read (`abl.model.movable`): most moved agents never are."""
    copy: Agent = movable.moved(agent, delta)
    return copy


def _relower_one_section(old: Document, source: SourceFile) -> Document | None:
    """The keystroke: one section of one agent was re-read, and the blocks below it, if any
    moved, all moved by the same rows (a new line typed in it). Only that agent is lowered
    again, the agents below it are moved (`moved`); the file's grouping into agents is the old
    one. None for any other edit."""
    before_nodes, nodes = old.source.nodes, source.nodes
    if len(before_nodes) != len(nodes):
        return None
    if source.edited_block >= 0 and source.edited_from == id(old.source):
        changed = [source.edited_block]  # the reparse re-read that block and kept every other
    elif source.rows_moved:
        return None
    else:
        changed = [i for i, (a, b) in enumerate(zip(before_nodes, nodes, strict=True)) if a is not b]
    if len(changed) != 1:
        return None
    # The keystroke moves every block below the edited one by the same rows, and no other.
    shift = source.blocks[changed[0] + 1].row_shift if source.rows_moved else 0
    if shift and old.library_tools:
        return None
    before, after = before_nodes[changed[0]], nodes[changed[0]]
    # The same key keeps the grouping (headers), the file's kind (a tool library) and which
    # blocks are column-0 flow steps, unless the section is one that decides those.
    if not (before.is_entry and after.is_entry and before.key == after.key):
        return None
    if before.key.upper() in HEADERS or before.key.upper() in _DECIDES_GROUPING:
        return None
    if any(node is before for _, node in old.column_zero_steps):
        return None
    owner = next((a for a in old.agents if any(s is before for s in a.sections)), None)
    if owner is None or owner.header is before:
        return None
    fresh = Agent(owner.kind, owner.name, owner.path, owner.header)
    fresh.sections = [after if s is before else s for s in owner.sections]
    agents = list(old.agents)
    at = next(i for i, a in enumerate(agents) if a is owner)
    agents[at] = fresh
    now: dict[int, Agent] = {}  # id of an agent below the edit → its moved copy
    if shift:
        for i in range(at + 1, len(agents)):
            now[id(agents[i])] = agents[i] = moved(agents[i], shift)
    doc = Document(
        old.path,
        source,
        agents=agents,
        library_tools=list(old.library_tools),
        is_library=old.is_library,
        stray_sections=list(old.stray_sections),
        column_zero_steps=[(now.get(id(a), a), node) for a, node in old.column_zero_steps if a is not owner],
    )
    fill_agent(source, old.path, fresh, doc)
    by_agent: dict[int, list[tuple[Agent, Node]]] = {}
    for entry in doc.column_zero_steps:
        by_agent.setdefault(id(entry[0]), []).append(entry)
    doc.column_zero_steps = [entry for agent in doc.agents for entry in by_agent.get(id(agent), ())]
    old.previous = None  # one generation only: no chain of every version of the file
    doc.previous = old
    doc.edited_agent = at
    return doc


# Sections whose change can regroup the file or re-read other blocks: `FLOW` lists which
# column-0 blocks are its steps, and a root `TOOLS:` may make the file a tool library.
_DECIDES_GROUPING = frozenset({"FLOW", "TOOLS"})


def _restore_step_order(doc: Document, old: Document, carried: dict[int, Agent]) -> None:
    """Column-0 flow steps are listed agent by agent; a carried agent brings its entries along
    (held by its copy, when it moved)."""
    if not carried:
        return
    by_agent: dict[int, list[tuple[Agent, Node]]] = {}
    for agent, node in old.column_zero_steps:
        now = carried.get(id(agent))
        if now is not None:
            by_agent.setdefault(id(now), []).append((now, node))
    for entry in doc.column_zero_steps:
        by_agent.setdefault(id(entry[0]), []).append(entry)
    doc.column_zero_steps = [entry for agent in doc.agents for entry in by_agent.get(id(agent), ())]


def blocks_of(agent: Agent) -> tuple:
    """What an agent is read from: its file and its blocks, which a reparse hands on, moved or
    not, while their text is the same. Two agents of equal blocks differ only in rows; a layer
    keying what it keeps by them must keep the agent too, so that the ids stay its own."""
    key = agent.blocks_key
    if key is None:
        key = agent.blocks_key = (agent.path, id(agent.header), *map(id, agent.sections))
    return key


def changed_agents(old: Document, new: Document) -> tuple[list[Agent], list[Agent]]:
    """(agents of `new` that are not carried over from `old`, agents of `old` that are gone)."""
    before = {id(a) for a in old.agents}
    after = {id(a) for a in new.agents}
    return [a for a in new.agents if id(a) not in before], [a for a in old.agents if id(a) not in after]
