"""Where each column-0 block of a file belongs, resolved against the keyword catalogue once.

Both the section rules and the key-by-key structure walk start from the same question: which
document does this block belong to, and which catalogue section is it? The answer depends only
on the model (`Document.agents`, `stray_sections`, `column_zero_steps`, the tool library) and
on `abl.schema.lookup`, never on a keyword written here.
"""

from __future__ import annotations

import enum
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from operator import attrgetter

from abl.model import Agent, Document
from abl.schema import lookup
from abl.schema.types import DocumentKind
from abl.syntax.cst import Node, NodeKind, block_end
from abl.text import LineIndex, Position, Range

_ROW = attrgetter("node.row")  # blocks are in row order: the key to bisect them by


class Placement(enum.Enum):
    HEADER = "header"  # the line that opens a document (`AGENT: X`)
    SECTION = "section"  # a section of a document
    STRAY = "stray"  # before the first header of a file that is not a tool library
    LIBRARY = "library"  # the root sections of a `.tools.abl` file
    FLOW_STEP = "flow_step"  # a column-0 block read as a step of the agent's FLOW


class Owner:
    """The agent a file's blocks belong to, one per agent, shared by all of its blocks. A new
    line moves the agents below it (each a moved copy, `model.incremental`) with their blocks:
    the copy takes its predecessor's place here, and the blocks stay the objects they were."""

    __slots__ = ("current",)

    def __init__(self, agent: Agent) -> None:
        self.current = agent


@dataclass(slots=True)
class Block:
    """One column-0 entry and where it belongs. Not changed once made (not frozen, as a frozen
    one costs four times as much to make), but for its owner's agent (`Owner`)."""

    node: Node
    placement: Placement
    owner: Owner | None
    document: DocumentKind | None
    match: lookup.SectionMatch | None  # None: the catalogue does not know the keyword

    @property
    def agent(self) -> Agent | None:
        owner = self.owner
        return owner.current if owner is not None else None


def document_kind(agent: Agent) -> DocumentKind:
    return DocumentKind(agent.kind.value)


def blocks(doc: Document) -> Iterator[Block]:
    """Every column-0 entry of the file, in source order, with its placement."""
    return iter(_placed(doc))


def layout_of(doc: Document) -> tuple[Block, ...]:
    """Every column-0 entry of the file with its placement, as `blocks` gives them: the same
    tuple while the document is."""
    return _placed(doc)


def placed_already(doc: Document) -> tuple[Block, ...] | None:
    """The file's blocks if they have been placed (`layout_of`), without placing them."""
    placed = doc.memo.get("layout.blocks")
    return placed if isinstance(placed, tuple) else None


def patched_span(doc: Document) -> tuple[int, int] | None:
    """When the file's blocks were placed from its previous version's (a keystroke: see
    `Document.previous`), the indices `[first, last)` of the blocks placed again; every other
    block is the very object it was there, at the same index. None otherwise."""
    layout_of(doc)
    span = doc.memo.get("layout.patched")
    return span if isinstance(span, tuple) else None


def last_block_at(doc: Document, row: int) -> Block | None:
    """The last block starting on or before `row` (by bisection: asked per cursor position)."""
    placed = _placed(doc)
    k = bisect_right(placed, row, key=_ROW)
    return placed[k - 1] if k else None


def notable_blocks(doc: Document) -> Iterator[tuple[Block | None, Block]]:
    """The blocks a document rule may report on, each after the block before it in the file
    (None for the first): those above the first header, column-0 flow steps, removed keys, and
    the sections of an agent that holds one section twice. The rules of a file run at every
    keystroke, and a file of thousands of blocks usually holds none of these: they are found
    once per layout, and an edit that places one agent again looks at that agent's only."""
    placed = _placed(doc)
    for i in _notable(doc, placed):
        yield (placed[i - 1] if i else None), placed[i]


def _notable(doc: Document, placed: tuple[Block, ...]) -> tuple[int, ...]:
    cached = doc.memo.get("layout.notable")
    if isinstance(cached, tuple):
        return cached
    span = patched_span(doc)
    kept = doc.previous.memo.get("layout.notable") if doc.previous is not None else None
    if span is not None and isinstance(kept, tuple):
        first, last = span  # the blocks placed again; the others are where they were
        found = (
            *(i for i in kept if i < first),
            *_notable_between(placed, first, last),
            *(i for i in kept if i >= last),
        )
    else:
        found = tuple(_notable_between(placed, 0, len(placed)))
    doc.memo["layout.notable"] = found
    return found


def _notable_between(placed: tuple[Block, ...], start: int, end: int) -> list[int]:
    """The indices of the notable blocks among `placed[start:end]`, which hold whole agents, in
    order."""
    found: set[int] = set()
    sections: list[int] = []  # the current agent's section blocks
    owner: Agent | None = None
    for i in range(start, end):
        block = placed[i]
        placement, match = block.placement, block.match
        removed = match is not None and match.section.key.removed is not None
        if removed or placement is Placement.STRAY or placement is Placement.FLOW_STEP:
            found.add(i)
        if placement is Placement.SECTION and block.agent is not None and match is not None:
            if block.agent is not owner:
                found.update(_repeating(placed, sections))
                owner, sections = block.agent, []
            sections.append(i)
    found.update(_repeating(placed, sections))
    return sorted(found)


def _repeating(placed: tuple[Block, ...], sections: list[int]) -> list[int]:
    """Of one agent's section blocks, every one whose catalogue section appears twice."""
    by_section: dict[int, list[int]] = {}
    for i in sections:
        by_section.setdefault(id(placed[i].match.section), []).append(i)  # type: ignore[union-attr]
    if len(by_section) == len(sections):
        return []
    return [i for same in by_section.values() if len(same) > 1 for i in same]


def _placed(doc: Document) -> tuple[Block, ...]:
    cached = doc.memo.get("layout.blocks")
    if not isinstance(cached, tuple):
        patched = _patched(doc)
        cached = doc.memo["layout.blocks"] = patched if patched is not None else tuple(_blocks(doc))
    return cached


def _patched(doc: Document) -> tuple[Block, ...] | None:
    """The previous document's blocks with the re-read agent's blocks placed again: a keystroke
    replaces one agent and moves the agents below it, if any, with their blocks, so the rest of
    the file is placed as it was. None when that is not what happened, or anything does not
    line up."""
    before = doc.previous
    if before is None or doc.edited_agent < 0:
        return None
    kept = before.memo.get("layout.blocks")
    if not isinstance(kept, tuple) or len(before.agents) != len(doc.agents):
        return None
    agent, old_agent = doc.agents[doc.edited_agent], before.agents[doc.edited_agent]
    header = agent.header
    first = bisect_right(kept, header.row, key=_ROW) - 1
    if first < 0 or kept[first].node is not header or kept[first].agent is not old_agent:
        return None
    last = first
    while last < len(kept) and kept[last].agent is old_agent:
        last += 1
    owners = before.memo.get("layout.owners")
    if not isinstance(owners, list) or len(owners) != len(before.agents):
        return None
    at = doc.edited_agent
    if doc.source.rows_moved and not _moved_copies(owners, before.agents, doc.agents, at + 1):
        return None
    steps = {id(node) for owner, node in doc.column_zero_steps if owner is agent}
    kind = document_kind(agent)
    owner = Owner(agent)
    placed: list[Block] = []
    for node in agent.sections:
        if node.kind is not NodeKind.ENTRY:
            continue
        if node is header:
            placement = Placement.HEADER
        elif id(node) in steps:
            placement = Placement.FLOW_STEP
        else:
            placement = Placement.SECTION
        placed.append(Block(node, placement, owner, kind, lookup.section(node.key, kind)))
    if len(placed) != last - first or any(
        b.node.row != old.node.row for b, old in zip(placed, kept[first:last], strict=True)
    ):
        return None
    if doc.source.rows_moved:
        # A new line (or one taken away) in the edited agent: the agents below it are copies
        # moved with their blocks, which stay as they were, each owned by its agent's copy now.
        for i in range(at + 1, len(owners)):
            owners[i].current = doc.agents[i]
    doc.memo["layout.owners"] = [*owners[:at], owner, *owners[at + 1 :]]
    # The file's kept placements follow, so that they hold the current nodes only: a node the
    # edit replaced must not be kept alive (it points at the text of its time, a file's worth).
    by_node = _BY_FILE.get(doc.path)
    if by_node is not None:
        for old in kept[first:last]:
            by_node.pop(id(old.node), None)
        for block in placed:
            by_node[id(block.node)] = block
    doc.memo["layout.patched"] = (first, last)
    return kept[:first] + tuple(placed) + kept[last:]


def _moved_copies(owners: list[Owner], agents_before: list[Agent], agents_now: list[Agent], start: int) -> bool:
    """Whether each agent from index `start` on is read from the header of the one before it
    (a moved copy), and owns the blocks that one owned."""
    for owner, before, agent in zip(owners[start:], agents_before[start:], agents_now[start:], strict=True):
        if owner.current is not before or agent.header is not before.header:
            return False
    return True


# Each file's blocks of the last time they were placed, by node: an edit re-reads a few blocks
# and agents, and a block whose node and agent are the objects they were is placed as it was.
# A file's entry holds its current blocks only.
_BY_FILE: dict[str, dict[int, Block]] = {}


def _blocks(doc: Document) -> Iterator[Block]:
    library = doc.is_library
    owner: dict[int, Agent] = {}
    headers: set[int] = set()
    for agent in doc.agents:
        headers.add(id(agent.header))
        for node in agent.sections:
            owner[id(node)] = agent
    steps = {id(node) for _, node in doc.column_zero_steps}
    before = _BY_FILE.get(doc.path, {})
    now: dict[int, Block] = {}
    # Each agent's one `Owner`: the one its blocks had, when an unchanged agent keeps them.
    owners: dict[int, Owner] = {}
    entry = NodeKind.ENTRY
    for node in doc.source.nodes:
        if node.kind is not entry:
            continue  # not `KEY: value` at all: the parser reports it
        key = id(node)
        owning = owner.get(key)
        if owning is None:
            placement = Placement.LIBRARY if library else Placement.STRAY
        elif key in headers:
            placement = Placement.HEADER
        elif key in steps:
            placement = Placement.FLOW_STEP
        else:
            placement = Placement.SECTION
        block = before.get(key)
        if block is not None and (block.node is not node or block.placement is not placement):
            block = None
        elif block is not None and owning is not None:
            # Kept while it is this agent's, under the owner all of the agent's blocks share:
            # the first of them kept sets it (`setdefault`).
            had = block.owner
            if had is None or had.current is not owning or owners.setdefault(id(owning), had) is not had:
                # The agent moved (a line added above it) or was read again: of the same kind,
                # the block is the same catalogue section.
                same_kind = had is not None and had.current.kind is owning.kind
                block = (
                    Block(node, placement, _owner(owners, owning), block.document, block.match) if same_kind else None
                )
        elif block is not None and block.owner is not None:
            block = None  # it belonged to an agent, and belongs to none now
        if block is None:
            kind = document_kind(owning) if owning is not None else DocumentKind.TOOLS_LIBRARY if library else None
            made = _owner(owners, owning) if owning is not None else None
            block = Block(node, placement, made, kind, lookup.section(node.key, kind))
        now[key] = block
        yield block
    doc.memo["layout.owners"] = [_owner(owners, agent) for agent in doc.agents]
    _BY_FILE[doc.path] = now


def _owner(owners: dict[int, Owner], agent: Agent) -> Owner:
    made = owners.get(id(agent))
    if made is None:
        made = owners[id(agent)] = Owner(agent)
    return made


def last_row(index: LineIndex, node: Node) -> int:
    end = block_end(node)
    return index.position(max(end - 1, node.start)).line


def offset_range(index: LineIndex, anchor: Position, start: int, end: int) -> Range:
    """`start..end`, counted from `anchor`, as a range (for spans inside a value)."""
    base = index.offset(anchor)
    return Range(index.position(base + start), index.position(base + end))
