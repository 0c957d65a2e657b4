"""A recorded conversation becomes a test file that the loader reads back with the same checks."""

from __future__ import annotations

from pathlib import Path

from abl.runtime.testing.expectations import Observed, check_turn
from abl.runtime.testing.loader import load_file
from abl.runtime.testing.recorder import RecordedTurn, Recording, RecordingFile, dump, key_events, write


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
    (tmp_path / "tests").mkdir()
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


# `--record` keeps the test file up to date after every turn by appending the turn's lines:
# the file must then be exactly what writing the whole recording gives, after every turn, for
# texts YAML writes quoted, folded or over several lines.
AWKWARD_MESSAGES = [
    "I want a loan offer",
    "",
    "- 85k: yes # not a comment",
    "she said \"no\" and 'yes'",
    "first line\nsecond line\n",
    "a\u2028b\u0085c",
    "{{annual_income}} [x] {y} &anchor *alias !tag",
    "word " * 60,
    "日本語 ünïcode 😀",
    "\ud800 half of a pair",
    "null",
    "123",
]


def _turn(user: str, ended: bool = False) -> RecordedTurn:
    return RecordedTurn(
        user=user,
        replies=(("Loan_Supervisor", f"You said: {user}"),),
        active_agent="A",
        events=FIRST.events,
        ended=ended,
    )


def test_a_recording_file_is_the_whole_test_after_every_turn(tmp_path: Path):
    recording = Recording(project=tmp_path, agent="Loan_Supervisor", greeting=(("Loan_Supervisor", "Hello."),))
    test_path = tmp_path / "recorded.abltest.yaml"
    kept = RecordingFile(recording, test_path)
    kept.write()
    for number, message in enumerate(AWKWARD_MESSAGES, start=1):
        recording.add(_turn(message, ended=number == len(AWKWARD_MESSAGES)))
        kept.write()
        assert test_path.read_text(encoding="utf-8") == dump(recording, test_path), message
        assert len(load_file(test_path).conversations[0].turns) == number


def test_only_the_first_turn_and_a_new_start_write_the_file_whole(tmp_path: Path):
    recording = Recording(project=tmp_path, agent="Loan_Supervisor", greeting=(("Loan_Supervisor", "Hello."),))
    test_path = tmp_path / "recorded.abltest.yaml"
    kept = RecordingFile(recording, test_path)
    inodes = []
    for message in ["one", "two", "three"]:
        recording.add(_turn(message))
        kept.write()
        inodes.append(test_path.stat().st_ino)  # a whole write renames a new file into place
    assert inodes[1] == inodes[2]
    recording.turns.clear()  # `/reset` in the chat: a new conversation
    recording.greeting = (("Loan_Supervisor", "Hello again."),)
    recording.add(_turn("four"))
    kept.write()
    assert test_path.stat().st_ino != inodes[2]
    assert test_path.read_text(encoding="utf-8") == dump(recording, test_path)


def test_a_recording_file_changed_by_someone_else_is_written_whole(tmp_path: Path):
    recording = Recording(project=tmp_path, agent="Loan_Supervisor")
    test_path = tmp_path / "recorded.abltest.yaml"
    kept = RecordingFile(recording, test_path)
    recording.add(_turn("one"))
    kept.write()
    with open(test_path, "a", encoding="utf-8") as other:
        other.write("  - user: typed in by hand\n")
    recording.add(_turn("two"))
    kept.write()
    assert test_path.read_text(encoding="utf-8") == dump(recording, test_path)
