"""Building and applying quick fixes. Both the CLI (`--fix`) and the editor use these edits."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import NamedTuple

from abl.diagnostics import Diagnostic, Fix, TextEdit
from abl.syntax.cst import SourceFile
from abl.text import LineIndex, Position, Range


def replace(title: str, range: Range, new_text: str, *, safe: bool) -> Fix:
    return Fix(title, (TextEdit(range, new_text),), safe)


def use_instead(guess: str | None, range: Range) -> tuple[Fix, ...]:
    """The "did you mean" fix: write `guess` over `range`. Unsafe, since naming another agent,
    field or handler changes what runs; no fix when there is no guess."""
    if guess is None:
        return ()
    return (replace(f"Use `{guess}`", range, guess, safe=False),)


def insert(title: str, at: Position, new_text: str, *, safe: bool) -> Fix:
    return Fix(title, (TextEdit(Range(at, at), new_text),), safe)


def apply_edits(text: str, edits: list[TextEdit]) -> tuple[str, int]:
    """Apply non-overlapping edits (later ones first). Returns the new text and how many applied;
    an edit overlapping one already taken is skipped."""
    index = LineIndex(text)
    # The same edit offered by two fixes (both indent one line) is made once.
    unique = {(index.offset(e.range.start), index.offset(e.range.end), e.new_text) for e in edits}
    spans = sorted(unique, reverse=True)
    applied = 0
    last_start = len(text) + 1
    for start, end, new in spans:
        if end > last_start:
            continue
        text = text[:start] + new + text[end:]
        last_start = start
        applied += 1
    return text, applied


def apply_fixes(text: str, fixes: Sequence[Fix]) -> tuple[str, list[int]]:
    """Apply whole fixes, preferring the earlier ones: a fix whose edits overlap an edit already
    taken is skipped as a whole (never half applied), so that it can be judged again on the new
    text. A fix whose edits were all taken already (two diagnostics offering the same change)
    counts as applied. Returns the new text and the indexes of the fixes applied."""
    index = LineIndex(text)
    taken = _Taken()
    applied: list[int] = []
    # One fix offered by many diagnostics is judged once: taken, its edits are all taken already
    # the next time; skipped, it still conflicts (edits are only ever added).
    judged: dict[int, bool] = {}
    for number, fix in enumerate(fixes):
        if id(fix) in judged:
            if judged[id(fix)]:
                applied.append(number)
            continue
        judged[id(fix)] = False
        spans = [
            _Span(index.offset(e.range.start), index.offset(e.range.end), e.new_text, e.stacks, number)
            for e in fix.edits
        ]
        new = _Taken()
        for span in spans:
            if span in taken:
                continue
            # Against other fixes' edits an insertion must not even touch; among its own fix's
            # edits it is placed on purpose (a block cut and written again where it was, deeper).
            if taken.conflicts(span) or new.overlaps(span):
                break
            new.add(span)
        else:
            for span in new.spans:
                taken.add(span)
            applied.append(number)
            judged[id(fix)] = True
    return _spliced(text, taken.spans), applied


def _spliced(text: str, spans: list[_Span]) -> str:
    """`text` with sorted, non-overlapping edits made, in one pass over it."""
    pieces: list[str] = []
    done = 0
    for span in spans:
        pieces += (text[done : span.start], span.text)
        done = span.end
    pieces.append(text[done:])
    return "".join(pieces)


class _Span(NamedTuple):
    start: int
    end: int
    text: str
    stacks: bool
    order: int  # the fix's place in the list: stacked insertions go in this order

    @property
    def key(self) -> tuple[int, int, str]:
        """What makes two edits the same edit, whichever fixes offer it."""
        return self.start, self.end, self.text


def _place(span: _Span) -> tuple[int, int, int]:
    return span.start, span.end, span.order


class _Taken:
    """The edits taken so far, sorted. No two of them conflict, so sorted by start their ends
    never decrease either, and the edits that can conflict with a new one are found by bisection
    (fixes by the thousand in one file stay linear)."""

    def __init__(self) -> None:
        self.spans: list[_Span] = []
        self._ends: list[int] = []
        self._set: set[tuple[int, int, str]] = set()

    def __contains__(self, span: _Span) -> bool:
        return span.key in self._set

    def conflicts(self, span: _Span) -> bool:
        # Only an edit ending at or after `span` starts and starting at or before it ends can
        # conflict with it (overlap, or an insertion at either end).
        i = bisect_left(self._ends, span.start)
        while i < len(self.spans) and self.spans[i].start <= span.end:
            if _conflict(span, self.spans[i]):
                return True
            i += 1
        return False

    def overlaps(self, span: _Span) -> bool:
        """Whether an edit taken covers some of the text `span` replaces (touching is allowed)."""
        i = bisect_left(self._ends, span.start + 1)
        return i < len(self.spans) and self.spans[i].start < span.end and span.start < self.spans[i].end

    def add(self, span: _Span) -> None:
        i = bisect_right(self.spans, (span.start, span.end, span.order), key=_place)
        self.spans.insert(i, span)
        self._ends.insert(i, span.end)
        self._set.add(span.key)


def _conflict(a: _Span, b: _Span) -> bool:
    """Two edits that overlap, or an insertion at either end of another edit: it was placed by
    what lies around it, which the other edit changes (and two insertions at one place would
    leave their order a guess, unless both say they stack)."""
    a_start, a_end, b_start, b_end = a.start, a.end, b.start, b.end
    if a_start < b_end and b_start < a_end:
        return True
    if a_start == a_end == b_start == b_end and a.stacks and b.stacks:
        return False
    if a_start == a_end and b_start <= a_start <= b_end:
        return True
    return b_start == b_end and a_start <= b_start <= a_end


# --- where a safe fix cannot be sure of keeping the meaning ---------------------------------------

# What the parser reports when it could not read lines as written. Inside a top-level block that
# holds one, which block a line belongs to is the parser's guess, so deleting or moving a line can
# change what the lines around it mean: a fix there is not safe, whatever its code says.
UNREADABLE_CODES = frozenset({"SYNTAX_ERROR", "NESTING_TOO_DEEP"})


def unsettled_rows(source: SourceFile) -> list[tuple[int, int]]:
    """(first row, last row) of each top-level block holding a parse problem."""
    problem_rows = sorted(d.range.start.line for d in source.diagnostics if d.code in UNREADABLE_CODES)
    if not problem_rows:
        return []
    starts = [node.row for node in source.nodes]
    spans = []
    for i, start in enumerate(starts):
        first = 0 if i == 0 else start  # lines before the first block belong to it
        last = starts[i + 1] - 1 if i + 1 < len(starts) else source.index.line_count
        if any(first <= row <= last for row in problem_rows):
            spans.append((first, last))
    if not starts:
        spans.append((0, source.index.line_count))
    return spans


def touches(fix: Fix, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether an edit of `fix` falls in one of the spans; an edit at the start of a line touches
    the line before it too (inserted there, it ends the block above)."""
    for edit in fix.edits:
        start, end = edit.range.start, edit.range.end
        low = start.line - 1 if start.character == 0 else start.line
        if any(first <= end.line and low <= last for first, last in spans):
            return True
    return False


def settled(diagnostic: Diagnostic, fix: Fix, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether `fix` may be applied as safe: its diagnostic is about the parse itself, or it
    edits no block the parser could not read."""
    return diagnostic.code in UNREADABLE_CODES or not touches(fix, spans)
