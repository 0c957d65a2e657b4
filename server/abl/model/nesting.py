"""Which lines the model reads under an entry that holds a one-line value.

An entry written `KEY: value` is a value: the model reads the lines nested under it only when
the catalogue gives that key keys of its own beside its value (`CALL: tool` takes `WITH` and
`AS`). Every other line nested under a value (`WHEN` two columns deeper than `TO: X`, `MAP`
under `action: continue`) is read by nothing; `KEY_UNDER_VALUE` reports each one. The readers
of the lowering ask `read_children` and the check asks `ignored_under_value`, so the two agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from abl.schema import all_sections
from abl.schema.types import Key
from abl.syntax.cst import Node, NodeKind, winning_children


def holds_value(node: Node) -> bool:
    """`KEY: value` on one line (a `|` block's text is its value too)."""
    return node.is_entry and node.has_value


def read_children(node: Node) -> list[Node]:
    """The lines nested under `node` that the model reads: none under a value, unless the key
    takes keys beside its value, and then only those keys (`WITH:` under `CALL: tool`, not a
    line of text)."""
    if holds_value(node) and node.children:
        if not takes_keys_under_value(node.key):
            return []
        return keys_beside_value(node.children)
    return node.children


def keys_beside_value(children: list[Node]) -> list[Node]:
    """The keys among the lines under a value whose key takes keys beside it (all of them, the
    list itself, when nothing else is there). Looking at a line's kind to leave it out is no
    reading of it: the fuzzer's reading trace replaces this function to tell the two apart."""
    if all(child.is_entry for child in children):
        return children
    return [child for child in children if child.is_entry]


def read_winning(node: Node, *, fold_case: bool = True) -> list[Node]:
    """`winning_children` of the lines the model reads under `node`."""
    return winning_children(node, fold_case=fold_case) if read_children(node) else []


def read_walk(root: Node) -> Iterator[Node]:
    """`root` and what it holds in document order, as the model reads it: the later of a key
    written twice (`winning_children`), and nothing under a value (`read_children`)."""
    # `read_children` written out: this walk runs over every agent for the lowering and the
    # template and tool checks, tens of thousands of lines in a large file.
    stack: list[Node] = [root]
    pop = stack.pop
    extend = stack.extend
    while stack:
        node = pop()
        yield node
        children = node.children
        if not children:
            continue
        if node.kind is NodeKind.ENTRY and node.has_value:
            if not takes_keys_under_value(node.key):
                continue
            children = keys_beside_value(children)
            if children is not node.children:
                extend(reversed(children))
                continue
        extend(reversed(winning_children(node)))


def ignored_under_value(root: Node) -> Iterator[tuple[Node, Node]]:
    """(the entry holding a value, each line nested under it) for every line under `root` that
    sits under a value and is read by nothing, in document order. Item contents are left out:
    they share their item's line."""
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        read = read_children(node)
        if node.children and read is not node.children:
            kept = {id(child) for child in read}
            # What is under an ignored line is ignored already, reported once with it.
            yield from ((node, line) for line in _lines_under(node, skip=kept))
            stack.extend(reversed(read))
            continue
        stack.extend(reversed(node.children))


def _lines_under(holder: Node, skip: set[int]) -> Iterator[Node]:
    for child in holder.children:
        if id(child) in skip:
            continue
        for line in child.walk():
            if line.is_item and line.content is not None:
                continue  # the content (`TO: X` of `- TO: X`) stands for the line
            yield line


def takes_keys_under_value(key: str) -> bool:
    return key.lower() in _keys_beside_values()


@cache
def _keys_beside_values() -> frozenset[str]:
    """The catalogue's keys written with a one-line value and keys of their own under it."""
    found: set[str] = set()
    seen: set[int] = set()
    stack: list[Key] = [section.key for section in all_sections()]
    while stack:
        key = stack.pop()
        if id(key) in seen:
            continue
        seen.add(id(key))
        shapes = (key.kind, *key.also)
        if key.children and not any(shape.is_container for shape in shapes):
            found.update(spelling.lower() for spelling in key.spellings)
        stack.extend(key.children)
        stack.extend(k for k in (key.entry, key.items) if k is not None)
    return frozenset(found)
