"""The wheel carries the grammars, and `abl check` works from a fresh install of it."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
    )
    (path,) = out.glob("abl_tools-*.whl")
    return path


def test_wheel_ships_the_grammars(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for grammar in ("abl.lark", "condition.lark", "value.lark"):
        assert f"abl/grammar/{grammar}" in names


def test_wheel_ships_the_graph_page_renderer(wheel: Path) -> None:
    assert "abl/cli/graph_page.js" in set(zipfile.ZipFile(wheel).namelist())


def test_abl_check_runs_from_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    # Dependencies come from this environment; the package itself only from the wheel.
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    purelib = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "_outer_deps.pth").write_text("\n".join(deps) + "\n")
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)], check=True)

    project = tmp_path / "project"
    project.mkdir()
    (project / "hub.agent.abl").write_text(
        'SUPERVISOR: Hub\nGOAL: "Route"\nHANDOFF:\n  - TO: Helper\n    WHEN: true\n    HISTORY:\n      mode: recent\nAGENT: Helper\nGOAL: "Help"\n'
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run(
        [str(py), "-c", "import abl, sys; print(abl.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(venv) in where.stdout
    result = subprocess.run(
        [str(venv / "bin" / "abl"), "check", "--format", "json", str(project)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stderr
    assert '"code": "E330"' in result.stdout
