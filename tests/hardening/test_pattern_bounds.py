"""Every regular expression an author writes runs within the same bounds (`abl.expr.patterns`):
10,000 characters of input, 0.25 s on the main thread, 2,000 characters of pattern.

The extraction patterns of `GATHER` were bounded already; the condition operators and the regex
functions ran an author's pattern without a limit, so `x matches "(a+)+$"` on a customer's
`aaa…!` stalled a turn for minutes. A pattern stopped at its limit makes the whole condition not
hold, negated or not, with an error saying why.
"""

from __future__ import annotations

import signal

import pytest

from abl.expr import evaluate_text, patterns
from abl.runtime import RuntimeOptions, start_session
from abl.workspace import Project

ALMOST = "a" * 40 + "!"  # makes `(a+)+$` try every way to split the a's
STOPPED = "was not used: it ran longer than 0.25 s and was stopped"


@pytest.mark.parametrize(
    "condition",
    [
        'text matches "(a+)+$"',
        "text matches /(a+)+$/",
        'NOT (text matches "(a+)+$")',
        'text.matches("(a+)+$")',
        'MATCHES_PATTERN(text, "(a+)+$")',
        'NOT_MATCHES_PATTERN(text, "(a+)+$")',
        'NOT MATCHES_PATTERN(text, "(a+)+$")',
        'REGEX_EXTRACT(text, "(a+)+$") IS NOT SET',
        'REGEX_REPLACE(text, "(a+)+$", "") == text',
    ],
)
def test_a_pattern_that_backtracks_is_stopped_and_the_condition_does_not_hold(condition: str) -> None:
    result = evaluate_text(condition, {"text": ALMOST})
    assert result.truthy is False
    assert len(result.errors) == 1 and STOPPED in result.errors[0].message


LONG = "a" * patterns.MAX_PATTERN_INPUT + "b"


@pytest.mark.parametrize(
    "condition, holds",
    [('text matches "b"', False), ('text matches "^a"', True), ('REGEX_EXTRACT(text, "a(b)") IS SET', False)],
)
def test_a_pattern_reads_the_first_10000_characters(condition: str, holds: bool) -> None:
    assert evaluate_text(condition, {"text": LONG}).truthy is holds


def test_a_replacement_reads_the_same_start_and_keeps_the_rest() -> None:
    replaced = evaluate_text('REGEX_REPLACE(text, "a", "c")', {"text": LONG}).value
    assert replaced == "c" * patterns.MAX_PATTERN_INPUT + "b"


@pytest.mark.parametrize(
    "pattern, why",
    [
        ("a{99999999999}", "a repeat count is too large"),
        ("(" * 999 + "a" + ")" * 999, "it is nested too deeply"),
        ("a" * 2001, "patterns are limited to 2,000"),
        ("[unclosed", "unterminated character set"),
    ],
    ids=["repeat-count", "nested", "long", "unclosed"],
)
def test_a_pattern_that_cannot_be_used_is_an_error_with_a_reason(pattern: str, why: str) -> None:
    with pytest.raises(patterns.PatternError, match=why.replace("(", r"\(")):
        patterns.compile_pattern(pattern)
    result = evaluate_text(f"text matches {pattern!r}", {"text": "abc"})
    assert result.truthy is False
    assert result.errors and "invalid regular expression" in result.errors[0].message


def test_a_replacement_that_would_grow_past_the_cap_is_refused() -> None:
    # An empty pattern matches between every two characters: 10,001 copies of 50,000 characters.
    result = evaluate_text('REGEX_REPLACE(text, "", other)', {"text": "x" * 10_000, "other": "y" * 50_000})
    assert [e.message for e in result.errors] == [
        "REGEX_REPLACE() failed: the result would be longer than 100,000 characters"
    ]


def test_the_time_limit_works_under_a_timer_the_process_already_runs() -> None:
    # The fuzzer and test harnesses hold whole runs to a deadline with the same real-time
    # timer; the pattern's own limit is nested inside it and gives it back afterwards.
    fired: list[int] = []

    def outer(signum: int, frame: object) -> None:
        fired.append(signum)

    previous = signal.signal(signal.SIGALRM, outer)
    signal.setitimer(signal.ITIMER_REAL, 30.0)
    try:
        with pytest.raises(patterns.PatternTimeout):
            patterns.search(patterns.compile_pattern("(a+)+$"), ALMOST)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < left <= 30.0  # still armed, with what it had left
        assert signal.getsignal(signal.SIGALRM) is outer
        assert not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


DESK = """SUPERVISOR: Front_Desk
GOAL: "Route a customer by the reference they give"

GATHER:
  reference:
    PROMPT: "Your reference?"
    TYPE: string

HANDOFF:
  - TO: Reference_Desk
    WHEN: reference IS SET AND NOT (reference matches "^(a+)+$")

AGENT: Reference_Desk
GOAL: "Look a reference up"
"""


def test_a_turn_whose_route_pattern_is_stopped_goes_on_and_says_why() -> None:
    project = Project("<memory>")
    project.update("/mem/desk.agent.abl", DESK)
    session = start_session(project, "Front_Desk", RuntimeOptions())
    session.send("hi")
    turn = session.send(ALMOST)
    assert turn.active_agent == "Front_Desk"  # `NOT (stopped)` does not hold: no handoff
    (check,) = [e for e in turn.events if e.type == "handoff_condition_check"]
    assert check.fields["result"] is False
    assert any(STOPPED in problem for problem in check.fields["problems"])
    assert session.send("thanks").replies  # the next turn runs normally
