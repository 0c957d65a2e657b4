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
from abl.text import LineIndex, Range, rows_on, span, split_lines


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


class Anchor:
    """Where one top-level block sits in its file now.

    Every node of a block stores its offsets and rows counted from the block's anchor, and
    reads them back absolute. A block that moves (an edit above it added characters or lines)
    is moved by changing its anchor once, not by rewriting each of its nodes: a keystroke in a
    20,000-line file moves thousands of blocks.
    """

    __slots__ = ("offset", "row", "text", "trivia")

    def __init__(self, text: str, offset: int = 0, row: int = 0) -> None:
        self.text = text  # the whole file's text
        self.offset = offset
        self.row = row
        # The comment and blank lines inside the block (not those leading it): trivia keeps
        # absolute positions, so these are moved with the block one by one.
        self.trivia: list[Trivia] = []


class AnchoredRange:
    """A range inside one top-level block, kept with the row its block's anchor was at: it reads
    where the block is now, so what holds it (an edge of the handoff graph) moves with the
    block, untouched, when lines are added or removed above. A block that is read again gets a
    new anchor; the old one stays where it was, and so do ranges made on it.

    Equal to any range, anchored or not, that reads the same now. Its hash is that of what it
    reads, which changes as the block moves: it is never a key of a table kept across edits."""

    __slots__ = ("_anchor_row", "_range", "anchor")

    def __init__(self, anchor: Anchor, where: Range) -> None:
        self.anchor = anchor
        # What it read when the anchor was at `_anchor_row`: read again only once it moved.
        self._range = where
        self._anchor_row = anchor.row

    @property
    def range(self) -> Range:
        row = self.anchor.row
        if row != self._anchor_row:
            self._range = rows_on(self._range, row - self._anchor_row)
            self._anchor_row = row
        return self._range

    def same_place(self, other: object) -> bool:
        """Whether `other` is anchored to the same block at the same place: the two read the
        same now and after any move (an equal range on another anchor may part ways later)."""
        return type(other) is AnchoredRange and other.anchor is self.anchor and other.range == self.range

    def __eq__(self, other: object) -> bool:
        if type(other) is AnchoredRange:
            return self.range == other.range
        return isinstance(other, Range) and self.range == other

    def __hash__(self) -> int:
        return hash(self.range)

    def __repr__(self) -> str:
        return f"AnchoredRange({self.range!r})"


class Node:
    """One significant line of ABL (plus its pipe-block or open-bracket continuation lines).

    For an ENTRY, `key_*` and `value_*` locate the key and the value (trailing comment
    excluded). For TEXT, `value_*` is the whole text. For an ITEM, the node owns the
    indentation and the dash; its content is `children[0]`. Offsets and rows read absolute;
    they are stored relative to the block's `anchor` (-1 stays -1: "none"). `key_*` mean
    something for entries only, `value_end_row` for entries and text only.
    """

    __slots__ = (
        "_comment_start",
        "_end",
        "_key_end",
        "_key_start",
        "_line_start",
        "_pipe_end_row",
        "_row",
        "_start",
        "_value_end",
        "_value_end_row",
        "_value_start",
        "anchor",
        "children",
        "col",
        "key",
        "kind",
        "leading",
        "value_end_char",
    )

    def __init__(
        self, kind: NodeKind, row: int, line_start: int, start: int, end: int, col: int, anchor: Anchor
    ) -> None:
        """Positions are counted from `anchor` (the scanner makes nodes while it is at 0)."""
        self.kind = kind
        self.col = col  # nesting column (indent width; for an item's content, the content column)
        self.key = ""
        self.value_end_char = 0
        self.leading: list[Trivia] = []
        self.children: list[Node] = []
        self.anchor = anchor
        self._row = row
        self._line_start = line_start  # offset of the row's first character
        self._start = start  # first offset owned by this node
        self._end = end  # offset after the last byte owned (line terminators included)
        self._key_start = self._key_end = self._value_start = self._value_end = 0
        self._value_end_row = 0
        self._comment_start = self._pipe_end_row = -1

    def __repr__(self) -> str:
        return f"Node({self.kind.name}, row={self.row}, {self.start}..{self.end}, key={self.key!r})"

    @property
    def source(self) -> str:
        return self.anchor.text

    # --- offsets and rows, absolute ------------------------------------------------------

    @property
    def row(self) -> int:
        return self._row + self.anchor.row

    @row.setter
    def row(self, value: int) -> None:
        self._row = value - self.anchor.row

    @property
    def line_start(self) -> int:
        return self._line_start + self.anchor.offset

    @line_start.setter
    def line_start(self, value: int) -> None:
        self._line_start = value - self.anchor.offset

    @property
    def start(self) -> int:
        return self._start + self.anchor.offset

    @start.setter
    def start(self, value: int) -> None:
        self._start = value - self.anchor.offset

    @property
    def end(self) -> int:
        return self._end + self.anchor.offset

    @end.setter
    def end(self, value: int) -> None:
        self._end = value - self.anchor.offset

    @property
    def key_start(self) -> int:
        return self._key_start + self.anchor.offset

    @key_start.setter
    def key_start(self, value: int) -> None:
        self._key_start = value - self.anchor.offset

    @property
    def key_end(self) -> int:
        return self._key_end + self.anchor.offset

    @key_end.setter
    def key_end(self, value: int) -> None:
        self._key_end = value - self.anchor.offset

    @property
    def value_start(self) -> int:
        return self._value_start + self.anchor.offset

    @value_start.setter
    def value_start(self, value: int) -> None:
        self._value_start = value - self.anchor.offset

    @property
    def value_end(self) -> int:
        return self._value_end + self.anchor.offset

    @value_end.setter
    def value_end(self, value: int) -> None:
        self._value_end = value - self.anchor.offset

    @property
    def value_end_row(self) -> int:
        return self._value_end_row + self.anchor.row

    @value_end_row.setter
    def value_end_row(self, value: int) -> None:
        self._value_end_row = value - self.anchor.row

    @property
    def comment_start(self) -> int:
        """Offset of the trailing comment, -1 when there is none."""
        at = self._comment_start
        return at + self.anchor.offset if at >= 0 else -1

    @comment_start.setter
    def comment_start(self, value: int) -> None:
        self._comment_start = value - self.anchor.offset if value >= 0 else -1

    @property
    def pipe_end_row(self) -> int:
        """Last row of a pipe block, -1 when there is none."""
        at = self._pipe_end_row
        return at + self.anchor.row if at >= 0 else -1

    @pipe_end_row.setter
    def pipe_end_row(self, value: int) -> None:
        self._pipe_end_row = value - self.anchor.row if value >= 0 else -1

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
        anchor = self.anchor
        return anchor.text[self._value_start + anchor.offset : self._value_end + anchor.offset]

    @property
    def has_value(self) -> bool:
        return self._value_end > self._value_start

    @property
    def is_pipe(self) -> bool:
        if self.kind is not NodeKind.ENTRY or self._value_end <= self._value_start:
            return False
        # Every marker starts with `|` or `>`, after blanks: most values are not sliced out to
        # be compared.
        anchor = self.anchor
        first = anchor.text[self._value_start + anchor.offset]
        return (first in "|>" or first.isspace()) and self.value.strip() in PIPE_MARKERS

    @property
    def pipe_text(self) -> str:
        """The content of a pipe block, dedented, newlines preserved."""
        if not self.is_pipe or self.pipe_end_row < 0:
            return ""
        body = self.source[self._line_end_offset() : self.end]
        lines = split_lines(body)
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

    # Columns are differences of offsets of one block, so they read the stored fields.

    @property
    def key_range(self) -> Range:
        return Range.on_line(self.row, self._key_start - self._line_start, self._key_end - self._line_start)

    @property
    def value_range(self) -> Range:
        row = self._row + self.anchor.row
        if self._value_end <= self._value_start:
            c = (self._key_end if self.kind is NodeKind.ENTRY else self._start) - self._line_start
            if self.kind is NodeKind.ENTRY:
                c += 1  # just after the colon
            return Range.empty(row, c)
        return span(
            row, self._value_start - self._line_start, self._value_end_row + self.anchor.row, self.value_end_char
        )

    @property
    def head_range(self) -> Range:
        """The line's own text: from the key (or text, or dash) to the end of its value."""
        row = self._row + self.anchor.row
        if self.kind is NodeKind.ITEM:
            dash = self._value_start - 1 - self._line_start
            return Range.on_line(row, dash, dash + 1)
        if self.kind is NodeKind.ENTRY:
            start = self._key_start - self._line_start
            if self._value_end <= self._value_start:
                return Range.on_line(row, start, self._key_end - self._line_start + 1)
            return span(row, start, *self.value_range.end)
        return span(row, self._value_start - self._line_start, *self.value_range.end)

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
        if self.kind is NodeKind.ITEM and self.children and self.children[0]._row == self._row:
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


def winning_children(node: Node, *, fold_case: bool = True) -> list[Node]:
    """`node`'s children, leaving out each entry that a later sibling entry of the same key
    overrides: the later one wins, as `DUPLICATE_KEY` says, for readers that collect what a block
    holds. Keys match in any letter case unless `fold_case` is false (inside `CONTEXT`, where
    the platform reads only lowercase keys, `PASS` is another key than `pass`)."""
    children = node.children
    last: dict[str, Node] = {}
    entries = 0
    for child in children:
        if child.kind is NodeKind.ENTRY:
            last[child.key.lower() if fold_case else child.key] = child
            entries += 1
    if len(last) == entries:
        return children  # no key written twice: the common case, no copy
    return [c for c in children if c.kind is not NodeKind.ENTRY or last[c.key.lower() if fold_case else c.key] is c]


def winning_walk(root: Node) -> Iterator[Node]:
    """`root` and its descendants in document order, leaving out each entry (with everything
    under it) that a later sibling entry of the same key overrides: the later one wins, as
    `find_entry` and `DUPLICATE_KEY` say, for readers that collect over a whole subtree."""
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(winning_children(node)))


def find_entry(nodes: Iterable[Node], key: str, *aliases: str) -> Node | None:
    """The entry among `nodes` whose key matches `key` (or one of its `aliases`), ignoring case.
    When a key is repeated, under its own name or an alias, the later one wins, as on the
    platform (`DUPLICATE_KEY` says so)."""
    wanted = {key.lower(), *(a.lower() for a in aliases)}
    found = None
    for node in nodes:
        if node.kind is NodeKind.ENTRY and node.key.lower() in wanted:
            found = node
    return found


def entries_by_key(nodes: Iterable[Node]) -> dict[str, Node]:
    """Each entry among `nodes` by its key in lowercase, the later of a key written twice: what
    `find_entry` answers for each key, for a reader that asks about many keys of one block."""
    return {node.key.lower(): node for node in nodes if node.kind is NodeKind.ENTRY}


def _fold(text: str) -> str:
    """`>` blocks: single line breaks between text lines become spaces; blank lines stay."""
    out: list[str] = [
        " ".join(line.strip() for line in para.split("\n") if line.strip()) for para in text.split("\n\n")
    ]
    return "\n".join(out)


def block_end(node: Node) -> int:
    """Offset just past the last line of `node` and everything nested under it."""
    return max(n.end for n in node.walk())


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
    # What the reparse that made this tree did, for the layers above: whether any block has a
    # `row_shift`, and the one block re-read by a keystroke (-1: another kind of edit).
    rows_moved: bool = False
    edited_block: int = -1
    edited_from: int = 0  # `id` of the tree that reparse started from (valid while it lives)
    # Whether every block can be carried over on its own (None: not worked out yet).
    blocks_whole: bool | None = None
    _holds_tab: bool | None = None

    @property
    def holds_tab(self) -> bool:
        """Whether the text has a tab anywhere: asked by every fix that indents a new line, so
        the text (a megabyte, for a large file) is searched once."""
        if self._holds_tab is None:
            self._holds_tab = "\t" in self.text
        return self._holds_tab

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
