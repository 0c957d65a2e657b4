"""`abl format` end to end: rewriting in place, --check, --diff, and files it cannot read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from abl.cli.main import main
from abl.ide.format import format_text

ROOT = Path(__file__).resolve().parents[2]

MESSY = 'AGENT: Messy\nGOAL:   "Tidy me"   \nGATHER:\n    name:\n        prompt: "Name?"\n'
TIDY = 'AGENT: Messy\nGOAL: "Tidy me"\nGATHER:\n  name:\n    prompt: "Name?"\n'


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["format", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_rewrites_files_in_place_and_counts_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messy = write(tmp_path, "agents/messy.agent.abl", MESSY)
    tidy = write(tmp_path, "tidy.agent.abl", TIDY)
    code, out, err = run(capsys, str(tmp_path))
    assert code == 0
    assert messy.read_text(encoding="utf-8") == TIDY
    assert tidy.read_text(encoding="utf-8") == TIDY
    assert out == "1 file reformatted, 1 file left unchanged\n"
    assert err == ""


def test_lines_nested_under_a_value_are_kept_and_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = 'AGENT: A\nGOAL: "g"\nGATHER:\n  amount:\n    TYPE: number\n      REQUIRED: true\n'
    path = write(tmp_path, "a.agent.abl", text)
    code, out, err = run(capsys, "--check", str(path))
    assert code == 0
    assert out == "0 files would be reformatted, 1 file already formatted\n"
    assert "1 line(s) nested under a key that holds a value, left where they are: nothing reads them (line 6;" in err
    assert "abl check --fix --unsafe-fixes" in err


def test_only_abl_files_of_a_folder_are_touched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notes = write(tmp_path, "notes.txt", MESSY)
    write(tmp_path, "a.abl", MESSY)
    code, out, _ = run(capsys, str(tmp_path))
    assert code == 0
    assert notes.read_text(encoding="utf-8") == MESSY
    assert out.startswith("1 file reformatted")


def test_crlf_and_bom_survive_a_rewrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "crlf.abl", "\ufeff" + MESSY.replace("\n", "\r\n"))
    code, _, _ = run(capsys, str(path))
    assert code == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + TIDY.replace("\n", "\r\n").encode("utf-8")


def test_check_lists_what_would_change_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messy = write(tmp_path, "messy.abl", MESSY)
    write(tmp_path, "tidy.abl", TIDY)
    code, out, _ = run(capsys, "--check", str(tmp_path))
    assert code == 1
    assert out == f"Would reformat: {messy}\n1 file would be reformatted, 1 file already formatted\n"
    assert messy.read_text(encoding="utf-8") == MESSY


def test_check_passes_on_formatted_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, "tidy.abl", TIDY)
    code, out, _ = run(capsys, "--check", str(tmp_path))
    assert code == 0
    assert out == "0 files would be reformatted, 1 file already formatted\n"


def test_a_dash_on_a_line_of_its_own_is_joined_and_then_passes_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = 'AGENT: Hub\nGOAL: "g"\nHANDOFF:\n  -\n      TO: Help_Agent\n      WHEN: true\n'
    path = write(tmp_path, "hub.agent.abl", text)
    code, out, _ = run(capsys, str(path))
    assert (code, out) == (0, "1 file reformatted, 0 files left unchanged\n")
    assert path.read_text(encoding="utf-8") == 'AGENT: Hub\nGOAL: "g"\nHANDOFF:\n  - TO: Help_Agent\n    WHEN: true\n'
    code, out, _ = run(capsys, "--check", str(path))
    assert (code, out) == (0, "0 files would be reformatted, 1 file already formatted\n")


def test_diff_prints_a_unified_diff_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messy = write(tmp_path, "messy.abl", MESSY)
    code, out, err = run(capsys, "--diff", str(messy))
    assert code == 1
    assert out.startswith(f"--- {messy}\n+++ {messy}\n@@ ")
    assert '-GOAL:   "Tidy me"   \n+GOAL: "Tidy me"\n' in out
    assert '-    name:\n-        prompt: "Name?"\n+  name:\n+    prompt: "Name?"\n' in out
    assert err == "1 file would be reformatted, 0 files already formatted\n"
    assert messy.read_text(encoding="utf-8") == MESSY


def test_diff_marks_a_missing_final_newline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "end.abl", TIDY.rstrip("\n"))
    code, out, _ = run(capsys, "--diff", str(path))
    assert code == 1
    assert out.endswith('-    prompt: "Name?"\n\\ No newline at end of file\n+    prompt: "Name?"\n')


def test_diff_is_empty_when_nothing_changes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "tidy.abl", TIDY)
    code, out, _ = run(capsys, "--diff", str(path))
    assert (code, out) == (0, "")


def test_unreadable_paths_exit_2_after_the_others_are_done(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messy = write(tmp_path, "messy.abl", MESSY)
    binary = tmp_path / "binary.abl"
    binary.write_bytes(b"AGENT: A\n\xff\xfe\n")
    missing = tmp_path / "missing.abl"
    code, out, err = run(capsys, str(missing), str(tmp_path))
    assert code == 2
    assert err.splitlines() == [
        f"abl format: error: cannot read {missing}: no such file or directory",
        f"abl format: error: cannot read {binary}: not valid UTF-8 (byte 0xff at offset 9)",
    ]
    assert messy.read_text(encoding="utf-8") == TIDY
    assert binary.read_bytes() == b"AGENT: A\n\xff\xfe\n"
    assert out == "1 file reformatted, 0 files left unchanged\n"


def test_broken_blocks_are_left_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = 'GATHER:\n    name:\n        prompt: "unterminated\n'
    path = write(tmp_path, "broken.abl", "AGENT: A\nGOAL:   x\n" + broken)
    code, _, _ = run(capsys, str(path))
    assert code == 0
    assert path.read_text(encoding="utf-8") == "AGENT: A\nGOAL: x\n" + broken


def test_usage_errors_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["format", "--no-such-flag"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_the_console_command_formats(tmp_path: Path) -> None:
    path = write(tmp_path, "messy.abl", MESSY)
    command = [sys.executable, "-m", "abl", "format", "--check", str(path)]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 1
    assert f"Would reformat: {path}" in result.stdout


def test_the_sample_texts_are_what_the_formatter_says() -> None:
    assert format_text(MESSY) == TIDY
