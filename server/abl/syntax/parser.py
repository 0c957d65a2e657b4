"""Parse ABL text into a lossless tree. Never raises, whatever the input.

The scanner classifies lines and measures indentation; lark's LALR parser, fed the scanner's
tokens through a replaying lexer, builds the nesting from `grammar/abl.lark`. An inline
transformer assembles `Node` children directly, so no intermediate lark tree is built.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from functools import cache

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError
from lark.lexer import Lexer

from abl.diagnostics import Diagnostic, Severity
from abl.gcpause import paused_gc
from abl.resources import grammar_text
from abl.syntax.cst import Anchor, Node, SourceFile, TopBlock
from abl.syntax.scanner import ScanResult, scan
from abl.text import LineIndex, Range, split_lines


class _ReplayLexer(Lexer):
    """Hands lark the tokens the scanner already produced."""

    def __init__(self, lexer_conf: object) -> None:
        pass

    def lex(self, data: ScanResult, *args: object) -> Iterator[Token]:  # type: ignore[override]
        return iter(data.tokens)


class _Build(Transformer):
    """Turns grammar rules into parent/child links between the scanner's nodes."""

    def _node(self, children: list) -> Node:
        node = children[0].node
        if len(children) > 1:
            node.children = children[1]
        return node

    entry = item = text = _node

    def block(self, children: list) -> list[Node]:
        return children

    def start(self, children: list) -> list[Node]:
        return children


@cache
def _parser() -> Lark:
    return Lark(
        grammar_text("abl.lark"),
        parser="lalr",
        lexer=_ReplayLexer,
        transformer=_Build(),
        maybe_placeholders=False,
    )


def parse(text: str) -> SourceFile:
    """Parse one file. `text` may be anything; problems come back as diagnostics."""
    with paused_gc():
        return _parse(text)


def _parse(text: str) -> SourceFile:
    scanned = scan(text)
    diagnostics = list(scanned.diagnostics)
    nested = True
    try:
        nodes = build_tree(scanned)
    except LarkError as err:
        # The scanner keeps indentation balanced, so this means a bug; keep every line anyway.
        diagnostics.append(
            Diagnostic("SYNTAX_ERROR", Severity.ERROR, f"could not read the block structure: {err}", Range.empty(0, 0))
        )
        nodes = _flat(scanned.nodes)
        nested = False
    source = SourceFile(text, nodes, scanned.trailing, diagnostics, LineIndex(text))
    _top_level_checks(source)
    source.blocks = [TopBlock(n, _block_text(source, n)) for n in nodes]
    if nested:
        _file_block_diagnostics(source, scanned.diagnostics)
    return source


def build_tree(scanned: ScanResult) -> list[Node]:
    """Nest the scanner's nodes into top-level trees. Raises `LarkError` only on a scanner bug."""
    nodes: list[Node] = _parser().parse(scanned)  # type: ignore[assignment]  # the transformer builds Nodes
    return _anchored(nodes)


def _flat(nodes: list[Node]) -> list[Node]:
    for n in nodes:
        n.children = []
    return _anchored(nodes)


def _anchored(nodes: list[Node]) -> list[Node]:
    """Give each top-level tree an anchor of its own, shared by all of its nodes.

    The scanner starts an anchor at each column-0 line, which is where top-level trees start
    (nothing nests under a column-0 line's parent), and notes the trivia lines inside each.
    Only an indented first line, or a file whose nesting could not be read, puts two trees on
    one anchor. Every anchor is still at offset 0 and row 0 here, so nodes can change anchor
    without their stored offsets changing.
    """
    previous: Node | None = None
    for node in nodes:
        if previous is not None and node.anchor is previous.anchor:
            anchor = Anchor(node.anchor.text)
            for n in node.walk():
                n.anchor = anchor
            _note_trivia(previous)
            _note_trivia(node)
        previous = node
    return nodes


def _note_trivia(top: Node) -> None:
    top.anchor.trivia = [t for n in top.walk() if n is not top for t in n.leading]


def _block_text(source: SourceFile, node: Node) -> str:
    start = node.leading[0].start if node.leading else node.start
    last = node
    while last.children:
        last = last.children[-1]
    return source.text[start : last.end]


def _top_level_checks(source: SourceFile) -> None:
    for node in source.nodes:
        problem = top_level_problem(node)
        if problem is not None:
            source.diagnostics.append(problem)


def top_level_problem(node: Node) -> Diagnostic | None:
    """A column-0 line must be a section (`KEY: value`), not a list item or free text."""
    if node.is_entry:
        return None
    if node.is_item:
        return Diagnostic(
            "SYNTAX_ERROR",
            Severity.ERROR,
            "a list item cannot start at column 1: it belongs to the key above it and must be indented "
            "deeper than that key (`LIMITATIONS:` then `  - ...`)",
            node.head_range,
        )
    first_line = split_lines(node.value)[0] if node.value else ""
    what = f"`{first_line[:40]}`"
    return Diagnostic(
        "SYNTAX_ERROR",
        Severity.ERROR,
        f"expected a section such as `GOAL: ...` at the start of the line, found {what}"
        + ("; is the `:` missing?" if node.is_text and " " not in node.value.strip() else ""),
        node.head_range,
    )


def _file_block_diagnostics(source: SourceFile, scanned: list[Diagnostic]) -> None:
    """Hand each scanner diagnostic to the top-level block whose lines it is on.

    The scanner reports a tab warning once per file, so blocks after the one that got it and
    that hold a tab are marked: their own warning was never computed.
    """
    blocks = source.blocks
    if not blocks:
        return
    for block in blocks:
        block.diagnostics = []
    rows = [b.node.row for b in blocks]
    warned_at = -1
    for d in scanned:
        k = max(0, bisect_right(rows, d.range.start.line) - 1)
        blocks[k].diagnostics.append(d)  # type: ignore[union-attr]
        if d.code == "TAB_INDENTATION" and warned_at < 0:
            warned_at = k
    if warned_at < 0:
        return
    text = source.text
    for k in range(warned_at + 1, len(blocks)):
        end = blocks[k + 1].node.start if k + 1 < len(blocks) else len(text)
        blocks[k].tabs_unread = text.find("\t", blocks[k].node.start, end) >= 0
