"""The shared scenario in real editors: Neovim and Emacs (eglot) show the errors and warnings
`scenario/expected.json` lists after each step (two files opened; a field added to one and saved,
which clears the other's error; a file never opened deleted on disk), and every code lens they
show runs.

Each editor runs once per module (one session plays every step, as a user would); each step is a
test of its own, so that one step's failure says which. Neovim comes from the `editors` extra;
Emacs 28 + eglot from Debian (`emacs-nox`, `elpa-eglot`), which `.ci/run` installs. A missing
editor skips, except under CI, where it fails.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from editor_scenario import (
    LENS_STEP,
    REPO,
    STEP_NAMES,
    STEPS,
    EditorRun,
    copy_workspace,
    differences,
    expected_after,
    find_nvim,
    isolated_env,
    run_editor,
    step_params,
    unavailable,
    workspace_files,
)

HERE = Path(__file__).resolve().parent
SERVER = [sys.executable, "-m", "abl", "lsp"]
LENS_PROJECT = REPO / "examples" / "loan-supervisor"
# The editors give up on their own (30 s for the first step, 10 s for each later one and each
# lens); this is only the backstop for one that hangs.
TIMEOUT_S = 180


def _scenario_spec(root: Path, result: Path, *, steps: list[dict[str, Any]], lenses: list[str]) -> dict[str, Any]:
    return {
        "server": SERVER,
        "root": str(root),
        "files": workspace_files(root),
        "steps": steps,
        "lenses": lenses,
        "result": str(result),
    }


def _neovim() -> str:
    found = find_nvim()
    if found is None:
        unavailable("Neovim not found (set ABL_NVIM, put nvim on PATH, or install the `editors` extra)")
    version = subprocess.run(
        [found, "--headless", "--clean", "+lua io.stdout:write(vim.fn.has('nvim-0.11'))", "+qa!"],
        capture_output=True,
        text=True,
        timeout=30,
    ).stdout
    if version.strip() != "1":
        unavailable("the scenario needs Neovim 0.11 or newer (vim.lsp.config)")
    return found


def _emacs() -> str:
    found = shutil.which("emacs")
    if found is None:
        unavailable("Emacs not found (apt-get install emacs-nox elpa-eglot; .ci/run does)")
    probe = subprocess.run(
        [found, "--batch", "--eval", "(progn (package-initialize) (require 'eglot))"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if probe.returncode != 0:
        unavailable(f"Emacs has no eglot (apt-get install elpa-eglot): {probe.stderr.strip()[-200:]}")
    return found


def _play(editor: str, root: Path, scratch: Path, *, steps: list[dict[str, Any]], lenses: list[str]) -> EditorRun:
    result = scratch / "result.json"
    spec = _scenario_spec(root, result, steps=steps, lenses=lenses)
    env = isolated_env(scratch)
    if editor == "neovim":
        env["ABL_NVIM_SCENARIO"] = json.dumps(spec)
        command = [_neovim(), "--headless", "--clean", "-u", str(HERE / "nvim" / "scenario.lua")]
    else:
        env["ABL_EMACS_SCENARIO"] = json.dumps(spec)
        env["HOME"] = str(scratch / "home")  # Emacs keeps its state in ~/.emacs.d
        command = [_emacs(), "--batch", "-l", str(HERE / "emacs" / "scenario.el")]
    return run_editor(command, root, env, result, TIMEOUT_S)


EDITORS = ["neovim", "emacs"]


_runs: dict[tuple[str, str], EditorRun] = {}


def _scenario_run(editor: str, tmp_path_factory: pytest.TempPathFactory) -> EditorRun:
    if (editor, "steps") not in _runs:
        scratch = tmp_path_factory.mktemp(f"{editor}-scenario")
        root = copy_workspace(scratch / "loan")
        _runs[editor, "steps"] = _play(editor, root, scratch, steps=STEPS, lenses=[])
    return _runs[editor, "steps"]


def _lens_run(editor: str, tmp_path_factory: pytest.TempPathFactory) -> EditorRun:
    if (editor, "lenses") not in _runs:
        scratch = tmp_path_factory.mktemp(f"{editor}-lenses")
        root = scratch / "loan"
        shutil.copytree(LENS_PROJECT, root)
        _runs[editor, "lenses"] = _play(editor, root, scratch, steps=[], lenses=["loan-supervisor.agent.abl"])
    return _runs[editor, "lenses"]


def _cases(names: list[str]) -> list[Any]:
    return [case for editor in EDITORS for case in step_params(editor, names)]


@pytest.mark.parametrize(("editor_name", "step"), _cases(STEP_NAMES))
def test_the_editor_shows_the_expected_diagnostics(
    editor_name: str, step: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    run = _scenario_run(editor_name, tmp_path_factory)
    observed = run.step(step)["diagnostics"] or {}  # Lua and Emacs Lisp write an empty map as []
    problems = differences(observed, expected_after(step))
    assert not problems, f"{editor_name} after {step!r}:\n" + "\n".join(problems) + f"\n--- output ---\n{run.output}"


@pytest.mark.parametrize(("editor_name", "step"), _cases([LENS_STEP]))
def test_every_code_lens_runs(editor_name: str, step: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    run = _lens_run(editor_name, tmp_path_factory)
    assert run.result is not None and "error" not in run.result, f"{editor_name} run failed\n{run.output}\n{run.result}"
    lenses = run.result["lenses"]
    commands = {lens["command"] for lens in lenses}
    # The file has a supervisor and agents: a "handoffs in" lens for each. "Run agent" needs a
    # panel to hold the conversation, so the server sends it only to a client that names
    # `abl.runAgent` in `initializationOptions.clientCommands` (these two do not).
    assert "abl.showHandoffsIn" in commands, f"{editor_name} shows the lenses {lenses}"
    assert "abl.runAgent" not in commands, f"{editor_name} was sent a lens it cannot run: {lenses}"
    refused = [f"{lens['title']!r} (line {lens['line']}): {lens['error']}" for lens in lenses if not lens["ran"]]
    assert not refused, f"{editor_name} could not run:\n" + "\n".join(refused)
