"""No network connection is made unless a model endpoint is configured: checking, running
agents (their tools included: they return mocks) and conversation tests stay on the machine."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from abl.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every attempt to open a connection is recorded and refused."""
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args[1:] if args else kwargs)
        raise OSError("the network is not to be used here")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    return attempts


def test_check_run_and_test_make_no_connection(
    offline: list[Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "script.txt"
    script.write_text("what does my policy cover?\nP-1001\nand do I have any open claims?\n", encoding="utf-8")
    mocks = tmp_path / "mocks.json"
    mocks.write_text('{"get_policy": {"cover": "home"}, "list_claims": {"claims": []}}', encoding="utf-8")
    insurance = ROOT / "tests" / "runtime" / "scenarios" / "insurance-assistant"
    assert main(["check", str(ROOT / "examples")]) == 0
    run = ["run", str(insurance), "--agent", "Policy_Assistant", "--script", str(script), "--mocks", str(mocks)]
    assert main([*run, "--session", str(tmp_path / "s.session"), "--trace-out", str(tmp_path / "t.jsonl")]) == 0
    assert main(["test", str(ROOT / "examples" / "loan-supervisor")]) == 0
    capsys.readouterr()
    assert offline == []
