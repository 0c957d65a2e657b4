"""`abl run` without a terminal: scripts and piped input, trace export, sessions, recording, mocks."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from abl.cli.main import main
from abl.runtime.session_file import read_session

ROOT = Path(__file__).resolve().parents[1].parent
LOAN = ROOT / "examples" / "loan-supervisor"
BANK = Path(__file__).resolve().parent / "projects" / "bank"

LOAN_SCRIPT = """\
# a new customer asks for an offer
I want a loan offer

85000
"""

LOAN_REPLIES = [
    "[Income_Capture_Agent] What is your annual income?",
    "[Income_Capture_Agent] Thanks. I have your income.",
]


def abl(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def script(tmp_path: Path, text: str = LOAN_SCRIPT, name: str = "loan.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_script_prints_one_line_per_reply(tmp_path, capsys):
    code, out, err = abl(capsys, "run", LOAN, "--agent", "Loan_Supervisor", "--script", script(tmp_path))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[:2] == LOAN_REPLIES
    assert lines[2].startswith("[Offer_Agent] ")
    assert len(lines) == 3
    assert err == ""  # no trace unless asked for


def test_trace_out_holds_every_event_as_json_lines(tmp_path, capsys):
    trace = tmp_path / "trace.jsonl"
    code, _, _ = abl(
        capsys, "run", LOAN, "--agent", "Loan_Supervisor", "--script", script(tmp_path), "--trace-out", trace
    )
    assert code == 0
    events = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert all("type" in e for e in events)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    handoffs = [e for e in events if e["type"] == "handoff"]
    assert [(h["to"], h["returnExpected"], h["reasonCode"]) for h in handoffs] == [
        ("Income_Capture_Agent", True, "handoff_return_expected"),
        ("Offer_Agent", False, "handoff_permanent"),
    ]
    # every level is exported, model calls with their messages included
    assert any(e["type"] == "model_call" and "items" in e["messages"] for e in events)
    returned = next(e for e in events if e["type"] == "handoff_return_handler")
    assert returned["mappedFields"] == ["annual_income"]


def test_the_same_script_twice_gives_identical_traces(tmp_path, capsys):
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    path = script(tmp_path)
    code1, out1, _ = abl(capsys, "run", LOAN, "--agent", "Loan_Supervisor", "--script", path, "--trace-out", first)
    code2, out2, _ = abl(capsys, "run", LOAN, "--agent", "Loan_Supervisor", "--script", path, "--trace-out", second)
    assert code1 == code2 == 0
    assert out1 == out2
    assert first.read_bytes() == second.read_bytes()
    assert first.stat().st_size > 0


def test_trace_goes_to_stderr_and_leaves_stdout_alone(tmp_path, capsys):
    path = script(tmp_path)
    _, plain, _ = abl(capsys, "run", LOAN, "--script", path)
    code, out, err = abl(capsys, "run", LOAN, "--script", path, "--trace")
    assert code == 0
    assert out == plain
    assert "handoff Loan_Supervisor → Income_Capture_Agent (returnable, history summary_only: 0 messages)" in err
    assert "handoff_return_handler Income_Capture_Agent → Loan_Supervisor" in err
    assert "model_call" not in err  # verbose, not standard
    _, _, minimal = abl(capsys, "run", LOAN, "--script", path, "--trace", "minimal")
    assert "handoff_condition_check" not in minimal and "handoff Loan_Supervisor" in minimal
    _, _, verbose = abl(capsys, "run", LOAN, "--script", path, "--trace", "verbose")
    assert "model_call" in verbose


def test_piped_input_works_like_a_script(tmp_path, capsys, monkeypatch):
    _, from_script, _ = abl(capsys, "run", LOAN, "--agent", "Loan_Supervisor", "--script", script(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO(LOAN_SCRIPT))
    code, piped, _ = abl(capsys, "run", LOAN, "--agent", "Loan_Supervisor")
    assert code == 0
    assert piped == from_script


def test_the_only_supervisor_is_the_default_agent(tmp_path, capsys):
    code, out, _ = abl(capsys, "run", LOAN, "--script", script(tmp_path))
    assert code == 0 and out.splitlines()[:2] == LOAN_REPLIES


def test_session_file_resumes_where_it_stopped(tmp_path, capsys):
    session = tmp_path / "loan.session.json"
    code, out, _ = abl(
        capsys, "run", LOAN, "--script", script(tmp_path, "I want a loan offer\n", "one.txt"), "--session", session
    )
    assert code == 0 and out.splitlines() == LOAN_REPLIES[:1]
    saved = read_session(session.read_bytes())
    assert saved["format"] == "abl-session"
    assert not list(tmp_path.glob("*.tmp"))  # the atomic write leaves no temporary file
    code, out, _ = abl(capsys, "run", LOAN, "--script", script(tmp_path, "85000\n", "two.txt"), "--session", session)
    assert code == 0
    assert out.splitlines()[0] == LOAN_REPLIES[1]
    assert out.splitlines()[1].startswith("[Offer_Agent] ")
    resumed = read_session(session.read_bytes())
    assert any(e["type"] == "resume_intent" for e in resumed["trace"])


def test_a_resumed_session_matches_one_uninterrupted_run(tmp_path, capsys):
    whole = tmp_path / "whole.jsonl"
    abl(capsys, "run", LOAN, "--script", script(tmp_path), "--trace-out", whole)
    session, parts = tmp_path / "s.json", tmp_path / "parts.jsonl"
    abl(capsys, "run", LOAN, "--script", script(tmp_path, "I want a loan offer\n", "a.txt"), "--session", session)
    abl(
        capsys,
        "run",
        LOAN,
        "--script",
        script(tmp_path, "85000\n", "b.txt"),
        "--session",
        session,
        "--trace-out",
        parts,
    )
    assert parts.read_text(encoding="utf-8") == whole.read_text(encoding="utf-8")


def test_record_writes_a_test_that_passes(tmp_path, capsys):
    (tmp_path / "tests").mkdir()
    recorded = tmp_path / "tests" / "recorded.abltest.yaml"
    code, _, _ = abl(capsys, "run", LOAN, "--script", script(tmp_path), "--record", recorded)
    assert code == 0
    text = recorded.read_text(encoding="utf-8")
    assert "agent: Loan_Supervisor" in text and "type: handoff_return_handler" in text
    code, out, _ = abl(capsys, "test", recorded)
    assert code == 0, out
    assert out.splitlines()[-1] == "1 passed, 0 failed"


def test_record_of_a_silent_run_writes_no_test_and_says_why(tmp_path, capsys):
    # No message and no greeting: a test of it would check nothing, and `abl test` refuses one.
    recorded = tmp_path / "recorded.abltest.yaml"
    code, _, err = abl(capsys, "run", LOAN, "--script", script(tmp_path, "# nothing to say\n"), "--record", recorded)
    assert code == 0
    assert not recorded.exists()
    assert f"no test written to {recorded}" in err and "nothing to check" in err


def test_record_of_a_silent_run_leaves_an_existing_file_alone(tmp_path, capsys):
    recorded = tmp_path / "recorded.abltest.yaml"
    recorded.write_text("kept: true\n", encoding="utf-8")
    abl(capsys, "run", LOAN, "--script", script(tmp_path, ""), "--record", recorded)
    assert recorded.read_text(encoding="utf-8") == "kept: true\n"


def test_mocks_answer_tool_calls_and_sensitive_values_stay_out_of_the_trace(tmp_path, capsys):
    mocks = tmp_path / "mocks.json"
    mocks.write_text(json.dumps({"get_balance": {"amount": 120}}), encoding="utf-8")
    trace = tmp_path / "bank.jsonl"
    code, out, _ = abl(
        capsys, "run", BANK, "--script", script(tmp_path, "hello\n4321\n"), "--mocks", mocks, "--trace-out", trace
    )
    assert code == 0
    assert out.splitlines() == [
        "[Balance_Agent] Welcome back. Your balance is 120.",
        "[Balance_Agent] Please enter your PIN.",
        "[Balance_Agent] Thank you, you are verified.",
    ]
    exported = trace.read_text(encoding="utf-8")
    assert "4321" not in exported
    events = [json.loads(line) for line in exported.splitlines()]
    gather = next(event for event in events if event["type"] == "gather")
    assert gather["value"] == "[redacted]"
    assert any(event["type"] == "tool_result" for event in events)


def test_mocks_in_yaml_with_a_list_of_results(tmp_path, capsys):
    mocks = tmp_path / "mocks.yaml"
    mocks.write_text("get_balance:\n  - {amount: 5}\n  - {amount: 6}\n", encoding="utf-8")
    code, out, _ = abl(capsys, "run", BANK, "--script", script(tmp_path, "hello\n"), "--mocks", mocks)
    assert code == 0
    assert out.splitlines()[0] == "[Balance_Agent] Welcome back. Your balance is 5."


def test_a_model_endpoint_that_is_down_gives_a_clear_message_and_the_session_goes_on(tmp_path, capsys):
    code, out, err = abl(
        capsys,
        "run",
        LOAN,
        "--script",
        script(tmp_path),
        "--model",
        "openai",
        "--model-url",
        "http://127.0.0.1:9/v1",
        "--model-name",
        "local",
    )
    assert code == 0
    lines = out.splitlines()
    assert any("[error] the model endpoint did not answer" in line for line in lines)
    # the second message was still answered
    assert len([line for line in lines if not line.split("] ", 1)[1].startswith("[error]")]) >= 2
    assert "error" in err and "Traceback" not in err


def test_a_completed_agent_still_answers_later_messages(tmp_path, capsys):
    # Seed 000, verification 3: ask the order status agent what was said earlier.
    retail = ROOT / "examples" / "retail-hub"
    text = "hi\nORD-20931\nwhere is my order?\nwhat did I say earlier?\n"
    code, out, err = abl(capsys, "run", retail, "--script", script(tmp_path, text))
    assert code == 0
    lines = out.splitlines()
    assert lines[-2] == "[Order_Status_Agent] Order ORD-20931 is on its way."
    assert lines[-1].startswith("[Order_Status_Agent] ") and "hi" not in lines[-1]
    assert "not sent" not in err


def test_a_recording_with_errors_expects_them(tmp_path, capsys):
    recorded = tmp_path / "down.abltest.yaml"
    args = ["--model", "openai", "--model-url", "http://127.0.0.1:9/v1", "--model-name", "local"]
    code, _, _ = abl(
        capsys, "run", LOAN, "--script", script(tmp_path, "I want a loan offer\n"), "--record", recorded, *args
    )
    assert code == 0
    text = recorded.read_text(encoding="utf-8")
    assert "type: error" in text and "model: openai" in text
    bank_record = tmp_path / "bank.abltest.yaml"
    abl(capsys, "run", BANK, "--script", script(tmp_path, "hello\n", "bank.txt"), "--record", bank_record)
    code, out, _ = abl(capsys, "test", bank_record)
    assert code == 0, out  # the failed tool call (no mock) was recorded as expected
    assert "success: false" in bank_record.read_text(encoding="utf-8")


def test_chat_commands_in_piped_input_are_skipped_not_sent(tmp_path, capsys, monkeypatch):
    piped = "I want a loan offer\n/vars\n/trace debug\n85000\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(piped.encode("utf-8")), encoding="utf-8"))
    trace = tmp_path / "trace.jsonl"
    code, out, err = abl(capsys, "run", LOAN, "--agent", "Loan_Supervisor", "--trace-out", trace)
    assert code == 0, err
    assert out.splitlines()[:2] == LOAN_REPLIES  # "85000" is still the answer to the income question
    assert "line 2: `/vars` is a command of the interactive chat" in err
    assert "line 3: `/trace` is a command of the interactive chat" in err
    sent = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert max(e["turn"] for e in sent) == 2
