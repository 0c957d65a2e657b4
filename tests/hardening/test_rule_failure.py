"""A rule that raises is reported as RULE_FAILED (an error), never as a clean file."""

from __future__ import annotations

from pathlib import Path

import pytest

from abl.checks.cache import CheckCache
from abl.checks.context import AGENT_RULES
from abl.checks.engine import check_project
from abl.cli.main import main
from abl.workspace import Project

CLEAN = 'AGENT: Helper\nGOAL: "Help"\n'


@pytest.fixture
def failing_rule():
    def explode(check, agent) -> None:
        raise ValueError("boom " + "x" * 10_000)

    entry = ("INVALID_VALUE", explode)
    AGENT_RULES.append(entry)
    try:
        yield
    finally:
        AGENT_RULES.remove(entry)


def _project() -> Project:
    project = Project("/")
    project.update("/a.agent.abl", CLEAN, [])
    return project


def test_engine_reports_the_failed_rule(failing_rule) -> None:
    diags = check_project(_project())["/a.agent.abl"]
    failed = [d for d in diags if d.code == "RULE_FAILED"]
    assert len(failed) == 1
    assert "INVALID_VALUE" in failed[0].message and "ValueError: boom" in failed[0].message
    assert len(failed[0].message) < 400  # the exception's text is clipped


def test_cached_engine_reports_it_too(failing_rule) -> None:
    cache = CheckCache()
    project = _project()
    for _ in range(2):  # a failed rule is not cached as settled: it fails, and is reported, again
        diags = check_project(project, cache=cache)["/a.agent.abl"]
        assert [d.code for d in diags].count("RULE_FAILED") == 1


def test_abl_check_exits_one(failing_rule, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.agent.abl").write_text(CLEAN, encoding="utf-8")
    code = main(["check", str(tmp_path)])
    out, _ = capsys.readouterr()
    assert code == 1
    assert "error[RULE_FAILED]" in out
    assert "no problems" not in out.lower()


def test_without_the_failing_rule_the_file_is_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.agent.abl").write_text(CLEAN, encoding="utf-8")
    assert main(["check", str(tmp_path)]) == 0
