"""Which lines the readers of a file look at, traced, and the invariant over every line.

Every line of a file is read by the model or covered by a diagnostic. That is checked against
the readers themselves: a file is read twice, by the lowering (the model) and by the catalogue
walk of `abl.checks.rules.structure` (which reads the sections the model leaves to the platform,
key by key against the keyword catalogue), with every node traced, recording each node whose
kind, key or value a reader asked (every reader of the tree asks one of them before it reads a
line). A line is read when a node on it was looked at, or when it lies under a line the
catalogue walk looked at without looking at any line under it: the walk took them whole as
that line's value (an open block, a map of the author's own names, a list of strings, a key
the catalogue marks as ignored) or reported the line. Comments and blank lines are trivia, not
lines. Every other line must carry a diagnostic, or lie under a line whose diagnostic says
that everything under it is ignored (`UNKNOWN_KEY`...).

Under a value the lowering read, `KEY_UNDER_VALUE` is held exactly: a line the lowering never
looked at is reported by it, and a line it reports was not looked at by the lowering (the
message says nothing reads it).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ClassVar

from abl.checks.context import Check
from abl.checks.layout import blocks
from abl.checks.rules import structure
from abl.diagnostics import Diagnostic
from abl.model.lower import lower
from abl.model.nesting import holds_value
from abl.syntax.cst import Node, NodeKind
from abl.text import Range
from abl.workspace import Project

CODE = "KEY_UNDER_VALUE"
# The codes whose message says the line is ignored with everything nested under it.
IGNORED_WITH_WHAT_IS_UNDER = frozenset(
    {
        CODE,
        "UNKNOWN_KEY",
        "UNKNOWN_SECTION",
        "REMOVED_KEYWORD",
        "DUPLICATE_KEY",
        "DUPLICATE_SECTION",
        "SYNTAX_ERROR",
        "SECTION_OUTSIDE_AGENT",
        "ROUTING_NOT_EXECUTED",
    }
)


_KIND = Node.kind  # the slots' own descriptors, which the traced class reads through
_KEY = Node.key
_VALUE = Node.value


class _Traced(Node):
    """A node that records in `_Traced.seen` that its kind, key or value was asked. A node's
    `range()` reaches its last descendant to find where its text ends: that is no reading of it."""

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
        _Traced._asked(self)
        return _KIND.__get__(self)  # type: ignore[no-any-return]

    @kind.setter
    def kind(self, value: NodeKind) -> None:
        _KIND.__set__(self, value)

    @property  # type: ignore[override]
    def key(self) -> str:
        _Traced._asked(self)
        return _KEY.__get__(self)  # type: ignore[no-any-return]

    @key.setter
    def key(self, value: str) -> None:
        _KEY.__set__(self, value)

    @property
    def value(self) -> str:
        _Traced._asked(self)
        return _VALUE.fget(self)  # type: ignore[attr-defined,no-any-return]

    @staticmethod
    def _asked(node: Node) -> None:
        if not _Traced.measuring:
            _Traced.seen.add(id(node))


@dataclass
class Reading:
    lowered: set[int]  # the nodes the lowering looked at
    walked: set[int]  # the nodes the catalogue walk looked at

    @property
    def seen(self) -> set[int]:
        return self.lowered | self.walked

    def taken_whole(self, node: Node) -> bool:
        """The catalogue walk looked at `node` and at none of the lines under it: it took them
        as the line's value (an open block, a list of strings, text, a key the catalogue marks
        as ignored), or reported the line."""
        return id(node) in self.walked and not any(id(child) in self.seen for child in node.children)


@contextmanager
def _traced(nodes: list[Node]) -> Iterator[None]:
    _Traced.seen = set()
    try:
        for node in nodes:
            node.__class__ = _Traced
        yield
    finally:
        for node in nodes:
            node.__class__ = Node


def looked_at_by_readers(project: Project, path: str) -> Reading:
    """What the lowering and the catalogue walk looked at in `path` of `project`."""
    document = project.documents[path]
    placed = list(blocks(document))  # where each block sits: layout, not reading
    nodes = list(document.source.walk())
    with _traced(nodes):
        lower(document.source, path)
        lowered = _Traced.seen
    with _traced(nodes):
        check = Check(project, document, None, [])
        for block in placed:
            structure.section_structure(check, block)
        walked = _Traced.seen
    # A section the catalogue marks as ignored (`TESTS`) is looked up and left unwalked: the
    # catalogue took it whole, as it takes an ignored key inside a section.
    walked.update(id(block.node) for block in placed if block.match is not None and block.match.section.key.ignored)
    return Reading(lowered, walked)


def unread_lines_unreported(project: Project, path: str, diagnostics: list[Diagnostic]) -> list[str]:
    """Each way the file breaks the invariant, in words (empty when it holds)."""
    reading = looked_at_by_readers(project, path)
    return [*_unread_anywhere(project, path, reading, diagnostics), *_under_values(project, path, reading, diagnostics)]


def _unread_anywhere(project: Project, path: str, reading: Reading, diagnostics: list[Diagnostic]) -> list[str]:
    covered: dict[int, set[str]] = {}
    for d in diagnostics:
        for row in range(d.range.start.line, d.range.end.line + 1):
            covered.setdefault(row, set()).add(d.code)
    text = project.texts[path].splitlines()
    seen = reading.seen
    problems: list[str] = []
    stack: list[tuple[Node, bool]] = [(node, False) for node in reversed(project.documents[path].source.nodes)]
    while stack:
        node, excused = stack.pop()
        on_line = [node, node.content] if node.is_item and node.content is not None else [node]
        read = any(id(n) in seen for n in on_line if n is not None)
        if not read and not excused and node.row not in covered:
            line = text[node.row].strip() if node.row < len(text) else ""
            problems.append(f"line {node.row + 1}: `{line}` is read by nothing and no diagnostic says so")
        excused = (
            excused or reading.taken_whole(node) or bool(covered.get(node.row, set()) & IGNORED_WITH_WHAT_IS_UNDER)
        )
        rest = node.children[1:] if node.is_item and node.content is not None else node.children
        if node.is_item and node.content is not None:
            content = node.content
            excused = excused or reading.taken_whole(content)
            rest = [*content.children, *rest]
        stack.extend((child, excused) for child in reversed(rest))
    return problems


def _under_values(project: Project, path: str, reading: Reading, diagnostics: list[Diagnostic]) -> list[str]:
    seen = reading.lowered  # KEY_UNDER_VALUE is the model's rule: the catalogue walk checks those lines too
    reported = {d.range.start.line for d in diagnostics if d.code == CODE}
    problems: list[str] = []
    for holder in project.documents[path].source.walk():
        if not holder.children or not holds_value(holder) or id(holder) not in seen:
            continue  # a line the lowering never read is another line's question, not its nesting
        for line in _lines(holder):
            read = id(line) in seen
            if read and line.row in reported:
                problems.append(f"line {line.row + 1}: {CODE} says nothing reads it, and a reader reads it")
            elif not read and line.row not in reported:
                problems.append(
                    f"line {line.row + 1}: nested under `{holder.key}: {holder.value}`, read by nothing, "
                    f"and {CODE} does not say so"
                )
    return problems


def _lines(holder: Node) -> list[Node]:
    """The lines right under `holder` (deeper ones are under another entry or under these)."""
    return [child.content or child if child.is_item else child for child in holder.children]
