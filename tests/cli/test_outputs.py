"""Paths a command cannot use stop it before any work, with exit 2 and the operating system's
reason; no command creates a folder it was not asked for, and an output lost during a run fails it."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from abl.cli import driver
from abl.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
LOAN = ROOT / "examples" / "loan-supervisor"
NOT_A_FOLDER = "Not a directory (a part of the path above the file is a file, not a folder)"
NO_FOLDER = "No such file or directory (the folder {tmp}/missing does not exist; create it first)"

# (command, the line it prints). In `{tmp}`: `file` is a file, `folder` an empty folder.
REFUSED = [
    (
        ["run", LOAN, "--trace-out", "{tmp}/file/trace.jsonl"],
        f"abl run: error: cannot write {{tmp}}/file/trace.jsonl (--trace-out): {NOT_A_FOLDER}",
    ),
    (
        ["run", LOAN, "--record", "{tmp}/missing/t.abltest.yaml"],
        f"abl run: error: cannot write {{tmp}}/missing/t.abltest.yaml (--record): {NO_FOLDER}",
    ),
    (
        ["run", LOAN, "--session", "{tmp}/folder"],
        "abl run: error: cannot write {tmp}/folder (--session): Is a directory",
    ),
    (
        ["run", LOAN, "--session", "{tmp}/file/s.jsonl"],
        f"abl run: error: cannot write {{tmp}}/file/s.jsonl (--session): {NOT_A_FOLDER}",
    ),
    (
        ["check", LOAN, "--output-file", "{tmp}/missing/report.txt"],
        f"abl check: error: cannot write {{tmp}}/missing/report.txt (--output-file): {NO_FOLDER}",
    ),
    (
        ["check", LOAN, "--output-file", "{tmp}/folder"],
        "abl check: error: cannot write {tmp}/folder (--output-file): Is a directory",
    ),
    (
        ["graph", LOAN, "-o", "{tmp}/file/graph.md"],
        f"abl graph: error: cannot write {{tmp}}/file/graph.md (--output): {NOT_A_FOLDER}",
    ),
    (
        ["graph", LOAN, "-o", "{tmp}/missing/graph.md"],
        f"abl graph: error: cannot write {{tmp}}/missing/graph.md (--output): {NO_FOLDER}",
    ),
    (["graph", "{tmp}/missing"], "abl graph: error: cannot read {tmp}/missing: no such file or directory"),
    (["graph", "{tmp}/folder"], "abl graph: error: {tmp}/folder holds no ABL file (*.abl); check the path"),
    (["format", "{tmp}/folder"], "abl format: error: {tmp}/folder holds no ABL file (*.abl); check the path"),
    (["format", "{tmp}/missing"], "abl format: error: cannot read {tmp}/missing: no such file or directory"),
]


def tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize(("args", "line"), REFUSED, ids=[f"{a[0]}-{a[-1].split('/')[-1]}" for a, _ in REFUSED])
def test_an_unusable_path_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args: list[object], line: str
) -> None:
    (tmp_path / "file").write_text("not a folder\n", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    monkeypatch.setattr("sys.stdin", open(os.devnull, encoding="utf-8"))  # noqa: SIM115 - closed with the test
    before = tree(tmp_path)
    code = main([str(a).replace("{tmp}", str(tmp_path)) for a in args])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""  # no reply, no report: nothing ran
    assert err.splitlines()[-1] == line.replace("{tmp}", str(tmp_path))
    assert tree(tmp_path) == before  # no folder made, no probe left


def test_no_folder_is_made_even_at_the_filesystem_root(capsys: pytest.CaptureFixture[str]) -> None:
    where = Path("/abl-no-such-folder")
    assert not where.exists()
    assert main(["run", str(LOAN), "--trace-out", str(where / "trace.jsonl"), "--script", os.devnull]) == 2
    assert "No such file or directory" in capsys.readouterr().err
    assert not where.exists()


def test_a_writable_output_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.txt"
    report.write_text("old\n", encoding="utf-8")
    assert main(["check", str(LOAN), "--output-file", str(report)]) == 0
    assert report.read_text(encoding="utf-8").startswith("Checked ")
    assert main(["graph", str(LOAN), "-o", str(tmp_path / "graph.md")]) == 0
    assert (tmp_path / "graph.md").read_text(encoding="utf-8").startswith("flowchart")


def test_a_run_refused_for_another_reason_leaves_no_output_behind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "trace.jsonl"
    assert main(["run", str(LOAN), "--agent", "Nobody", "--trace-out", str(trace), "--script", os.devnull]) == 2
    assert "no agent named Nobody" in capsys.readouterr().err
    assert tree(tmp_path) == []


def test_an_output_lost_during_the_run_fails_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(self: driver.TraceFile) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(driver.TraceFile, "write", full_disk)
    script = tmp_path / "script.txt"
    script.write_text("hello\n", encoding="utf-8")
    trace = tmp_path / "trace.jsonl"
    code = main(["run", str(LOAN), "--script", str(script), "--trace-out", str(trace)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out.startswith("[")  # the conversation itself ran
    assert f"abl run: warning: cannot write {trace}: No space left on device" in err
