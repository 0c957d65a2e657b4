"""Semantic tokens in the protocol's encoding: five integers per token, each relative to the
one before, and the delta between two encodings."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from abl.ide import Token


def encode(tokens: Iterable[Token]) -> list[int]:
    """LSP's encoding: per token, line delta, start delta (from the previous token's start on
    the same line, else from column 0), length, type index, modifier bits. Characters stay
    code points; converting to UTF-16 is the protocol layer's job."""
    data: list[int] = []
    line = start = 0
    for token in tokens:
        if token.line != line:
            start = 0
        data += (token.line - line, token.start - start, token.length, token.type_index, token.modifier_bits)
        line, start = token.line, token.start
    return data


def delta(previous: Sequence[int], current: Sequence[int]) -> list[tuple[int, int, list[int]]]:
    """The edits turning `previous` into `current`, as LSP `(start, deleteCount, data)` triples:
    at most one, replacing what lies between their common prefix and common suffix. Both ends
    are cut at whole tokens (multiples of five integers) so the edit never splits one."""
    if list(previous) == list(current):
        return []
    shortest = min(len(previous), len(current))
    prefix = 0
    while prefix < shortest and previous[prefix] == current[prefix]:
        prefix += 1
    prefix -= prefix % 5
    suffix = 0
    room = shortest - prefix
    while suffix < room and previous[-1 - suffix] == current[-1 - suffix]:
        suffix += 1
    suffix -= suffix % 5
    return [(prefix, len(previous) - prefix - suffix, list(current[prefix : len(current) - suffix]))]
