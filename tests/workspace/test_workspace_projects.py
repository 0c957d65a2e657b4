"""Files are grouped into projects by their `project.json`; names resolve only within one."""

from __future__ import annotations

from pathlib import Path

import pytest

from abl.checks.engine import check_project
from abl.workspace import decode, load_projects, projects
from abl.workspace.projects import project_of

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


# Which project a file belongs to: (the layout, the file, the folder chosen). A layout names
# the files to create; `.git/` is a folder, everything else a file.
LAYOUTS = [
    (["r/.git/", "r/p/project.json", "r/p/a/x.abl"], "r/p/a/x.abl", "r/p"),
    (["r/.git/", "r/p/abl.lock", "r/p/x.abl"], "r/p/x.abl", "r/p"),
    (["r/.git/", "r/abl.toml", "r/p/project.json", "r/p/x.abl"], "r/p/x.abl", "r/p"),
    (["r/.git/", "r/project.json", "r/p/abl.toml", "r/p/x.abl"], "r/p/x.abl", "r"),
    (["r/.git/", "r/p/abl.toml", "r/p/a/x.abl"], "r/p/a/x.abl", "r/p"),
    (["r/.git/", "r/pyproject.toml=[tool.abl]\n", "r/a/x.abl"], "r/a/x.abl", "r"),
    (["r/.git/", "r/pyproject.toml=[tool.black]\n", "r/a/x.abl"], "r/a/x.abl", "r"),
    (["r/pyproject.toml=[tool.black]\n", "r/a/x.abl"], "r/a/x.abl", "r/a"),
    (["r/.git=gitdir: elsewhere\n", "r/a/b/x.abl"], "r/a/b/x.abl", "r"),
    (["r/.git/", "r/a/x.abl"], "r/a/x.abl", "r"),
    (["r/a/x.abl"], "r/a/x.abl", "r/a"),
    # Nothing above a repository's root belongs to its files.
    (["project.json", "r/.git/", "r/a/x.abl"], "r/a/x.abl", "r"),
    (["abl.toml", "r/.git/", "r/a/x.abl"], "r/a/x.abl", "r"),
]


@pytest.mark.parametrize(("layout", "file", "chosen"), LAYOUTS)
def test_the_project_of_a_file(tmp_path: Path, layout: list[str], file: str, chosen: str) -> None:
    for entry in layout:
        name, _, text = entry.partition("=")
        path = tmp_path / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text or HELPER)
    assert project_of(tmp_path / file).root == tmp_path / chosen


def test_a_single_file_without_a_manifest_is_read_with_its_folder(tmp_path: Path) -> None:
    (tmp_path / "hub.agent.abl").write_text(HUB)
    (tmp_path / "helper.agent.abl").write_text(HELPER)
    (project,), _ = load_projects([str(tmp_path / "hub.agent.abl")])
    assert sorted(project.documents) == [str(tmp_path / "helper.agent.abl"), str(tmp_path / "hub.agent.abl")]
    assert project.focus == frozenset({str(tmp_path / "hub.agent.abl")})


def test_a_lone_file_is_not_read_with_a_project_nested_below_its_own(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "hub.agent.abl").write_text(HUB)
    _project(tmp_path / "other")
    (project,), _ = load_projects([str(tmp_path / "hub.agent.abl")])
    assert list(project.documents) == [str(tmp_path / "hub.agent.abl")] and project.focus is None


def test_a_project_too_large_to_read_whole_reads_the_named_file_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(projects, "MAX_PROJECT_FILES", 3)
    for n in range(4):
        (tmp_path / f"a{n}.agent.abl").write_text(HELPER.replace("Helper", f"A{n}"))
    assert projects.project_files(tmp_path) is None
    (project,), _ = load_projects([str(tmp_path / "a0.agent.abl")])
    assert list(project.documents) == [str(tmp_path / "a0.agent.abl")]
    assert project.skipped and "more than 3 ABL files" in project.skipped[0]
    (tmp_path / "a3.agent.abl").unlink()
    (project,), _ = load_projects([str(tmp_path / "a0.agent.abl")])
    assert len(project.documents) == 3 and not project.skipped
