"""What is at a position: the one walk every editor feature starts from.

`locate(document, position)` answers, for any position in any text (half-typed lines included):
which document it is in (agent, supervisor, profile, tool library), which agent, the path of
blocks from the column-0 section down (`HANDOFF[1] > ON_RETURN > MAP`), the line's node and
which part of it the cursor is on, the catalogue entry of that key (or of the block a value
or a blank line belongs to), and the model object around it (a route, a gather field, a return
handler, a memory variable, ...).

The walk goes down the tree by rows and columns, not by text: on a blank or half-typed line the
cursor's column decides which block it is in, so `  ON_RETURN:` with nothing under it, a line
with only `- `, or `HISTORY: ` all land where the author is about to write.
"""

from __future__ import annotations

import enum
import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from operator import attrgetter

from abl.checks.layout import Placement, last_block_at
from abl.model import Agent, Document
from abl.schema import lookup
from abl.schema.types import DocumentKind, Key
from abl.syntax.cst import Node, NodeKind
from abl.syntax.scanner import TAB_WIDTH
from abl.text import Position, Range

_ROW = attrgetter("row")  # siblings are in row order: the key to bisect them by

_WORD = re.compile(r"[A-Za-z0-9_.\-]+")
_PARTIAL_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Part(enum.Enum):
    KEY = "key"  # on the key of `KEY: value`
    VALUE = "value"  # on (or after the colon of) a value, pipe text included
    DASH = "dash"  # on the `-` of a list item, or after a `- ` with nothing yet
    TEXT = "text"  # on a line that is neither `KEY:` nor `- ` (a `SET` line, a signature)
    BLANK = "blank"  # on a blank line, or in a line's indentation
    COMMENT = "comment"  # inside a comment


@dataclass(frozen=True, slots=True)
class Step:
    """One block on the way from the section to the cursor."""

    node: Node
    label: str  # the key as the catalogue spells it (as written when unknown); `[i]` for items
    key: Key | None  # the catalogue entry describing this block's content


@dataclass(frozen=True, slots=True)
class Site:
    document: Document
    position: Position
    kind: DocumentKind | None  # None before any header of a file that is not a tool library
    agent: Agent | None
    path: tuple[Step, ...]  # enclosing blocks, outermost first (the line's own node excluded)
    node: Node | None  # the node on the cursor's line (None on blank lines and comments)
    part: Part
    key: Key | None  # the line's key in the catalogue; on a blank line, the enclosing block's
    block: Key | None  # the catalogue entry of the innermost enclosing block (None at column 0)
    obj: object | None  # the innermost model object around the cursor
    word: str  # the word under the cursor ("" when none)
    word_range: Range
    prefix: str  # what is typed on the line before the cursor, indentation stripped
    column: int  # the nesting column the cursor stands at

    @property
    def path_text(self) -> str:
        """`HANDOFF[1] > ON_RETURN > MAP`: items fold into their list's label."""
        labels: list[str] = []
        for step in self.path:
            if step.label.startswith("[") and labels:
                labels[-1] += step.label
            else:
                labels.append(step.label)
        return " > ".join(labels)

    @property
    def section(self) -> str | None:
        """The column-0 keyword the cursor is under, in the catalogue's spelling."""
        if self.path:
            return self.path[0].label
        if self.node is not None and self.node.col == 0 and self.node.is_entry:
            return self.node.key.upper()
        return None

    def inside(self, *labels: str) -> bool:
        """True when the innermost enclosing keys end with `labels` (items skipped)."""
        keys = [s.label.upper() for s in self.path if not s.label.startswith("[")]
        wanted = [label.upper() for label in labels]
        return keys[-len(wanted) :] == wanted if wanted else True

    @property
    def in_item(self) -> bool:
        return bool(self.path) and self.path[-1].node.is_item


def locate(document: Document, position: Position) -> Site:
    """Everything the editor features need to know about one position. Never raises on an
    out-of-range position: it is clamped to the text."""
    source = document.source
    index = source.index
    row = max(0, min(position.line, index.line_count - 1))
    line = index.line_text(row)
    char = max(0, min(position.character, len(line)))
    pos = Position(row, char)
    stripped = line.lstrip(" \t")
    indent = len(line) - len(stripped)
    blank = not stripped.strip()
    comment_at = _comment_start(line)
    in_comment = comment_at is not None and char > comment_at

    # The nesting column as the parser measures it (a tab reaches the next multiple of 8), to
    # compare with the nodes' columns; `char` stays a character offset.
    column = len(line[: char if blank or char <= indent else indent].expandtabs(TAB_WIDTH))
    path, node = _descend(source.nodes, row, column, char)
    owner, kind = _owner(document, row)
    steps = _label(path, kind)
    block = steps[-1].key if steps else None
    key = None
    part = Part.BLANK
    if node is not None and not in_comment:
        part = _part(node, pos, indent)
        key = None if part is Part.KEY and node.is_text else _key_of(node, block, kind, steps)
    elif in_comment:
        part = Part.COMMENT
    if part is Part.BLANK:
        key = block
    word, word_range = _word_at(line, row, char)
    prefix = line[indent:char] if char >= indent else ""
    return Site(
        document=document,
        position=pos,
        kind=kind,
        agent=owner,
        path=tuple(steps),
        node=node if not in_comment else None,
        part=part,
        key=key,
        block=block,
        obj=_object_around(owner, pos, steps),
        word=word,
        word_range=word_range,
        prefix=prefix,
        column=column,
    )


# --- the walk -----------------------------------------------------------------------------


def _descend(nodes: list[Node], row: int, column: int, char: int) -> tuple[list[Node], Node | None]:
    """The chain of blocks enclosing (row, column), and the node on that row if any."""
    path: list[Node] = []
    level = nodes
    while level:
        candidate = _last_at_or_before(level, row)
        if candidate is None:
            break
        if candidate.row == row:
            content = candidate.content
            if candidate.is_item and content is not None and char >= content.start - candidate.line_start:
                path.append(candidate)
                level = [content]
                continue
            if candidate.is_item and content is None and char > candidate.value_start - candidate.line_start - 1:
                path.append(candidate)  # a `- ` with nothing after it yet
                return path, None
            return path, candidate
        if candidate.is_pipe and row <= candidate.pipe_end_row:
            return path, candidate  # inside the text of a pipe block
        if _spans_row(candidate, row):
            return path, candidate  # a continuation line of an open bracket or signature
        if column > candidate.col:
            path.append(candidate)
            level = candidate.children
            continue
        break
    return path, None


def _last_at_or_before(nodes: list[Node], row: int) -> Node | None:
    k = bisect_right(nodes, row, key=_ROW)  # siblings are in row order
    return nodes[k - 1] if k else None


def _spans_row(node: Node, row: int) -> bool:
    return node.kind is not NodeKind.ITEM and node.value_end_row >= row > node.row


def _owner(document: Document, row: int) -> tuple[Agent | None, DocumentKind | None]:
    """The agent (and kind of document) owning a row, from the layout of column-0 blocks."""
    block = last_block_at(document, row)
    if block is None:
        return None, DocumentKind.TOOLS_LIBRARY if document.is_library else None
    if block.placement is Placement.LIBRARY:
        return block.agent, DocumentKind.TOOLS_LIBRARY
    return block.agent, block.document  # None for a stray block


def _label(path: list[Node], kind: DocumentKind | None) -> list[Step]:
    steps: list[Step] = []
    key: Key | None = None
    for depth, node in enumerate(path):
        if depth == 0:
            match = lookup.section(node.key, kind) if node.is_entry else None
            key = match.section.key if match is not None else None
            label = key.name if key is not None else node.key
        elif node.is_item:
            siblings = steps[-1].node.children if steps else []
            label = f"[{sum(1 for s in siblings if s.is_item and s.row < node.row)}]"
        else:
            label, key = _child_label(node, key)
        steps.append(Step(node, label, key))
    return steps


def _child_label(node: Node, parent: Key | None) -> tuple[str, Key | None]:
    if not node.is_entry:
        return node.value.strip(), None
    match = lookup.child(parent, node.key) if parent is not None else None
    if match is None:
        return node.key, None
    if match.kind is lookup.MatchKind.FREE_KEY:
        return node.key, match.key
    return match.key.name, match.key


def _key_of(node: Node, block: Key | None, kind: DocumentKind | None, steps: list[Step]) -> Key | None:
    if not node.is_entry:
        return block
    if not steps:
        match = lookup.section(node.key, kind)
        return match.section.key if match is not None else None
    if block is None:
        return None
    found = lookup.child(block, node.key)
    return found.key if found is not None else None


def _part(node: Node, pos: Position, indent: int) -> Part:
    if node.row != pos.line:
        return Part.VALUE  # pipe text or a continuation line
    char = pos.character
    offset = node.line_start + char
    if char < indent:
        return Part.BLANK
    if node.is_item:
        return Part.DASH
    if node.is_text:
        # A lone word is a key being typed (`HIST` before its colon), not a line of text.
        return Part.KEY if _PARTIAL_KEY.fullmatch(node.value.strip()) else Part.TEXT
    if offset <= node.key_end:
        return Part.KEY
    return Part.VALUE


def _comment_start(line: str) -> int | None:
    """Where a ` #` comment starts on a line, outside quotes (or a whole-line comment)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return i
    return None


def _word_at(line: str, row: int, char: int) -> tuple[str, Range]:
    for m in _WORD.finditer(line):
        if m.start() <= char <= m.end():
            return m.group(0), Range.on_line(row, m.start(), m.end())
    return "", Range.empty(row, char)


# --- model objects --------------------------------------------------------------------------


def _object_around(agent: Agent | None, pos: Position, steps: list[Step]) -> object | None:
    """The object at the cursor; on a blank line below an object's last line, the object
    whose block the cursor is in."""
    if agent is None:
        return None
    found = object_at(agent, pos)
    for step in reversed(steps):
        if found is not None:
            break
        found = object_at(agent, step.node.head_range.start)
    return found


def object_at(agent: Agent, pos: Position) -> object | None:
    """The innermost model object of `agent` whose source range holds `pos`."""
    best: object | None = None
    best_size: tuple[int, int] | None = None
    for obj, where in _objects(agent):
        if where.start <= pos <= where.end:
            size = (where.end.line - where.start.line, where.end.character - where.start.character)
            if best_size is None or size <= best_size:
                best, best_size = obj, size
    return best


def _objects(agent: Agent) -> Iterator[tuple[object, Range]]:
    for route in agent.handoffs:
        yield route, route.range
    for field in agent.all_gather_fields():
        yield field, field.range
    for handler in agent.return_handlers:
        yield handler, handler.range
    for rule in agent.complete:
        yield rule, rule.range
    for delegate in agent.delegates:
        yield delegate, delegate.range
    for trigger in agent.escalations:
        yield trigger, trigger.range
    for tool in agent.tools:
        yield tool, tool.range
    for var in agent.memory:
        yield var, var.name.range
    for intent in agent.intents:
        yield intent, intent.name.range
