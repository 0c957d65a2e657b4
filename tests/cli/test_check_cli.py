"""`abl check` end to end: output formats, exit codes, fixes, and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from abl.cli.main import main

ROOT = Path(__file__).resolve().parents[2]

E330_PROJECT = """SUPERVISOR: Hub
GOAL: "Route"
HANDOFF:
  - TO: Helper
    WHEN: true
    HISTORY:
      mode: recent
    ON_FAILURE: CONTINUE
AGENT: Helper
GOAL: "Help"
"""

CLEAN_PROJECT = E330_PROJECT.replace("    HISTORY:\n      mode: recent\n", "    HISTORY: full\n")

FIXABLE = CLEAN_PROJECT.replace("    HISTORY: full\n", "    HISTORY: last_0\n")


def write(tmp_path: Path, text: str, name: str = "hub.agent.abl") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output_points_at_the_exact_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, E330_PROJECT)
    code, out, _ = run(capsys, "check", str(path))
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith(f"{path}:7:13: error[E330] ")
    assert "      mode: recent" in out
    caret_line = next(line for line in out.splitlines() if "^" in line)
    assert caret_line.endswith(" " * 12 + "^^^^^^")
    assert out.rstrip().endswith("Checked 1 file: 1 error, 0 warnings.")
    assert "\x1b[" not in out  # no colour when not on a terminal


def test_clean_project_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, CLEAN_PROJECT)
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 0, out
    assert "no problems" in out


def test_json_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, E330_PROJECT)
    code, out, _ = run(capsys, "check", "--format", "json", str(tmp_path))
    assert code == 1
    data = json.loads(out)
    assert data["version"] == 1 and data["files"] == 1
    (d,) = [d for d in data["diagnostics"] if d["code"] == "E330"]
    assert d["path"] == str(path)
    assert (d["severity"], d["line"], d["column"], d["end_line"], d["end_column"]) == ("error", 7, 13, 7, 19)
    assert d["docs"].endswith("E330.md") and isinstance(d["fixes"], list)
    assert data["summary"]["errors"] == 1


def test_sarif_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, E330_PROJECT)
    _, out, _ = run(capsys, "check", "--format", "sarif", str(tmp_path))
    sarif = json.loads(out)
    assert sarif["version"] == "2.1.0"
    run_ = sarif["runs"][0]
    rule_ids = [r["id"] for r in run_["tool"]["driver"]["rules"]]
    result = next(r for r in run_["results"] if r["ruleId"] == "E330")
    assert rule_ids[result["ruleIndex"]] == "E330"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"], region["endColumn"]) == (7, 13, 19)


def test_github_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, E330_PROJECT)
    _, out, _ = run(capsys, "check", "--format", "github", str(tmp_path))
    line = next(row for row in out.splitlines() if "E330" in row)
    assert line.startswith(f"::error file={path},line=7,col=13,endLine=7,endColumn=19,title=E330::")


def test_strict_makes_warnings_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, CLEAN_PROJECT.replace("HISTORY: full", "HISTORY: recent"))
    assert run(capsys, "check", str(tmp_path))[0] == 0
    assert run(capsys, "check", "--strict", str(tmp_path))[0] == 1


def test_hints_only_with_all(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, FIXABLE)
    _, out, _ = run(capsys, "check", str(tmp_path))
    assert "HISTORY_LAST_ZERO" not in out
    _, out, _ = run(capsys, "check", "--all", str(tmp_path))
    assert "hint[HISTORY_LAST_ZERO]" in out


def test_fix_applies_safe_fixes_and_rerun_is_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, FIXABLE)
    code, out, _ = run(capsys, "check", "--fix", "--all", str(tmp_path))
    assert "fixed" in out and "HISTORY_LAST_ZERO" in out.split("fixed", 1)[1]
    assert "HISTORY: none" in path.read_text()
    _, out, _ = run(capsys, "check", "--all", "--format", "json", str(tmp_path))
    assert "HISTORY_LAST_ZERO" not in {d["code"] for d in json.loads(out)["diagnostics"]}
    assert code == 0


def test_fix_keeps_crlf_line_ends(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hub.agent.abl"
    path.write_bytes(FIXABLE.replace("\n", "\r\n").encode())
    run(capsys, "check", "--fix", "--all", str(tmp_path))
    data = path.read_bytes()
    assert b"HISTORY: none\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["check", "--format", "xml", "."], "invalid choice"),
        (["check", "--bogus"], "unrecognized arguments"),
        (["check", "/definitely/not/here"], "cannot read /definitely/not/here"),
        (["check", "--select", "NOPE", "."], "unknown code"),
        (["explain", "E3300"], "unknown code"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(main(args))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_binary_garbage_gets_a_message_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "junk.abl").write_bytes(b"\xff\xfe\x00AGENT\x00: \x80\x81\n\x00\x00")
    code, out, err = run(capsys, "check", str(tmp_path))
    assert code == 1
    assert "INVALID_ENCODING" in out and "Traceback" not in out + err


def test_explain_prints_the_page(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "e330")
    assert code == 0 and "E330" in out and "mode" in out


@pytest.mark.parametrize(
    ("typo", "hint"),
    [
        ("E3300", "did you mean E330?"),
        ("unknown_secton", "did you mean UNKNOWN_SECTION?"),
        ("X1", "abl explain --list"),
    ],
)
def test_explain_suggests_the_nearest_code(typo: str, hint: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "explain", typo)
    assert code == 2 and hint in err


def test_console_script_runs(tmp_path: Path) -> None:
    write(tmp_path, E330_PROJECT)
    result = subprocess.run(
        [sys.executable, "-m", "abl", "check", str(tmp_path)], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 1 and "error[E330]" in result.stdout


def test_bundled_examples_have_no_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", str(ROOT / "examples"))
    assert code == 0, out


def test_colour_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, E330_PROJECT)
    _, out, _ = run(capsys, "check", "--color", "always", str(tmp_path))
    assert "\x1b[1;31merror[E330]\x1b[0m" in out


def test_readme_opens_with_the_two_setup_commands_that_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```sh\n", 1)[1].split("```", 1)[0].strip().splitlines()
    assert len(block) == 2
    install_and_check, install_and_test = block
    assert "pip install -e ." in install_and_check and install_and_check.endswith("abl check examples/")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # The same extras on both sides: `editors` brings the Neovim that tests/editors drives.
    assert "'.[test,editors]'" in install_and_test and "'.[test,editors]'" in ci
    test_command = install_and_test.rsplit("&& ", 1)[1]
    assert test_command in ci


def test_the_readme_gives_the_code_gate_that_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Contributing", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert len(commands) == 3 and all(command in ci_lines for command in commands), commands
