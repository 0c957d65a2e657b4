"""The analysis host: one consistent analysis, coalesced edits, files on disk versus open
buffers, and stale views refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from abl.ide import host as host_module
from abl.ide.host import AnalysisHost, StaleAnalysis
from abl.workspace import projects

SUPERVISOR = """\
SUPERVISOR: Loan_Supervisor
GOAL: "x"
HANDOFF:
  - TO: Income_Agent
    RETURN: true
    ON_RETURN:
      MAP:
        salary: annual_income
"""
CHILD = 'AGENT: Income_Agent\nGOAL: "g"\nGATHER:\n  annual_income:\n    type: number\n'


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "project.json").write_text("{}")
    (tmp_path / "sup.abl").write_text(SUPERVISOR)
    (tmp_path / "child.abl").write_text(CHILD)
    return tmp_path


def codes(host: AnalysisHost, path: Path) -> set[str]:
    return {d.code for d in host.analysis().diagnostics(str(path))}


def test_indexing_a_folder_checks_every_file_against_the_others(workspace: Path):
    host = AnalysisHost()
    assert len(host.add_folder(str(workspace))) == 2
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" in codes(host, workspace / "sup.abl")


def test_a_request_sees_every_edit_received_so_far(workspace: Path):
    host = AnalysisHost()
    host.add_folder(str(workspace))
    host.analyse()
    path = str(workspace / "sup.abl")
    host.open(path, SUPERVISOR, 1)
    for version, field in enumerate(["a", "an", "annual", "annual_income"], start=2):
        host.set_text(path, SUPERVISOR.replace("salary:", f"{field}:"), version)
    # No analysis in between: the view taken now must already hold the last edit.
    analysis = host.analysis()
    assert analysis.version(path) == 5
    assert "annual_income: annual_income" in (analysis.text(path) or "")
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" not in {d.code for d in analysis.diagnostics(path)}


def test_edits_are_coalesced_into_one_analysis(workspace: Path):
    host = AnalysisHost()
    host.add_folder(str(workspace))
    host.analyse()
    path = str(workspace / "sup.abl")
    host.open(path, SUPERVISOR, 1)
    for version in range(2, 12):
        host.set_text(path, SUPERVISOR + "#" * version + "\n", version)
    result = host.analyse()
    assert result.analysed_files == 1


def test_a_view_taken_before_a_change_is_refused_after_it(workspace: Path):
    host = AnalysisHost()
    host.add_folder(str(workspace))
    view = host.analysis()
    host.set_text(str(workspace / "sup.abl"), SUPERVISOR + "\n", 2)
    with pytest.raises(StaleAnalysis):
        view.diagnostics(str(workspace / "sup.abl"))


def test_open_buffers_win_over_the_disk(workspace: Path):
    host = AnalysisHost()
    path = str(workspace / "sup.abl")
    host.open(path, SUPERVISOR.replace("salary", "annual_income"), 1)
    host.add_folder(str(workspace))  # indexing after the editor opened the file
    host.file_changed_on_disk(path)
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" not in codes(host, workspace / "sup.abl")
    host.close(path)  # now the disk's text counts again
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" in codes(host, workspace / "sup.abl")


def test_another_file_changing_on_disk_updates_cross_file_results(workspace: Path):
    host = AnalysisHost()
    host.add_folder(str(workspace))
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" in codes(host, workspace / "sup.abl")
    (workspace / "child.abl").write_text(CHILD.replace("annual_income", "salary"))
    host.file_changed_on_disk(str(workspace / "child.abl"))
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" not in codes(host, workspace / "sup.abl")
    (workspace / "child.abl").unlink()
    host.file_deleted(str(workspace / "child.abl"))
    analysis = host.analysis()
    assert str(workspace / "child.abl") not in analysis.paths()
    assert "INVALID_HANDOFF_TARGET" in {d.code for d in analysis.diagnostics(str(workspace / "sup.abl"))}


def test_a_lone_file_brings_its_folder(tmp_path: Path):
    (tmp_path / "sup.abl").write_text(SUPERVISOR)
    (tmp_path / "child.abl").write_text(CHILD)
    host = AnalysisHost()
    host.open(str(tmp_path / "sup.abl"), SUPERVISOR, 1)
    assert "INVALID_HANDOFF_TARGET" not in codes(host, tmp_path / "sup.abl")


def test_a_lone_file_brings_its_project_as_abl_check_reads_it(tmp_path: Path):
    # No manifest: the repository root is the project, and every file read belongs to it,
    # whatever folder it sits in; a project nested below with its own manifest is not read.
    (tmp_path / ".git").mkdir()
    (tmp_path / "agents" / "deep").mkdir(parents=True)
    (tmp_path / "agents" / "sup.abl").write_text(SUPERVISOR)
    (tmp_path / "agents" / "deep" / "child.abl").write_text(CHILD)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "project.json").write_text("{}")
    (tmp_path / "other" / "sup.abl").write_text(SUPERVISOR)
    host = AnalysisHost()
    host.open(str(tmp_path / "agents" / "sup.abl"), SUPERVISOR, 1)
    analysis = host.analysis()
    assert analysis.paths() == [str(tmp_path / "agents" / "deep" / "child.abl"), str(tmp_path / "agents" / "sup.abl")]
    project = analysis.project(str(tmp_path / "agents" / "deep" / "child.abl"))
    assert project is not None and project.root == str(tmp_path)
    found = codes(host, tmp_path / "agents" / "sup.abl")
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" in found and "INVALID_HANDOFF_TARGET" not in found


def test_a_workspace_opened_on_one_file_reads_that_files_project(tmp_path: Path):
    (tmp_path / "sup.abl").write_text(SUPERVISOR)
    (tmp_path / "child.abl").write_text(CHILD)
    host = AnalysisHost()
    assert sorted(host.add_folder(str(tmp_path / "sup.abl"))) == [
        str(tmp_path / "child.abl"),
        str(tmp_path / "sup.abl"),
    ]
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" in codes(host, tmp_path / "sup.abl")
    project = host.analysis().project(str(tmp_path / "sup.abl"))
    assert project is not None and project.root == str(tmp_path)


def test_a_lone_file_in_a_folder_too_large_is_read_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(projects, "MAX_PROJECT_FILES", 1)
    (tmp_path / "sup.abl").write_text(SUPERVISOR)
    (tmp_path / "child.abl").write_text(CHILD)
    host = AnalysisHost()
    host.open(str(tmp_path / "sup.abl"), SUPERVISOR, 1)
    assert host.analysis().paths() == [str(tmp_path / "sup.abl")]


def test_invalid_utf8_on_disk_is_reported_not_fatal(tmp_path: Path):
    (tmp_path / "bad.abl").write_bytes(b'AGENT: A\nGOAL: "\xff"\n')
    host = AnalysisHost()
    host.add_folder(str(tmp_path))
    assert "INVALID_ENCODING" in codes(host, tmp_path / "bad.abl")


def test_the_project_configuration_applies_to_the_editor(workspace: Path):
    (workspace / "abl.toml").write_text('ignore = ["UNKNOWN_HANDOFF_RETURN_FIELD"]\ndefault-history = "none"\n')
    host = AnalysisHost()
    host.add_folder(str(workspace))
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" not in codes(host, workspace / "sup.abl")
    project = host.analysis().project(str(workspace / "sup.abl"))
    assert project is not None and project.default_history == "none"
    (workspace / "abl.toml").write_text('ignore = []\nselct = ["E330"]\n')
    host.config_changed(str(workspace / "abl.toml"))
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" in codes(host, workspace / "sup.abl")
    [problem] = host.analysis().config_problems()
    assert "select" in problem.message and problem.range.start.line == 1


def test_suppression_comments_apply_in_the_editor(workspace: Path):
    host = AnalysisHost()
    path = str(workspace / "sup.abl")
    host.open(
        path,
        SUPERVISOR.replace(
            "salary: annual_income", "salary: annual_income  # abl: ignore[UNKNOWN_HANDOFF_RETURN_FIELD]"
        ),
        1,
    )
    host.add_folder(str(workspace))
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" not in codes(host, workspace / "sup.abl")
    host.set_text(path, SUPERVISOR + "# abl: ignore[E330]\n", 2)
    assert "UNUSED_SUPPRESSION" in codes(host, workspace / "sup.abl")


def test_an_edit_checks_only_the_files_it_can_reach(workspace: Path, monkeypatch: pytest.MonkeyPatch):
    for n in range(5):  # files that neither reach nor are reached by the edited supervisor
        (workspace / f"other{n}.abl").write_text(f'AGENT: Other_{n}\nGOAL: "g"\n')
    host = AnalysisHost()
    host.add_folder(str(workspace))
    host.analyse()
    path = str(workspace / "sup.abl")
    host.open(path, SUPERVISOR, 1)
    host.analyse()  # the files' findings settle
    host.set_text(path, SUPERVISOR.replace('"x"', '"xy"'), 2)
    host.analyse()
    checked: list[str] = []
    real = host_module.check_file
    monkeypatch.setattr(
        host_module, "check_file", lambda project, p, *rest: checked.append(p) or real(project, p, *rest)
    )
    host.set_text(path, SUPERVISOR.replace("salary:", "annual_income:"), 3)
    changed = host.analyse().diagnostics
    assert sorted(checked) == [str(workspace / "child.abl"), path]  # the supervisor and the agent it calls
    assert set(changed) == {path} and "UNKNOWN_HANDOFF_RETURN_FIELD" not in {d.code for d in changed[path]}
    assert codes(host, workspace / "other0.abl") == {"UNREACHABLE_AGENT"}  # kept from the last check
    host.set_text(path, SUPERVISOR.replace("Income_Agent", "Other_0"), 4)
    host.analyse()  # where a route leads changed: every file that read the graph is looked at
    assert codes(host, workspace / "other0.abl") == set()  # reached now
    assert codes(host, workspace / "child.abl") == {"UNREACHABLE_AGENT"}
