"""Positions and ranges. Lines and characters are 0-based; characters count code points.

The LSP layer converts characters to the client's encoding (UTF-16 by default); the CLI
prints 1-based line and column numbers.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate, repeat
from operator import add
from typing import NamedTuple


class Position(NamedTuple):
    """A place in a text. Tuples, because ranges are made per line in hot paths: ordering and
    hashing come for free and construction is cheap."""

    line: int
    character: int


class Range(NamedTuple):
    start: Position
    end: Position

    @staticmethod
    def on_line(line: int, start: int, end: int) -> Range:
        return Range(Position(line, start), Position(line, end))

    @staticmethod
    def empty(line: int, character: int) -> Range:
        p = Position(line, character)
        return Range(p, p)

    def contains(self, pos: Position) -> bool:
        return self.start <= pos <= self.end


class LineIndex:
    """Maps string offsets to positions and back for one text."""

    __slots__ = ("_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        # Each line starts one past the end of the one before: lengths plus one, summed, all in
        # C (a per-character or per-line Python loop costs milliseconds on a large file).
        lengths = map(len, text.split("\n"))
        self._starts: list[int] = list(accumulate(map(add, lengths, repeat(1)), initial=0))[:-1] or [0]

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def position(self, offset: int) -> Position:
        line = bisect_right(self._starts, offset) - 1
        return Position(line, offset - self._starts[line])

    def offset(self, pos: Position) -> int:
        if pos.line >= len(self._starts):
            return len(self.text)
        start = self._starts[pos.line]
        end = self._starts[pos.line + 1] - 1 if pos.line + 1 < len(self._starts) else len(self.text)
        return min(start + pos.character, end)

    def line_text(self, line: int) -> str:
        if line >= len(self._starts):
            return ""
        start = self._starts[line]
        end = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")


def common_prefix(a: str, b: str) -> int:
    """How many leading characters `a` and `b` share (slices compared in C, halving the span)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # largest m with a[:m] == b[:m], comparing in halving chunks
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: str, b: str, prefix: int) -> int:
    """How many trailing characters `a` and `b` share, not reaching into their common `prefix`."""
    lo, hi = 0, min(len(a), len(b)) - prefix
    la, lb = len(a), len(b)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo
