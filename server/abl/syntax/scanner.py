"""The line scanner: text → significant-line nodes, trivia, and the token stream for lark.

It never fails. Each physical line is classified once (blank, whole-line comment, `KEY:` entry,
`- ` item, or free text); pipe blocks and values with open brackets swallow their continuation
lines; indentation becomes `_INDENT`/`_DEDENT` tokens. Problems it can see on its own
(unterminated quotes, unclosed brackets, inconsistent dedents, ambiguous tabs) become
diagnostics here.

Nodes store positions relative to their block's anchor (`cst.Anchor`). While a text is scanned
every anchor is at offset 0 and row 0, so the scanner writes the stored fields directly: the
property setters would compute the same values, more slowly, for every line of every file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

from lark import Token

from abl.diagnostics import Diagnostic, Severity
from abl.syntax.cst import Anchor, Node, NodeKind, Trivia, TriviaKind
from abl.syntax.limits import (
    LIMIT_CODE,
    MAX_LINE_CHARS,
    MAX_LIST_ITEMS,
    MAX_NESTING_DEPTH,
    line_message,
    list_message,
    nesting_message,
)
from abl.text import Range

# A key: an identifier-like name (dots and dashes allowed), a quoted name, or the two-word
# `USE BEHAVIOR_PROFILE`, followed by a colon that ends the line or is followed by a blank.
TAB_WIDTH = 8  # a tab in indentation reaches the next multiple of 8, as editors show it by default
_KEY = re.compile(
    r"""(?:(USE[ \t]+BEHAVIOR_PROFILE)|([A-Za-z_$@][\w.\-$@]*)|"([^"\n]*)"|'([^'\n]*)')[ \t]*:(?=[ \t\r]|$)"""
)
_SPECIAL = re.compile(r"""[#"'\[\]{}/]""")
_SPECIAL_WITH_PARENS = re.compile(r"""[#"'\[\]{}/()]""")
_OPENERS = {"[": "]", "{": "}"}
_CLOSERS = {"]": "[", "}": "{"}
_PAREN_OPENERS = {**_OPENERS, "(": ")"}
_PAREN_CLOSERS = {**_CLOSERS, ")": "("}
# A tool signature opens its parameter list on its first line: `search(` or `search(a: string,`.
# Only there do parentheses group lines, so `(` in prose or conditions never swallows the file.
_SIGNATURE_START = re.compile(r"[A-Za-z_][\w.]*\(")
# Characters after which a quote opens a string (rather than being an apostrophe in prose).
_QUOTE_OPENERS = frozenset(" \t([{,:=!<>")


class NodeToken(Token):
    """A lark token that carries the scanner's node for the tree builder."""

    __slots__ = ("node",)
    node: Node

    @classmethod
    def of(cls, node: Node) -> NodeToken:
        # One per significant line: made without `Token.__new__`'s handling of deprecated
        # arguments, which is a third of the cost of making one.
        token: NodeToken = cls._future_new(_TOKEN_TYPES[node.kind], "")
        token.node = node
        return token


_TOKEN_TYPES = {kind: kind.name for kind in NodeKind}
# Indentation tokens carry nothing, and the parser neither keeps nor changes them: one of each
# serves every line.
_INDENT = Token("_INDENT", "")
_DEDENT = Token("_DEDENT", "")


@dataclass(slots=True)
class ScanResult:
    nodes: list[Node]  # significant nodes in document order (item contents included)
    tokens: list[Token]
    trailing: list[Trivia]
    diagnostics: list[Diagnostic] = field(default_factory=list)


@dataclass(slots=True)
class _ValueShape:
    end: int  # offset after the value (trailing comment and blanks excluded)
    comment: int  # offset of the comment, or -1
    open_brackets: list[tuple[str, int]]  # unclosed `[`/`{` with their offsets
    error: tuple[int, int, str] | None  # (start, end, message)
    too_deep: int = -1  # offset of the first bracket past MAX_NESTING_DEPTH, or -1


def scan(text: str) -> ScanResult:
    return _Scanner(text).run()


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.nodes: list[Node] = []
        self.tokens: list[Token] = []
        self.diagnostics: list[Diagnostic] = []
        self.pending: list[Trivia] = []
        self.stack: list[int] = [0]
        self.stack_narrow: list[int] = [0]  # the same levels measured with tabs as one column
        self.row = 0
        self.pos = 0
        self.tab_warned = False
        self.deep_warned = False  # NESTING_TOO_DEEP is reported once per top-level block
        self.anchor: Anchor | None = None  # of the top-level block being read

    # --- driver -----------------------------------------------------------------------

    def run(self) -> ScanResult:
        text = self.text
        n = len(text)
        while self.pos < n:
            start = self.pos
            nl = text.find("\n", start)
            line_end = n if nl == -1 else nl + 1
            content_end = n if nl == -1 else nl
            if content_end > start and text[content_end - 1] == "\r":
                content_end -= 1
            i = start
            if start == 0 and text.startswith("\ufeff"):
                i = 1
            j = i
            while j < content_end and text[j] in " \t":
                j += 1
            if j == content_end:
                self.pending.append(Trivia(TriviaKind.BLANK, self.row, start, line_end))
            elif text[j] == "#":
                self.pending.append(Trivia(TriviaKind.COMMENT, self.row, start, line_end))
            else:
                self._significant(start, i, j, content_end, line_end)
                continue  # _significant advanced pos and row itself
            self.pos = line_end
            self.row += 1
        while len(self.stack) > 1:
            self.stack.pop()
            self.stack_narrow.pop()
            self.tokens.append(_DEDENT)
        return ScanResult(self.nodes, self.tokens, self.pending, self.diagnostics)

    # --- one significant line ---------------------------------------------------------

    def _significant(self, start: int, indent_from: int, content: int, content_end: int, line_end: int) -> None:
        text = self.text
        ws = text[indent_from:content]
        col = len(ws.expandtabs(TAB_WIDTH)) if "\t" in ws else content - indent_from
        row = self.row
        nodes_here: list[Node] = []
        node_start = start
        opens_block = content == indent_from or self.anchor is None
        if opens_block:
            # A line at column 0 starts a top-level block (so does the file's first line): its
            # nodes, and those of the lines nested under it, move together. Reported once per
            # block, as a block read again on its own reports it (`syntax.incremental`).
            self.anchor = Anchor(text)
            self.deep_warned = False
        anchor = self.anchor
        assert anchor is not None
        # A run of `- ` dashes: each opens an item whose content sits at a deeper column. (A line
        # over the length limit is not split into items: `_content_node` reports it whole.)
        too_long = content_end - start > MAX_LINE_CHARS
        while (
            not too_long
            and text.startswith("-", content)
            and (content + 1 == content_end or text[content + 1] in " \t")
        ):
            item = Node(NodeKind.ITEM, row, start, node_start, content + 1, col, anchor)
            item._value_start = item._value_end = content + 1
            nodes_here.append(item)
            nxt = content + 1
            while nxt < content_end and text[nxt] in " \t":
                nxt += 1
            delta = nxt - content
            col += delta
            item._end = nxt
            node_start = nxt
            content = nxt
            if content == content_end:
                break
        last_end = line_end
        if content < content_end:
            node, open_brackets, parens = self._content_node(start, node_start, content, content_end, col)
            nodes_here.append(node)
            last_end = self._continuation(node, open_brackets, line_end, parens)
            if node._value_end - node._value_start > 2 * MAX_LIST_ITEMS:  # each item takes 2 characters or more
                self._count_items(node)
        else:
            # A bare dash: the item owns the rest of the line.
            nodes_here[-1]._end = line_end
            self.row += 1
        if len(nodes_here) > 1:
            for outer, inner in pairwise(nodes_here):
                outer._end = inner._start
        # Emit tokens: the first node at the line's indentation, inner ones one level deeper each.
        for k, node in enumerate(nodes_here):
            if k == 0:
                node.leading = self.pending
                if self.pending and not opens_block:
                    anchor.trivia.extend(self.pending)  # comment and blank lines inside the block
                self.pending = []
                self._indent_to(node, node.col, len(ws))
            else:
                self._indent_to(node, node.col, node.col)
            self.nodes.append(node)
            self.tokens.append(NodeToken.of(node))
        self.pos = last_end

    def _content_node(
        self, line_start: int, node_start: int, content: int, content_end: int, col: int
    ) -> tuple[Node, list[tuple[str, int]], bool]:
        text = self.text
        anchor = self.anchor
        assert anchor is not None  # set by `_significant` before any node is made
        m = _KEY.match(text, content, content_end)
        if m is not None:
            node = Node(NodeKind.ENTRY, self.row, line_start, node_start, content_end, col, anchor)
            group = m.lastindex or 2
            key_start, key_end = m.span(group)
            if group in (3, 4):  # quoted key: the range covers the quotes
                key_start -= 1
                key_end += 1
            node.key = m.group(group)
            if group == 1:
                node.key = "USE BEHAVIOR_PROFILE"
            node._key_start = key_start
            node._key_end = key_end
            v = m.end()
            while v < content_end and text[v] in " \t":
                v += 1
            allow_slashes = node.key.upper() == "WHEN"
            parens = False
        else:
            node = Node(NodeKind.TEXT, self.row, line_start, node_start, content_end, col, anchor)
            v = content
            allow_slashes = False
            parens = _SIGNATURE_START.match(text, content, content_end) is not None
        if content_end - line_start > MAX_LINE_CHARS:
            # Not read past the key: the value stays empty (every byte still belongs to the node).
            node._value_start = node._value_end = v
            node._value_end_row = self.row
            node.value_end_char = v - line_start
            self.diagnostics.append(
                Diagnostic(
                    LIMIT_CODE,
                    Severity.ERROR,
                    line_message(content_end - line_start),
                    Range.on_line(self.row, MAX_LINE_CHARS, MAX_LINE_CHARS + 1),
                )
            )
            return node, [], parens
        shape = _value_shape(text, v, content_end, allow_slashes, parens=parens)
        value_end = shape.end if shape.end > v else v
        node._value_start = v
        node._value_end = value_end
        node._comment_start = shape.comment
        node._value_end_row = self.row
        node.value_end_char = value_end - line_start
        if shape.error is not None:
            s, e, msg = shape.error
            self._error(Range.on_line(self.row, s - line_start, e - line_start), msg)
        if shape.too_deep >= 0:
            at = shape.too_deep - line_start
            self._too_deep(Range.on_line(self.row, at, at + 1), "brackets")
        return node, shape.open_brackets, parens

    # --- continuation lines -----------------------------------------------------------

    def _continuation(self, node: Node, open_brackets: list[tuple[str, int]], line_end: int, parens: bool) -> int:
        """Swallow a pipe block or the rest of an open flow collection; return the new end."""
        if node.is_pipe:
            end = self._pipe_block(node, line_end)
            node._end = end
            return end
        if open_brackets:
            end = self._bracket_continuation(node, open_brackets, line_end, parens)
            node._end = end
            return end
        node._end = line_end
        self.row += 1
        return line_end

    def _pipe_block(self, node: Node, line_end: int) -> int:
        text = self.text
        n = len(text)
        self.row += 1
        pos = line_end
        end = line_end
        row = self.row
        last_row = -1
        while pos < n:
            nl = text.find("\n", pos)
            le = n if nl == -1 else nl + 1
            line = text[pos:le].rstrip("\r\n")
            stripped = line.lstrip(" \t")
            if stripped:
                indent = len(line[: len(line) - len(stripped)].expandtabs(TAB_WIDTH))
                if indent <= node.col:
                    break
                end = le
                last_row = row
                self.row = row + 1
            pos = le
            row += 1
        node._pipe_end_row = last_row if last_row >= 0 else node.row
        return end

    def _bracket_continuation(
        self, node: Node, open_brackets: list[tuple[str, int]], line_end: int, parens: bool
    ) -> int:
        text = self.text
        n = len(text)
        pos = line_end
        row = self.row + 1
        stack = list(open_brackets)
        allow_slashes = node.key.upper() == "WHEN"
        while pos < n and stack:
            nl = text.find("\n", pos)
            le = n if nl == -1 else nl + 1
            ce = n if nl == -1 else nl
            if ce > pos and text[ce - 1] == "\r":
                ce -= 1
            line = text[pos:ce]
            stripped = line.lstrip(" \t")
            if stripped:
                indent = len(line[: len(line) - len(stripped)].expandtabs(TAB_WIDTH))
                if indent < node.col or (indent == node.col and not _closes_at_opener(node, stripped, stack, parens)):
                    break
                shape = _value_shape(text, pos + len(line) - len(stripped), ce, allow_slashes, stack, parens=parens)
                stack = shape.open_brackets
                if shape.too_deep >= 0:
                    self._too_deep(Range.on_line(row, shape.too_deep - pos, shape.too_deep - pos + 1), "brackets")
                node._value_end = shape.end
                node._value_end_row = row
                node.value_end_char = shape.end - pos
                if shape.comment >= 0:
                    node._comment_start = shape.comment
            pos = le
            row += 1
            line_end = le
        if stack:
            opener, at = stack[-1]
            # The bracket may sit on a continuation line, not on the node's first row.
            at_row = node.row + self.text.count("\n", node.line_start, at)
            at_col = at - (self.text.rfind("\n", 0, at) + 1)
            self._error(
                Range.on_line(at_row, at_col, at_col + 1),
                f"`{opener}` is never closed; expected `{_PAREN_OPENERS[opener]}`",
            )
        self.row = row
        return line_end

    # --- indentation ------------------------------------------------------------------

    def _indent_to(self, node: Node, level: int, narrow: int) -> None:
        stack = self.stack
        if not self.tab_warned:
            top, top_narrow = stack[-1], self.stack_narrow[-1]
            if (level > top) != (narrow > top_narrow) or (level == top) != (narrow == top_narrow):
                self.tab_warned = True
                self.diagnostics.append(
                    Diagnostic(
                        "TAB_INDENTATION",
                        Severity.WARNING,
                        _tab_message(
                            self.text[node.line_start : node.line_start + _indent_width(self.text, node.line_start)]
                        ),
                        Range.on_line(node.row, 0, node.start - node.line_start),
                    )
                )
        if not self.nodes and level > 0:
            self._error(
                Range.on_line(node.row, 0, max(1, node.start - node.line_start)),
                "unexpected indentation: the first line of a file starts at column 1",
            )
            level = narrow = 0
        if level == 0:
            self.deep_warned = False
        if level > stack[-1] and len(stack) > MAX_NESTING_DEPTH:
            # Past the limit a deeper line is read as a sibling of the deepest level: the tree
            # stays shallow, so no reader of it can run out of stack, and no byte is lost.
            self._too_deep(Range.on_line(node.row, 0, max(1, node.start - node.line_start)), "blocks")
            return
        if level > stack[-1]:
            stack.append(level)
            self.stack_narrow.append(narrow)
            self.tokens.append(_INDENT)
            return
        while level < stack[-1]:
            if level > stack[-2]:
                self._error(
                    Range.on_line(node.row, 0, max(1, _indent_width(self.text, node.line_start))),
                    f"indentation of {level} does not match any enclosing block (expected {stack[-2]} or {stack[-1]}); read as {stack[-1]}",
                )
                break
            stack.pop()
            self.stack_narrow.pop()
            self.tokens.append(_DEDENT)

    def _error(self, rng: Range, message: str) -> None:
        self.diagnostics.append(Diagnostic("SYNTAX_ERROR", Severity.ERROR, message, rng))

    def _count_items(self, node: Node) -> None:
        """Report the first list or map of the value holding more than MAX_LIST_ITEMS items."""
        text = self.text
        counts: list[int] = []  # commas seen at each open bracket
        quote = ""
        i, end = node.value_start, node.value_end
        while i < end:
            c = text[i]
            if quote:
                if c == "\\":
                    i += 1
                elif c == quote:
                    quote = ""
            elif c in "\"'" and text[i - 1] in _QUOTE_OPENERS:  # as `_value_shape`: not `it's`
                quote = c
            elif c in "[{":
                counts.append(0)
            elif c in "]}":
                if counts:
                    counts.pop()
            elif c == "," and counts:
                counts[-1] += 1
                if counts[-1] == MAX_LIST_ITEMS:  # this comma starts item MAX_LIST_ITEMS + 1
                    row = node.row + text.count("\n", node.line_start, i)
                    column = i - (text.rfind("\n", 0, i) + 1)
                    self.diagnostics.append(
                        Diagnostic(LIMIT_CODE, Severity.ERROR, list_message(), Range.on_line(row, column, column + 1))
                    )
                    return
            i += 1

    def _too_deep(self, rng: Range, what: str) -> None:
        if not self.deep_warned:
            self.deep_warned = True
            self.diagnostics.append(Diagnostic("NESTING_TOO_DEEP", Severity.ERROR, nesting_message(what), rng))


def _closes_at_opener(node: Node, stripped: str, stack: list[tuple[str, int]], parens: bool) -> bool:
    """A line that starts by closing the innermost open bracket may sit at the opening line's own
    indentation (`  ) -> {` ... `  }` under a tool signature). Column 0 always starts a new
    top-level block, so this never applies there."""
    if node.col == 0 or not stack:
        return False
    closers = _PAREN_CLOSERS if parens else _CLOSERS
    return closers.get(stripped[0]) == stack[-1][0]


def _value_shape(
    text: str,
    start: int,
    end: int,
    allow_slashes: bool,
    stack: list[tuple[str, int]] | None = None,
    parens: bool = False,
) -> _ValueShape:
    """Find where a value ends (before ` #` or, in `WHEN`, `//` outside quotes) and which
    brackets it leaves open. With `parens`, `(` and `)` group like brackets (tool signatures)."""
    opened = list(stack) if stack else []
    openers, closers = (_PAREN_OPENERS, _PAREN_CLOSERS) if parens else (_OPENERS, _CLOSERS)
    special = _SPECIAL_WITH_PARENS if parens else _SPECIAL
    if special.search(text, start, end) is None:
        e = end
        while e > start and text[e - 1] in " \t":
            e -= 1
        return _ValueShape(e, -1, opened, None)
    i = start
    comment = -1
    error: tuple[int, int, str] | None = None
    too_deep = -1
    while i < end:
        c = text[i]
        if c == "#" and (i == start or text[i - 1] in " \t"):
            comment = i
            break
        if c == "/" and allow_slashes and i + 1 < end and text[i + 1] == "/":
            comment = i
            break
        if c in "\"'" and (i == start or text[i - 1] in _QUOTE_OPENERS):
            close = _closing_quote(text, i, end)
            if close < 0:
                if i == start or c == '"':
                    error = (i, end, f"unterminated string: expected a closing {c}")
                i = end
                break
            i = close + 1
            continue
        if c in openers:
            opened.append((c, i))
            if too_deep < 0 and len(opened) > MAX_NESTING_DEPTH:
                too_deep = i
        elif c in closers:
            if opened and opened[-1][0] == closers[c]:
                opened.pop()
            elif error is None:
                error = (i, i + 1, f"`{c}` has no matching `{closers[c]}`")
        i += 1
    e = comment if comment >= 0 else min(i, end)
    while e > start and text[e - 1] in " \t":
        e -= 1
    return _ValueShape(e, comment, opened, error, too_deep)


def _closing_quote(text: str, at: int, end: int) -> int:
    """The offset of the quote that closes the one at `at` (a backslash escapes the character
    after it), or -1 before `end`."""
    q = text[at]
    i = at + 1
    while True:
        close = text.find(q, i, end)
        if close < 0:
            return -1
        escape = text.find("\\", i, close)
        if escape < 0:
            return close
        i = escape + 2


def _tab_message(written: str) -> str:
    """What is true of a line whose nesting depends on the tab width, given its indentation."""
    if "\t" in written and " " in written:
        what = "tabs and spaces mixed in indentation"
    elif "\t" in written:
        what = "indented with tabs only, but the block it nests in starts after spaces or a `- `"
    else:
        what = "indented with spaces, while the block around it is indented with tabs"
    return f"{what}: the nesting of this line depends on the tab width; indent with spaces"


def indent_width(line: str) -> int:
    """The width of `line`'s indentation as nesting is measured here: nodes' columns are so."""
    return len(line[: len(line) - len(line.lstrip(" \t"))].expandtabs(TAB_WIDTH))


def _indent_width(text: str, line_start: int) -> int:
    """How many blank characters open the line at `line_start`."""
    i = line_start
    while i < len(text) and text[i] in " \t":
        i += 1
    return i - line_start
