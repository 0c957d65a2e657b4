"""Where handoff constructs sit in the text, and the edits the route rules' quick fixes make.

The model keeps ranges but not the tree around them; quick fixes need both (which column a
new key goes in, where a block ends, which line ending the file uses). This module answers
those questions so each rule states only what it changes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from abl.checks.layout import block_end
from abl.diagnostics import Fix, TextEdit
from abl.model import HandoffRoute
from abl.model.nesting import ignored_under_value
from abl.syntax.cst import Node, SourceFile
from abl.syntax.cst import find_entry as find_child_entry
from abl.syntax.scanner import indent_width
from abl.text import Position, Range

_AGENT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def nameable(names: Sequence[str]) -> list[str]:
    """The names that can be written after `TO:` or `AGENT:` as they are: a "did you mean" must
    not offer an agent whose own name is broken (`Orders]`), which would break the route too."""
    return [n for n in names if _AGENT_NAME.fullmatch(n)]


def quoted_list(names: Sequence[str], limit: int = 12) -> str:
    """`A, B, C` (with `and N more` past `limit`), for messages that list what exists."""
    shown = list(names[:limit])
    text = ", ".join(shown)
    if len(names) > limit:
        text += f" and {len(names) - limit} more"
    return text or "none"


def clipped(text: str, width: int = 40) -> str:
    """`text` cut to `width` characters (ending in `...`), so a long slip does not swamp a message."""
    return text if len(text) <= width else text[: width - 3] + "..."


def newline_of(source: SourceFile) -> str:
    """The file's line ending, judged by its first line (enough, and O(1) for big files)."""
    nl = source.text.find("\n")
    return "\r\n" if nl > 0 and source.text[nl - 1] == "\r" else "\n"


def indentation(source: SourceFile, row: int, column: int) -> str:
    """The leading white space of a new line nested at `column` (the parser's width: a tab
    reaches the next multiple of 8) at or below `row`: the indentation of the nearest line at or
    above `row` that is not deeper, as it is written, then spaces. Built so, the line keeps its
    nesting among its neighbours at any tab width, as they do (spaces alone would nest it
    elsewhere for a reader who counts a tab as one column)."""
    if not source.holds_tab:
        return " " * column  # the common case, without looking at the lines around
    index = source.index
    for r in range(min(row, index.line_count - 1), -1, -1):
        line = index.line_text(r)
        content = line.lstrip(" \t")
        if not content:
            continue
        written = line[: len(line) - len(content)]
        width = indent_width(line)
        if width <= column:
            return written + " " * (column - width)
    return " " * column


def reindented(line: str, column: int, base: str) -> str:
    """`line` of a block whose lines start at `column` or deeper, moved so that `column` comes to
    where `base` (white space) ends: its depth past `column` kept, as spaces after `base`."""
    content = line.lstrip(" \t")
    if not content:
        return line
    return base + " " * max(0, indent_width(line) - column) + content


def key_column(node: Node) -> int:
    """The column of the keys directly under `node` (a list item's keys sit after the dash)."""
    if node.is_item:
        content = node.content
        if content is not None:
            return content.col
    for child in node.children:
        return child.col
    return node.col + 2


def insert_lines(
    source: SourceFile, after: Node, column: int, lines: Sequence[str], *, stacks: bool = False
) -> TextEdit:
    """An edit adding `lines` (indented to `column`) right after `after`'s block; `stacks` when
    other fixes may add their lines at the same place in the same pass (items of one list)."""
    nl = newline_of(source)
    offset = block_end(after)
    prefix = ""
    if offset > 0 and source.text[offset - 1] != "\n":
        prefix = nl  # the block is the last line of a file without a final newline
    at = source.index.position(offset)
    indent = indentation(source, max(at.line - 1, after.row), column)
    text = prefix + "".join(indent + line + nl for line in lines)
    return TextEdit(Range(at, at), text, stacks)


def add_lines_fix(title: str, source: SourceFile, after: Node, column: int, lines: Sequence[str], *, safe: bool) -> Fix:
    return Fix(title, (insert_lines(source, after, column, lines),), safe)


def after_colon(source: SourceFile, node: Node) -> Position:
    """The position just after the `:` that ends `node`'s key."""
    line = source.index.line_text(node.row)
    key_end = node.key_end - node.line_start
    colon = line.find(":", key_end)
    return Position(node.row, (colon if colon >= 0 else key_end) + 1)


def replace_block_value(source: SourceFile, node: Node, text: str) -> TextEdit:
    """Replace an entry's value and its whole nested block with `text` (which starts right
    after the colon, so it usually begins with a space or a newline)."""
    last = node
    for n in node.walk():
        if n.row >= last.row:
            last = n
    end = last.head_range.end if last is not node else node.value_range.end
    if last.is_pipe and last.pipe_end_row >= 0:
        end = Position(last.pipe_end_row, len(source.index.line_text(last.pipe_end_row)))
    return TextEdit(Range(after_colon(source, node), end), text)


def find_entry(root: Node, key_range: Range) -> Node | None:
    """The entry under `root` whose key sits at `key_range` (how a model value finds its node)."""
    for n in root.walk():
        if n.is_entry and n.key_range == key_range:
            return n
    return None


def route_entry(route: HandoffRoute, key: str) -> Node | None:
    """The route's own entry `key` (case-insensitive), e.g. `ON_RETURN` or `RETURN`: the later
    one when it is written twice, the one the model reads (`DUPLICATE_KEY` says so)."""
    if route.node is None:
        return None
    return find_child_entry(route.node.children, key)


def nested_route_key(route: HandoffRoute, *keys: str) -> tuple[Node, Node] | None:
    """(the entry holding a value, the `key` nested under it) when the route writes one of `keys`
    one level under a value of its own (`HISTORY` deeper than `TO: X`): written, yet read by
    nothing (`KEY_UNDER_VALUE`). A message about the route must not call it absent."""
    if route.node is None:
        return None
    wanted = {key.lower() for key in keys}
    for holder, line in ignored_under_value(route.node):
        if line.is_entry and line.key.lower() in wanted and holder in route.node.children and line in holder.children:
            return holder, line
    return None


def nested_note(found: tuple[Node, Node]) -> str:
    """How a message names a key that `nested_route_key` found."""
    holder, line = found
    return f"the `{line.key}` written under `{holder.key}: {clipped(holder.value.strip(), 30)}` is nested under a value and ignored"


def route_anchor(route: HandoffRoute) -> Range:
    """Where to report something a route lacks: its `TO: X` line, or its dash without one."""
    node = route_entry(route, "TO")
    if node is not None:
        return node.head_range
    return route.dash_range


def span_range(base: Position, text: str, start: int, end: int) -> Range:
    """The range of `text[start:end]` when `text` begins at `base` (it may span lines)."""

    def at(offset: int) -> Position:
        before = text[:offset]
        newlines = before.count("\n")
        if newlines == 0:
            return Position(base.line, base.character + offset)
        return Position(base.line + newlines, offset - (before.rfind("\n") + 1))

    return Range(at(start), at(end))
