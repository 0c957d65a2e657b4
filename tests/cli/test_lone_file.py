"""`abl check FILE` reads the file's project: a file checked alone gets the diagnostics its
project checked whole gives it (held over the bundled examples and generated projects), and
`--verbose` says which project that is and which files were read."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fuzz.generate import project as generated_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abl.cli.main import main
from abl.workspace import projects
from abl.workspace.projects import MARKERS

REPO = Path(__file__).resolve().parents[2]
PROJECTS = sorted(
    folder
    for base in (REPO / "examples", REPO / "tests" / "corpus" / "valid")
    for folder in base.rglob("*")
    if folder.is_dir() and any((folder / m).is_file() for m in MARKERS)
)

HUB = """\
SUPERVISOR: Hub
GOAL: "Route"
HANDOFF:
  - TO: Helper
    WHEN: true
    HISTORY: full
    ON_FAILURE: CONTINUE
    RETURN: true
    ON_RETURN:
      MAP:
        amount: total
MEMORY:
  session:
    - total
"""
HELPER = 'AGENT: Helper\nGOAL: "Help"\nGATHER:\n  amount:\n    type: number\n'


def checked(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, list[dict[str, Any]]]:
    """`abl check --format json` of the paths: every file's diagnostics, by resolved path."""
    code = main(["check", "--format", "json", *args])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    found: dict[str, list[dict[str, Any]]] = {}
    for d in json.loads(out)["diagnostics"]:
        found.setdefault(str(Path(d.pop("path")).resolve()), []).append(d)
    return found


def assert_alone_as_whole(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    whole = checked(capsys, str(root))
    files = sorted(root.rglob("*.abl"))
    assert files
    for file in files:
        alone = checked(capsys, str(file))
        assert set(alone) <= {str(file.resolve())}, "only the named file is reported"
        assert alone.get(str(file.resolve()), []) == whole.get(str(file.resolve()), []), file


@pytest.mark.parametrize("root", PROJECTS, ids=[str(p.relative_to(REPO)) for p in PROJECTS])
def test_each_file_of_an_example_alone_as_in_its_project(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert_alone_as_whole(capsys, root)


# Where the generated files go and what marks the project's root (None: a bare folder).
LAYOUTS = st.sampled_from([".git", "project.json", "abl.toml", None])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=generated_project(), marker=LAYOUTS, nested=st.booleans())
def test_each_file_of_a_generated_project_alone_as_in_the_project(
    files: dict[str, str], marker: str | None, nested: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        if marker == ".git":
            (root / ".git").mkdir(parents=True)
        elif marker is not None:
            root.mkdir()
            (root / marker).write_text("{}\n" if marker == "project.json" else "", encoding="utf-8")
        for n, text in enumerate(files.values()):
            # A bare folder is a project by itself only: its files cannot sit in sub-folders.
            folder = root / "agents" / (f"part{n}" if nested and marker is not None else "")
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"part{n}.agent.abl").write_bytes(text.encode("utf-8"))
        target = root if marker is not None else root / "agents"
        assert_alone_as_whole(capsys, target)


def repository(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "hub.agent.abl").write_text(HUB, encoding="utf-8")
    (tmp_path / "agents" / "helper.agent.abl").write_text(HELPER, encoding="utf-8")
    return tmp_path


def problems(found: dict[str, list[dict[str, Any]]]) -> dict[str, list[str]]:
    """The codes of the errors and warnings, by file (hints left out)."""
    shown = {path: [d["code"] for d in diags if d["severity"] != "hint"] for path, diags in found.items()}
    return {path: codes for path, codes in shown.items() if codes}


def test_a_route_to_an_agent_of_another_file_resolves(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = repository(tmp_path)
    assert problems(checked(capsys, str(root / "agents" / "hub.agent.abl"))) == {}


def test_a_real_cross_file_error_is_found_and_reported_in_the_named_file_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = repository(tmp_path)
    (root / "agents" / "helper.agent.abl").write_text(HELPER.replace("amount", "amt"), encoding="utf-8")
    (root / "agents" / "broken.agent.abl").write_text('AGENT: Broken\nGOAL: "x"\nHANDOFF:\n  - TO: Nobody\n')
    hub = str((root / "agents" / "hub.agent.abl").resolve())
    assert problems(checked(capsys, hub)) == {hub: ["UNKNOWN_HANDOFF_RETURN_FIELD"]}


def test_verbose_says_the_project_and_every_file_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = repository(tmp_path)
    hub = str(root / "agents" / "hub.agent.abl")
    assert main(["check", "--verbose", hub]) == 0
    _, err = capsys.readouterr()
    first, *files = err.splitlines()
    assert first.startswith(f"abl check: project {root.resolve()} (the project of {hub}: the repository root")
    assert first.endswith(": 2 files read, 1 reported")
    assert files == [
        f"  {root / 'agents' / 'helper.agent.abl'}  (read to resolve names)",
        f"  {hub}  (checked)",
    ]


def test_without_verbose_nothing_more_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = repository(tmp_path)
    assert main(["check", str(root / "agents" / "hub.agent.abl")]) == 0
    assert capsys.readouterr().err == ""


def test_a_project_too_large_to_read_whole_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(projects, "MAX_PROJECT_FILES", 1)
    root = repository(tmp_path)
    hub = root / "agents" / "hub.agent.abl"
    assert main(["check", str(hub)]) == 1  # Helper is not read, so the route to it is unknown
    out, err = capsys.readouterr()
    assert err == (
        f"abl check: warning: {root.resolve()}: not read whole: it holds more than 1 ABL files, so only the "
        "named files were read (names they take from its other files are not found)\n"
    )
    assert "error[INVALID_HANDOFF_TARGET]" in out
