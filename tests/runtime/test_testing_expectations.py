"""Turn expectations checked against hand-made observations, and the failure text they produce."""

from __future__ import annotations

from pathlib import Path

import pytest

from abl.runtime.testing.expectations import Observed, ObservedThread, check_turn
from abl.runtime.testing.loader import load_file
from abl.runtime.testing.render import render_failure, status_line, summary_line
from abl.runtime.testing.runner import ConversationResult, TurnOutcome


def _ev(seq, kind, agent="Loan_Supervisor", **fields):
    return {
        "type": kind,
        "seq": seq,
        "turn": 2,
        "thread": "thread-1",
        "agent": agent,
        "ts": "2026-01-01T00:00:00.000Z",
        **fields,
    }


RETURN_TURN = Observed(
    replies=(("Income_Capture_Agent", "Thanks. I have your income."), ("Offer_Agent", "Let us look at offers.")),
    active_agent="Offer_Agent",
    events=(
        _ev(8, "gather", "Income_Capture_Agent", field="annual_income", value=85000, valid=True, attempt=1),
        _ev(
            9, "complete", "Income_Capture_Agent", rule={"index": 0, "condition": "annual_income IS SET"}, terminal=True
        ),
        _ev(
            10,
            "handoff_return_handler",
            **{"from": "Income_Capture_Agent"},
            to="Loan_Supervisor",
            action="resume_intent",
            mappedFields=["annual_income"],
        ),
        _ev(11, "resume_intent", message="I want a loan offer", resumeWith="original_handoff_utterance", depth=1),
        _ev(
            12,
            "handoff_condition_check",
            condition="annual_income IS SET",
            target="Offer_Agent",
            result=True,
            whenOutcome="deterministic_match",
        ),
        _ev(
            13,
            "handoff",
            **{"from": "Loan_Supervisor"},
            to="Offer_Agent",
            returnExpected=False,
            reasonCode="handoff_permanent",
            historyMessages=4,
            history={"mode": "full"},
        ),
        _ev(14, "handoff_completed", to="Offer_Agent", outcome="success", durationMs=0),
    ),
    values={"annual_income": 85000},
    threads=(
        ObservedThread("Loan_Supervisor", "completed", {"annual_income": 85000}),
        ObservedThread("Income_Capture_Agent", "completed", {"annual_income": 85000}),
        ObservedThread("Offer_Agent", "active", {"annual_income": 85000}),
    ),
)


def _turn(tmp_path: Path, body: str):
    path = tmp_path / "t.abltest.yaml"
    path.write_text(
        "project: .\nagent: Loan_Supervisor\ntests:\n  - name: t\n    turns:\n      - user: '85000'\n" + body
    )
    loaded = load_file(path)
    return loaded, loaded.conversations[0].turns[0]


PASSING = [
    "        agent: Offer_Agent\n",
    "        reply: I have your income\n",
    "        reply: {regex: '^Thanks\\.'}\n",
    "        events:\n          - type: handoff_return_handler\n            mappedFields: [annual_income]\n          - resume_intent\n          - type: handoff\n            to: Offer_Agent\n            returnExpected: false\n            reasonCode: handoff_permanent\n",
    "        events:\n          - type: complete\n            rule: {index: 0}\n",
    "        no_events: [memory_error, resume_intent_depth_limit]\n",
    "        no_events:\n          - type: handoff\n            returnExpected: true\n",
    "        vars: {annual_income: 85000}\n",
    "        vars:\n          agent: Loan_Supervisor\n          values: {annual_income: {gte: 50000}}\n",
    "        history_received: {agent: Offer_Agent, count: 4}\n",
    "        history_received: {agent: Offer_Agent, count: {gte: 1}}\n",
    "        ended: false\n",
]


@pytest.mark.parametrize("body", PASSING, ids=[b.strip().split(":")[0] + str(i) for i, b in enumerate(PASSING)])
def test_expectations_that_hold(tmp_path: Path, body: str):
    _, spec = _turn(tmp_path, body)
    assert check_turn(spec, RETURN_TURN) == []


# (expectation, failure kind, text that must appear in the rendered failure)
FAILING = [
    ("        agent: Income_Capture_Agent\n", "agent", "expected: Income_Capture_Agent"),
    (
        "        reply: What is your annual income?\n",
        "reply",
        "actual:   [Income_Capture_Agent] Thanks. I have your income.",
    ),
    (
        "        events:\n          - resume_intent\n          - handoff_return_handler\n",
        "events",
        "(it came before the previously matched event: check the order)",
    ),
    (
        "        events:\n          - type: handoff\n            to: Offer_Agent\n            returnExpected: true\n",
        "events",
        "returnExpected: expected true, got false",
    ),
    ("        events:\n          - type: memory_error\n", "events", "no `memory_error` event in this turn"),
    ("        no_events: [resume_intent]\n", "no_events", "#11 resume_intent"),
    (
        "        vars: {annual_income: 90000}\n",
        "vars",
        "`annual_income` in the active thread (Offer_Agent): expected 90000, got 85000",
    ),
    ("        vars: {missing_var: {exists: true}}\n", "vars", "missing, expected a value"),
    ("        vars:\n          agent: Nobody\n          values: {x: 1}\n", "vars", "no thread of Nobody exists"),
    ("        history_received: {agent: Offer_Agent, count: 0}\n", "history_received", "actual:   4"),
    (
        "        history_received: {agent: Income_Capture_Agent, count: 0}\n",
        "history_received",
        "no handoff to Income_Capture_Agent",
    ),
    ("        ended: true\n", "ended", "the session should have ended"),
]


@pytest.mark.parametrize(("body", "kind", "text"), FAILING, ids=[f"{k}-{i}" for i, (_, k, _) in enumerate(FAILING)])
def test_expectations_that_fail_say_why(tmp_path: Path, body: str, kind: str, text: str):
    loaded, spec = _turn(tmp_path, body)
    failures = check_turn(spec, RETURN_TURN)
    assert [f.kind for f in failures] == [kind]
    result = ConversationResult(
        loaded,
        loaded.conversations[0],
        "failed",
        (TurnOutcome(1, spec, RETURN_TURN, tuple(failures)),),
    )
    rendered = render_failure(result)
    assert text in rendered, rendered
    # every failure shows the turn, the replies and the turn's trace
    assert "turn 1 (line 6): user: 85000" in rendered
    assert "[Offer_Agent] Let us look at offers." in rendered
    assert "#13 handoff Loan_Supervisor → Offer_Agent (permanent, history full: 4 messages)" in rendered


def test_all_unmet_expectations_of_a_turn_are_reported(tmp_path: Path):
    _, spec = _turn(tmp_path, "        agent: X\n        reply: nope\n        vars: {annual_income: 1}\n")
    assert [f.kind for f in check_turn(spec, RETURN_TURN)] == ["agent", "reply", "vars"]


def test_status_and_summary_lines(tmp_path: Path):
    loaded, _ = _turn(tmp_path, "")
    conv = loaded.conversations[0]
    results = [
        ConversationResult(loaded, conv, "passed"),
        ConversationResult(loaded, conv, "failed"),
        ConversationResult(loaded, conv, "error", error="the session cannot start"),
    ]
    assert [status_line(r) for r in results] == ["PASS t", "FAIL t", "FAIL t"]
    assert summary_line(results) == "1 passed, 2 failed"
    skipped = ConversationResult(loaded, conv, "skipped", error="not ready")
    assert status_line(skipped) == "SKIP t (not ready)"
    assert summary_line([*results, skipped]) == "1 passed, 2 failed, 1 skipped"
    assert "the session cannot start" in render_failure(results[2])


def test_an_error_event_fails_the_turn_unless_it_is_expected(tmp_path: Path):
    broken = Observed(
        replies=(("Income_Capture_Agent", "[error] the model endpoint did not answer: no answer"),),
        active_agent="Income_Capture_Agent",
        events=(_ev(5, "error", "Income_Capture_Agent", code="model_error", message="no answer", purpose="extract"),),
        values={},
    )
    _, plain = _turn(tmp_path, "        agent: Income_Capture_Agent\n")
    failures = check_turn(plain, broken)
    assert [(f.kind, f.summary) for f in failures] == [("error", "the runtime reported an error: no answer")]
    _, expecting = _turn(tmp_path, "        events:\n          - type: error\n            code: model_error\n")
    assert check_turn(expecting, broken) == []
