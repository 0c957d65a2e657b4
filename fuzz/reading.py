"""Which lines the lowering reads, traced, and the invariant over the lines under a value.

Every line of a file is read by the model or covered by a diagnostic. For the lines nested
under an entry that holds a one-line value, that is checked against the lowering itself:
`looked_at_by_lowering` lowers a file with every node traced, recording each node whose kind
or key the lowering asked (every reader of the tree asks one of them before it reads a line).
Under a value the lowering read, a line it never looked at must be reported by
`KEY_UNDER_VALUE`, and a line it reports must not have been looked at (the message says nothing
reads it).
"""

from __future__ import annotations

from typing import ClassVar

from abl.diagnostics import Diagnostic
from abl.model.lower import lower
from abl.model.nesting import holds_value
from abl.syntax.cst import Node, NodeKind, SourceFile
from abl.text import Range

CODE = "KEY_UNDER_VALUE"


_KIND = Node.kind  # the slots' own descriptors, which the traced class reads through
_KEY = Node.key


class _Traced(Node):
    """A node that records in `_Traced.seen` that its kind or key was asked. A node's `range()`
    reaches its last descendant to find where its text ends: that is no reading of it."""

    __slots__ = ()
    seen: ClassVar[set[int]] = set()
    measuring = False

    def range(self) -> Range:
        outer, _Traced.measuring = _Traced.measuring, True
        try:
            return Node.range(self)
        finally:
            _Traced.measuring = outer

    @property  # type: ignore[override]
    def kind(self) -> NodeKind:
        if not _Traced.measuring:
            _Traced.seen.add(id(self))
        return _KIND.__get__(self)  # type: ignore[no-any-return]

    @kind.setter
    def kind(self, value: NodeKind) -> None:
        _KIND.__set__(self, value)

    @property  # type: ignore[override]
    def key(self) -> str:
        if not _Traced.measuring:
            _Traced.seen.add(id(self))
        return _KEY.__get__(self)  # type: ignore[no-any-return]

    @key.setter
    def key(self, value: str) -> None:
        _KEY.__set__(self, value)


def looked_at_by_lowering(source: SourceFile, path: str) -> set[int]:
    """The ids of the nodes of `source` the lowering looked at."""
    nodes = list(source.walk())
    _Traced.seen = set()
    try:
        for node in nodes:
            node.__class__ = _Traced
        lower(source, path)
    finally:
        for node in nodes:
            node.__class__ = Node
    return _Traced.seen


def unread_lines_unreported(source: SourceFile, path: str, diagnostics: list[Diagnostic]) -> list[str]:
    """Each way the file breaks the invariant, in words (empty when it holds)."""
    seen = looked_at_by_lowering(source, path)
    reported = {d.range.start.line for d in diagnostics if d.code == CODE}
    problems: list[str] = []
    for holder in source.walk():
        if not holder.children or not holds_value(holder) or id(holder) not in seen:
            continue  # a line the lowering never read is another line's question, not its nesting
        for line in _lines(holder):
            read = id(line) in seen
            if read and line.row in reported:
                problems.append(f"line {line.row + 1}: {CODE} says nothing reads it, and the lowering reads it")
            elif not read and line.row not in reported:
                problems.append(
                    f"line {line.row + 1}: nested under `{holder.key}: {holder.value}`, read by nothing, "
                    f"and {CODE} does not say so"
                )
    return problems


def _lines(holder: Node) -> list[Node]:
    """The lines right under `holder` (deeper ones are under another entry or under these)."""
    return [child.content or child if child.is_item else child for child in holder.children]
