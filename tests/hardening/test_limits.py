"""Each input limit gives one clear diagnostic where it is hit, and what lies past it is not read.

Nesting and expression depth are tested in test_deep_nesting.py, the size of a file read from a
folder in test_folder_files.py; here: line length, list length, agents per file, and the size of
a file an editor opens.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from abl.checks.engine import CheckOptions, check_project
from abl.diagnostics import Diagnostic
from abl.ide.host import AnalysisHost
from abl.syntax import limits
from abl.syntax.parser import parse
from abl.workspace import Project

STRICT = CheckOptions(strict_rules=True)
HEAD = 'SUPERVISOR: Hub\nGOAL: "Route"\n'


def _check(text: str) -> tuple[Project, list[Diagnostic]]:
    project = Project("/limits")
    project.update("/limits/a.agent.abl", text)
    return project, check_project(project, STRICT)["/limits/a.agent.abl"]


def _limit_errors(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.code == "LIMIT_EXCEEDED"]


def test_a_line_past_the_limit_is_reported_and_its_value_not_read() -> None:
    long_goal = '"' + "x" * (limits.MAX_LINE_CHARS + 10) + '"'
    text = f"AGENT: Helper\nGOAL: {long_goal}\n"
    assert parse(text).to_text() == text  # not read, but every byte is kept
    project, diags = _check(text)
    [found] = _limit_errors(diags)
    assert found.range.start.line == 1 and found.range.start.character == limits.MAX_LINE_CHARS
    assert "100,000" in found.message
    assert project.documents["/limits/a.agent.abl"].agents[0].goal is None


def test_a_line_at_the_limit_is_read() -> None:
    goal = '"' + "x" * (limits.MAX_LINE_CHARS - 8) + '"'
    _, diags = _check(f"AGENT: Helper\nGOAL: {goal}\n")
    assert not _limit_errors(diags)


@pytest.mark.parametrize("layout", ["one line", "one item per line"])
def test_a_list_past_the_limit_reads_its_first_items(layout: str) -> None:
    names = [f"field_{i}" for i in range(limits.MAX_LIST_ITEMS + 500)]
    if layout == "one line":
        written = "[" + ", ".join(names) + "]"
    else:
        written = "[\n" + "".join(f"      {n},\n" for n in names) + "    ]"
    text = HEAD + f"HANDOFF:\n  - TO: Helper\n    WHEN: true\n    PASS: {written}\n" + 'AGENT: Helper\nGOAL: "g"\n'
    project, diags = _check(text)
    assert len(_limit_errors(diags)) == 1
    route = project.documents["/limits/a.agent.abl"].agents[0].handoffs[0]
    assert len(route.passes) == limits.MAX_LIST_ITEMS
    assert sum(d.code == "PASS_FIELD_UNKNOWN" for d in diags) == limits.MAX_LIST_ITEMS


def test_a_list_at_the_limit_is_read_whole() -> None:
    names = ", ".join(f"f{i}" for i in range(limits.MAX_LIST_ITEMS))
    _, diags = _check(f'AGENT: Helper\nGOAL: "g"\nLIMITATIONS: [{names}]\n')
    assert not _limit_errors(diags)


def test_agents_past_the_limit_are_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_DOCUMENTS", 5)  # the real limit needs a file of 50,000 agents
    text = "".join(f'AGENT: Agent_{i}\nGOAL: "g"\n' for i in range(8))
    project, diags = _check(text)
    assert [a.name.text for a in project.documents["/limits/a.agent.abl"].agents] == [f"Agent_{i}" for i in range(5)]
    [found] = _limit_errors(diags)
    assert found.range.start.line == 10 and "8 in all" in found.message


def test_an_editor_does_not_read_a_file_over_the_size_limit(tmp_path: Path) -> None:
    host = AnalysisHost()
    path = str(tmp_path / "huge.agent.abl")
    host.open(path, "x" * (limits.MAX_FILE_BYTES + 1), 1)
    analysis = host.analysis()
    [found] = analysis.diagnostics(path)
    assert found.code == "LIMIT_EXCEEDED" and "10 MB" in found.message
    assert analysis.document(path) is not None and not analysis.document(path).agents
