"""`abl run` without a terminal never stops with a traceback, whatever the customer types:
empty lines, very long lines, emoji, control characters, bytes that are not UTF-8."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from abl.cli.main import main
from abl.runtime.session_file import read_session

ROOT = Path(__file__).resolve().parents[1].parent
LOAN = ROOT / "examples" / "loan-supervisor"
SCENARIOS = ROOT / "tests" / "runtime" / "scenarios"

GARBAGE_LINES: list[bytes] = [
    b"",
    b"   ",
    b"\t",
    "emoji only 😀🎉🔥".encode(),
    b"\x00\x01\x02 control \x07\x08 bytes",
    b"\x1b[2J\x1b[31mred\x1b[0m",
    b"\xff\xfe not utf-8 \xc3",
    "\u202e\u200b\ufeff".encode(),
    b"{{ annual_income }} {{",
    b"x" * 10_240,
    b"9" * 400,
    b"I want a loan offer",
    b"85000",
    b"\x0c\x0b\r",
]
GARBAGE = b"\n".join(GARBAGE_LINES) + b"\n"


def _stdin(data: bytes, errors: str) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors=errors)


@pytest.mark.parametrize("errors", ["strict", "surrogateescape"])
def test_piped_garbage_is_answered_and_saved(tmp_path, capsys, monkeypatch, errors):
    # A UTF-8 locale reads stdin strictly; the C locale with surrogateescape. Neither may stop the run.
    monkeypatch.setattr("sys.stdin", _stdin(GARBAGE, errors))
    session = tmp_path / "session.json"
    trace = tmp_path / "trace.jsonl"
    record = tmp_path / "recorded.abltest.yaml"
    code = main(["run", str(LOAN), "--session", str(session), "--trace-out", str(trace), "--record", str(record)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in err
    replies = out.splitlines()
    assert "[Income_Capture_Agent] Thanks. I have your income." in replies
    saved = read_session(session.read_bytes())
    said = [entry["text"] for entry in saved["state"]["log"] if entry["role"] == "user"]
    assert any("\ufffd" in text and "not utf-8" in text for text in said)
    assert all(json.loads(line)["type"] for line in trace.read_text(encoding="utf-8").splitlines())
    assert main(["test", str(record)]) == 0


def test_every_scenario_project_takes_garbage_without_raising(tmp_path, capsys, monkeypatch):
    mocks = tmp_path / "mocks.json"
    mocks.write_text(
        json.dumps(
            {
                "get_account": {"name": "Lin", "plan": "Unlimited", "open_tickets": 1},
                "get_patient": {"name": "Sam", "refills": 2},
            }
        ),
        encoding="utf-8",
    )
    runs = 0
    for project in sorted(p for p in SCENARIOS.iterdir() if (p / "project.json").exists()):
        from abl.workspace import load_project

        loaded, _ = load_project([str(project)])
        for agent in loaded.agent_names():
            monkeypatch.setattr("sys.stdin", _stdin(GARBAGE, "strict"))
            code = main(["run", str(project), "--agent", agent, "--mocks", str(mocks)])
            _, err = capsys.readouterr()
            assert code == 0, (project.name, agent, err)
            assert "Traceback" not in err
            runs += 1
    assert runs, f"no scenario project with agents under {SCENARIOS}"


def test_an_unreadable_script_leaves_no_files_behind(tmp_path, capsys):
    script = tmp_path / "latin1.txt"
    script.write_bytes("caf\xe9\n".encode("latin-1"))
    record = tmp_path / "recorded.abltest.yaml"
    session = tmp_path / "session.json"
    code = main(["run", str(LOAN), "--script", str(script), "--record", str(record), "--session", str(session)])
    _, err = capsys.readouterr()
    assert code == 2
    assert "cannot read the script" in err
    assert not record.exists() and not session.exists()
