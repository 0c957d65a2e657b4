"""Folding ranges and selection ranges: the shape of a file as the editor shows and grows it.

Both read the lossless tree only. A block is a line and everything indented under it, so its
last line is the last line of its last descendant (a `|` block's last text line, an open
bracket's closing line); blank lines and comments after it belong to whatever follows, which
is why a fold never ends on a trailing blank line.

Folds: every block with children (sections, routes, nested blocks), every `|` block and
multi-line bracket value, runs of two or more whole-line comments (`comment`), runs of two or
more `file:` tool imports (`imports`), and each agent of a file that holds several.

Selection ranges grow outwards from a position: the word, the quoted string (inside, then
with its quotes), the key or the value, the whole line, the line's block, each enclosing block,
the agent's document, the whole file. Each step strictly contains the one before.

Neither function raises, whatever the text; no recursion follows the nesting depth.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from operator import attrgetter

from abl.ide.locate import Part, Site, locate
from abl.model import Document
from abl.syntax.cst import Node, SourceFile, Trivia, TriviaKind
from abl.text import Position, Range

_ROW = attrgetter("row")  # siblings are in row order: the key to bisect them by

REGION = "region"
COMMENT = "comment"
IMPORTS = "imports"


@dataclass(frozen=True, slots=True)
class Fold:
    start_line: int
    end_line: int
    kind: str  # REGION, COMMENT or IMPORTS


@dataclass(frozen=True, slots=True)
class SelectionRange:
    range: Range
    parent: SelectionRange | None = None

    def chain(self) -> list[Range]:
        """This range and every range around it, innermost first."""
        out: list[Range] = []
        step: SelectionRange | None = self
        while step is not None:
            out.append(step.range)
            step = step.parent
        return out


# --- folding ----------------------------------------------------------------------------------


def folding_ranges(document: Document) -> list[Fold]:
    """Every fold of the file, sorted by first line; at most one per first line and kind."""
    source = document.source
    nodes = list(_all_nodes(source.nodes))
    last = _last_rows(nodes)
    found: list[Fold] = []
    for node in nodes:
        if node.children or node.is_pipe or _own_last_row(node) > node.row:
            found.append(Fold(node.row, last[id(node)], REGION))
        found.extend(_import_runs(node.children, last))
    for trivia in [source.trailing, *(node.leading for node in nodes)]:
        found.extend(_comment_runs(trivia))
    if len(document.agents) > 1:
        for header, final in _agent_blocks(source, document):
            found.append(Fold(header.row, last[id(final)], REGION))
    return _tidy(found)


def _tidy(folds: Iterable[Fold]) -> list[Fold]:
    """Drops folds of one line, keeps the longest fold per first line and kind, sorts."""
    longest: dict[tuple[int, str], Fold] = {}
    for fold in folds:
        if fold.end_line <= fold.start_line:
            continue
        key = (fold.start_line, fold.kind)
        if key not in longest or fold.end_line > longest[key].end_line:
            longest[key] = fold
    return sorted(longest.values(), key=lambda f: (f.start_line, -f.end_line, f.kind))


def _comment_runs(trivia: list[Trivia]) -> Iterator[Fold]:
    """Runs of consecutive whole-line comments (a blank line ends a run)."""
    start = previous = -2
    for t in trivia:
        if t.kind is not TriviaKind.COMMENT:
            continue
        if t.row != previous + 1:
            if previous > start:
                yield Fold(start, previous, COMMENT)
            start = t.row
        previous = t.row
    if previous > start >= 0:
        yield Fold(start, previous, COMMENT)


def _import_runs(children: list[Node], last: dict[int, int]) -> Iterator[Fold]:
    """Runs of two or more sibling `file:` imports."""
    run: list[Node] = []
    for child in [*children, None]:
        if child is not None and child.is_entry and child.key.lower() == "file":
            run.append(child)
            continue
        if len(run) >= 2:
            yield Fold(run[0].row, last[id(run[-1])], IMPORTS)
        run = []


def _agent_blocks(source: SourceFile, document: Document) -> Iterator[tuple[Node, Node]]:
    """(header, last column-0 node) of each agent: its header to the last block before the
    next agent's header."""
    headers = sorted((agent.header for agent in document.agents), key=lambda n: n.row)
    rows = [n.row for n in source.nodes]  # column-0 nodes are in row order
    for i, header in enumerate(headers):
        limit = headers[i + 1].row if i + 1 < len(headers) else None
        # The last column-0 node before the next header, found by bisection: one pass over all
        # nodes per agent would make a file of thousands of agents quadratic.
        end = bisect_left(rows, limit) if limit is not None else len(rows)
        if end > 0 and rows[end - 1] >= header.row:
            yield header, source.nodes[end - 1]


# --- rows and ends of blocks ------------------------------------------------------------------


def _own_last_row(node: Node) -> int:
    """The last row of the node's own text: its `|` block or open-bracket continuation."""
    rows = [node.row, node.pipe_end_row]
    if not node.is_item:
        rows.append(node.value_end_row)
    return max(rows)


def _last_rows(nodes: list[Node]) -> dict[int, int]:
    """id(node) -> the last row of its block, for `nodes` in document order (parents before
    children): filled from the end, so each block reads its last child's answer once."""
    last: dict[int, int] = {}
    for node in reversed(nodes):
        own = _own_last_row(node)
        last[id(node)] = max(own, last.get(id(node.children[-1]), own)) if node.children else own
    return last


class _Blocks:
    """Ranges of blocks, sharing the walk down to each last descendant: the blocks on one path
    all end where the outermost one does, so a deep path costs its depth once, not squared."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self._last: dict[int, Node] = {}

    def last_descendant(self, node: Node) -> Node:
        walked = [node]
        while walked[-1].children and id(walked[-1]) not in self._last:
            walked.append(walked[-1].children[-1])
        last = self._last.get(id(walked[-1]), walked[-1])
        for step in walked:
            self._last[id(step)] = last
        return last

    def range(self, node: Node) -> Range:
        """From the block's first character to the end of its last line's text."""
        last = self.last_descendant(node)
        if last.is_pipe and last.pipe_end_row > last.row:
            row = last.pipe_end_row
            end = Position(row, len(self.source.index.line_text(row)))
        else:
            end = max(last.head_range.end, node.head_range.end)
        return Range(node.head_range.start, end)


# --- selection ranges -------------------------------------------------------------------------


def selection_ranges(document: Document, positions: Iterable[Position]) -> list[SelectionRange]:
    """For each position, the chain of ranges an editor's "expand selection" walks through."""
    source = document.source
    comment_rows = {t.row for t in _all_trivia(source) if t.kind is TriviaKind.COMMENT}
    comments = _comment_columns(source, comment_rows)
    blocks = _Blocks(source)
    agents = _AgentRanges(document, blocks)
    return [_selection_at(document, position, comment_rows, comments, blocks, agents) for position in positions]


def _comment_columns(source: SourceFile, comment_rows: set[int]) -> dict[int, int]:
    """Row -> column where a comment starts: whole-line comments and trailing ones."""
    columns: dict[int, int] = {}
    for row in comment_rows:
        line = source.index.line_text(row)
        columns[row] = len(line) - len(line.lstrip(" \t\ufeff"))
    for node in _all_nodes(source.nodes):
        if node.comment_start >= 0:
            at = source.index.position(node.comment_start)
            columns[at.line] = at.character
    return columns


def _selection_at(
    document: Document,
    position: Position,
    comment_rows: set[int],
    comments: dict[int, int],
    blocks: _Blocks,
    agents: _AgentRanges,
) -> SelectionRange:
    site = locate(document, position)
    pos = site.position
    source = document.source
    line = source.index.line_text(pos.line)
    candidates: list[Range] = [site.word_range]
    candidates += _line_ranges(site, line, comment_rows, comments, blocks)
    for step in reversed(site.path):
        candidates.append(blocks.range(step.node))
    candidates += agents.around(pos)
    candidates.append(_file_range(source))
    return _chain(candidates, pos)


def _line_ranges(
    site: Site, line: str, comment_rows: set[int], comments: dict[int, int], blocks: _Blocks
) -> list[Range]:
    """The ranges inside the cursor's own line and node, innermost first."""
    source = blocks.source
    pos = site.position
    row = pos.line
    out: list[Range] = []
    comment_col = comments.get(row)
    if comment_col is not None and pos.character >= comment_col:
        out.append(Range.on_line(row, comment_col, len(line)))
        if row in comment_rows:
            out.append(_comment_block(source, row, comment_rows))
            return out
    node = site.node if site.node is not None else _node_on_row(site, row)
    if node is None:
        return out
    if node.is_pipe and row > node.row:
        indent = len(line) - len(line.lstrip(" \t"))
        out.append(Range.on_line(row, indent, len(line)))
        first = source.index.line_text(node.row + 1)
        body_start = Position(node.row + 1, len(first) - len(first.lstrip(" \t")))
        last = source.index.line_text(node.pipe_end_row)
        out.append(Range(body_start, Position(node.pipe_end_row, len(last))))
    else:
        out += _quoted(line, row, pos.character, node)
        if site.part is Part.KEY and node.is_entry:
            out.append(node.key_range)
        elif site.part is Part.VALUE:
            out.append(node.value_range)
    out.append(node.head_range)
    out.append(blocks.range(node))
    return out


def _node_on_row(site: Site, row: int) -> Node | None:
    """The line's node when `locate` gives none because the cursor is in a trailing comment."""
    siblings = site.path[-1].node.children if site.path else site.document.source.nodes
    k = bisect_left(siblings, row, key=_ROW)  # siblings are in row order
    if k < len(siblings) and siblings[k].row == row:
        return siblings[k].content or siblings[k]
    return None


def _comment_block(source: SourceFile, row: int, comment_rows: set[int]) -> Range:
    first = last = row
    while first - 1 in comment_rows:
        first -= 1
    while last + 1 in comment_rows:
        last += 1
    first_line = source.index.line_text(first)
    start = Position(first, len(first_line) - len(first_line.lstrip(" \t\ufeff")))
    return Range(start, Position(last, len(source.index.line_text(last))))


def _quoted(line: str, row: int, char: int, node: Node) -> list[Range]:
    """The quoted string around the cursor in the node's value on this row: inside, then with
    its quotes. An apostrophe inside a word (`customer's`) opens nothing."""
    if node.row != row or not node.has_value:
        return []
    i = node.value_start - node.line_start
    end = min(len(line), node.value_end - node.line_start) if node.value_end_row == row else len(line)
    while 0 <= i < end:
        ch = line[i]
        if ch in "\"'" and (i == 0 or not (line[i - 1].isalnum() or line[i - 1] in "_-.")):
            j = i + 1
            while j < end and line[j] != ch:
                j += 2 if line[j] == "\\" else 1
            closed = j < end
            stop = j + 1 if closed else end
            if i <= char <= stop:
                inner = Range.on_line(row, i + 1, stop - 1 if closed else stop)
                return [inner, Range.on_line(row, i, min(stop, end))]
            i = stop
        else:
            i += 1
    return []


class _AgentRanges:
    """The range of each agent of the file, worked out once for all the positions asked about."""

    def __init__(self, document: Document, blocks: _Blocks) -> None:
        self.ranges = [
            Range(header.head_range.start, blocks.range(last).end)
            for header, last in _agent_blocks(document.source, document)
        ]
        self.starts = [r.start.line for r in self.ranges]  # in row order, and the ranges do not overlap

    def around(self, pos: Position) -> list[Range]:
        at = bisect_right(self.starts, pos.line) - 1
        if at >= 0 and pos.line <= self.ranges[at].end.line:
            return [self.ranges[at]]
        return []


def _file_range(source: SourceFile) -> Range:
    last = source.index.line_count - 1
    return Range(Position(0, 0), Position(last, len(source.index.line_text(last))))


def _chain(candidates: list[Range], pos: Position) -> SelectionRange:
    """Links the candidates that hold the position, each strictly containing the one before;
    the others (empty, or not around the previous one) are skipped."""
    kept: list[Range] = []
    for r in candidates:
        if r.start == r.end or not (r.start <= pos <= r.end):
            continue
        if kept and not (r.start <= kept[-1].start and kept[-1].end <= r.end and r != kept[-1]):
            continue
        kept.append(r)
    selection = SelectionRange(kept[-1] if kept else Range(pos, pos))  # the outermost
    for r in reversed(kept[:-1]):
        selection = SelectionRange(r, selection)
    return selection


# --- walking ----------------------------------------------------------------------------------


def _all_nodes(roots: list[Node]) -> Iterator[Node]:
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def _all_trivia(source: SourceFile) -> Iterator[Trivia]:
    for node in _all_nodes(source.nodes):
        yield from node.leading
    yield from source.trailing
