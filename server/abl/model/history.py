"""How the compiler reads a `HISTORY` value (seed 000, "How the compiler reads the value").

| You write                               | Result                                  |
| `last_5`                                | the last 5 messages                     |
| `last_0`                                | no messages                             |
| block `mode: last_n`, no `count`        | compile error E331                      |
| one-line `last_n` (no number)           | no error; falls back to `full`          |
| block `mode: last_n`, `count: 0`        | no error; falls back to `full`          |
| block `mode: recent`                    | compile error E330                      |
| one-line `recent`                       | no error; falls back to `full`          |
| `FULL`, `"none"`                        | accepted; case and quotes are ignored   |

Anything the compiler does not recognise silently becomes `full`; `fallback` says why, so
that our own warning can say it out loud.
"""

from __future__ import annotations

import re

from abl.model.types import HISTORY_MODES, HistoryForm, HistorySpec, Scalar
from abl.text import Range

_LAST_N = re.compile(r"last_(\d+)")
_WORDS = frozenset(m for m in HISTORY_MODES if m != "last_n")


def read_line(value: Scalar, key_range: Range, in_context: bool) -> HistorySpec:
    word = value.text.strip().lower()
    if word in _WORDS:
        return HistorySpec(HistoryForm.LINE, key_range, in_context, value, None, None, word, None, None, None)
    m = _LAST_N.fullmatch(word)
    if m is not None:
        n = int(m.group(1))
        if n == 0:
            return HistorySpec(
                HistoryForm.LINE, key_range, in_context, value, None, None, "none", 0, None, None, last_zero=True
            )
        return HistorySpec(HistoryForm.LINE, key_range, in_context, value, None, None, "last_n", n, None, None)
    if word == "last_n":
        why = "`last_n` on one line has no number"
    elif word.startswith("{"):
        why = "a one-line `{ ... }` history is ignored"
    elif word.startswith("last_"):
        why = f"`{value.text.strip()}` is not `last_` followed by a whole number"
    else:
        why = f"`{value.text.strip()}` is not a history mode"
    return HistorySpec(HistoryForm.LINE, key_range, in_context, value, None, None, "full", None, None, why)


def read_block(mode: Scalar | None, count: Scalar | None, key_range: Range, in_context: bool) -> HistorySpec:
    def spec(resolved: str, n: int | None, error: str | None, why: str | None) -> HistorySpec:
        return HistorySpec(HistoryForm.BLOCK, key_range, in_context, None, mode, count, resolved, n, error, why)

    if mode is None:
        return spec("full", None, None, "the block has no `mode:`")
    word = mode.text.strip().lower()
    if word not in HISTORY_MODES:
        return spec("full", None, "E330", None)
    if word != "last_n":
        return spec(word, None, None, None)
    if count is None or not count.text.strip():
        return spec("full", None, "E331", None)
    raw = count.text.strip()
    if not re.fullmatch(r"[+-]?\d+", raw):
        return spec("full", None, None, f"`count: {raw}` is not a whole number")
    n = int(raw)
    if n == 0:
        return spec("full", None, None, "`count: 0` reads as no count")
    if n < 0:
        return spec("full", None, None, f"`count: {raw}` is negative")
    return spec("last_n", n, None, None)


def read_default(word: str) -> tuple[str, int | None]:
    """The mode and count a project's `default-history` gives a route without `HISTORY`: the
    word is read as a one-line `HISTORY` value (`full` when it is not one)."""
    written = Scalar(word, word, False, Range.empty(0, 0))
    spec = read_line(written, Range.empty(0, 0), in_context=False)
    return spec.resolved_mode, spec.resolved_count
