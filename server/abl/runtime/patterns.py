"""Regular expressions an author wrote (`extraction_pattern`, `VALIDATE: pattern(...)`), run on
what a customer typed, with bounded input and bounded time.

A pattern such as `(a+)+$` backtracks for exponential time on the right message, and Python's
`re` cannot be told to stop. Two bounds keep a turn from stalling:

- the pattern reads at most `MAX_PATTERN_INPUT` characters of the text (matches keep their
  positions, since the text is cut at the end);
- on the main thread, where the CLI, the conversation tests and the language server run turns,
  a run that takes longer than `PATTERN_TIME_LIMIT` is interrupted by a timer signal (`re`
  checks for signals while it backtracks) and reported as `PatternTimeout`. On another thread,
  or when the process already uses the real-time timer, only the input bound applies.
"""

from __future__ import annotations

import re
import signal
import threading
from collections.abc import Callable
from typing import TypeVar

MAX_PATTERN_INPUT = 10_000
PATTERN_TIME_LIMIT = 0.25  # seconds

T = TypeVar("T")


class PatternTimeout(Exception):
    """An author's pattern ran longer than the time limit on one text and was stopped."""


class _Expired(Exception):
    pass


def finditer(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """Every match of `pattern` in (the bounded start of) `text`. Raises PatternTimeout."""
    bounded = text[:MAX_PATTERN_INPUT]
    return _within_limit(lambda: list(pattern.finditer(bounded)))


def fullmatch(pattern: re.Pattern[str], text: str) -> bool:
    """Whether `pattern` matches the whole `text`; a text longer than the bound never does.
    Raises PatternTimeout."""
    if len(text) > MAX_PATTERN_INPUT:
        return False
    return _within_limit(lambda: pattern.fullmatch(text) is not None)


def _within_limit(run: Callable[[], T]) -> T:
    if not _timer_available():
        return run()
    previous = signal.signal(signal.SIGALRM, _expire)
    try:
        signal.setitimer(signal.ITIMER_REAL, PATTERN_TIME_LIMIT)
        try:
            return run()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Expired:
        raise PatternTimeout(f"it ran longer than {PATTERN_TIME_LIMIT:g} s and was stopped") from None
    finally:
        signal.signal(signal.SIGALRM, previous)


def _timer_available() -> bool:
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    )


def _expire(signum: int, frame: object) -> None:
    raise _Expired()
