"""`abl test` end to end: pass/fail lines, diffs, the summary line, coverage and exit codes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from abl.cli.main import main

ROOT = Path(__file__).resolve().parents[1].parent
LOAN = ROOT / "examples" / "loan-supervisor"
BROKEN = Path(__file__).resolve().parent / "projects" / "broken"

PASSING = """\
project: {project}
agent: Loan_Supervisor
tests:
  - name: new customer
    turns:
      - user: I want a loan offer
        agent: Income_Capture_Agent
        events:
          - type: handoff
            to: Income_Capture_Agent
            returnExpected: true
      - user: "85000"
        agent: Offer_Agent
        vars: {{annual_income: 85000}}
  - name: returning customer
    setup: {{annual_income: 85000}}
    turns:
      - user: I want a loan offer
        agent: Offer_Agent
"""

FAILING = """\
project: {project}
agent: Loan_Supervisor
tests:
  - name: still passes
    turns:
      - user: I want a loan offer
        agent: Income_Capture_Agent
  - name: expects the wrong agent
    turns:
      - user: I want a loan offer
        agent: Offer_Agent
        reply: {{contains: offer}}
        history_received: {{agent: Income_Capture_Agent, count: 3}}
  - name: not ready
    skip: waiting for the offer agent
    turns: [hello]
"""


def abl(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def write(folder: Path, name: str, text: str, project: Path = LOAN) -> Path:
    path = folder / name
    path.write_text(text.format(project=project), encoding="utf-8")
    return path


def test_a_passing_file(tmp_path, capsys):
    path = write(tmp_path, "loan.abltest.yaml", PASSING)
    code, out, err = abl(capsys, "test", path)
    assert code == 0, out + err
    lines = out.splitlines()
    assert "PASS new customer" in lines and "PASS returning customer" in lines
    assert "FAILURES" not in out
    assert lines[-1] == "2 passed, 0 failed"
    assert any(line.startswith("coverage of ") and "routes 2/2" in line for line in lines)


def test_a_failing_file_shows_a_diff_and_exits_1(tmp_path, capsys):
    path = write(tmp_path, "loan.abltest.yaml", FAILING)
    code, out, _ = abl(capsys, "test", path)
    assert code == 1
    lines = out.splitlines()
    assert "PASS still passes" in lines
    assert "FAIL expects the wrong agent" in lines
    assert "SKIP not ready (waiting for the offer agent)" in lines
    assert lines[-1] == "1 passed, 1 failed, 1 skipped"
    failure = out.split("FAILURES", 1)[1]
    assert "turn 1 (line 10): user: I want a loan offer" in failure
    assert "expected: Offer_Agent" in failure and "actual:   Income_Capture_Agent" in failure
    assert "- reply (line 12): the reply does not match" in failure
    assert "history_received" in failure and "actual:   0" in failure
    assert "[Income_Capture_Agent] What is your annual income?" in failure
    assert "#3 handoff Loan_Supervisor → Income_Capture_Agent" in failure


def test_folders_are_searched_and_k_selects_by_name(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    write(tmp_path / "a", "one.abltest.yaml", PASSING)
    write(tmp_path, "two.abltest.yaml", FAILING)
    code, out, _ = abl(capsys, "test", tmp_path, "-k", "CUSTOMER")
    assert code == 0
    assert out.splitlines()[-1] == "2 passed, 0 failed"
    assert "two.abltest.yaml" not in out
    code, _, err = abl(capsys, "test", tmp_path, "-k", "no such test")
    assert code == 2 and "no test name contains 'no such test'" in err


def test_exitfirst_stops_at_the_first_failure(tmp_path, capsys):
    write(tmp_path, "a.abltest.yaml", FAILING)
    write(tmp_path, "b.abltest.yaml", PASSING)
    code, out, _ = abl(capsys, "test", tmp_path, "-x")
    assert code == 1
    assert out.splitlines()[-1] == "1 passed, 1 failed"


def test_full_coverage_lists_what_was_never_exercised(tmp_path, capsys):
    path = write(tmp_path, "loan.abltest.yaml", PASSING)
    code, out, _ = abl(capsys, "test", path, "--coverage")
    assert code == 0
    assert "  routes            2/2   100%" in out
    assert "  Loan_Supervisor: never exercised" in out
    assert "    - Loan_Supervisor → Offer_Agent (route 2) WHEN annual_income IS SET is false" in out
    _, quiet, _ = abl(capsys, "test", path, "--no-coverage")
    assert "coverage of" not in quiet


def test_a_malformed_yaml_file_names_the_line_and_exits_2(tmp_path, capsys):
    good = write(tmp_path, "good.abltest.yaml", PASSING)
    bad = tmp_path / "bad.abltest.yaml"
    bad.write_text(
        "project: .\nagent: A\ntests:\n  - name: x\n    turns:\n      - user: hi\n       reply: x\n", encoding="utf-8"
    )
    code, out, err = abl(capsys, "test", good, bad)
    assert code == 2
    assert out == ""  # nothing runs when a file is malformed
    assert f"abl test: error: {bad}:7:8: not valid YAML" in err


def test_a_format_mistake_names_the_key_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.abltest.yaml"
    bad.write_text(PASSING.format(project=LOAN).replace("        vars:", "        vras:"), encoding="utf-8")
    code, _, err = abl(capsys, "test", bad)
    assert code == 2
    assert f"{bad}:14: unknown key `vras` in a turn; did you mean `vars`?" in err


def test_missing_paths_and_empty_folders_exit_2(tmp_path, capsys):
    code, _, err = abl(capsys, "test", tmp_path / "nope")
    assert code == 2 and "does not exist" in err
    code, _, err = abl(capsys, "test", tmp_path)
    assert code == 2 and "no *.abltest.yaml files under" in err


def test_a_project_with_errors_fails_its_tests_with_the_diagnostics(tmp_path, capsys):
    path = write(
        tmp_path,
        "broken.abltest.yaml",
        "project: {project}\nagent: Hub\ntests:\n  - name: t\n    turns: [hi]\n",
        BROKEN,
    )
    code, out, _ = abl(capsys, "test", path)
    assert code == 1
    assert "FAIL t" in out
    assert f"{BROKEN / 'hub.agent.abl'}:8:13: error[E330] " in out
    assert out.splitlines()[-1] == "0 passed, 1 failed"


def test_an_unknown_entry_agent_fails_with_the_known_agents(tmp_path, capsys):
    path = write(
        tmp_path, "x.abltest.yaml", "project: {project}\nagent: Nobody\ntests:\n  - name: t\n    turns: [hi]\n"
    )
    code, out, _ = abl(capsys, "test", path)
    assert code == 1
    assert "unknown agent `Nobody`" in out and "Loan_Supervisor" in out


def test_scripted_answers_drive_a_natural_language_route(tmp_path, capsys):
    project = ROOT / "examples" / "loan-supervisor-variations" / "hand-back"
    text = textwrap.dedent(
        """\
        project: {project}
        agent: Loan_Supervisor
        scripted:
          conditions:
            "the customer asks about something other than income": false
          fallback: embedded
        tests:
          - name: the child keeps the conversation while the answer is about income
            turns:
              - user: I want a loan offer
                agent: Income_Capture_Agent
              - user: I earn 85000 a year
                agent: Offer_Agent
                events:
                  - type: handoff_return_handler
                    mappedFields: [annual_income]
        """
    )
    path = write(tmp_path, "hand-back.abltest.yaml", text, project)
    code, out, _ = abl(capsys, "test", path)
    assert code == 0, out
    assert out.splitlines()[-1] == "1 passed, 0 failed"


def test_the_example_tests_pass(capsys):
    code, out, _ = abl(capsys, "test", ROOT / "examples")
    assert code == 0, out
    last = out.splitlines()[-1]
    assert last.endswith(" passed, 0 failed") and not last.startswith("0 ")


def test_errors_are_never_silent(tmp_path, capsys):
    bank = Path(__file__).resolve().parent / "projects" / "bank"
    text = "project: {project}\nagent: Balance_Agent\ntests:\n  - name: greeting\n    greeting: Welcome back\n    turns: []\n"
    path = write(tmp_path, "bank.abltest.yaml", text, bank)
    code, out, _ = abl(capsys, "test", path)
    assert code == 1
    assert "before the first message, the tool get_balance failed: no mock result for tool `get_balance`" in out
    mocked = write(
        tmp_path, "mocked.abltest.yaml", text.replace("tests:", "mocks: {{get_balance: {{amount: 3}}}}\ntests:"), bank
    )
    code, out, _ = abl(capsys, "test", mocked)
    assert code == 0, out


def test_start_events_check_what_on_start_did(tmp_path, capsys):
    bank = Path(__file__).resolve().parent / "projects" / "bank"
    head = "project: {project}\nagent: Balance_Agent\n"
    expected_failure = head + (
        "tests:\n  - name: no mock\n    start_events:\n      - type: tool_result\n        tool: get_balance\n"
        "        success: false\n    turns: []\n"
    )
    code, out, _ = abl(capsys, "test", write(tmp_path, "a.abltest.yaml", expected_failure, bank))
    assert code == 0, out
    wrong = head + "mocks: {{get_balance: 1}}\n" + expected_failure.split("\n", 2)[2]
    code, out, _ = abl(capsys, "test", write(tmp_path, "b.abltest.yaml", wrong, bank))
    assert code == 1
    assert "- start_events (line 7): expected event 1 of 1 not found in order" in out
    assert "success: expected false, got true" in out
