"""Building and applying quick fixes. Both the CLI (`--fix`) and the editor use these edits."""

from __future__ import annotations

from abl.diagnostics import Fix, TextEdit
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
