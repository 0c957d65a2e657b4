"""The ABL formatter: one canonical layout for indentation and spacing, never a change of meaning.

Rules, applied to every top-level block (a column-0 line and everything under it) that can be
formatted safely:

- Each nesting level is indented by exactly `FormatOptions.indent` spaces, as the tree says it
  nests. A list item sits one level under its key; what follows `- ` stays on the dash line
  after exactly one space, and the lines under an item align with that content. So a file
  indented at any consistent width (items written `- key` or `-   key`) gets one layout.
- A dash alone on its line followed by the item's lines (`-`, then `TO: X` below) is written
  `- TO: X`, its other lines aligned under `TO`, where the model reads the two spellings alike
  (a list of routes). Where it does not (a bare dash is no name in a list of names), and where
  a comment sits on the dash or between it and the first line, the dash stays on its own.
- Lines the parser reads as nested under a key that has a value (`WHEN:` two columns right of
  the `TO:` of a `- TO:` item) are not part of that key's meaning; they keep their columns
  relative to the key and move with it, so formatting neither hides nor changes what they mean.
- The colon follows the key directly, then exactly one space when a value follows (none otherwise).
- A trailing comment (` # ...`, or `// ...` in `WHEN`) is kept, two spaces after the value.
- A whole-line comment takes the indentation of the line that follows it. A comment indented
  deeper than that line closes the block above it instead: it takes the indentation of the
  deepest line above whose original indentation it reached.
- Blank lines: at most two in a row before a column-0 line, at most one anywhere else, none
  at the start or the end of the file. Blank lines inside pipe blocks and multi-line values
  are content and kept.
- No trailing whitespace, except inside a literal pipe block (`|`), where it is text.
- Pipe block bodies (`|`, `|-`, `>`, ...) move with their owner line and keep their inner
  indentation exactly. Continuation lines of multi-line values (open brackets, tool signatures,
  `var = [...]`) move with their first line and keep their relative indentation.
- Line ends stay as written (CRLF stays CRLF), a UTF-8 BOM stays, and the file ends with a
  line end (`insert_final_newline`, written as the file's usual line end).
- Column-0 blocks stay at column 0, including FLOW steps written there: indenting them would
  change what the platform reads.

Left exactly as written: blocks with a `SYNTAX_ERROR`; blocks whose nesting depends on the
width of a tab; blocks with a pipe block that moving could change (a tab in the body's
indentation, a lone `\r` or form feed inside a body row, deeper lines after a comment that cut
the body short); blocks with a lone `\r` that trimming trailing blanks would turn into a line
end. A formatter must never make broken code worse. Tabs elsewhere become spaces.
Lines nested under a key that holds a value (read by nothing) keep their nesting too:
`rows_under_values` lists them, so that `abl format` can say so.

Invariants: formatting is idempotent, and the formatted text lowers to the same model (source
positions aside) and the same diagnostics (tab warnings aside). As a last line of defence, a
result whose tree, comments or syntax errors differ from the input's is discarded and the input
is returned unchanged. Joining a bare dash to its line is kept only where the model and the
checker read the file as they read it with the dash left alone.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from abl.checks.engine import check_file
from abl.diagnostics import TextEdit
from abl.model.nesting import ignored_under_value, takes_keys_under_value
from abl.model.shape import model_shape
from abl.syntax.cst import PIPE_MARKERS, Node, NodeKind, SourceFile, Trivia, TriviaKind
from abl.syntax.parser import parse
from abl.syntax.scanner import TAB_WIDTH
from abl.text import Position, Range
from abl.workspace import Project

BOM = "\ufeff"
_BLANKS = " \t"  # the only characters the scanner reads as indentation or spacing
_COMMENT_GAP = "  "
_TAB_WIDTHS_TRIED = (1, 2, 4, TAB_WIDTH)  # editors differ; a tab that matters is left alone
_BLANKS_BEFORE_COLUMN_ZERO = 2
_BLANKS_ELSEWHERE = 1


@dataclass(frozen=True, slots=True)
class FormatOptions:
    """What the caller may choose; everything else about the layout is fixed."""

    indent: int = 2  # spaces per nesting level
    insert_final_newline: bool = True

    def __post_init__(self) -> None:
        if self.indent < 1:
            raise ValueError(f"indent must be at least 1, got {self.indent}")


@dataclass(frozen=True, slots=True)
class _Row:
    """One physical line: its text and the line end that follows it (`""` on an unterminated last line)."""

    content: str
    ending: str


def format_text(text: str, options: FormatOptions = FormatOptions()) -> str:
    """The whole document, formatted."""
    return _join(_format_rows(text, options).formatted)


def rows_under_values(text: str) -> list[int]:
    """The rows nested under a key that holds a value, which nothing reads (`KEY_UNDER_VALUE`).
    The formatter keeps them where they nest, since moving them would change what runs; the
    caller says so, rather than call the file formatted without a word."""
    source = parse(text)
    return sorted({line.row for top in source.nodes for _, line in ignored_under_value(top)})


def format_edits(
    text: str, options: FormatOptions = FormatOptions(), line_range: tuple[int, int] | None = None
) -> list[TextEdit]:
    """Edits turning `text` into its formatted form, one per run of changed lines.

    With `line_range` (first and last line, 0-based, inclusive), only the edits inside the
    top-level blocks that intersect those lines: a block is always formatted as a whole, so
    that its lines stay consistent with each other.
    """
    result = _format_rows(text, options)
    wanted = result.rows_of_blocks(*line_range) if line_range is not None else None
    changed = [
        row
        for row, (before, after) in enumerate(zip(result.original, result.formatted, strict=True))
        if before != after and (wanted is None or row in wanted)
    ]
    return [result.edit(run) for run in _runs(changed)]


def _runs(rows: list[int]) -> list[list[int]]:
    """Consecutive rows grouped: [1, 2, 5] gives [[1, 2], [5]]."""
    runs: list[list[int]] = []
    for row in rows:
        if runs and runs[-1][-1] == row - 1:
            runs[-1].append(row)
        else:
            runs.append([row])
    return runs


# --- the row plan ------------------------------------------------------------------------


@dataclass(slots=True)
class _Result:
    original: list[_Row]
    formatted: list[_Row | None]  # per original row: its new form, or None when it is dropped
    block_rows: list[tuple[int, int]]  # first and last row of each top-level block

    def rows_of_blocks(self, first: int, last: int) -> set[int]:
        rows: set[int] = set()
        for start, end in self.block_rows:
            if start <= last and end >= first:
                rows.update(range(start, end + 1))
        return rows

    def edit(self, run: list[int]) -> TextEdit:
        first, last = run[0], run[-1]
        start = Position(first, 0)
        final = self.original[last]
        if final.ending.endswith("\n"):
            end = Position(last + 1, 0)
        else:  # the file's last line, with no line end
            end = Position(last, len(final.content) + len(final.ending))
        new_text = "".join(r.content + r.ending for r in self.formatted[first : last + 1] if r is not None)
        return TextEdit(Range(start, end), new_text)


def _format_rows(text: str, options: FormatOptions) -> _Result:
    rows = _split_rows(text)
    source = parse(text)
    layout = _Layout(source, rows, options)
    formatted = layout.run()
    if layout.joined_in:
        layout = _joining_what_keeps_the_model(source, rows, options, layout)
        formatted = layout.out
    if formatted != rows and not _same_meaning(source, _join(formatted)):
        formatted = list(rows)
    return _Result(rows, formatted, layout.block_rows())


def _joining_what_keeps_the_model(
    source: SourceFile, rows: list[_Row], options: FormatOptions, layout: _Layout
) -> _Layout:
    """`layout` (which joined bare dashes to their lines) if the model and the checker read it
    as the same layout without the joins, else the layout that joins them only in the
    top-level blocks where they still do."""
    apart = _Layout(source, rows, options, join_in=frozenset())
    reading = _reading(_join(apart.run()))
    if _reading(_join(layout.out)) == reading:
        return layout
    kept = frozenset(
        block
        for block in sorted(layout.joined_in)
        if _reading(_join(_Layout(source, rows, options, join_in=frozenset({block})).run())) == reading
    )
    if not kept:
        return apart
    final = _Layout(source, rows, options, join_in=kept)
    final.run()
    return final


_READING_PATH = "/document.abl"  # a one-file project: what the file alone means


def _reading(text: str) -> tuple[object, Counter[tuple[str, str]]]:
    """What the model and the checker read in `text`, source positions aside."""
    project = Project("/")
    document = project.update(_READING_PATH, text)
    found = Counter((d.code, d.severity.name) for d in check_file(project, _READING_PATH))
    return model_shape(document), found


def _split_rows(text: str) -> list[_Row]:
    """Physical lines as the scanner sees them: split at `\\n`, one `\\r` before it is part of the end."""
    rows: list[_Row] = []
    start = 0
    n = len(text)
    while start < n:
        nl = text.find("\n", start)
        end = n if nl == -1 else nl + 1
        line = text[start:end]
        content = line.rstrip("\n")
        if content.endswith("\r"):
            content = content[:-1]
        rows.append(_Row(content, line[len(content) :]))
        start = end
    return rows


def _join(rows: list[_Row | None]) -> str:
    return "".join(r.content + r.ending for r in rows if r is not None)


# --- layout ------------------------------------------------------------------------------


class _Layout:
    """Decides the new form of every row of one parsed file."""

    def __init__(
        self, source: SourceFile, rows: list[_Row], options: FormatOptions, join_in: frozenset[int] | None = None
    ) -> None:
        self.source = source
        self.rows = rows
        self.options = options
        self.join_in = join_in  # the top-level blocks whose bare dashes may join their lines (None: all)
        self.joined_in: set[int] = set()  # the blocks where some did
        self.block = 0  # index of the block being formatted
        self.written_heads: set[int] = set()  # ids of the nodes whose first row is written
        self.out: list[_Row | None] = list(rows)
        self.bom = BOM if rows and rows[0].content.startswith(BOM) else ""
        # (original column, new column) of the last line's node and of each of its ancestors,
        # root first: where a comment that closes a block goes.
        self.chain: list[tuple[int, int]] = []
        self.started = False  # a non-blank row has been written

    # --- driver ---------------------------------------------------------------------------

    def run(self) -> list[_Row | None]:
        if self.source.blocks and self.source.blocks[0].diagnostics is None:
            return self.out  # the nesting could not be read at all: nothing is safe to move
        left_as_written = self._blocks_left_as_written()
        for k, block in enumerate(self.source.blocks):
            self.block = k
            if k in left_as_written:
                self._keep_block(block.node)
            else:
                self._format_block(block.node)
        self._trailing(self.source.trailing)
        self._final_newline()
        self._keep_bom()
        return self.out

    def block_rows(self) -> list[tuple[int, int]]:
        """First and last row of each top-level block. Comments and blank lines belong to the
        block they precede; the lines after the last block belong to it."""
        starts = [_first_row(block.node) for block in self.source.blocks] or [0]
        starts[0] = 0
        ends = [s - 1 for s in starts[1:]] + [max(len(self.rows) - 1, 0)]
        return list(zip(starts, ends, strict=True))

    def _blocks_left_as_written(self) -> set[int]:
        """Indexes of the top-level blocks that formatting could break or read differently."""
        blocks = self.source.blocks
        starts = [_first_row(b.node) for b in blocks]
        kept: set[int] = set()
        for d in self.source.diagnostics:
            if d.code == "SYNTAX_ERROR":
                kept.add(max(0, bisect_right(starts, d.range.start.line) - 1))
        # A file with no block still has one row range (its whole text), which no block claims.
        for k, (block, (first, last)) in enumerate(zip(blocks, self.block_rows(), strict=False)):
            if k in kept:
                continue
            if (
                self._pipe_is_fragile(block.node)
                or _tabs_decide_nesting(block.text)
                or any(_ends_in_a_carriage_return(self.rows[row].content) for row in range(first, last + 1))
            ):
                kept.add(k)
        return kept

    def _pipe_is_fragile(self, top: Node) -> bool:
        """True when moving a pipe block could change what it reads: a body row holds a tab in
        its indentation or a character that pipe text reads as a line break (a lone `\\r`, a
        form feed, ...), or a comment cut the body short and deeper lines became the entry's
        children (re-indenting that comment would pull it, and them, into the body)."""
        for node, _ in _walk([top]):
            if node.is_pipe:
                if node.children:
                    return True
                for row in range(node.row + 1, _last_row(node, self.source) + 1):
                    content = self.rows[row].content
                    if "\t" in _indentation(content) or len(content.splitlines()) > 1:
                        return True
        return False

    # --- blocks ---------------------------------------------------------------------------

    def _keep_block(self, top: Node) -> None:
        """A block left as written still tells the comments after it where its lines are."""
        self.started = True
        self.chain = []
        node = top
        while True:
            if self.chain and node.col <= self.chain[-1][0]:
                break  # a line the parser read under one it is not deeper than: no level of its own
            self.chain.append((node.col, node.col))
            if not node.children:
                break
            node = node.children[-1]

    def _format_block(self, top: Node) -> None:
        # node, new column, depth, and for lines kept as written the columns they move by
        stack: list[tuple[Node, int, int, int | None]] = [(top, 0, 0, None)]
        while stack:
            node, column, depth, shift = stack.pop()
            if id(node) not in self.written_heads:  # an item's content is written on the dash line
                self._trivia(node.leading, node.col, column, column_zero=depth == 0)
                if shift is None:
                    self._line(node, column)
                else:
                    self._as_written(node, shift)
            del self.chain[depth:]
            self.chain.append((node.col, column))
            if shift is None and _holds_a_value(node):
                # Lines under a key that has a value (`WHEN:` deeper than the `TO:` of its item)
                # do not belong to the route, whatever their author meant: re-indenting them as
                # the key's own lines would suggest they do, and lining them up with the key
                # would change what they mean. They move with the key, as written.
                shift = column - node.col
            if shift is not None:
                stack.extend((child, child.col + shift, depth + 1, shift) for child in reversed(node.children))
                continue
            inner = column + 2 if node.is_item else column + self.options.indent
            stack.extend((child, inner, depth + 1, None) for child in reversed(node.children))

    def _as_written(self, node: Node, shift: int) -> None:
        """A line kept as written but for the columns its owner moved by."""
        self._write(node.row, _shift_value_row(self.rows[node.row].content, shift))
        owner = node
        while owner.is_item and owner.content is not None:
            owner = owner.content
            self.written_heads.add(id(owner))
        self._continuation(owner, shift)

    # --- significant lines ----------------------------------------------------------------

    def _line(self, node: Node, column: int) -> None:
        """The line `node` starts: dashes, the content after them, and its continuation rows."""
        prefix = " " * column
        owner = node
        self.written_heads.add(id(node))
        while owner.is_item and (content := self._content(owner)) is not None:
            prefix += "- "
            owner = content
            self.written_heads.add(id(owner))
        if owner.is_item:  # a dash with nothing after it
            self._write(owner.row, prefix + "-")
            return
        if owner.row != node.row:  # the first line under a bare dash, joined to it
            self.out[owner.row] = None
            self.joined_in.add(self.block)
        self._write(node.row, prefix + self._head(owner))
        self._continuation(owner, len(prefix) - owner.col)

    def _content(self, item: Node) -> Node | None:
        """What an item's dash line holds once formatted: its content, or the first line under
        a dash written alone, when that line can join it (no comment in between or on the dash)."""
        joining = self.join_in is None or self.block in self.join_in
        if item.content is not None or not joining or not item.children:
            return item.content
        first = item.children[0]
        dash_alone = self.rows[item.row].content.strip(_BLANKS) == "-"
        if not dash_alone or first.leading or first.is_item or first.row == item.row:
            return None
        return first

    def _head(self, node: Node) -> str:
        """The text of a node's first row from its key (or text) on, spacing normalised."""
        src = node.source
        row_end = node.line_start + len(self.rows[node.row].content)
        lead = src[node.key_start : node.key_end] + ":" if node.is_entry else ""
        if _last_row(node, self.source) > node.row and not node.is_pipe:
            # A multi-line value: its first row is kept as written, spacing inside included.
            value = src[node.value_start : row_end].rstrip(_BLANKS)
            comment = ""
        else:
            value = src[node.value_start : node.value_end]
            comment = src[node.comment_start : row_end].rstrip(_BLANKS) if node.comment_start >= 0 else ""
        if node.is_entry and value:
            lead += " "
        text = lead + value
        if comment:
            text += _COMMENT_GAP + comment if text else comment
        return text

    def _continuation(self, node: Node, shift: int) -> None:
        last = _last_row(node, self.source)
        if last == node.row:
            return
        if node.is_pipe:
            literal = node.value.strip() in _LITERAL_MARKERS
            for row in range(node.row + 1, last + 1):
                self._write(row, _shift_pipe_row(self.rows[row].content, shift, literal))
        else:
            for row in range(node.row + 1, last + 1):
                self._write(row, _shift_value_row(self.rows[row].content, shift))

    # --- trivia ---------------------------------------------------------------------------

    def _trivia(self, trivia: list[Trivia], next_old: int, next_new: int, column_zero: bool) -> None:
        """Blank and comment lines before a node whose line was at `next_old` and goes to `next_new`."""
        limit = _BLANKS_BEFORE_COLUMN_ZERO if column_zero else _BLANKS_ELSEWHERE
        run = 0
        for t in trivia:
            if t.kind is TriviaKind.BLANK:
                run += 1
                self._blank(t.row, keep=self.started and run <= limit)
                continue
            run = 0
            content = self._row_text(t.row)
            column = self._comment_column(_width(_indentation(content)), next_old, next_new)
            # A lone `\r` at the end would become part of the line end the file gets next, and
            # the blanks before it trailing whitespace: a comment loses both at once.
            self._write(t.row, " " * column + content.strip(_BLANKS).rstrip(_BLANKS + "\r"))

    def _trailing(self, trivia: list[Trivia]) -> None:
        """The lines after the last node: comments stay, blank lines after the last one go."""
        last_comment = max((i for i, t in enumerate(trivia) if t.kind is TriviaKind.COMMENT), default=-1)
        self._trivia(trivia[: last_comment + 1], 0, 0, column_zero=True)
        for t in trivia[last_comment + 1 :]:
            self._blank(t.row, keep=False)

    def _comment_column(self, column: int, next_old: int, next_new: int) -> int:
        if column <= next_old:
            return next_new
        chosen = next_new
        for old, new in self.chain:
            if old > column:
                break
            if old > next_old:  # a line of a block that the next line closes
                chosen = new
        return chosen

    # --- output ---------------------------------------------------------------------------

    def _row_text(self, row: int) -> str:
        """A row's text, without the BOM that opens the file."""
        content = self.rows[row].content
        return content[len(self.bom) :] if row == 0 else content

    def _write(self, row: int, content: str) -> None:
        self.started = True
        self.out[row] = _Row((self.bom if row == 0 else "") + content, self.rows[row].ending)

    def _blank(self, row: int, keep: bool) -> None:
        self.out[row] = _Row(self.bom if row == 0 else "", self.rows[row].ending) if keep else None

    def _keep_bom(self) -> None:
        """When the first row is dropped, its BOM moves to the first row kept (or stays alone)."""
        if not self.bom or self.out[0] is not None:
            return
        for row, kept in enumerate(self.out):
            if kept is not None:
                self.out[row] = _Row(self.bom + kept.content, kept.ending)
                return
        self.out[0] = _Row(self.bom, "")

    def _final_newline(self) -> None:
        if not self.options.insert_final_newline:
            return
        for row in range(len(self.out) - 1, -1, -1):
            last = self.out[row]
            if last is None:
                continue
            if not last.ending.endswith("\n"):
                ending = "\r\n" if last.ending == "\r" else _usual_line_end(self.rows)
                self.out[row] = _Row(last.content, ending)
            return


_LITERAL_MARKERS = frozenset(m for m in PIPE_MARKERS if m.startswith("|"))


def _shift_pipe_row(content: str, shift: int, literal: bool) -> str:
    """A pipe body row moved with its owner. Its inner indentation is text, so spaces are only
    added or taken from the front; a literal block's trailing blanks are text too."""
    if not content.strip(_BLANKS):
        return ""
    if not literal:
        content = content.rstrip(_BLANKS)
    return " " * shift + content if shift >= 0 else content[-shift:]


def _shift_value_row(content: str, shift: int) -> str:
    """A continuation row of a multi-line value, moved with its first row."""
    if not content.strip(_BLANKS):
        return ""
    indentation = _indentation(content)
    return " " * (_width(indentation) + shift) + content[len(indentation) :].rstrip(_BLANKS)


def _indentation(content: str) -> str:
    return content[: len(content) - len(content.lstrip(_BLANKS))]


def _width(indentation: str) -> int:
    return len(indentation.expandtabs(TAB_WIDTH))


def _usual_line_end(rows: list[_Row]) -> str:
    crlf = sum(1 for r in rows if r.ending == "\r\n")
    lf = sum(1 for r in rows if r.ending == "\n")
    return "\r\n" if crlf > lf else "\n"


def _holds_a_value(node: Node) -> bool:
    """An entry with a value on its own line (`TO: Agent`) and lines under it that it cannot take:
    only some keys take both (`CALL: lookup` with `WITH:`), as the model reads them."""
    return (
        node.is_entry
        and not node.is_pipe
        and bool(node.value.strip())
        and bool(node.children)
        and not takes_keys_under_value(node.key)
    )


def _first_row(node: Node) -> int:
    return node.leading[0].row if node.leading else node.row


def _last_row(node: Node, source: SourceFile) -> int:
    """The last row a node's own text reaches (pipe body and continuation rows included)."""
    return source.index.position(max(node.end - 1, node.start)).line


def _ends_in_a_carriage_return(content: str) -> bool:
    """A `\\r` followed by blanks: trimming the blanks would turn it into part of the line end."""
    trimmed = content.rstrip(_BLANKS)
    return trimmed != content and trimmed.endswith("\r")


def _tabs_decide_nesting(block_text: str) -> bool:
    """Whether the block nests differently depending on how wide a tab is."""
    if "\t" not in block_text:
        return False
    readings = {_nesting(parse(_with_tab_width(block_text, width))) for width in _TAB_WIDTHS_TRIED}
    return len(readings) > 1


def _with_tab_width(text: str, width: int) -> str:
    """`text` with the tabs in each line's indentation expanded to `width`-column stops."""
    out = []
    for line in text.split("\n"):
        indentation = _indentation(line)
        out.append(indentation.expandtabs(width) + line[len(indentation) :])
    return "\n".join(out)


def _nesting(source: SourceFile) -> tuple[tuple[tuple[int, int], ...], int]:
    """Which row each node starts on and how deep it sits, and how many syntax errors there are."""
    shape = tuple((node.row, depth) for node, depth in _walk(source.nodes))
    return shape, _syntax_errors(source)


def _walk(nodes: list[Node]) -> Iterator[tuple[Node, int]]:
    """Every node under `nodes` in document order, with its depth (a stack, not recursion)."""
    stack = [(node, 0) for node in reversed(nodes)]
    while stack:
        node, depth = stack.pop()
        yield node, depth
        stack.extend((child, depth + 1) for child in reversed(node.children))


def _syntax_errors(source: SourceFile) -> int:
    return sum(1 for d in source.diagnostics if d.code == "SYNTAX_ERROR")


# --- the last line of defence --------------------------------------------------------------


def _same_meaning(before: SourceFile, after_text: str) -> bool:
    """Whether the formatted text reads as the same tree, with the same comments and errors."""
    return _fingerprint(before) == _fingerprint(parse(after_text))


# A node as formatting must keep it: depth, kind, key, value, pipe text and trailing comment.
_NodeFacts = tuple[int, NodeKind, str, str, str, str]


def _fingerprint(source: SourceFile) -> tuple[tuple[_NodeFacts, ...], tuple[str, ...], int]:
    nodes: list[_NodeFacts] = []
    comments: list[str] = []
    text = source.text
    for node, depth in _walk(source.nodes):
        comments.extend(_comment_text(text, t) for t in node.leading if t.kind is TriviaKind.COMMENT)
        trailing = ""
        if node.comment_start >= 0:
            end = text.find("\n", node.comment_start)
            trailing = text[node.comment_start : end if end >= 0 else len(text)].strip()
        nodes.append((depth, node.kind, node.key, _squeeze(node.value), node.pipe_text, trailing))
    comments.extend(_comment_text(text, t) for t in source.trailing if t.kind is TriviaKind.COMMENT)
    return tuple(nodes), tuple(comments), _syntax_errors(source)


def _comment_text(text: str, comment: Trivia) -> str:
    return text[comment.start : comment.end].lstrip(BOM).strip()


def _squeeze(value: str) -> str:
    """A value with the blanks around each of its lines removed (continuation rows move)."""
    if "\n" not in value:
        return value
    return "\n".join(line.strip(" \t\r") for line in value.split("\n"))
