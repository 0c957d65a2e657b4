"""The one "did you mean" matcher: keywords, names in a project, allowed values and codes."""

from __future__ import annotations

from itertools import permutations

import pytest

from abl.suggest import CUTOFF, did_you_mean, ranked, score

SECTIONS = (
    "AGENT",
    "BEHAVIOR",
    "BEHAVIOR_PROFILE",
    "COMPLETE",
    "CONSTRAINTS",
    "DELEGATE",
    "ESCALATE",
    "FLOW",
    "GATHER",
    "GOAL",
    "HANDOFF",
    "HANDOFF_PROTOCOL",
    "INSTRUCTIONS",
    "LIMITATIONS",
    "MEMORY",
    "ON_ERROR",
    "ON_START",
    "PERSONA",
    "RETURN_HANDLERS",
    "SUPERVISOR",
    "SYSTEM_PROMPT",
    "TOOLS",
    "VERSION",
)
HANDOFF_KEYS = ("TO", "WHEN", "SUMMARY", "HISTORY", "RETURN", "EXPECT_RETURN", "ON_RETURN", "ON_FAILURE", "ON_FAIL")
TURN_KEYS = ("user", "agent", "reply", "events", "no_events", "vars", "history_received", "ended", "scripted")
FILE_KEYS = ("project", "agent", "model", "model_options", "mocks", "scripted", "tests", "description")
AGENTS = ("Income_Capture_Agent", "Loan_Supervisor", "Offer_Agent", "Returns_Agent", "Complaint_Agent")
CODES = ("E330", "E331", "W801", "HISTORY_FALLS_BACK_TO_FULL", "HISTORY_LAST_ZERO", "UNKNOWN_SECTION", "UNKNOWN_KEY")

# (typo, candidates, expected suggestion or None)
CASES = [
    # Keywords: case-insensitive, the catalogue's spelling comes back.
    ("HANDOF", SECTIONS, "HANDOFF"),
    ("GOLA", SECTIONS, "GOAL"),
    ("gather", SECTIONS, "GATHER"),
    ("Handoff", SECTIONS, "HANDOFF"),
    ("RETURN_HANDLER", SECTIONS, "RETURN_HANDLERS"),
    ("BEHAVIOUR", SECTIONS, "BEHAVIOR"),
    ("INSTRUCIONS", SECTIONS, "INSTRUCTIONS"),
    ("ON_STRT", SECTIONS, "ON_START"),
    ("PROMPT", SECTIONS, "SYSTEM_PROMPT"),  # a whole token of the longer name
    ("EXPECT_RETRUN", HANDOFF_KEYS, "EXPECT_RETURN"),  # swapped neighbours are one slip
    ("SUMARY", HANDOFF_KEYS, "SUMMARY"),
    ("RETRY_PROMT", ("retry_prompt", "prompt_mode", "max_attempts"), "retry_prompt"),
    ("tset", FILE_KEYS, "tests"),
    ("agnet", TURN_KEYS, "agent"),
    ("vras", TURN_KEYS, "vars"),
    ("intent", ("intents", "conditions", "extractions", "replies"), "intents"),
    # Allowed values, abbreviations included.
    ("strng", ("string", "number", "boolean", "date"), "string"),
    ("nubmer", ("string", "number", "boolean", "date"), "number"),
    ("last", ("full", "none", "summary_only", "last_n"), "last_n"),
    ("max", ("maximum", "minimum"), "maximum"),
    ("desc", ("description", "destination"), "description"),
    # Names in a project.
    ("income_finished", ("income_done", "employer_done"), "income_done"),
    ("Loan_Supervisr", AGENTS, "Loan_Supervisor"),
    ("Returns_Agnet", AGENTS, "Returns_Agent"),
    ("returns_agent", AGENTS, "Returns_Agent"),
    ("card_status", ("card_last_four", "status"), "status"),
    ("income", ("annual_income",), "annual_income"),
    ("check_in_date", ("checkin_date", "checkout_date"), "checkin_date"),
    ("order_number", ("order_id",), "order_id"),
    ("search_flight", ("search_flights", "book_flight", "cancel_booking"), "search_flights"),
    ("intent.categry", ("intent.category", "intent.confidence"), "intent.category"),
    # Codes.
    ("E3300", CODES, "E330"),
    ("E33", CODES, "E330"),  # ties with E331; the alphabetically first wins
    ("W80", CODES, "W801"),
    ("UNKNOWN_SECTON", CODES, "UNKNOWN_SECTION"),
    ("history_falls_back", CODES, "HISTORY_FALLS_BACK_TO_FULL"),
    # Nothing close enough.
    ("xyzzy", SECTIONS, None),
    ("E999", CODES, None),
    ("Gift_Agent", AGENTS, None),  # sharing `_Agent` is not enough
    ("yearly_income", ("annual_income",), None),
    ("PROMPT", ("PROTOCOL",), None),
    ("ON", ("ON_START", "ON_RETURN"), None),  # too short for the shared beginning to count
    ("", SECTIONS, None),
    ("__", SECTIONS, None),
    ("GOAL", (), None),
]


@pytest.mark.parametrize(("typo", "candidates", "expected"), CASES, ids=[f"{c[0]}->{c[2]}" for c in CASES])
def test_did_you_mean(typo: str, candidates: tuple[str, ...], expected: str | None) -> None:
    assert did_you_mean(typo, candidates) == expected


@pytest.mark.parametrize(
    ("typo", "candidates", "expected"),
    [
        ("Foo", ("FOO", "foo", "Foo"), "Foo"),  # the very spelling first
        ("fOO", ("foo", "FOO"), "FOO"),  # then, among case variants, by code point
        ("E33", ("E331", "E330"), "E330"),  # equal scores: alphabetical
        ("checkin_date", ("check_in_date", "checkin_date"), "checkin_date"),
        ("CHECKIN_DATE", ("check_in_date", "checkin_date"), "checkin_date"),
    ],
)
def test_ties_do_not_depend_on_candidate_order(typo: str, candidates: tuple[str, ...], expected: str) -> None:
    for order in permutations(candidates):
        assert did_you_mean(typo, order) == expected


def test_ranked_lists_the_close_candidates_best_first() -> None:
    assert ranked("HANDOF", SECTIONS) == ["HANDOFF", "HANDOFF_PROTOCOL"]
    assert ranked("HANDOF", SECTIONS, limit=1) == ["HANDOFF"]
    assert ranked("HANDOF", SECTIONS, limit=0) == []
    assert ranked("E33", CODES) == ["E330", "E331"]
    assert ranked("xyzzy", SECTIONS) == []


def test_candidates_may_be_any_iterable_with_repeats() -> None:
    assert did_you_mean("GOLA", iter(["GOAL", "GOAL", "GATHER"])) == "GOAL"
    assert ranked("GOLA", ["GOAL", "GOAL"]) == ["GOAL"]


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        ("HANDOFF", "handoff", 100.0),  # case is ignored
        ("check_in_date", "checkin-date", 100.0),  # and so are `_` and `-`
        ("GOLA", "GOAL", 87.5),  # one swap in eight letters; `GO` is too short to count
        ("max", "maximum", 80.0),  # 60, plus half the gap: `max` is all of the shorter word
        ("xyz", "", 0.0),
    ],
)
def test_scores(left: str, right: str, expected: float) -> None:
    assert score(left, right) == pytest.approx(expected)


def test_the_score_is_symmetric_and_bounded() -> None:
    words = [*SECTIONS, *AGENTS, *CODES, "income_finished", "card_status", "tset", "max"]
    for left in words:
        for right in words:
            value = score(left, right)
            assert 0.0 <= value <= 100.0
            assert value == pytest.approx(score(right, left))
    assert 0 < CUTOFF < 100
