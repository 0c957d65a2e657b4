"""Matchers of the conversation-test format, checked on hand-made values and events."""

from __future__ import annotations

import pytest

from abl.runtime.testing.matcher import (
    MISSING,
    EventPattern,
    MatcherError,
    compile_matcher,
    compile_text_matcher,
    find_forbidden,
    match_in_order,
    show,
    values_equal,
)

# (expected spec as written in YAML, actual value, matches?)
CASES = [
    # plain values: equality, numbers by value, no bool/number mixing
    (85000, 85000.0, True),
    (85000, 85001, False),
    (True, 1, False),
    (1, True, False),
    (False, False, True),
    ("Offer_Agent", "Offer_Agent", True),
    ("Offer_Agent", "offer_agent", False),
    ("85000", 85000, False),
    (None, None, True),
    (None, MISSING, False),
    # plain lists: exact, in order
    (["annual_income"], ["annual_income"], True),
    (["a", "b"], ["b", "a"], False),
    (["a"], ["a", "b"], False),
    ([1, {"gte": 2}], [1, 5], True),
    # plain mappings: listed keys match, others allowed
    ({"mode": "last_n"}, {"mode": "last_n", "count": 4}, True),
    ({"mode": "last_n", "count": 5}, {"mode": "last_n", "count": 4}, False),
    ({"mode": "full"}, "full", False),
    # operators
    ({"contains": "income"}, "What is your annual income?", True),
    ({"contains": "Income"}, "What is your annual income?", False),
    ({"contains": "x"}, ["x", "y"], True),
    ({"contains": 3}, [1, 2], False),
    ({"contains": 42}, "the answer is 42", True),
    ({"regex": r"^\d+$"}, "12345", True),
    ({"regex": r"^\d+$"}, 12345, True),
    ({"regex": "(?i)INCOME"}, "your income", True),
    ({"regex": "^income"}, "your income", False),
    ({"equals": {"a": 1}}, {"a": 1, "b": 2}, False),
    ({"equals": {"a": 1}}, {"a": 1}, True),
    ({"gte": 3}, 3, True),
    ({"gte": 3}, 2.5, False),
    ({"lte": 3}, 3.0, True),
    ({"gt": 0}, 0, False),
    ({"lt": 1}, 0.5, True),
    ({"gte": 1, "lte": 5}, 5, True),
    ({"gte": 1, "lte": 5}, 6, False),
    ({"gte": 1}, "4", False),
    ({"gte": 1}, True, False),
    ({"includes": ["b"]}, ["a", "b", "c"], True),
    ({"includes": ["c", "a"]}, ["a", "b", "c"], True),
    ({"includes": ["d"]}, ["a", "b"], False),
    ({"includes": [{"contains": "inc"}]}, ["annual_income"], True),
    ({"includes": ["a"]}, "a", False),
    ({"exists": True}, 0, True),
    ({"exists": True}, MISSING, False),
    ({"exists": False}, MISSING, True),
    ({"exists": False}, None, False),
    ({"not": "Offer_Agent"}, "Income_Capture_Agent", True),
    ({"not": {"contains": "error"}}, "[error] no answer", False),
    ({"any_of": ["a", "b"]}, "b", True),
    ({"any_of": ["a", {"regex": "^c"}]}, "d", False),
    # a missing field never matches a value matcher
    ({"contains": "x"}, MISSING, False),
    ({"regex": "x"}, MISSING, False),
    ({"gte": 0}, MISSING, False),
]


@pytest.mark.parametrize(("spec", "actual", "expected"), CASES, ids=[f"{show(c[0])}~{show(c[1])}" for c in CASES])
def test_matcher(spec, actual, expected):
    matcher = compile_matcher(spec)
    reason = matcher.check(actual)
    assert (reason is None) is expected, reason
    if not expected:
        assert reason  # a failure always says why


BAD_SPECS = [
    ({"regex": "("}, "not valid"),
    ({"regex": 3}, "takes a pattern"),
    ({"gte": "three"}, "takes a number"),
    ({"includes": "a"}, "takes a list"),
    ({"exists": "yes"}, "true or false"),
    ({"any_of": []}, "non-empty list"),
    ({"contains": ["a"]}, "one value"),
    ({"contains": "a", "to": "B"}, "mixes matcher operators"),
]


@pytest.mark.parametrize(("spec", "message"), BAD_SPECS, ids=[show(s) for s, _ in BAD_SPECS])
def test_malformed_matchers_are_rejected_with_a_reason(spec, message):
    with pytest.raises(MatcherError, match=message):
        compile_matcher(spec)


TEXT_CASES = [
    ("income", "What is your annual income?", True),
    ("Income", "What is your annual income?", False),
    (["annual", "income"], "What is your annual income?", True),
    (["annual", "salary"], "What is your annual income?", False),
    ({"equals": "Thanks."}, "Thanks.", True),
    ({"equals": "Thanks"}, "Thanks.", False),
    ({"regex": r"income\?$"}, "What is your annual income?", True),
    ({"not": {"contains": "[error]"}}, "fine", True),
    (42, "I have 42 of them", True),
]


@pytest.mark.parametrize(("spec", "text", "expected"), TEXT_CASES, ids=[show(c[0]) for c in TEXT_CASES])
def test_reply_matcher(spec, text, expected):
    assert compile_text_matcher(spec).matches(text) is expected


def test_reply_matcher_rejects_unknown_checks():
    with pytest.raises(MatcherError, match="unknown reply check `starts`"):
        compile_text_matcher({"starts": "What"})


def test_values_equal_is_deep():
    assert values_equal({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not values_equal({"a": [1, 2]}, {"a": [1, 2], "b": 0})


def _ev(seq, kind, **fields):
    return {
        "type": kind,
        "seq": seq,
        "turn": 1,
        "thread": "t-1",
        "agent": fields.pop("agent", "Loan_Supervisor"),
        "ts": "",
        **fields,
    }


LOAN_TURN = [
    _ev(1, "handoff_condition_check", target="Income_Capture_Agent", result=True),
    _ev(
        2,
        "handoff",
        **{"from": "Loan_Supervisor"},
        to="Income_Capture_Agent",
        returnExpected=True,
        reasonCode="handoff_return_expected",
        historyMessages=0,
    ),
    _ev(3, "handoff_completed", to="Income_Capture_Agent", outcome="success"),
    _ev(4, "gather", agent="Income_Capture_Agent", field="annual_income", value=85000, valid=True),
    _ev(
        5,
        "handoff_return_handler",
        **{"from": "Income_Capture_Agent"},
        to="Loan_Supervisor",
        mappedFields=["annual_income"],
    ),
    _ev(6, "resume_intent", message="I want a loan offer"),
    _ev(
        7,
        "handoff",
        **{"from": "Loan_Supervisor"},
        to="Offer_Agent",
        returnExpected=False,
        reasonCode="handoff_permanent",
    ),
]


def _pattern(kind, **fields):
    return EventPattern(kind, tuple((k, compile_matcher(v)) for k, v in fields.items()))


def test_events_match_as_an_ordered_subsequence():
    expected = [
        _pattern("handoff", to="Income_Capture_Agent", returnExpected=True),
        _pattern("handoff_return_handler", mappedFields=["annual_income"]),
        _pattern("resume_intent"),
        _pattern("handoff", to="Offer_Agent", reasonCode="handoff_permanent"),
    ]
    result = match_in_order(expected, LOAN_TURN)
    assert result.ok
    assert result.matched == (1, 4, 5, 6)


def test_an_event_out_of_order_is_reported_with_the_candidate():
    expected = [_pattern("resume_intent"), _pattern("handoff_return_handler")]
    result = match_in_order(expected, LOAN_TURN)
    assert not result.ok
    assert result.missing_index == 1
    assert [n.before_previous for n in result.near] == [True]


def test_a_field_mismatch_names_the_field():
    result = match_in_order([_pattern("handoff", to="Offer_Agent", returnExpected=True)], LOAN_TURN)
    assert not result.ok
    reasons = [n.reasons for n in result.near]
    assert reasons[0] == ("to: expected Offer_Agent, got Income_Capture_Agent",)
    assert reasons[1] == ("returnExpected: expected true, got false",)


def test_envelope_fields_can_be_matched():
    assert match_in_order([_pattern("gather", agent="Income_Capture_Agent", value={"gte": 50000})], LOAN_TURN).ok
    assert not match_in_order([_pattern("gather", agent="Loan_Supervisor")], LOAN_TURN).ok


def test_forbidden_events():
    forbidden = [_pattern("memory_error"), _pattern("handoff", to="Offer_Agent")]
    hits = find_forbidden(forbidden, LOAN_TURN)
    assert [(p.type, e["seq"]) for p, e in hits] == [("handoff", 7)]


def test_show_is_compact_and_unambiguous():
    assert show({"to": "Offer_Agent", "returnExpected": False}) == "{to: Offer_Agent, returnExpected: false}"
    assert show("yes") == '"yes"'
    assert show("two words") == '"two words"'
    assert show(85000.0) == "85000"
    assert show(MISSING) == "(missing)"
