"""Files are grouped into projects by their `project.json`; names resolve only within one."""

from __future__ import annotations

from pathlib import Path

from abl.checks.engine import check_project
from abl.workspace import decode, load_projects

HUB = 'SUPERVISOR: Hub\nGOAL: "Route"\nHANDOFF:\n  - TO: Helper\n    WHEN: true\n    HISTORY: full\n    ON_FAILURE: CONTINUE\n'
HELPER = 'AGENT: Helper\nGOAL: "Help"\n'


def _project(root: Path) -> None:
    (root / "agents").mkdir(parents=True)
    (root / "project.json").write_text('{"format_version": "2.0"}')
    (root / "agents" / "hub.agent.abl").write_text(HUB)
    (root / "agents" / "helper.agent.abl").write_text(HELPER)


def test_each_manifest_is_its_own_project(tmp_path: Path) -> None:
    _project(tmp_path / "one")
    _project(tmp_path / "two")
    projects, problems = load_projects([str(tmp_path)])
    assert problems == []
    assert sorted(Path(p.root).name for p in projects) == ["one", "two"]
    for project in projects:
        codes = {d.code for diags in check_project(project).values() for d in diags}
        assert "DUPLICATE_AGENT_NAME" not in codes and "INVALID_HANDOFF_TARGET" not in codes


def test_files_without_a_manifest_form_one_project_per_path(tmp_path: Path) -> None:
    (tmp_path / "hub.agent.abl").write_text(HUB)
    (tmp_path / "helper.agent.abl").write_text(HELPER)
    projects, _ = load_projects([str(tmp_path)])
    assert len(projects) == 1 and len(projects[0].documents) == 2


def test_missing_paths_are_reported(tmp_path: Path) -> None:
    _, problems = load_projects([str(tmp_path / "nope")])
    assert problems == [str(tmp_path / "nope")]


def test_invalid_utf8_is_decoded_with_a_diagnostic() -> None:
    source = decode(b'AGENT: A\nGOAL: "caf\xe9"\n')
    assert "\ufffd" in source.text
    (d,) = source.diagnostics
    assert d.code == "INVALID_ENCODING" and (d.range.start.line, d.range.start.character) == (1, 10)


def test_a_single_file_is_checked_against_the_rest_of_its_project(tmp_path: Path) -> None:
    _project(tmp_path / "one")
    hub = tmp_path / "one" / "agents" / "hub.agent.abl"
    (project,), problems = load_projects([str(hub)])
    assert problems == [] and len(project.documents) == 2
    assert project.focus == frozenset({str(hub)})
    codes = {d.code for diags in check_project(project).values() for d in diags}
    assert "INVALID_HANDOFF_TARGET" not in codes


def test_a_single_file_without_a_manifest_stands_alone(tmp_path: Path) -> None:
    (tmp_path / "hub.agent.abl").write_text(HUB)
    (tmp_path / "helper.agent.abl").write_text(HELPER)
    (project,), _ = load_projects([str(tmp_path / "hub.agent.abl")])
    assert list(project.documents) == [str(tmp_path / "hub.agent.abl")] and project.focus is None
