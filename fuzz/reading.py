"""Which lines the readers of a file look at, traced, and the invariant over every line.

Every line of a file is read by the model or covered by a diagnostic. That is checked against
the readers themselves: a file is read twice, by the lowering (the model) and by the catalogue
walk of `abl.checks.rules.structure` (which reads the sections the model leaves to the platform,
key by key against the keyword catalogue), with every node traced, recording each node whose
kind, key or value a reader asked (every reader of the tree asks one of them before it reads a
line). A line is read when a node on it was looked at, or when it lies in a block the catalogue
walk takes whole: an open block (the catalogue checks the keys it knows and passes the rest on,
as `TESTS` and other keys the catalogue marks as ignored), or a block it goes into with a key
that takes its lines as written (text, a map of the author's own names) and looks at none of
them; in a map of the author's own names (a shorthand lookup table's pairs too) it checks the
shape of each line and takes what is nested under a name whole, as that name's value. A list of
strings is no such block: a line nested under one of its items is read by nothing. Comments
and blank lines are trivia, not lines. Every other line must carry a diagnostic, or lie under a
line whose diagnostic says that everything under it is ignored (`UNKNOWN_KEY`...). A reader
that asks a line's kind to pass it by counts as looking at it: the check cannot tell a line
skipped from a line read once its kind was asked.

Under a value the lowering read, `KEY_UNDER_VALUE` is held exactly: a line the lowering never
looked at is reported by it, and a line it reports was not looked at by the lowering (the
message says nothing reads it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from abl.checks.context import Check
from abl.checks.layout import blocks
from abl.checks.rules import structure
from abl.diagnostics import Diagnostic
from abl.model import nesting
from abl.model.lower import lower
from abl.model.nesting import holds_value, read_children
from abl.schema.types import Key
from abl.schema.types import ValueKind as V
from abl.syntax.cst import Node, NodeKind
from abl.text import Range
from abl.workspace import Project

T = TypeVar("T")
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
        return _measured(Node.range, self)

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
    whole: set[int]  # the blocks the catalogue walk took whole as their key's value

    @property
    def seen(self) -> set[int]:
        return self.lowered | self.walked


# A block of these kinds holds its lines as written (text, a condition, an open block); a list
# of strings does not: each item is one string, and a line nested under an item is no part of it.
_TAKES_LINES_AS_WRITTEN = frozenset({V.TEXT, V.STRING, V.TEMPLATE, V.CONDITION, V.ACTION, V.ANY})


def _open(key: Key) -> bool:
    """An open block: the catalogue checks the keys it knows and passes on every other line."""
    return key.open or V.ANY in structure.kinds(key) or key.ignored is not None


def _takes_lines_whole(key: Key) -> bool:
    shapes = structure.kinds(key)
    if _open(key) or shapes & _TAKES_LINES_AS_WRITTEN:
        return True
    # A map of the author's own names (`mapping:` of a tool's return fields).
    return not key.children and key.entry is None and not key.free_keys and bool(shapes & {V.MAP, V.BLOCK})


_KEYS_BESIDE_VALUE = nesting.keys_beside_value


def _keys_beside_value_unread(children: list[Node]) -> list[Node]:
    """`nesting.keys_beside_value`, which looks at each line's kind only to leave the lines that
    are not keys: those stay unread (`KEY_UNDER_VALUE` reports them); the keys kept are read."""
    return _measured(_KEYS_BESIDE_VALUE, children)


@contextmanager
def _traced(nodes: list[Node]) -> Iterator[None]:
    _Traced.seen = set()
    nesting.keys_beside_value = _keys_beside_value_unread
    try:
        for node in nodes:
            node.__class__ = _Traced
        yield
    finally:
        nesting.keys_beside_value = _KEYS_BESIDE_VALUE
        for node in nodes:
            node.__class__ = Node


@contextmanager
def _recording_whole(whole: set[int]) -> Iterator[None]:
    """Records each block the catalogue walk takes whole: an open block, one it goes into with a
    key that takes its lines as written and looks at none of them, and an entry of an open block
    it accepts without going into it."""
    inside, entry = structure._Walk.inside, structure._Walk.entry
    entered: set[int] = set()

    def recorded_inside(walk: structure._Walk, key: Key, node: Node) -> None:
        entered.add(id(node))
        inside(walk, key, node)
        if _open(key) or (_takes_lines_whole(key) and not _looked_under(node)):
            whole.add(id(node))
        elif _takes_lines_whole(key) or _measured(structure._Walk._map_written_as_block, key, node):
            # A map of the author's own names: the walk checks the shape of each line and
            # passes what is nested under a name on as written, that name's value.
            whole.update(id(entry) for entry in _measured(_entries, node) if not _looked_under(entry))

    def recorded_entry(walk: structure._Walk, block: Key, node: Node, seen: dict[object, Node]) -> None:
        entry(walk, block, node, seen)
        if id(node) not in entered and _takes_lines_whole(block):
            whole.add(id(node))

    structure._Walk.inside = recorded_inside  # type: ignore[method-assign]
    structure._Walk.entry = recorded_entry  # type: ignore[method-assign]
    try:
        yield
    finally:
        structure._Walk.inside, structure._Walk.entry = inside, entry  # type: ignore[method-assign]


def _looked_under(node: Node) -> bool:
    return any(id(line) in _Traced.seen for line in _under(node))


def _entries(node: Node) -> list[Node]:
    return [child for child in node.children if child.is_entry]


def _measured(read: Callable[..., T], *args: object) -> T:
    """`read(*args)` without counting what it asks as read: the check's own bookkeeping."""
    outer, _Traced.measuring = _Traced.measuring, True
    try:
        return read(*args)
    finally:
        _Traced.measuring = outer


def _under(node: Node) -> Iterator[Node]:
    for child in node.children:
        yield from child.walk()


def looked_at_by_readers(project: Project, path: str) -> Reading:
    """What the lowering and the catalogue walk looked at in `path` of `project`."""
    document = project.documents[path]
    placed = list(blocks(document))  # where each block sits: layout, not reading
    nodes = list(document.source.walk())
    with _traced(nodes):
        lower(document.source, path)
        lowered = _Traced.seen
    whole: set[int] = set()
    with _traced(nodes), _recording_whole(whole):
        check = Check(project, document, None, [])
        for block in placed:
            structure.section_structure(check, block)
        walked = _Traced.seen
    # A section the catalogue marks as ignored (`TESTS`) is looked up and left unwalked: the
    # platform accepts it whole and drops it, as the catalogue says.
    whole.update(id(block.node) for block in placed if block.match is not None and block.match.section.key.ignored)
    return Reading(lowered, walked, whole)


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
            excused or id(node) in reading.whole or bool(covered.get(node.row, set()) & IGNORED_WITH_WHAT_IS_UNDER)
        )
        rest = node.children[1:] if node.is_item and node.content is not None else node.children
        if node.is_item and node.content is not None:
            content = node.content
            excused = excused or id(content) in reading.whole
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
        kept = {id(child) for child in read_children(holder)}  # the keys a `CALL: tool` takes
        for child in holder.children:
            if id(child) in kept:
                continue  # whether a reader takes it is the catalogue walk's question (UNKNOWN_KEY)
            line = child.content or child if child.is_item else child
            read = id(line) in seen
            if read and line.row in reported:
                problems.append(f"line {line.row + 1}: {CODE} says nothing reads it, and a reader reads it")
            elif not read and line.row not in reported:
                problems.append(
                    f"line {line.row + 1}: nested under `{holder.key}: {holder.value}`, read by nothing, "
                    f"and {CODE} does not say so"
                )
    return problems
