"""A set of non-overlapping text spans that answers "does this span overlap one of them?" in
O(log n), so that readers which test every match of a long message stay linear."""

from __future__ import annotations

from bisect import bisect_right


class Spans:
    """Half-open `[start, end)` spans that do not overlap each other, kept sorted by start."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._spans: list[tuple[int, int]] = []

    def __len__(self) -> int:
        return len(self._spans)

    def overlaps(self, start: int, end: int) -> bool:
        """Whether `[start, end)` shares a character with a span of the set."""
        index = bisect_right(self._starts, start)
        if index > 0:
            before_start, before_end = self._spans[index - 1]
            if start < before_end and before_start < end:
                return True
        if index < len(self._spans):
            after_start, _ = self._spans[index]
            if after_start < end:
                return True
        return False

    def add(self, start: int, end: int) -> bool:
        """Add `[start, end)` unless it overlaps a span already there; whether it was added."""
        if self.overlaps(start, end):
            return False
        index = bisect_right(self._starts, start)
        self._starts.insert(index, start)
        self._spans.insert(index, (start, end))
        return True
