"""Only regular files inside the checked folder are read; everything else is skipped with a
message, never a traceback or a hang."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from abl.cli.main import main
from abl.syntax.limits import MAX_FILE_BYTES
from abl.workspace.index import discover

GOOD = 'AGENT: Helper\nGOAL: "Help"\n'


def _check(capsys: pytest.CaptureFixture[str], folder: Path) -> tuple[int, str, str]:
    code = main(["check", str(folder)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "helper.agent.abl").write_text(GOOD, encoding="utf-8")
    return root


def test_symlink_loops_are_skipped(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "loop.abl").symlink_to(project / "loop.abl")
    (project / "a.abl").symlink_to(project / "b.abl")
    (project / "b.abl").symlink_to(project / "a.abl")
    (project / "sub").symlink_to(project, target_is_directory=True)  # a folder loop
    code, out, err = _check(capsys, project)
    assert code == 0 and "Checked 1 file:" in out
    assert "loop.abl: skipped" in err and "Traceback" not in err


def test_links_outside_the_project_are_skipped(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password=hunter2\n", encoding="utf-8")
    (project / "leak.abl").symlink_to(secret)
    (project / "inside.abl").symlink_to(project / "helper.agent.abl")  # inside: read
    _, out, err = _check(capsys, project)
    assert "hunter2" not in out + err
    assert "leak.abl: skipped: a link to a file outside the project folder" in err
    assert "Checked 2 files" in out


def test_fifos_and_devices_are_skipped(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.mkfifo(project / "pipe.abl")
    (project / "zero.abl").symlink_to("/dev/zero")
    files, _ = discover([str(project)])
    assert [f.name for f in files] == ["helper.agent.abl"]
    code, _, err = _check(capsys, project)  # returns: the FIFO is never opened
    assert code == 0
    assert "pipe.abl: skipped: not a regular file" in err
    assert "zero.abl: skipped" in err


def test_large_files_are_skipped(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with open(project / "huge.abl", "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: no real disk use
    code, _, err = _check(capsys, project)
    assert code == 0 and "huge.abl: skipped: larger than 10 MB" in err


def test_a_folder_of_only_unreadable_files_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.mkfifo(tmp_path / "pipe.abl")
    code, _, err = _check(capsys, tmp_path)
    assert code != 0 and "not a regular file" in err and "Traceback" not in err
