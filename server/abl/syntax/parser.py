"""Parse ABL text into a lossless tree. Never raises, whatever the input.

The scanner classifies lines and measures indentation; lark's LALR parser, fed the scanner's
tokens through a replaying lexer, builds the nesting from `grammar/abl.lark`. An inline
transformer assembles `Node` children directly, so no intermediate lark tree is built.
"""

from __future__ import annotations

from functools import cache
from typing import Iterator

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError
from lark.lexer import Lexer

from abl.diagnostics import Diagnostic, Severity
from abl.resources import grammar_text
from abl.syntax.cst import Node, SourceFile, TopBlock
from abl.syntax.scanner import ScanResult, scan
from abl.text import LineIndex, Range


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
    scanned = scan(text)
    diagnostics = list(scanned.diagnostics)
    try:
        nodes = _parser().parse(scanned)  # type: ignore[arg-type]
    except LarkError as err:
        # The scanner keeps indentation balanced, so this means a bug; keep every line anyway.
        diagnostics.append(
            Diagnostic("SYNTAX_ERROR", Severity.ERROR, f"could not read the block structure: {err}", Range.empty(0, 0))
        )
        nodes = _flat(scanned.nodes)
    source = SourceFile(text, nodes, scanned.trailing, diagnostics, LineIndex(text))
    _top_level_checks(source)
    source.blocks = [TopBlock(n, _block_text(source, n)) for n in nodes]
    return source


def _flat(nodes: list[Node]) -> list[Node]:
    for n in nodes:
        n.children = []
    return nodes


def _block_text(source: SourceFile, node: Node) -> str:
    start = node.leading[0].start if node.leading else node.start
    last = node
    while last.children:
        last = last.children[-1]
    return source.text[start : last.end]


def _top_level_checks(source: SourceFile) -> None:
    for node in source.nodes:
        if node.is_entry:
            continue
        what = "a list item" if node.is_item else f"`{node.value[:40]}`"
        source.diagnostics.append(
            Diagnostic(
                "SYNTAX_ERROR",
                Severity.ERROR,
                f"expected a section such as `GOAL: ...` at the start of the line, found {what}"
                + ("; is the `:` missing?" if node.is_text and " " not in node.value.strip() else ""),
                node.head_range,
            )
        )
