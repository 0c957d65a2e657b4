"""The project configuration (`abl.config`): finding it, reading it, and filtering by it."""

from __future__ import annotations

from pathlib import Path

import pytest

from abl.config import DEFAULT, Config, find_config, glob_matches, load_config
from abl.diagnostics import Diagnostic, Severity
from abl.text import Range

FULL = """\
select = ["platform", "lint"]
extend-select = ["UNKNOWN_KEY"]
ignore = ["ON_FAILURE_NOT_SET"]
include = ["agents"]
exclude = ["agents/generated"]
default-history = "last_4"

[severity]
HISTORY_NOT_SET = "warning"

[per-file-ignores]
"legacy/*.abl" = ["W801", "syntax"]
"""


def diagnostic(code: str, line: int = 0, severity: Severity = Severity.WARNING) -> Diagnostic:
    return Diagnostic(code, severity, f"{code} here", Range.on_line(line, 0, 1))


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- finding ---------------------------------------------------------------------------------------


def test_found_by_walking_up_from_a_file_or_a_folder(tmp_path: Path) -> None:
    config = write(tmp_path, "abl.toml", "")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_config(deep) == config
    assert find_config(write(deep, "x.abl", "")) == config


def test_abl_toml_wins_over_pyproject_in_the_same_folder(tmp_path: Path) -> None:
    write(tmp_path, "pyproject.toml", "[tool.abl]\nselect = []\n")
    assert find_config(tmp_path) == tmp_path / "pyproject.toml"
    write(tmp_path, "abl.toml", "")
    assert find_config(tmp_path) == tmp_path / "abl.toml"


def test_a_pyproject_without_tool_abl_is_not_a_configuration(tmp_path: Path) -> None:
    outer = write(tmp_path, "abl.toml", "")
    write(tmp_path / "pkg", "pyproject.toml", "[project]\nname = 'x'\n[tool.other]\nabl = 1\n")
    assert find_config(tmp_path / "pkg") == outer


# --- reading ---------------------------------------------------------------------------------------


def test_every_key_is_read(tmp_path: Path) -> None:
    config, problems = load_config(write(tmp_path, "abl.toml", FULL))
    assert problems == []
    assert config.root == tmp_path and config.default_history == "last_4"
    assert "E330" in config.enabled and "HISTORY_FALLS_BACK_TO_FULL" in config.enabled
    assert "UNKNOWN_KEY" in config.enabled and "SYNTAX_ERROR" not in config.enabled
    assert "ON_FAILURE_NOT_SET" not in config.enabled
    assert config.severity == {"HISTORY_NOT_SET": Severity.WARNING}
    assert config.ignored_for(str(tmp_path / "legacy" / "a.abl")) >= {"W801", "SYNTAX_ERROR", "UNKNOWN_KEY"}
    assert config.ignored_for(str(tmp_path / "agents" / "a.abl")) == frozenset()


def test_pyproject_reads_the_tool_abl_tables(tmp_path: Path) -> None:
    text = '[project]\nname = "x"\n\n[tool.abl]\nignore = ["W801"]\n\n[tool.abl.severity]\nW801 = "error"\n'
    config, problems = load_config(write(tmp_path, "pyproject.toml", text))
    assert problems == []
    assert "W801" not in config.enabled and config.severity == {"W801": Severity.ERROR}


@pytest.mark.parametrize(
    ("text", "where", "fragment"),
    [
        ('selct = ["W801"]\n', (1, 1), "unknown key `selct`; did you mean `select`?"),
        ('extend_select = ["W801"]\n', (1, 1), "did you mean `extend-select`?"),
        ('select = ["W801", "HISTORY_FALS_BACK_TO_FULL"]\n', (1, 20), "did you mean `HISTORY_FALLS_BACK_TO_FULL`?"),
        ('ignore = "W801"\n', (1, 1), "takes a list of strings"),
        ('\n[severity]\nW8011 = "hint"\n', (3, 1), "did you mean `W801`?"),
        ('[severity]\nW801 = "loud"\n', (2, 1), "`error`, `warning` or `hint`"),
        ('default-history = "recent"\n', (1, 1), "`default-history` is one of"),
        ('[per-file-ignores]\n"a/*.abl" = ["nope"]\n', (2, 15), "unknown code `nope`"),
        ("select = [\n", (2, 1), "not valid TOML"),
    ],
)
def test_problems_have_a_position_and_say_what_to_write(
    tmp_path: Path, text: str, where: tuple[int, int], fragment: str
) -> None:
    config, problems = load_config(write(tmp_path, "abl.toml", text))
    assert len(problems) == 1, problems
    problem = problems[0]
    assert fragment in problem.message
    assert (problem.range.start.line + 1, problem.range.start.character + 1) == where
    assert str(problem).startswith(f"{tmp_path / 'abl.toml'}:{where[0]}:{where[1]}: ")
    assert isinstance(config, Config)  # what can be read still applies


def test_problems_in_pyproject_point_into_the_tool_abl_table(tmp_path: Path) -> None:
    text = '[project]\nselct = 1\n\n[tool.abl]\nselct = ["W801"]\n'
    _, problems = load_config(write(tmp_path, "pyproject.toml", text))
    assert [(p.range.start.line, p.message.split(";")[0]) for p in problems] == [(4, "unknown key `selct`")]


def test_an_unreadable_file_is_a_problem_not_an_exception(tmp_path: Path) -> None:
    _, problems = load_config(tmp_path / "missing.toml")
    assert problems and "cannot read" in problems[0].message


# --- filtering ---------------------------------------------------------------------------------------


def test_filter_selects_ignores_and_overrides_severities(tmp_path: Path) -> None:
    config, _ = load_config(write(tmp_path, "abl.toml", FULL))
    found = [
        diagnostic("SYNTAX_ERROR"),
        diagnostic("ON_FAILURE_NOT_SET"),
        diagnostic("HISTORY_NOT_SET", severity=Severity.HINT),
        diagnostic("W801"),
    ]
    kept = config.filter(str(tmp_path / "agents" / "a.abl"), "AGENT: A\n", found)
    assert [(d.code, d.severity) for d in kept] == [("HISTORY_NOT_SET", Severity.WARNING), ("W801", Severity.WARNING)]
    legacy = config.filter(str(tmp_path / "legacy" / "a.abl"), "AGENT: A\n", found)
    assert [d.code for d in legacy] == ["HISTORY_NOT_SET"]


def test_command_line_select_replaces_and_ignore_adds(tmp_path: Path) -> None:
    config, _ = load_config(write(tmp_path, "abl.toml", FULL))
    narrowed = config.with_overrides(select=["W801", "E330"], ignore=["E330"])
    assert narrowed.enabled == {"W801", "UNKNOWN_KEY"}


def test_the_default_configuration_keeps_everything_and_applies_suppressions() -> None:
    text = "AGENT: A  # abl: ignore[W801]\nGOAL: x\n"
    kept = DEFAULT.filter("a.abl", text, [diagnostic("W801"), diagnostic("E330", line=1)])
    assert [d.code for d in kept] == ["E330"]


def test_include_and_exclude(tmp_path: Path) -> None:
    config, _ = load_config(write(tmp_path, "abl.toml", FULL))
    assert config.is_included(str(tmp_path / "agents" / "hub.agent.abl"))
    assert not config.is_included(str(tmp_path / "agents" / "generated" / "x.abl"))
    assert not config.is_included(str(tmp_path / "other" / "x.abl"))
    assert config.is_included("/elsewhere/x.abl")  # outside the configuration's folder


@pytest.mark.parametrize(
    ("path", "pattern", "matches"),
    [
        ("legacy/a.abl", "legacy/*.abl", True),
        ("legacy/deep/a.abl", "legacy/*.abl", True),
        ("agents/a.tools.abl", "*.tools.abl", True),
        ("agents/generated/x.abl", "generated", True),
        ("agents/generated/x.abl", "agents/generated/", True),
        ("agents/x.abl", "**/x.abl", True),
        ("x.abl", "**/x.abl", True),
        ("agents/x.abl", "legacy", False),
        ("agents/x.abl", "", False),
    ],
)
def test_glob_matching(path: str, pattern: str, matches: bool) -> None:
    assert glob_matches(path, pattern) is matches
