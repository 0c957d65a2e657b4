"""The shared editor scenario (`scenario/expected.json`) and what the editor tests need around it.

Every editor plays the same steps on a copy of `scenario/workspace/` and writes down the errors
and warnings it shows for each file after each step; `differences` compares that with the
expectation. VS Code plays the same file in `vscode-extension/test/e2e/`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SCENARIO_DIR = HERE / "scenario"
SCENARIO = json.loads((SCENARIO_DIR / "expected.json").read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = SCENARIO["steps"]
STEP_NAMES = [step["name"] for step in STEPS]
LENS_STEP = "every code lens runs"

# The steps an editor is known to fail, as strict xfails keyed by (editor, step name): a step
# that starts to pass fails until its entry is removed. None today.
EXPECTED_FAILURES: dict[tuple[str, str], str] = {}


def unavailable(reason: str) -> NoReturn:
    """Skip, except under CI (`CI` set), where a missing editor fails: CI must run the test."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run this test (.ci/run installs it)")
    pytest.skip(reason)


def expectation(editor: str, step: str) -> pytest.MarkDecorator | None:
    reason = EXPECTED_FAILURES.get((editor, step))
    return pytest.mark.xfail(strict=True, reason=reason) if reason else None


def step_params(editor: str, names: list[str]) -> list[Any]:
    """`(editor, name)` pytest parameters, each marked as EXPECTED_FAILURES says."""
    params = []
    for name in names:
        mark = expectation(editor, name)
        params.append(pytest.param(editor, name, id=f"{editor}: {name}", marks=[mark] if mark else []))
    return params


def copy_workspace(destination: Path) -> Path:
    shutil.copytree(SCENARIO_DIR / SCENARIO["workspace"], destination)
    return destination


def workspace_files(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob("*.abl"))


def expected_after(step: str) -> dict[str, list[dict[str, Any]]]:
    expect = next(s["expect"] for s in STEPS if s["name"] == step)
    return {name: items for name, items in expect.items() if items}


def differences(observed: dict[str, list[dict[str, Any]]], expected: dict[str, list[dict[str, Any]]]) -> list[str]:
    """One line per file whose errors and warnings differ: what the editor shows, what it should."""

    def key(item: dict[str, Any]) -> tuple[int, str, str]:
        return (item["line"], str(item["code"]), item["severity"])

    out = []
    for name in sorted(set(observed) | set(expected)):
        shown = sorted(map(key, observed.get(name, [])))
        wanted = sorted(map(key, expected.get(name, [])))
        if shown != wanted:
            out.append(f"{name}: shows {shown or 'nothing'}, expected {wanted or 'nothing'}")
    return out


@dataclass
class EditorRun:
    status: int
    output: str
    result: dict[str, Any] | None

    def step(self, name: str) -> dict[str, Any]:
        if self.result is None:
            pytest.fail(f"the editor wrote no result (exit {self.status})\n{self.output}")
        for step in self.result.get("steps", []):
            if step["name"] == name:
                return step
        pytest.fail(f"the editor did not get to step {name!r}: {self.result.get('error')}\n{self.output}")


def find_nvim() -> str | None:
    """`ABL_NVIM` if set, else `nvim` on PATH, else the one the `editors` extra installs."""
    chosen = os.environ.get("ABL_NVIM")
    if chosen:
        return chosen
    on_path = shutil.which("nvim")
    if on_path:
        return on_path
    # The `editors` extra installs Neovim beside this interpreter, which may not be on PATH.
    for scripts in (Path(sysconfig.get_path("scripts")), REPO / ".venv" / "bin"):
        candidate = scripts / "nvim"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def isolated_env(scratch: Path) -> dict[str, str]:
    """The environment with XDG folders (and HOME, for Emacs) inside `scratch`: editors write
    their state, logs and packages' caches there instead of the home folder."""
    env = dict(os.environ)
    for kind in ("config", "data", "state", "cache", "runtime"):
        path = scratch / "xdg" / kind
        path.mkdir(parents=True, exist_ok=True)
        env[f"XDG_{kind.upper()}_{'DIR' if kind == 'runtime' else 'HOME'}"] = str(path)
    return env


def run_editor(command: list[str], cwd: Path, env: dict[str, str], result_file: Path, timeout_s: float) -> EditorRun:
    """Run an editor to its end in a session of its own (a hung one is killed with the server it
    started); return its status, its output and the JSON result it wrote."""
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        raw, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        raw, _ = proc.communicate()
        output = raw.decode("utf-8", errors="replace")
        pytest.fail(f"{command[0]} did not finish within {timeout_s} s\n{output}")
    finally:
        _kill_group(proc.pid)
    output = raw.decode("utf-8", errors="replace")
    result = json.loads(result_file.read_text(encoding="utf-8")) if result_file.is_file() else None
    return EditorRun(proc.returncode, output, result)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return  # nothing of that run is left
