"""The conversation scenarios under tests/runtime/scenarios, run the way a user runs them.

Each folder is a small project (`project.json` and `.agent.abl` files) with its
`*.abltest.yaml` conversations. `abl test` must pass them all; the pytest plugin also collects
the same files as items, which is harmless: a run writes nothing and is deterministic.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from abl.cli.main import main

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
PROJECTS = sorted(p for p in SCENARIOS.iterdir() if p.is_dir())


def test_there_are_enough_scenarios() -> None:
    assert len(PROJECTS) >= 8


@pytest.mark.parametrize("project", PROJECTS, ids=[p.name for p in PROJECTS])
def test_each_scenario_is_a_project_with_conversations(project: Path) -> None:
    assert (project / "project.json").is_file()
    assert list(project.glob("*.agent.abl"))
    assert list(project.glob("*.abltest.yaml"))


@pytest.mark.parametrize("project", PROJECTS, ids=[p.name for p in PROJECTS])
def test_each_scenario_project_checks_without_errors(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", str(project)])
    out, err = capsys.readouterr()
    assert code in (0, 1), out + err  # 1: warnings only
    assert " 0 errors" in out or "no problems" in out, out


def test_abl_test_passes_every_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["test", str(SCENARIOS)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    summary = out.strip().splitlines()[-1]
    found = re.fullmatch(r"(\d+) passed, 0 failed", summary)
    assert found is not None, summary
    declared = sum(
        len(re.findall(r"^  - name: ", path.read_text(encoding="utf-8"), flags=re.M))
        for path in SCENARIOS.rglob("*.abltest.yaml")
    )
    assert int(found.group(1)) == declared
