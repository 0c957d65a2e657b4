"""Positions and ranges. Lines and characters are 0-based; characters count code points.

The LSP layer converts characters to the client's encoding (UTF-16 by default); the CLI
prints 1-based line and column numbers.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate, repeat
from operator import add
from typing import NamedTuple

_new_tuple = tuple.__new__


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
        return span(line, start, line, end)

    @staticmethod
    def empty(line: int, character: int) -> Range:
        p = _new_tuple(Position, (line, character))
        return _new_tuple(Range, (p, p))

    def contains(self, pos: Position) -> bool:
        return self.start <= pos <= self.end


def span(start_line: int, start_character: int, end_line: int, end_character: int) -> Range:
    """The range between two places. Made with `tuple.__new__`: a NamedTuple's own constructor
    takes twice as long, and lowering a large file makes a range for every key and value."""
    return _new_tuple(
        Range,
        (_new_tuple(Position, (start_line, start_character)), _new_tuple(Position, (end_line, end_character))),
    )


def rows_on(r: Range, rows: int) -> Range:
    """`r` moved `rows` rows down (up, when negative), its characters as they were: a new line
    near the top of a large file moves thousands of ranges."""
    (start_line, start_character), (end_line, end_character) = r
    return span(start_line + rows, start_character, end_line + rows, end_character)


# The only line breaks of the Language Server Protocol. Python's `str.splitlines` also breaks at
# VT, FF, FS, GS, RS, U+0085, U+2028 and U+2029; counting lines with it puts every position after
# one of those on the wrong line for the client.
_PROTOCOL_BREAK = re.compile(r"\r\n?|\n")
# A carriage return not followed by a line feed: the one place the two line models differ.
_LONE_CR = re.compile(r"\r(?!\n)")


def _newline_starts(text: str) -> list[int]:
    # Each line starts one past the end of the one before: lengths plus one, summed, all in C
    # (a per-character or per-line Python loop costs milliseconds on a large file).
    lengths = map(len, text.split("\n"))
    return list(accumulate(map(add, lengths, repeat(1)), initial=0))[:-1] or [0]


class _Lines:
    """A text's line starts."""

    __slots__ = ("_starts", "text")

    text: str
    _starts: list[int]

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        return self._starts[line] if line < len(self._starts) else len(self.text)

    def _moved_starts(self, start: int, end: int, inserted: str) -> list[int]:
        """The line starts of this text with `[start, end)` replaced by `inserted`, lines
        ending at `\\n`: those before the change kept, those after it moved, and only the
        inserted text searched."""
        starts = self._starts
        moved = starts[: bisect_right(starts, start)]  # a line that starts at `start` still does
        moved.extend(start + at for at in _newline_starts(inserted)[1:])
        after = starts[bisect_right(starts, end) :]
        shift = len(inserted) - (end - start)
        moved.extend(map(shift.__add__, after) if shift else after)
        return moved

    def line_length(self, line: int) -> int:
        """`len(line_text(line))`, without copying the line out of the text."""
        starts, text = self._starts, self.text
        if line >= len(starts):
            return 0
        start = starts[line]
        if line + 1 < len(starts):
            end = starts[line + 1]
            # The usual line: one break character, after one that is none (measured for every
            # diagnostic published, so the loop below is kept for the rest).
            if end - 1 > start and text[end - 2] not in "\r\n":
                return end - 1 - start
        else:
            end = len(text)
        while end > start and text[end - 1] in "\r\n":
            end -= 1
        return end - start

    def line_text(self, line: int) -> str:
        """The line without its line break."""
        if line >= len(self._starts):
            return ""
        start = self._starts[line]
        end = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")


class ProtocolLines(_Lines):
    """A text's lines as the Language Server Protocol counts them: ended by `\\n`, `\\r\\n` or
    `\\r`, and by nothing else. Document sync and every position exchanged with a client use it."""

    __slots__ = ()

    def __init__(self, text: str) -> None:
        self.text = text
        if "\r" in text and _LONE_CR.search(text) is not None:
            self._starts = [0, *(m.end() for m in _PROTOCOL_BREAK.finditer(text))]
        else:  # every line ends at `\n` (CRLF included): counted in C
            self._starts = _newline_starts(text)

    def spliced(self, start: int, end: int, inserted: str, text: str) -> ProtocolLines:
        """The lines of `text`: this text with `[start, end)` replaced by `inserted`, its line
        starts moved (`_Lines._moved_starts`), so that a change costs no search of the whole
        file (an editor may send hundreds in one message). With a `\\r` on either side they are
        counted again: it may join a `\\n` next to it into one break."""
        if "\r" in inserted or "\r" in self.text:
            return ProtocolLines(text)
        lines = ProtocolLines.__new__(ProtocolLines)
        lines.text, lines._starts = text, self._moved_starts(start, end, inserted)
        return lines

    def position(self, offset: int) -> Position:
        """The position of an offset; one inside a `\\r\\n` is the end of its line."""
        line = bisect_right(self._starts, offset) - 1
        return Position(line, min(offset - self._starts[line], len(self.line_text(line))))

    def offset(self, pos: Position) -> int:
        """The offset of a position: a character past the end of its line means the line's end
        (never the next line), a line past the last means the end of the text."""
        if pos.line >= len(self._starts):
            return len(self.text)
        return self._starts[pos.line] + min(max(pos.character, 0), len(self.line_text(pos.line)))


class LineIndex(_Lines):
    """Maps string offsets to positions and back for one text, in the parser's lines: each
    ends at `\\n` (a `\\r` before it belongs to the break). Those are the protocol's lines unless
    the text holds a lone `\\r`, which the parser reads as part of its line and the protocol as a
    line break: `protocol_lines` is then the text's other model, for the LSP edge to convert."""

    __slots__ = ("_protocol", "_protocol_known")

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = _newline_starts(text)
        self._protocol: ProtocolLines | None = None
        self._protocol_known = False

    def spliced(self, start: int, end: int, inserted: str, text: str) -> LineIndex:
        """The index of `text`: this text with `[start, end)` replaced by `inserted`, its line
        starts moved rather than counted again (`_Lines._moved_starts`)."""
        index = LineIndex.__new__(LineIndex)
        index.text, index._starts = text, self._moved_starts(start, end, inserted)
        index._protocol, index._protocol_known = None, False
        return index

    def position(self, offset: int) -> Position:
        line = bisect_right(self._starts, offset) - 1
        return Position(line, offset - self._starts[line])

    def offset(self, pos: Position) -> int:
        if pos.line >= len(self._starts):
            return len(self.text)
        start = self._starts[pos.line]
        end = self._starts[pos.line + 1] - 1 if pos.line + 1 < len(self._starts) else len(self.text)
        return min(start + pos.character, end)

    def protocol_lines(self) -> ProtocolLines | None:
        """The protocol's lines of the text where they differ from these (a lone `\\r`), else None."""
        if not self._protocol_known:
            if "\r" in self.text and _LONE_CR.search(self.text) is not None:
                self._protocol = ProtocolLines(self.text)
            self._protocol_known = True
        return self._protocol


def split_lines(text: str) -> list[str]:
    """The text's lines as the parser reads them, without their breaks (`str.splitlines`
    without its extra line breaks: see `LineIndex`)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # a break ends the last line; it does not start another
    return [line[:-1] if line.endswith("\r") else line for line in lines]


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
