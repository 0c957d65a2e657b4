"""`abl test --format json` and `--collect-only`: the records a tool reads (the tests with their
lines, each start and result with the failing check's line and turn, the summary), `--name`,
and the same exit codes as the text output."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from abl.cli.main import main

LOAN = Path(__file__).resolve().parents[2] / "examples" / "loan-supervisor"

TESTS = """\
project: {project}
agent: Loan_Supervisor
tests:
  - name: income first
    turns:
      - user: I want a loan offer
        agent: Income_Capture_Agent
      - user: "85000"
        agent: Offer_Agent
  - name: wrong reply on the second turn
    turns:
      - user: I want a loan offer
        agent: Income_Capture_Agent
      - user: "85000"
        agent: Offer_Agent
        reply: Something else entirely
  - name: not ready
    skip: waiting for the offer agent
    turns: [hello]
"""

MALFORMED = "project: .\nagent: A\ntests:\n  - name: x\n    turns:\n      - user: hi\n       reply: x\n"


def records(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, list[dict], str]:
    code = main(["test", "--format", "json", *map(str, args)])
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()], err


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text.format(project=LOAN), encoding="utf-8")
    return path


def test_records_list_the_tests_then_each_start_and_result_then_the_summary(tmp_path, capsys):
    path = write(tmp_path, "loan.abltest.yaml", TESTS)
    code, out, _ = records(capsys, path)
    assert code == 1
    assert [r["type"] for r in out] == ["file"] + ["started", "result"] * 3 + ["summary"]
    listed = out[0]
    assert listed["path"] == os.path.abspath(path) and listed["agent"] == "Loan_Supervisor"
    assert [(t["name"], t["line"]) for t in listed["tests"]] == [
        ("income first", 4),
        ("wrong reply on the second turn", 10),
        ("not ready", 17),
    ]
    assert [t["line"] for t in listed["tests"][1]["turns"]] == [12, 14]
    assert listed["tests"][2]["skip"] == "waiting for the offer agent"
    results = {r["name"]: r for r in out if r["type"] == "result"}
    assert results["income first"]["status"] == "passed" and results["income first"]["failures"] == []
    assert results["not ready"]["status"] == "skipped"
    failed = results["wrong reply on the second turn"]
    assert failed["status"] == "failed" and failed["line"] == 10
    [failure] = failed["failures"]
    # The check that failed is the second turn's `reply` (line 16), in the turn of line 14.
    assert (failure["kind"], failure["line"], failure["turn"], failure["turnLine"]) == ("reply", 16, 2, 14)
    assert failure["user"] == "85000"
    assert "Something else entirely" in failure["expected"]
    assert "Thanks. I have your income." in failure["actual"]
    assert "turn 2 (line 14): user: 85000" in failed["report"]
    assert out[-1] == {
        "type": "summary",
        "passed": 1,
        "failed": 1,
        "skipped": 1,
        "text": "1 passed, 1 failed, 1 skipped",
    }


def test_name_runs_only_the_tests_named_exactly(tmp_path, capsys):
    path = write(tmp_path, "loan.abltest.yaml", TESTS)
    code, out, _ = records(capsys, path, "--name", "income first")
    assert code == 0
    assert [r["name"] for r in out if r["type"] == "result"] == ["income first"]
    # The file is listed whole, with what was chosen marked.
    assert [(t["name"], t["selected"]) for t in out[0]["tests"]] == [
        ("income first", True),
        ("wrong reply on the second turn", False),
        ("not ready", False),
    ]
    code, out, err = records(capsys, path, "--name", "income")
    assert code == 2 and "no test is named 'income'" in err
    assert not any(r["type"] == "result" for r in out)


def test_a_project_that_cannot_run_is_a_result_with_its_error(tmp_path, capsys):
    path = write(tmp_path, "gone.abltest.yaml", TESTS.replace("{project}", str(tmp_path / "nowhere")))
    code, out, _ = records(capsys, path, "--name", "income first")
    assert code == 1
    [result] = [r for r in out if r["type"] == "result"]
    assert result["status"] == "error" and "does not exist" in result["error"]
    assert result["failures"] == [] and result["line"] == 4


def test_collect_only_lists_every_readable_file_and_the_problems_of_the_others(tmp_path, capsys):
    good = write(tmp_path, "good.abltest.yaml", TESTS)
    bad = tmp_path / "bad.abltest.yaml"
    bad.write_text(MALFORMED, encoding="utf-8")
    code, out, err = records(capsys, "--collect-only", bad, good)
    assert code == 2
    assert out[0] == {
        "type": "fileError",
        "path": os.path.abspath(bad),
        "line": 7,
        "column": 8,
        "message": out[0]["message"],
    }
    assert "not valid YAML" in out[0]["message"]
    assert out[1]["type"] == "file" and len(out[1]["tests"]) == 3
    assert len(out) == 2, "nothing runs"
    assert f"{bad}:7:8: not valid YAML" in err
    # Without the malformed file, collecting succeeds; in text, one line per test.
    code = main(["test", "--collect-only", str(good)])
    text = capsys.readouterr().out.splitlines()
    assert code == 0
    assert text[1:] == [
        "  income first (line 4)",
        "  wrong reply on the second turn (line 10)",
        "  not ready (line 17)",
    ]


def test_a_malformed_file_stops_the_run_with_its_record(tmp_path, capsys):
    good = write(tmp_path, "good.abltest.yaml", TESTS)
    bad = tmp_path / "bad.abltest.yaml"
    bad.write_text(MALFORMED, encoding="utf-8")
    code, out, _ = records(capsys, good, bad)
    assert code == 2
    assert [r["type"] for r in out] == ["file", "fileError"]


def test_a_missing_path_is_a_record_too(tmp_path, capsys):
    code, out, err = records(capsys, tmp_path / "absent.abltest.yaml")
    assert code == 2
    assert out == [
        {
            "type": "fileError",
            "path": os.path.abspath(tmp_path / "absent.abltest.yaml"),
            "line": None,
            "column": None,
            "message": "does not exist",
        }
    ]
    assert "does not exist" in err
