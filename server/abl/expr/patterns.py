"""Regular expressions an author wrote, run on what a customer typed: the one place they are
compiled and run, with bounded size, input and time.

Every author pattern goes through here: a gather field's `extraction_pattern` and
`VALIDATE: pattern(...)`, and in conditions, `SET` values and templates the `matches` operator,
`.matches()`, `MATCHES_PATTERN`, `NOT_MATCHES_PATTERN`, `REGEX_EXTRACT` and `REGEX_REPLACE`.

A pattern such as `(a+)+$` backtracks for exponential time on the right message, and Python's
`re` cannot be told to stop. The bounds:

- a pattern longer than `MAX_PATTERN_LENGTH` characters is not compiled (no one writes one by
  hand), nor is one Python cannot compile (`PatternError` says why);
- a pattern reads at most `MAX_PATTERN_INPUT` characters of the text (matches keep their
  positions, since the text is cut at the end; a replacement leaves the rest as it is);
- on the main thread, where the CLI, the conversation tests and the language server run turns,
  a run that takes longer than `PATTERN_TIME_LIMIT` is interrupted by a timer signal (`re`
  checks for signals while it backtracks) and reported as `PatternTimeout`. A timer the process
  already runs is put aside meanwhile and goes on afterwards with the time it had left (when it
  is due first, it is left to stop the run itself). On another thread only the other bounds
  apply.
"""

from __future__ import annotations

import re
import signal
import threading
import time
import warnings
from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

MAX_PATTERN_LENGTH = 2_000
MAX_PATTERN_INPUT = 10_000
PATTERN_TIME_LIMIT = 0.25  # seconds

T = TypeVar("T")


class PatternError(ValueError):
    """The text is not a pattern that can be used; the message says why."""


class OutputTooLong(ValueError):
    """A replacement would make a text longer than its caller allows."""


class PatternTimeout(Exception):
    """An author's pattern ran longer than the time limit on one text and was stopped."""


class _Expired(Exception):
    pass


def compile_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """The compiled pattern (each text compiled once). Raises PatternError."""
    compiled = _compiled(pattern, flags)
    if isinstance(compiled, str):
        raise PatternError(compiled)
    return compiled


@lru_cache(maxsize=512)
def _compiled(pattern: str, flags: int) -> re.Pattern[str] | str:
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"it is {len(pattern):,} characters long; patterns are limited to {MAX_PATTERN_LENGTH:,}"
    try:
        with warnings.catch_warnings():  # "possible nested set" notes are not the author's concern
            warnings.simplefilter("ignore", FutureWarning)
            return re.compile(pattern, flags)
    except re.error as problem:
        return str(problem)
    except OverflowError:  # `a{99999999999}`
        return "a repeat count is too large"
    except RecursionError:
        return "it is nested too deeply"


def search(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The first match of `pattern` in (the bounded start of) `text`. Raises PatternTimeout."""
    bounded = text[:MAX_PATTERN_INPUT]
    return _within_limit(lambda: pattern.search(bounded))


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


def sub(pattern: re.Pattern[str], replacement: str, text: str, max_output: int) -> str:
    """`text` with the matches in its bounded start replaced (`re.sub` rules for the
    replacement); the rest of the text is kept as it is. Raises PatternTimeout; OutputTooLong
    when the replacements alone would pass `max_output` characters (an empty pattern matches
    between every two characters); re.error or IndexError for a replacement that names a group
    the pattern lacks."""
    bounded, rest = text[:MAX_PATTERN_INPUT], text[MAX_PATTERN_INPUT:]
    written = 0

    def expand(match: re.Match[str]) -> str:
        nonlocal written
        piece = match.expand(replacement)
        written += len(piece)
        if written > max_output:
            raise OutputTooLong(f"the result would be longer than {max_output:,} characters")
        return piece

    return _within_limit(lambda: pattern.sub(expand, bounded)) + rest


def _within_limit(run: Callable[[], T]) -> T:
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return run()
    outer, interval = signal.getitimer(signal.ITIMER_REAL)
    if outer and outer <= PATTERN_TIME_LIMIT:
        return run()  # the process's own timer is due first and stops the run
    previous = signal.signal(signal.SIGALRM, _expire)
    started = time.monotonic()
    try:
        signal.setitimer(signal.ITIMER_REAL, PATTERN_TIME_LIMIT)
        try:
            return run()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _Expired:
        raise PatternTimeout(f"it ran longer than {PATTERN_TIME_LIMIT:g} s and was stopped") from None
    finally:
        signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
        if outer:
            left = outer - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), interval)


def _expire(signum: int, frame: object) -> None:
    raise _Expired()
