"""The hooks in `.pre-commit-hooks.yaml`, run by the real `pre-commit` in a temporary repository.

Offline: the hooks are copied into a `repo: local` configuration with `language: system`, so
pre-commit runs the `abl` installed beside this interpreter instead of building an environment
from the network; entry, file pattern and types are the published hooks' own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("pre_commit")

ROOT = Path(__file__).resolve().parents[2]
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
ABL = Path(sys.executable).parent / "abl"

BROKEN = 'SUPERVISOR: Hub\nGOAL: "Route"\nHANDOFF:\n  - TO: Helper\n    WHEN: true\n    HISTORY:\n      mode: recent\n    ON_FAILURE: continue\n'
HELPER = 'AGENT: Helper\nGOAL:   "Help"\n'  # two blanks after `GOAL:`: `abl format` writes one


def local_config() -> str:
    """The published hooks as a `repo: local` configuration that runs the installed `abl`."""
    hooks = []
    for hook in HOOKS:
        command = hook["entry"].split()
        assert command[0] == "abl", "a hook runs the `abl` command"
        hooks.append({**hook, "entry": " ".join([str(ABL), *command[1:]]), "language": "system"})
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]}, sort_keys=False)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def pre_commit(repo: Path, *which: str) -> subprocess.CompletedProcess[str]:
    """`pre-commit run` on every file, or (with `which` empty) on the staged files only."""
    env = {**os.environ, "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", *which],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_hooks_are_declared_for_abl_files() -> None:
    assert [h["id"] for h in HOOKS] == ["abl-check", "abl-format"]
    for hook in HOOKS:
        assert hook["language"] == "python" and hook["files"] == r"\.abl$"


@pytest.mark.skipif(shutil.which("git") is None or not ABL.exists(), reason="needs git and the installed `abl`")
def test_pre_commit_runs_both_hooks_on_a_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "agents").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(local_config(), encoding="utf-8")
    (repo / "agents" / "hub.agent.abl").write_text(BROKEN, encoding="utf-8")
    (repo / "agents" / "helper.agent.abl").write_text(HELPER, encoding="utf-8")
    (repo / "notes.txt").write_text("not ABL\n", encoding="utf-8")
    git(repo, "add", ".")

    first = pre_commit(repo, "--all-files")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "error[E330]" in first.stdout
    assert "files were modified by this hook" in first.stdout
    assert (repo / "agents" / "helper.agent.abl").read_text(encoding="utf-8") == 'AGENT: Helper\nGOAL: "Help"\n'

    (repo / "agents" / "hub.agent.abl").write_text(BROKEN.replace("mode: recent", "mode: full"), encoding="utf-8")
    git(repo, "add", ".")
    second = pre_commit(repo, "--all-files")
    assert second.returncode == 0, second.stdout + second.stderr
    assert second.stdout.count("Passed") == 2


@pytest.mark.skipif(shutil.which("git") is None or not ABL.exists(), reason="needs git and the installed `abl`")
def test_one_staged_file_is_checked_with_the_rest_of_its_project(tmp_path: Path) -> None:
    # No project.json: the repository is the project. The hook is given the staged file only,
    # and reads the committed files beside it to resolve its routes.
    repo = tmp_path / "repo"
    (repo / "agents").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(local_config(), encoding="utf-8")
    (repo / "agents" / "helper.agent.abl").write_text('AGENT: Helper\nGOAL: "Help"\n', encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--no-verify", "-m", "helper")
    hub = repo / "agents" / "hub.agent.abl"
    hub.write_text(BROKEN.replace("mode: recent", "mode: full"), encoding="utf-8")
    git(repo, "add", str(hub))

    passed = pre_commit(repo)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert passed.stdout.count("Passed") == 2

    # A route to an agent that no file of the project holds is still found.
    hub.write_text(BROKEN.replace("mode: recent", "mode: full").replace("TO: Helper", "TO: Helpr"), encoding="utf-8")
    git(repo, "add", str(hub))
    failed = pre_commit(repo)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "error[INVALID_HANDOFF_TARGET]" in failed.stdout and 'did you mean "Helper"' in failed.stdout
