"""`abl run` refuses what it cannot run with one clear message and exit code 2, never a traceback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from abl.cli.main import main

ROOT = Path(__file__).resolve().parents[1].parent
LOAN = ROOT / "examples" / "loan-supervisor"
BROKEN = Path(__file__).resolve().parent / "projects" / "broken"


def abl(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def messages(tmp_path: Path, text: str = "hello\n") -> Path:
    path = tmp_path / "script.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_unknown_agent_lists_the_known_ones_and_the_closest(tmp_path, capsys):
    code, out, err = abl(capsys, "run", LOAN, "--agent", "Loan_Supervisr", "--script", messages(tmp_path))
    assert code == 2
    assert out == ""
    assert f"no agent named Loan_Supervisr in {LOAN}; did you mean Loan_Supervisor?" in err
    assert "known agents: Income_Capture_Agent, Loan_Supervisor, Offer_Agent" in err
    assert "Traceback" not in err


def test_a_project_with_errors_lists_its_diagnostics(tmp_path, capsys):
    code, out, err = abl(capsys, "run", BROKEN, "--agent", "Hub", "--script", messages(tmp_path))
    assert code == 2
    assert out == ""
    path = BROKEN / "hub.agent.abl"
    assert f"{path}:5:9: error[INVALID_HANDOFF_TARGET] " in err
    assert f"{path}:8:13: error[E330] " in err
    assert re.search(r"the project has \d+ errors?; fix them first", err)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "no/such/project", "--agent", "A"], "no/such/project does not exist"),
        (["run", "{tmp}", "--agent", "A"], "no .abl files under"),
        (["run", str(LOAN), "--script", "{tmp}/missing.txt"], "cannot read the script"),
        (["run", str(LOAN), "--mocks", "{tmp}/missing.yaml", "--script", "{tmp}/script.txt"], "bad --mocks file"),
        (
            ["run", str(LOAN), "--model-url", "http://x", "--script", "{tmp}/script.txt"],
            "--model-url and --model-name go with --model openai",
        ),
    ],
)
def test_unusable_input_is_one_message_and_exit_2(tmp_path, capsys, args, message):
    messages(tmp_path)
    code, out, err = abl(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert code == 2
    assert message in err
    assert out == "" and "Traceback" not in err


def test_without_agent_and_without_a_single_supervisor_the_agent_must_be_named(tmp_path, capsys):
    (tmp_path / "two.agent.abl").write_text(
        'AGENT: First\nGOAL: "One"\n\nAGENT: Second\nGOAL: "Two"\n', encoding="utf-8"
    )
    code, _, err = abl(capsys, "run", tmp_path, "--script", messages(tmp_path))
    assert code == 2
    assert "name the entry agent with --agent; known agents: First, Second" in err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n- b\n", "expected a mapping of tool name to result"),
        ("get_balance: {amount: [1\n", "not valid YAML"),
        ("1: x\n", "keys are tool names"),
    ],
)
def test_a_bad_mocks_file_names_the_line(tmp_path, capsys, text, message):
    mocks = tmp_path / "mocks.yaml"
    mocks.write_text(text, encoding="utf-8")
    code, _, err = abl(capsys, "run", LOAN, "--mocks", mocks, "--script", messages(tmp_path))
    assert code == 2
    assert f"bad --mocks file: {mocks}:" in err and message in err


def test_record_cannot_continue_a_saved_session(tmp_path, capsys):
    session = tmp_path / "s.json"
    assert abl(capsys, "run", LOAN, "--script", messages(tmp_path), "--session", session)[0] == 0
    code, _, err = abl(
        capsys,
        "run",
        LOAN,
        "--script",
        messages(tmp_path),
        "--session",
        session,
        "--record",
        tmp_path / "t.abltest.yaml",
    )
    assert code == 2
    assert "--record writes a test that starts a fresh session" in err


def test_a_damaged_session_file_is_refused(tmp_path, capsys):
    session = tmp_path / "s.json"
    session.write_text("{not json", encoding="utf-8")
    code, _, err = abl(capsys, "run", LOAN, "--script", messages(tmp_path), "--session", session)
    assert code == 2
    assert f"cannot resume {session}" in err and "not valid JSON" in err


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    return subprocess.run(
        [sys.executable, "-m", "abl", *args],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


@pytest.mark.parametrize(
    "args",
    [["run"], ["run", str(LOAN), "--trace", "loud"], ["run", str(LOAN), "--model", "gpt"], ["test", "--frobnicate"]],
)
def test_usage_errors_are_one_line_without_a_traceback(args):
    done = _cli(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) <= 2  # argparse prints the usage line, then the error
    assert "error:" in done.stderr and "Traceback" not in done.stderr


def test_a_saved_session_for_another_agent_is_refused(tmp_path, capsys):
    session = tmp_path / "s.json"
    assert abl(capsys, "run", LOAN, "--script", messages(tmp_path), "--session", session)[0] == 0
    code, _, err = abl(
        capsys, "run", LOAN, "--agent", "Offer_Agent", "--script", messages(tmp_path), "--session", session
    )
    assert code == 2
    assert f"{session} is a conversation with Loan_Supervisor, not Offer_Agent" in err
