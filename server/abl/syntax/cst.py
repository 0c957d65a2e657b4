"""The lossless concrete syntax tree.

Every byte of the input belongs to exactly one place: a node's own text (`start..end`), a
trivia line (blank or whole-line comment) in some node's `leading` list, or the file's
`trailing` trivia. Walking the tree in order and concatenating gives the input back
(`SourceFile.to_text`). Nodes store offsets and a few row numbers; ranges are computed on
demand so that parsing stays cheap.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from abl.diagnostics import Diagnostic
from abl.text import LineIndex, Position, Range


class NodeKind(enum.IntEnum):
    ENTRY = 1  # `KEY: value`
    ITEM = 2  # `- ` (its content is the first child)
    TEXT = 3  # any other line: `var = expr`, a tool signature, `- order_id`'s `order_id`


class TriviaKind(enum.IntEnum):
    BLANK = 1
    COMMENT = 2


@dataclass(slots=True, eq=False)
class Trivia:
    kind: TriviaKind
    row: int
    start: int
    end: int


PIPE_MARKERS = frozenset({"|", "|-", "|+", ">", ">-", ">+"})


@dataclass(slots=True, eq=False)
class Node:
    """One significant line of ABL (plus its pipe-block or open-bracket continuation lines).

    For an ENTRY, `key_*` and `value_*` locate the key and the value (trailing comment
    excluded). For TEXT, `value_*` is the whole text. For an ITEM, the node owns the
    indentation and the dash; its content is `children[0]`.
    """

    kind: NodeKind
    row: int
    line_start: int  # offset of the row's first character
    start: int  # first offset owned by this node
    end: int  # offset after the last byte owned (line terminators included)
    col: int  # nesting column (indent width; for an item's content, the content column)
    key: str = ""
    key_start: int = 0
    key_end: int = 0
    value_start: int = 0
    value_end: int = 0
    value_end_row: int = 0
    value_end_char: int = 0
    comment_start: int = -1
    pipe_end_row: int = -1  # last row of a pipe block, -1 when there is none
    leading: list[Trivia] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    source: str = field(default="", repr=False)

    # --- text -------------------------------------------------------------------------

    @property
    def is_entry(self) -> bool:
        return self.kind is NodeKind.ENTRY

    @property
    def is_item(self) -> bool:
        return self.kind is NodeKind.ITEM

    @property
    def is_text(self) -> bool:
        return self.kind is NodeKind.TEXT

    @property
    def value(self) -> str:
        """The value as written, without the trailing comment (pipe marker for pipe blocks)."""
        return self.source[self.value_start : self.value_end]

    @property
    def has_value(self) -> bool:
        return self.value_end > self.value_start

    @property
    def is_pipe(self) -> bool:
        return self.kind is NodeKind.ENTRY and self.value.strip() in PIPE_MARKERS

    @property
    def pipe_text(self) -> str:
        """The content of a pipe block, dedented, newlines preserved."""
        if not self.is_pipe or self.pipe_end_row < 0:
            return ""
        body = self.source[self._line_end_offset() : self.end]
        lines = body.splitlines()
        indents = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
        cut = min(indents) if indents else 0
        text = "\n".join(line[cut:] if line.strip() else "" for line in lines)
        marker = self.value.strip()
        if marker.startswith(">"):
            text = _fold(text)
        if marker.endswith("-"):
            return text.rstrip("\n")
        return text.rstrip("\n") + ("\n" if text else "")

    def _line_end_offset(self) -> int:
        nl = self.source.find("\n", self.value_end)
        return len(self.source) if nl == -1 else nl + 1

    # --- positions --------------------------------------------------------------------

    @property
    def key_range(self) -> Range:
        return Range.on_line(self.row, self.key_start - self.line_start, self.key_end - self.line_start)

    @property
    def value_range(self) -> Range:
        if self.value_end <= self.value_start:
            c = (self.key_end if self.is_entry else self.start) - self.line_start
            if self.is_entry:
                c += 1  # just after the colon
            return Range.empty(self.row, c)
        return Range(
            Position(self.row, self.value_start - self.line_start),
            Position(self.value_end_row, self.value_end_char),
        )

    @property
    def head_range(self) -> Range:
        """The line's own text: from the key (or text, or dash) to the end of its value."""
        if self.kind is NodeKind.ITEM:
            dash = self.value_start - 1 - self.line_start
            return Range.on_line(self.row, dash, dash + 1)
        if self.kind is NodeKind.ENTRY:
            start = Position(self.row, self.key_start - self.line_start)
            if self.value_end <= self.value_start:
                return Range(start, Position(self.row, self.key_end - self.line_start + 1))
            return Range(start, self.value_range.end)
        return Range(Position(self.row, self.value_start - self.line_start), self.value_range.end)

    def range(self) -> Range:
        """From the line's first character to the end of its last descendant's head."""
        last = self
        while last.children:
            last = last.children[-1]
        return Range(self.head_range.start, last.head_range.end)

    # --- structure --------------------------------------------------------------------

    @property
    def content(self) -> Node | None:
        """For an item: the node written after the dash (`TO: X` in `- TO: X`)."""
        if self.kind is NodeKind.ITEM and self.children and self.children[0].row == self.row:
            return self.children[0]
        return None

    def entries(self) -> Iterator[Node]:
        for child in self.children:
            if child.kind is NodeKind.ENTRY:
                yield child

    def find(self, key: str) -> Node | None:
        """The child entry whose key matches `key`, ignoring case (see `find_entry`)."""
        return find_entry(self.children, key)

    def walk(self) -> Iterator[Node]:
        """This node and its descendants in document order.

        An explicit stack rather than recursion: nesting depth comes from the input, and a
        hostile file must not exhaust Python's stack.
        """
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            if node.children:
                stack.extend(reversed(node.children))


def winning_walk(root: Node) -> Iterator[Node]:
    """`root` and its descendants in document order, leaving out each entry (with everything
    under it) that a later sibling entry of the same key overrides: the later one wins, as
    `find_entry` and `DUPLICATE_KEY` say, for readers that collect over a whole subtree."""
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        yield node
        if node.children:
            last: dict[str, Node] = {}
            for child in node.children:
                if child.kind is NodeKind.ENTRY:
                    last[child.key.lower()] = child
            stack.extend(
                child
                for child in reversed(node.children)
                if child.kind is not NodeKind.ENTRY or last[child.key.lower()] is child
            )


def find_entry(nodes: Iterable[Node], key: str) -> Node | None:
    """The entry among `nodes` whose key matches `key`, ignoring case. When a key is repeated
    the later one wins, as on the platform (`DUPLICATE_KEY` says so)."""
    want = key.lower()
    found = None
    for node in nodes:
        if node.kind is NodeKind.ENTRY and node.key.lower() == want:
            found = node
    return found


def _fold(text: str) -> str:
    """`>` blocks: single line breaks between text lines become spaces; blank lines stay."""
    out: list[str] = [
        " ".join(line.strip() for line in para.split("\n") if line.strip()) for para in text.split("\n\n")
    ]
    return "\n".join(out)


@dataclass(slots=True, eq=False)
class TopBlock:
    """A column-0 line and everything indented under it: the unit of incremental reuse."""

    node: Node
    text: str  # the exact source text of the block, leading trivia included
    # What the scanner reports inside this block when the block is read on its own (absolute
    # positions), kept so that a reparse can carry the block over without reading it again.
    # `None` when the tree was not built block by block (the file's nesting could not be read).
    diagnostics: list[Diagnostic] | None = None
    # A file reports only its first TAB_INDENTATION warning. True when this block comes after
    # that warning and holds a tab, so its own warning (if any) was never computed.
    tabs_unread: bool = False
    # How many rows the block moved when a reparse carried it over from the previous tree
    # (0 for a block read afresh or left in place); ranges computed from it before are stale.
    row_shift: int = 0


@dataclass(slots=True, eq=False)
class SourceFile:
    text: str
    nodes: list[Node]  # column-0 nodes in order
    trailing: list[Trivia]
    diagnostics: list[Diagnostic]
    index: LineIndex
    blocks: list[TopBlock] = field(default_factory=list)

    def to_text(self) -> str:
        """Reassemble the input from the tree (the losslessness invariant)."""
        parts: list[str] = []
        text = self.text
        for node in self.walk():
            parts.extend(text[t.start : t.end] for t in node.leading)
            parts.append(text[node.start : node.end])
        parts.extend(text[t.start : t.end] for t in self.trailing)
        return "".join(parts)

    def walk(self) -> Iterator[Node]:
        for node in self.nodes:
            yield from node.walk()  # one level of delegation; the walk itself is iterative
