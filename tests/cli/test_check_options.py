"""`abl check` as CI and pre-commit run it: fixes that keep their promises, the configuration
file, suppression comments, and the everyday options of a linter."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from abl.cli.main import main

ROOT = Path(__file__).resolve().parents[2]

# Seed 004's mistake: `RETURN: True` reads as false, so the `ON_RETURN` block never runs.
RETURN_TRUE_IN_CAPITALS = """\
SUPERVISOR: Loan_Supervisor
GOAL: "Collect the applicant's income before any loan offer discussion"

MEMORY:
  session:
    - annual_income
      TYPE: number

HANDOFF:
  - TO: Income_Capture_Agent
    WHEN: annual_income IS NOT SET
    SUMMARY: "Collect the applicant's annual income, then return."
    HISTORY: summary_only
    ON_FAILURE: continue
    RETURN: True
    ON_RETURN:
      action: resume_intent
      MAP:
        annual_income: annual_income

AGENT: Income_Capture_Agent
GOAL: "Collect the annual income and return it to the supervisor"

GATHER:
  annual_income:
    PROMPT: "What is your annual income?"
    TYPE: number
    REQUIRED: true

COMPLETE:
  - WHEN: annual_income IS SET
    RESPOND: "Thanks. I have your income."
"""

HUB = """\
SUPERVISOR: Hub
GOAL: "Route"
HANDOFF:
  - TO: Helper
    WHEN: true
    {history}
    ON_FAILURE: continue
AGENT: Helper
GOAL: "Help"
"""


def hub(history: str) -> str:
    return HUB.replace("{history}", history)


# `last_0` sends nothing, as `none` does (a hint with a safe fix); the summary briefs the target.
LAST_0 = 'SUMMARY: "Help needed."\n    HISTORY: last_0'


def write(folder: Path, text: str, name: str = "hub.agent.abl") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def codes(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    _, out, _ = run(capsys, "check", "--format", "json", *args)
    return [d["code"] for d in json.loads(out)["diagnostics"]]


# --- --fix never changes meaning behind the user's back --------------------------------------------


def test_fix_leaves_a_capitalised_true_and_its_on_return_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, RETURN_TRUE_IN_CAPITALS)
    code, out, _ = run(capsys, "check", "--fix", str(tmp_path))
    assert path.read_text() == RETURN_TRUE_IN_CAPITALS, "both fixes change what runs or delete the author's lines"
    assert "2 fixable with `abl check --fix --unsafe-fixes`." in out and code == 0


def test_unsafe_fixes_write_lowercase_true_and_keep_on_return(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, RETURN_TRUE_IN_CAPITALS)
    before = set(codes(capsys, str(tmp_path)))
    assert before == {"RETURN_NOT_LOWERCASE_TRUE", "HANDOFF_ON_RETURN_WITHOUT_RETURN"}
    run(capsys, "check", "--fix", "--unsafe-fixes", str(tmp_path))
    assert path.read_text() == RETURN_TRUE_IN_CAPITALS.replace("RETURN: True", "RETURN: true")
    assert codes(capsys, str(tmp_path)) == [], "no W801 or anything else appears"


def test_fix_applies_only_what_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, hub(LAST_0))
    code, out, _ = run(capsys, "check", "--fix", str(tmp_path))
    assert "no problems" in out and code == 0
    assert "HISTORY: last_0" in path.read_text(), "a hint that is not shown is not fixed"
    run(capsys, "check", "--fix", "--all", str(tmp_path))
    assert "HISTORY: none" in path.read_text()


def test_fixes_that_do_not_settle_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import abl.cli.check as check_command
    from abl.checks.autofix import FixOutcome

    write(tmp_path, RETURN_TRUE_IN_CAPITALS)
    monkeypatch.setattr(check_command, "fix_project", lambda *args, **kwargs: FixOutcome(settled=False))
    _, _, err = run(capsys, "check", "--fix", str(tmp_path))
    assert "the fixes did not settle" in err


def test_a_default_is_never_inserted_by_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, hub("PASS: [x]"))
    run(capsys, "check", "--fix", "--all", str(tmp_path))
    assert "HISTORY" not in path.read_text()


def test_an_ignored_context_history_is_lowercased_not_replaced_by_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, hub('SUMMARY: "s"\n    CONTEXT:\n      HISTORY: none'))
    run(capsys, "check", "--fix", "--unsafe-fixes", "--all", str(tmp_path))
    text = path.read_text()
    assert "history: none" in text and "full" not in text


def test_diff_shows_the_fixes_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, hub(LAST_0))
    code, out, err = run(capsys, "check", "--diff", "--all", str(tmp_path))
    assert code == 1 and path.read_text() == hub(LAST_0)
    assert "-    HISTORY: last_0\n+    HISTORY: none\n" in out and out.startswith(f"--- {path}\n+++ {path}\n")
    assert "1 fix would be applied in 1 file" in err
    write(tmp_path, hub(LAST_0.replace("last_0", "none")))
    assert run(capsys, "check", "--diff", str(tmp_path))[:2] == (0, "")


def test_fix_only_and_show_fixes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, hub(LAST_0))
    code, out, _ = run(capsys, "check", "--fix-only", "--all", "--show-fixes", str(tmp_path))
    assert code == 0 and "HISTORY: none" in path.read_text()
    assert out.splitlines() == [
        f"fixed 1 problem in {path}: HISTORY_LAST_ZERO",
        "  7:14 HISTORY_LAST_ZERO: Write `none`",
        "Fixed 1 problem in 1 file.",
    ]


# --- the configuration file ---------------------------------------------------------------------------


def test_the_configuration_is_found_above_the_checked_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, hub("HISTORY: recent"), "agents/hub.agent.abl")
    assert codes(capsys, str(tmp_path / "agents")) == ["HISTORY_FALLS_BACK_TO_FULL"]
    write(tmp_path, 'ignore = ["lint"]\n', "abl.toml")
    assert codes(capsys, str(tmp_path / "agents")) == []
    assert codes(capsys, "--extend-select", "HISTORY_FALLS_BACK_TO_FULL", str(tmp_path / "agents")) == []
    assert codes(capsys, "--select", "HISTORY_FALLS_BACK_TO_FULL", str(tmp_path / "agents")) == []


def test_severity_overrides_decide_the_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, hub("HISTORY: recent"))
    assert run(capsys, "check", str(tmp_path))[0] == 0
    write(tmp_path, '[severity]\nHISTORY_FALLS_BACK_TO_FULL = "error"\n', "abl.toml")
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 1 and "error[HISTORY_FALLS_BACK_TO_FULL]" in out
    assert run(capsys, "check", "--exit-zero", str(tmp_path))[0] == 0


def test_an_explicit_config_file_and_per_file_ignores(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, hub("HISTORY: recent"), "legacy/hub.agent.abl")
    config = write(tmp_path, '[per-file-ignores]\n"legacy" = ["HISTORY_FALLS_BACK_TO_FULL"]\n', "settings/strict.toml")
    assert codes(capsys, str(tmp_path)) == ["HISTORY_FALLS_BACK_TO_FULL"]
    # Globs are relative to the configuration file's folder: `legacy` is not under settings/.
    assert codes(capsys, "--config", str(config), str(tmp_path)) == ["HISTORY_FALLS_BACK_TO_FULL"]
    write(tmp_path, config.read_text(), "abl.toml")
    assert codes(capsys, str(tmp_path)) == []


def test_exclude_leaves_files_out_but_still_resolves_names_in_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        tmp_path,
        'SUPERVISOR: Hub\nGOAL: "Route"\nHANDOFF:\n  - TO: Helper\n    WHEN: true\n    HISTORY: full\n    ON_FAILURE: continue\n',
    )
    write(
        tmp_path,
        'AGENT: Helper\nGOAL: "Help"\nHANDOFF:\n  - TO: Nobody\n    WHEN: true\n',
        "generated/helper.agent.abl",
    )
    assert "INVALID_HANDOFF_TARGET" in codes(capsys, str(tmp_path))
    write(tmp_path, 'exclude = ["generated"]\n', "abl.toml")
    _, out, _ = run(capsys, "check", "--format", "json", str(tmp_path))
    assert json.loads(out)["files"] == 1 and json.loads(out)["diagnostics"] == []


def test_a_wrong_configuration_is_a_usage_error_with_its_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, hub("HISTORY: full"))
    write(tmp_path, 'select = ["W801"]\nignre = ["W801"]\n', "abl.toml")
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 2 and out == ""
    assert err == f"abl check: error: {tmp_path / 'abl.toml'}:2:1: unknown key `ignre`; did you mean `ignore`?\n"


def test_default_history_from_the_configuration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, hub("PASS: []"))
    write(tmp_path, 'default-history = "none"\n', "abl.toml")
    _, out, _ = run(capsys, "check", "--all", str(tmp_path))
    assert "starts blind: the route sets no `HISTORY`, so it sends no earlier messages" in out
    assert "(the project's `default-history`, `none`)" in out


# --- suppression comments ---------------------------------------------------------------------------


def test_suppression_comments_hide_and_unused_ones_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, hub("HISTORY: recent  # abl: ignore[HISTORY_FALLS_BACK_TO_FULL]"))
    assert codes(capsys, str(tmp_path)) == []
    path.write_text(hub("HISTORY: full  # abl: ignore[HISTORY_FALLS_BACK_TO_FULL]"))
    assert codes(capsys, str(tmp_path)) == ["UNUSED_SUPPRESSION"]
    run(capsys, "check", "--fix", str(tmp_path))
    assert path.read_text() == hub("HISTORY: full")


# --- paths, output and statistics ---------------------------------------------------------------------


def test_a_folder_without_abl_files_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    code, out, err = run(capsys, "check", str(tmp_path / "empty"))
    assert code == 2 and out == ""
    assert err == f"abl check: error: {tmp_path / 'empty'} holds no ABL file (*.abl); check the path\n"


def test_output_file_and_statistics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, hub("HISTORY: recent"))
    write(tmp_path, hub("HISTORY: last_n").replace("Hub", "Hub2").replace("Helper", "Helper2"), "two.agent.abl")
    report = tmp_path / "out" / "report.txt"
    report.parent.mkdir()
    code, out, _ = run(capsys, "check", "--statistics", "--output-file", str(report), str(tmp_path))
    assert code == 0 and out == ""
    assert report.read_text().splitlines() == [
        "2  HISTORY_FALLS_BACK_TO_FULL      History value silently becomes `full`"
    ]
    _, out, _ = run(capsys, "check", "--statistics", "--format", "json", "--all", str(tmp_path))
    rows = {row["code"]: row for row in json.loads(out)["statistics"]}
    assert rows["HISTORY_FALLS_BACK_TO_FULL"]["count"] == 2


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--ignore", "W8O1"], "--ignore: unknown code `W8O1`"),
        (["--extend-select", "lnt"], "did you mean `lint`?"),
        (["--diff", "--format", "json"], "--diff prints a unified diff"),
        (["--diff", "--fix"], "use one of the two"),
        (["--config", "/definitely/not/here.toml"], "cannot read the configuration"),
    ],
)
def test_option_errors_are_one_line_and_exit_2(
    args: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "check", *args, str(ROOT / "examples"))
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


def test_watch_checks_again_on_change_and_ctrl_c_exits_0(tmp_path: Path) -> None:
    path = write(tmp_path, hub("HISTORY: full"))
    process = subprocess.Popen(
        [sys.executable, "-m", "abl", "check", "--watch", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert _read_until(process, "Checked 1 file: no problems.")
        time.sleep(0.05)
        path.write_text(hub("HISTORY: recent"))
        assert _read_until(process, "1 warning.")
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(timeout=30)  # generous: CI runs this beside other tests on two cores
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
            pytest.fail(f"Ctrl-C did not stop `abl check --watch` within 30 s; its stderr:\n{err}")
        assert code == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_watching_a_file_alone_checks_it_again_when_its_project_changes(tmp_path: Path) -> None:
    supervisor, helper = hub("HISTORY: full").split("AGENT: Helper")
    path = write(tmp_path, supervisor)
    other = write(tmp_path, "AGENT: Helper" + helper, "helper.agent.abl")
    process = subprocess.Popen(
        [sys.executable, "-m", "abl", "check", "--watch", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert _read_until(process, "Checked 1 file: no problems.")
        time.sleep(0.05)
        other.write_text("AGENT: Helpers" + helper, encoding="utf-8")
        assert _read_until(process, "error[INVALID_HANDOFF_TARGET]")
    finally:
        process.kill()
        process.wait()


def _read_until(process: subprocess.Popen[str], wanted: str, timeout: float = 20.0) -> bool:
    """Read the process's output until it contains `wanted` (False after `timeout`).

    The pipe is read with `os.read` after `select`, never `readline`: a blocking read would wait
    past the deadline, and a buffered one would hide data from `select`."""
    assert process.stdout is not None
    descriptor = process.stdout.fileno()
    seen = ""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([descriptor], [], [], left)
        if not ready:
            return False
        chunk = os.read(descriptor, 65536)
        if not chunk:
            return False
        seen += chunk.decode("utf-8", "replace")
        if wanted in seen:
            return True
    return False


# --- explain and run --------------------------------------------------------------------------------


def test_explain_renders_the_page_for_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "HANDOFF_ON_RETURN_WITHOUT_RETURN")
    assert code == 0
    assert "<!--" not in out and "```" not in out and "## " not in out
    assert "abl check --fix applies it only with --unsafe-fixes" in out
    assert "\x1b[" not in out  # not a terminal: no colour
    code, out, _ = run(capsys, "explain", "--color", "always", "E330")
    assert code == 0 and "\x1b[" in out


def test_explain_without_a_code_prints_usage_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "explain")
    assert code == 2 and out == ""
    assert err.startswith("abl explain: error: name a code to explain; usage: abl explain CODE")
    assert len(err.strip().splitlines()) == 1


def test_run_says_when_a_file_declares_no_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = write(
        tmp_path, 'TOOLS:\n  lookup(code: string) -> string\n    description: "Look a code up"\n', "lib.tools.abl"
    )
    code, _, err = run(capsys, "run", str(tools), "--script", os.devnull)
    assert code == 2
    assert (
        err.strip()
        == f"abl run: error: {tools} declares no agent to run: no `AGENT:` or `SUPERVISOR:` line (a tools library or a behavior profile cannot run on its own)"
    )
