"""The interactive chat of `abl run`, driven with typed lines instead of a terminal."""

from __future__ import annotations

import io
import json
import os
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import pytest
from rich.console import Console

from abl.cli.chat import COMMANDS, ChatLoop
from abl.cli.main import build_parser
from abl.cli.run import prepare

ROOT = Path(__file__).resolve().parents[1].parent
LOAN = ROOT / "examples" / "loan-supervisor"


def chat(lines: Iterable[str], *extra: str, trace: str = "standard") -> tuple[int, str]:
    args = build_parser().parse_args(["run", str(LOAN), *extra])
    driver = prepare(args)
    typed = iter(lines)

    def read_line() -> str:
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    buffer = io.StringIO()
    console = Console(file=buffer, width=200, color_system=None, force_terminal=False)
    code = ChatLoop(driver, trace_level=trace, console=console, read_line=read_line).run()
    return code, buffer.getvalue()


def test_replies_trace_and_status_after_each_turn():
    code, out = chat(["I want a loan offer", "85000"])
    assert code == 0
    assert "Chatting with Loan_Supervisor (trace: standard)" in out
    assert "[Income_Capture_Agent] What is your annual income?" in out
    assert "· #3 handoff Loan_Supervisor → Income_Capture_Agent (returnable, history summary_only: 0 messages)" in out
    assert "active: Income_Capture_Agent | waiting: Loan_Supervisor" in out
    assert "[Income_Capture_Agent] Thanks. I have your income." in out
    assert "active: Offer_Agent | values: " in out and "annual_income=85000" in out


def test_trace_level_can_be_changed_and_shown():
    _, out = chat(["/trace", "/trace minimal", "I want a loan offer", "/trace loud"])
    assert "trace level: standard (choose from minimal, standard, verbose, debug)" in out
    assert "trace level: minimal" in out
    assert "handoff_condition_check" not in out  # standard-level events are hidden at minimal
    assert "· #3 handoff Loan_Supervisor → Income_Capture_Agent" in out
    assert "unknown trace level 'loud'" in out


def test_vars_history_and_help():
    _, out = chat(["I want a loan offer", "85000", "/vars", "/history", "/help"])
    assert "active: Offer_Agent" in out
    assert "Loan_Supervisor" in out and "completed" in out
    assert "[you] I want a loan offer" in out
    assert "[Income_Capture_Agent] What is your annual income?" in out
    for name in COMMANDS:
        assert name in out


def test_save_then_resume_with_session(tmp_path: Path):
    saved = tmp_path / "chat.json"
    _, out = chat(["I want a loan offer", f"/save {saved}", "/quit", "never sent"])
    assert f"saved to {saved}" in out
    assert json.loads(saved.read_text(encoding="utf-8"))["format"] == "abl-session"
    _, resumed = chat(["85000"], "--session", str(saved))
    assert "Resumed a saved session" in resumed
    assert "[Income_Capture_Agent] Thanks. I have your income." in resumed


def test_reset_starts_over():
    _, out = chat(["I want a loan offer", "/reset", "/vars"])
    assert "Started over." in out
    tail = out.split("Started over.")[1]
    assert "active: Loan_Supervisor" in tail
    assert "Income_Capture_Agent" not in tail


def test_unknown_commands_and_bad_arguments_are_reported():
    _, out = chat(["/frobnicate", "/save", '/save "unterminated'])
    assert "unknown command /frobnicate; /help lists the commands" in out
    assert "usage: /save FILE" in out
    assert "cannot read the command" in out


def test_a_recorded_chat_keeps_only_turns_after_a_reset(tmp_path: Path):
    record = tmp_path / "chat.abltest.yaml"
    chat(["hello there", "/reset", "I want a loan offer"], "--record", str(record))
    text = record.read_text(encoding="utf-8")
    assert "I want a loan offer" in text
    assert "hello there" not in text


def test_a_reset_to_a_silent_start_removes_the_recorded_test(tmp_path: Path):
    # The loan supervisor says nothing at the start: after /reset the recording checks nothing,
    # so the file it wrote goes rather than hold a test that `abl test` refuses.
    record = tmp_path / "chat.abltest.yaml"
    args = build_parser().parse_args(["run", str(LOAN), "--record", str(record)])
    driver = prepare(args)
    driver.send("hello there")
    assert record.is_file()
    driver.reset()
    assert not record.exists()
    driver.send("I want a loan offer")
    assert "I want a loan offer" in record.read_text(encoding="utf-8")


def test_a_recorded_wait_replays_as_after(tmp_path: Path):
    # The waited time is part of the conversation: the test must wait too, or a timeout the chat
    # saw would not happen when the test runs.
    record = tmp_path / "chat.abltest.yaml"
    chat(["I want a loan offer", "/wait 90s", "about 80k a year"], "--record", str(record))
    text = record.read_text(encoding="utf-8")
    assert "- user: about 80k a year\n    after: 90000ms\n" in text
    assert text.count("after:") == 1


def test_trace_out_follows_the_chat(tmp_path: Path):
    trace = tmp_path / "chat.jsonl"
    chat(["I want a loan offer"], "--trace-out", str(trace))
    types = [json.loads(line)["type"] for line in trace.read_text(encoding="utf-8").splitlines()]
    assert "handoff" in types and types[0] == "session_start"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_a_terminal_gets_the_interactive_chat(tmp_path: Path):
    """Run the real command in a pseudo-terminal: the prompt, a reply, the trace, /quit."""
    import pty
    import select
    import subprocess

    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server"), "TERM": "dumb", "XDG_STATE_HOME": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "abl", "run", str(LOAN)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    seen = bytearray()

    def read_until(marker: bytes, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while marker not in seen:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"no {marker!r} in {bytes(seen)!r}"
            ready, _, _ = select.select([master], [], [], remaining)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # the child closed the terminal
                    break
                seen.extend(chunk)

    try:
        read_until(b"you> ")
        os.write(master, b"I want a loan offer\r")
        read_until(b"waiting: Loan_Supervisor")
        os.write(master, b"/quit\r")
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    text = bytes(seen).decode("utf-8", errors="replace")
    assert "Chatting with Loan_Supervisor" in text
    assert "[Income_Capture_Agent] What is your annual income?" in text
    assert "handoff Loan_Supervisor → Income_Capture_Agent" in text
    assert (tmp_path / "abl" / "chat-history").read_text(encoding="utf-8").count("I want a loan offer") == 1
