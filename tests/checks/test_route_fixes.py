"""Every quick fix of the history, return, target and memory checks (and of the keys nested under
a route's values) does what it says.

For each such diagnostic in the `cases/` fixtures and each fix it offers: the edits apply
without overlapping, the result still parses, and the diagnostic the fix was offered for is
gone. A fix marked safe (applied by `abl check --fix`) must not bring any new error or
warning either, since it claims to keep what runs.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from abl.checks.engine import CheckOptions, check_project
from abl.checks.fixes import apply_edits
from abl.diagnostics import Diagnostic, Fix, Severity
from abl.workspace import Project
from fixture import parse_fixture

CASES = Path(__file__).parent / "cases"

ROUTE_CODES = frozenset(
    {
        "E330",
        "E331",
        "HISTORY_FALLS_BACK_TO_FULL",
        "HISTORY_LAST_ZERO",
        "HISTORY_NOT_SET",
        "CONTEXT_KEY_IGNORED",
        "UNKNOWN_HANDOFF_RETURN_FIELD",
        "HANDOFF_ON_RETURN_WITHOUT_RETURN",
        "HANDOFF_ON_RETURN_ACTION_AND_HANDLER",
        "UNSUPPORTED_HANDOFF_ON_RETURN_ACTION",
        "UNKNOWN_HANDOFF_ON_RETURN_HANDLER",
        "LEGACY_HANDOFF_ON_RETURN_SHORTHAND",
        "RETURN_NOT_LOWERCASE_TRUE",
        "RETURN_VALUE_NOT_MAPPED",
        "MAP_DIRECTION_REVERSED",
        "LEGACY_TOP_LEVEL_MAP",
        "EMPTY_STRING_COMPARISON",
        "INVALID_HANDOFF_TARGET",
        "INVALID_HANDOFF_FAILURE_ACTION",
        "LEGACY_HANDOFF_GRANT_MEMORY_SHORTHAND",
        "PASS_FIELD_UNKNOWN",
        "KEY_UNDER_VALUE",
    }
)
READ_ERRORS = frozenset({"SYNTAX_ERROR", "TAB_INDENTATION"})


def _check(files: dict[str, str]) -> dict[str, list[Diagnostic]]:
    project = Project("/")
    for path, text in files.items():
        project.update(path, text)
    return check_project(project, CheckOptions(strict_rules=True))


def _cases() -> list[tuple[str, str, str, int, Fix]]:
    """(fixture, file, code, index of the diagnostic among that code's, fix) for every fix."""
    found = []
    for path in sorted(CASES.glob("*.fires*.abl")):
        if path.name.split(".")[0] not in ROUTE_CODES:
            continue
        files = parse_fixture(path.read_text(encoding="utf-8")).files
        for file, diags in _check(files).items():
            seen: Counter[str] = Counter()
            for d in diags:
                if d.code not in ROUTE_CODES:
                    continue
                found.extend((path.name, file, d.code, seen[d.code], fix) for fix in d.fixes)
                seen[d.code] += 1
    return found


CASES_WITH_FIXES = _cases()


def test_the_fixtures_offer_fixes() -> None:
    offered = {code for _, _, code, _, _ in CASES_WITH_FIXES}
    assert len(offered) >= 15, sorted(offered)


@pytest.mark.parametrize(
    ("fixture", "file", "code", "index", "fix"),
    CASES_WITH_FIXES,
    ids=[f"{c[0]}:{c[2]}#{c[3]}:{c[4].title}" for c in CASES_WITH_FIXES],
)
def test_fix_resolves_its_diagnostic(fixture: str, file: str, code: str, index: int, fix: Fix) -> None:
    files = parse_fixture((CASES / fixture).read_text(encoding="utf-8")).files
    before = _check(files)
    new_text, applied = apply_edits(files[file], list(fix.edits))
    assert applied == len(fix.edits), "the fix's edits overlap"
    after = _check({**files, file: new_text})
    assert not [d for ds in after.values() for d in ds if d.code in READ_ERRORS], new_text
    count_before = sum(1 for d in before[file] if d.code == code)
    count_after = sum(1 for d in after[file] if d.code == code)
    assert count_after < count_before, f"{fix.title!r} left {code} in place:\n{new_text}"
    if fix.safe:
        added = _loud(after) - _loud(before)
        # Deleting an `ON_RETURN` that never ran keeps what runs, but its `MAP` no longer counts
        # as the source of the parent variable, so a W801 that it hid comes to light.
        if code == "HANDOFF_ON_RETURN_WITHOUT_RETURN":
            added.pop("W801", None)
        assert not added, f"{fix.title!r} is safe but adds {dict(added)}"


def _loud(result: dict[str, list[Diagnostic]]) -> Counter[str]:
    return Counter(d.code for ds in result.values() for d in ds if d.severity in (Severity.ERROR, Severity.WARNING))


def test_an_unknown_return_field_offers_every_child_field_the_likeliest_first() -> None:
    case = parse_fixture((CASES / "UNKNOWN_HANDOFF_RETURN_FIELD.fires.abl").read_text(encoding="utf-8")).files
    child = case["/agents/income.agent.abl"].replace(
        "GATHER:\n", 'GATHER:\n  employer:\n    PROMPT: "Who employs you?"\n  start_date:\n    TYPE: date\n'
    )
    result = _check({**case, "/agents/income.agent.abl": child})
    [unknown] = [d for d in result["/agents/hub.agent.abl"] if d.code == "UNKNOWN_HANDOFF_RETURN_FIELD"]
    titles = [f.title for f in unknown.fixes]
    assert titles[0] == "Map `annual_income` from the child", "the closest to `yearly_income` first"
    assert sorted(titles) == sorted(f"Map `{n}` from the child" for n in ("annual_income", "employer", "start_date"))
    assert not any(f.safe for f in unknown.fixes), "which value comes back is the author's call"
