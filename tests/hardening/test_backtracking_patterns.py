"""Which author patterns are reported as able to backtrack for ever (`PATTERN_BACKTRACKS`).

The report must hold for the classic shapes (a repeat of a group whose own repeat can take any
share of the same text) and stay quiet for patterns where a separator tells the passes apart.
The pattern is parsed, never run: a pattern that would take hours is judged instantly."""

from __future__ import annotations

import pytest

from abl.checks.rules.patterns import backtracks

REPORTED = ["(a+)+$", r"(\w+\s?)+$", "(x*)*", "((a+))+", "(a|b+)+", "(?:a+|b)*c", "(a+){2,}", r"(\s*\w+\s*,?)*"]
QUIET = [
    r"([a-z]+\.)+[a-z]+$",
    "[a-z]+(?:-[a-z]+)*",
    r"\d+",
    r"(\d+)-(\d+)",
    "(a+){1}",
    r"[A-Z]{2}-\d+",
    "(a++)+",  # possessive: never backtracks into itself
    "(?>a+)+",  # atomic, likewise
    "((((((((((",  # not a pattern at all
    "(" * 5000 + "a" + ")" * 5000,  # deeper than the parser goes
    "a" * 5000,  # longer than patterns are examined
]


@pytest.mark.parametrize("pattern", REPORTED)
def test_reported(pattern: str) -> None:
    assert backtracks(pattern)


@pytest.mark.parametrize("pattern", QUIET, ids=lambda p: p[:20])
def test_quiet(pattern: str) -> None:
    assert not backtracks(pattern)
