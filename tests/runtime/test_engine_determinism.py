"""Same project, messages and model: the same trace, byte for byte; and saving a session and
resuming it changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from engine_support import LOAN, RETAIL, loan, project_dir, project_text, retail, texts

from abl.runtime import RuntimeOptions, Session, SessionError, start_session

LOAN_TURNS = ["I want a loan offer", "I'd rather not say", "85000", "what rates do you have?", "thanks"]
RETAIL_TURNS = ["Hi there", "ORD-20931", "thanks", "I want to complain, the service was terrible", "a full refund"]
SCENARIOS = {
    "loan": (lambda: loan(trace_level="debug"), LOAN_TURNS, lambda: project_text(LOAN.read_text("utf-8"))),
    "retail": (lambda: retail(trace_level="debug"), RETAIL_TURNS, lambda: project_dir("retail")),
}


def run(make, turns) -> tuple[str, list[list[str]]]:
    session = make()
    replies = [texts(session.send(t)) for t in turns]
    return session.trace_log.to_jsonl(), replies


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_two_runs_give_byte_identical_traces(name: str) -> None:
    make, turns, _ = SCENARIOS[name]
    first, second = run(make, turns), run(make, turns)
    assert first == second
    assert first[0].count("\n") > 10


_SCRIPT = """
import sys
sys.path[:0] = [{server!r}, {tests!r}]
from engine_support import loan, retail
for make, turns in ((loan, {loan_turns!r}), (retail, {retail_turns!r})):
    session = make(trace_level="debug")
    for text in turns:
        session.send(text)
    sys.stdout.write(session.trace_log.to_jsonl())
"""


def test_traces_do_not_depend_on_hash_randomisation() -> None:
    root = Path(__file__).resolve().parents[2]
    script = _SCRIPT.format(
        server=str(root / "server"), tests=str(Path(__file__).parent), loan_turns=LOAN_TURNS, retail_turns=RETAIL_TURNS
    )
    outputs = []
    for seed in ("1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0]


# --- save and resume -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("split", [1, 3])
def test_resuming_a_saved_session_is_the_same_as_never_stopping(name: str, split: int, tmp_path: Path) -> None:
    make, turns, project = SCENARIOS[name]
    straight_trace, straight_replies = run(make, turns)

    session = make()
    replies = [texts(session.send(t)) for t in turns[:split]]
    path = tmp_path / "session.json"
    session.save(path)
    resumed = Session.load(project(), path, RuntimeOptions(trace_level="debug"))
    replies += [texts(resumed.send(t)) for t in turns[split:]]
    assert replies == straight_replies
    assert resumed.trace_log.to_jsonl() == straight_trace
    assert resumed.state() == _state_after(make, turns)


def _state_after(make, turns):
    session = make()
    for text in turns:
        session.send(text)
    return session.state()


def test_to_dict_is_plain_json_and_round_trips() -> None:
    session = loan()
    session.send("I want a loan offer")
    data = session.to_dict()
    text = json.dumps(data, sort_keys=True)
    again = Session.from_dict(project_text(LOAN.read_text("utf-8")), json.loads(text))
    assert json.dumps(again.to_dict(), sort_keys=True) == text
    assert again.state() == session.state()
    assert again.history == session.history


def test_a_saved_session_waiting_on_a_child_returns_to_the_parent_after_loading(tmp_path: Path) -> None:
    session = loan()
    session.send("I want a loan offer")
    session.save(tmp_path / "s.json")
    resumed = Session.load(project_text(LOAN.read_text("utf-8")), tmp_path / "s.json")
    assert resumed.state().stack == ["Loan_Supervisor"]
    turn = resumed.send("85000")
    assert turn.active_agent == "Offer_Agent"
    assert [e.type for e in turn.events if e.type in ("handoff_return_handler", "resume_intent")] == [
        "handoff_return_handler",
        "resume_intent",
    ]


def test_save_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.json"
    session = loan()
    session.save(path)
    before = path.read_text("utf-8")
    session.send("I want a loan offer")

    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        session.save(path)
    assert path.read_text("utf-8") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"format": "something-else"}', "not a saved session"),
        ('{"format": "abl-session", "version": 99}', "version"),
        ('{"format": "abl-session", "version": 1, "state": {}}', "incomplete or damaged"),
    ],
)
def test_loading_a_bad_file_is_a_session_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "s.json"
    path.write_text(content, "utf-8")
    with pytest.raises(SessionError) as caught:
        Session.load(project_dir("retail"), path)
    assert message in str(caught.value)


def test_loading_a_session_whose_agents_are_gone_is_a_session_error(tmp_path: Path) -> None:
    session = loan()
    session.send("I want a loan offer")
    session.save(tmp_path / "s.json")
    with pytest.raises(SessionError) as caught:
        Session.load(project_dir("retail"), tmp_path / "s.json")
    assert "unknown agent `Income_Capture_Agent`" in caught.value.problems


def test_reset_starts_again_deterministically() -> None:
    session = loan(trace_level="debug")
    for text in LOAN_TURNS:
        session.send(text)
    session.reset()
    assert session.state().active_agent == "Loan_Supervisor"
    assert [e.type for e in session.trace] == ["session_start"]
    for text in LOAN_TURNS:
        session.send(text)
    assert session.trace_log.to_jsonl() == run(SCENARIOS["loan"][0], LOAN_TURNS)[0]


def test_retail_files_are_the_seeds_four_files() -> None:
    assert sorted(p.name for p in RETAIL.glob("*.abl")) == [
        "complaint-agent.agent.abl",
        "order-status-agent.agent.abl",
        "retail-hub.agent.abl",
        "returns-agent.agent.abl",
    ]
    assert start_session(project_dir("retail"), "Retail_Hub").greeting == []
