"""A recorded conversation becomes a test file that the loader reads back with the same checks."""

from __future__ import annotations

from pathlib import Path

from abl.runtime.testing.expectations import Observed, check_turn
from abl.runtime.testing.loader import load_file
from abl.runtime.testing.recorder import RecordedTurn, Recording, key_events, write


def _ev(seq, kind, agent="Loan_Supervisor", **fields):
    return {
        "type": kind,
        "seq": seq,
        "turn": 1,
        "thread": "thread-1",
        "agent": agent,
        "ts": "2026-01-01T00:00:01.000Z",
        **fields,
    }


FIRST = RecordedTurn(
    user="I want a loan offer",
    replies=(("Income_Capture_Agent", "What is your annual income?"),),
    active_agent="Income_Capture_Agent",
    events=(
        _ev(
            1,
            "handoff_condition_check",
            condition="annual_income IS NOT SET",
            target="Income_Capture_Agent",
            result=True,
        ),
        _ev(
            2,
            "handoff",
            **{"from": "Loan_Supervisor"},
            to="Income_Capture_Agent",
            returnExpected=True,
            reasonCode="handoff_return_expected",
            historyMessages=0,
            history={"mode": "summary_only"},
        ),
        _ev(3, "handoff_completed", to="Income_Capture_Agent", outcome="success", durationMs=12),
        _ev(4, "model_call", purpose="extract", provider="embedded"),
    ),
)
SECOND = RecordedTurn(user="yes", replies=(), active_agent="Income_Capture_Agent", events=(), ended=True)


def test_key_events_keep_only_stable_fields():
    assert key_events(FIRST.events) == [
        {
            "type": "handoff",
            "from": "Loan_Supervisor",
            "to": "Income_Capture_Agent",
            "returnExpected": True,
            "reasonCode": "handoff_return_expected",
            "historyMessages": 0,
        },
        {"type": "handoff_completed", "to": "Income_Capture_Agent", "outcome": "success"},
    ]


def test_a_recording_loads_back_and_its_expectations_hold(tmp_path: Path):
    project = tmp_path / "project"
    project.mkdir()
    recording = Recording(
        project=project,
        agent="Loan_Supervisor",
        mocks={"credit_score": [700]},
        greeting=(("Loan_Supervisor", "Hello."),),
    )
    recording.add(FIRST)
    recording.add(SECOND)
    test_path = tmp_path / "tests" / "recorded.abltest.yaml"
    write(recording, test_path)
    text = test_path.read_text()
    assert text.startswith("# Recorded with `abl run --record`")
    assert "project: ../project\n" in text
    loaded = load_file(test_path)
    assert loaded.project == project.resolve()
    assert loaded.mocks == {"credit_score": [700]}
    conversation = loaded.conversations[0]
    assert conversation.greeting.matches("Hello.")
    first, second = conversation.turns
    assert second.user == "yes" and second.ended is True and second.reply is None
    observed = Observed(
        replies=FIRST.replies,
        active_agent=FIRST.active_agent,
        events=FIRST.events,
        values={},
    )
    assert check_turn(first, observed) == []
    changed = Observed(replies=FIRST.replies, active_agent="Offer_Agent", events=FIRST.events[:1], values={})
    assert [f.kind for f in check_turn(first, changed)] == ["agent", "events"]


def test_time_waited_in_the_chat_is_recorded_as_after(tmp_path: Path):
    # `/wait 90s` in a recorded chat passes time in the session; a recording that dropped it
    # would replay the next message at once and miss the timeout the chat saw.
    recording = Recording(project=tmp_path, agent="Loan_Supervisor", mocks={}, greeting=())
    recording.add(
        RecordedTurn(user="still there?", replies=(), active_agent="Loan_Supervisor", events=(), after_ms=90_000)
    )
    recording.add(SECOND)
    test_path = tmp_path / "recorded.abltest.yaml"
    write(recording, test_path)
    assert "after: 90000ms\n" in test_path.read_text()
    waited, at_once = load_file(test_path).conversations[0].turns
    assert waited.after_ms == 90_000 and at_once.after_ms == 0
