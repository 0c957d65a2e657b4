"""The corpus: realistic projects checked the way `abl check` checks them.

`tests/corpus/valid/` holds correct ABL, written the many ways the language reference allows
(key case, flow and block lists, CONTEXT blocks and sibling keys, CRLF line ends, a byte-order
mark, comments...). Each folder with a `project.json` is one project; every other file is a
project of its own. None of them may get an error or a warning: on correct input a warning is a
false alarm. Hints (production-readiness notes) are allowed.

`tests/corpus/invalid/` holds the mistakes authors really make, as annotated fixtures (the
format of `tests/checks/cases/`): each must give exactly the annotated diagnostics.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz.mutate import nest_under_every_value
from fuzz.reading import unread_lines_unreported

from abl.checks.engine import CheckOptions, check_project
from abl.diagnostics import Severity
from abl.schema import SECTIONS, DocumentKind
from abl.syntax import parse
from abl.workspace import Project, decode, load_project, load_projects
from abl.workspace.projects import MARKERS
from checking import check_diagnostics
from fixture import parse_fixture

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
VALID = CORPUS / "valid"
INVALID = CORPUS / "invalid"


def _valid_units() -> list[Path]:
    """Project folders (with a manifest) and loose files directly under `valid/`, each file a
    project of its own."""
    units = [path for path in sorted(VALID.iterdir()) if path.is_dir() or path.suffix == ".abl"]
    return units


VALID_UNITS = _valid_units()
VALID_FILES = sorted(VALID.rglob("*.abl"))
INVALID_FILES = sorted(INVALID.glob("*.abl"))


@pytest.mark.parametrize("unit", VALID_UNITS, ids=[u.name for u in VALID_UNITS])
def test_valid_project_has_no_errors_or_warnings(unit: Path) -> None:
    if unit.is_dir():
        projects, problems = load_projects([str(unit)])
    else:  # a loose file is a project by itself (`abl check` would read it with its repository)
        project, problems = load_project([str(unit)])
        projects = [project]
    assert not problems
    assert projects, f"{unit} holds no ABL"
    found = []
    for project in projects:
        for path, diags in check_project(project, CheckOptions(strict_rules=True)).items():
            text = project.texts[path].splitlines()
            for d in diags:
                if d.severity is Severity.HINT:
                    continue
                line = text[d.range.start.line] if d.range.start.line < len(text) else ""
                found.append(
                    f"{Path(path).relative_to(VALID)}:{d.range.start.line + 1}: {d.code}: {d.message}\n    {line}"
                )
    assert not found, "\n".join(found)


@pytest.mark.parametrize("folder", [u for u in VALID_UNITS if u.is_dir()], ids=lambda u: u.name)
def test_valid_project_folder_has_a_manifest(folder: Path) -> None:
    # Without one, `abl check` would merge the folder with its neighbours.
    assert any((folder / m).is_file() for m in MARKERS), f"{folder.name} has no project.json"


def test_valid_corpus_is_large_enough() -> None:
    assert len(VALID_FILES) >= 25
    assert sum(1 for u in VALID_UNITS if u.is_dir()) >= 3


def test_valid_corpus_uses_every_section() -> None:
    """Every section the catalogue knows (bar the ones the platform rejects or never runs)
    appears at column 0 of some valid file of the document kind it belongs to."""
    used: dict[DocumentKind, set[str]] = {kind: set() for kind in DocumentKind}
    for path in VALID_FILES:
        kind = None
        for node in parse(path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n")).nodes:
            if not node.is_entry:
                continue
            opened = _opens(node.key) if node.value.strip() else None  # an unnamed block is an inline section
            if opened is not None:
                kind = opened
            elif path.name.endswith(".tools.abl") and node.key.upper() == "TOOLS":
                kind = DocumentKind.TOOLS_LIBRARY
            if kind is not None:
                used[kind].add(node.key.upper())
    missing = []
    for section in SECTIONS:
        key = section.key
        if key.removed or key.ignored or key.not_executed or key.deprecated:
            continue
        if not any(name.upper() in used[kind] for kind in section.documents for name in key.spellings):
            missing.append(f"{key.name} ({', '.join(sorted(k.value for k in section.documents))})")
    assert not missing, "sections no valid file uses: " + ", ".join(missing)


def _opens(key: str) -> DocumentKind | None:
    for section in SECTIONS:
        if section.opens is not None and key.upper() in (s.upper() for s in section.key.spellings):
            return section.opens
    return None


@pytest.mark.parametrize("path", INVALID_FILES, ids=[p.name for p in INVALID_FILES])
def test_invalid_project_gives_exactly_the_annotated_diagnostics(path: Path) -> None:
    text = path.read_bytes().decode("utf-8")
    assert parse_fixture(text).expectations, f"{path.name} annotates nothing"
    check_diagnostics(text)


def test_invalid_corpus_is_large_enough() -> None:
    assert len(INVALID_FILES) >= 20


CORPUS_FILES = [*VALID_FILES, *INVALID_FILES]


def _unread_unreported(data: bytes) -> list[str]:
    project = Project("/")
    source = decode(data)
    project.update("/main.abl", source.text, source.diagnostics)
    found = check_project(project, CheckOptions(strict_rules=True))["/main.abl"]
    return unread_lines_unreported(project, "/main.abl", found)


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_line_is_read_or_reported(path: Path) -> None:
    """Every line of a file is read by the model or covered by a diagnostic: each line neither
    the lowering nor the catalogue walk looks at carries a diagnostic (`fuzz.reading`), and under
    a value the lowering reads, KEY_UNDER_VALUE reports exactly the lines it never looks at. Asked of the file as written, then with a key of another kind (the
    catalogue's keys in turn, list items, text lines) nested under every line holding a value."""
    data = path.read_bytes()
    assert _unread_unreported(data) == []
    nested = nest_under_every_value(data, first_kind=CORPUS_FILES.index(path) * 7)
    assert _unread_unreported(nested) == []


FIXTURES = sorted((Path(__file__).resolve().parent / "cases").glob("*.abl"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_line_of_a_rule_fixture_is_read_or_reported(path: Path) -> None:
    """The rules' fixtures hold the mistakes one at a time (a key among a list's strings, text
    under a tool signature, a section written twice...): there too, no line is dropped unsaid."""
    assert _unread_unreported(path.read_bytes()) == []
