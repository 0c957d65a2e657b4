"""`abl check --fix` keeps its promises, on every file we have and on generated projects.

After the safe fixes, a re-check reports no diagnostic that was not there before, the fixed
ones are gone, and fixing again changes nothing. With `--unsafe-fixes` a fix may change what
runs (that is what unsafe means), so only the last two hold, and the text still parses.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abl.checks.autofix import fix_project
from abl.checks.engine import CheckOptions, check_file
from abl.checks.fixes import apply_fixes
from abl.checks.registry import CODES, FixSafety
from abl.config import DEFAULT
from abl.diagnostics import Diagnostic, Fix, Severity, TextEdit
from abl.text import Range
from abl.workspace import Project, decode
from fixture import parse_fixture

TESTS = Path(__file__).resolve().parents[1]
STRICT = CheckOptions(strict_rules=True)
READ_ERRORS = frozenset({"SYNTAX_ERROR", "TAB_INDENTATION", "INVALID_ENCODING"})


def _units() -> dict[str, dict[str, str]]:
    """Every project of the tests: corpus folders and files, fixtures, the catalogue's examples."""
    units: dict[str, dict[str, str]] = {}
    valid = TESTS / "corpus" / "valid"
    for unit in sorted(valid.iterdir()):
        files = sorted(unit.rglob("*.abl")) if unit.is_dir() else [unit] if unit.suffix == ".abl" else []
        if files:
            units[f"corpus/{unit.name}"] = {"/" + str(f.relative_to(valid)): decode(f.read_bytes()).text for f in files}
    for path in sorted((TESTS / "corpus" / "invalid").glob("*.abl")) + sorted(
        (TESTS / "checks" / "cases").glob("*.abl")
    ):
        data = path.read_bytes()
        try:
            units[path.name] = dict(parse_fixture(data.decode("utf-8")).files)
        except UnicodeDecodeError:
            continue  # a fixture about bad bytes: never fixed (see test_a_file_with_bad_bytes_is_never_fixed)
    for code in CODES:
        units[f"example/{code.code}"] = {"/example.agent.abl": code.bad_example}
    return units


UNITS = _units()


def _project(files: dict[str, str]) -> Project:
    project = Project("/")
    for path, text in files.items():
        project.update(path, text)
    return project


def _reported(project: Project, path: str) -> list[Diagnostic]:
    """As `abl check --all` reports them (hints included, so their fixes are exercised too)."""
    return DEFAULT.filter(path, project.texts[path], check_file(project, path, STRICT))


def _codes(project: Project) -> Counter[str]:
    return Counter(d.code for path in project.documents for d in _reported(project, path))


def _assert_fix_keeps_its_promises(files: dict[str, str]) -> None:
    project = _project(files)
    before = _codes(project)
    outcome = fix_project(project, sorted(project.documents), lambda p: _reported(project, p))
    fixed = Counter(d.code for diags in outcome.fixed.values() for d in diags)
    after = _codes(project)
    new = after - (before - fixed)
    assert not new, f"safe fixes brought new or left fixed diagnostics: {dict(new)}\n{_texts(project, outcome.changed)}"
    again = fix_project(project, sorted(project.documents), lambda p: _reported(project, p))
    assert not again.changed, (
        f"a second --fix changed {again.changed}: {dict(Counter(d.code for v in again.fixed.values() for d in v))}"
    )


def _assert_unsafe_fix_settles(files: dict[str, str]) -> None:
    project = _project(files)
    syntax_before = _codes(project)["SYNTAX_ERROR"]
    fix_project(project, sorted(project.documents), lambda p: _reported(project, p), unsafe=True)
    assert _codes(project)["SYNTAX_ERROR"] <= syntax_before
    again = fix_project(project, sorted(project.documents), lambda p: _reported(project, p), unsafe=True)
    assert not again.changed, f"a second --fix --unsafe-fixes changed {again.changed}"


def _texts(project: Project, paths: list[str]) -> str:
    return "\n".join(f"--- {p}\n{project.texts[p]}" for p in paths)


@pytest.mark.parametrize("name", sorted(UNITS))
def test_safe_fixes_bring_nothing_new_and_settle(name: str) -> None:
    _assert_fix_keeps_its_promises(UNITS[name])


@pytest.mark.parametrize("name", sorted(UNITS))
def test_unsafe_fixes_settle(name: str) -> None:
    _assert_unsafe_fix_settles(UNITS[name])


# --- generated projects -------------------------------------------------------------------------

HISTORIES = [
    "",
    "HISTORY: full",
    "HISTORY: fulll",
    "HISTORY: last_0",
    "HISTORY: last_n",
    "HISTORY: recent",
    "HISTORY: none",
    "HISTORY:\n      mode: last_n\n      count: 0",
    "CONTEXT:\n      HISTORY: none\n      pass: [order_id]",
]
RETURNS = ["", "RETURN: true", "RETURN: True", "RETURN: false", 'EXPECT_RETURN: "true"']
ON_RETURNS = [
    "",
    "ON_RETURN:\n      action: continue",
    "ON_RETURN:\n      action: restart",
    "ON_RETURN:\n      action: resume_intent\n      MAP:\n        order_id: order_id",
    "MAP:\n      order_id: order_id",
]
FAILURES = ["", "ON_FAILURE: continue", "ON_FAIL: continue"]
COMMENTS = ["", "  # abl: ignore[HISTORY_FALLS_BACK_TO_FULL]", "  # abl: ignore[W801]", "  # abl: ignore"]


@st.composite
def projects(draw: st.DrawFn) -> dict[str, str]:
    """A supervisor with one to three routes, each a draw of the spellings authors use."""
    routes = []
    for i in range(draw(st.integers(1, 3))):
        lines = [f"  - TO: Child_{i}", f'    WHEN: intent.category == "topic_{i}"', "    PASS: [order_id]"]
        for options in (HISTORIES, RETURNS, ON_RETURNS, FAILURES):
            choice = draw(st.sampled_from(options))
            if choice:
                lines.append("    " + choice + draw(st.sampled_from(COMMENTS)))
        routes.append("\n".join(lines) + "\n")
    children = "".join(
        f'\nAGENT: Child_{i}\nGOAL: "Help with topic {i}"\n\nGATHER:\n  order_id:\n    PROMPT: "Order?"\n'
        f'    TYPE: string\n    REQUIRED: true\n\nCOMPLETE:\n  - WHEN: order_id IS SET\n    RESPOND: "Done."\n'
        for i in range(len(routes))
    )
    hub = (
        'SUPERVISOR: Hub\nGOAL: "Route requests"\n\nMEMORY:\n  session:\n    - order_id\n      TYPE: string\n\n'
        "HANDOFF:\n" + "\n".join(routes)
    )
    return {"/hub.agent.abl": hub + children}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(projects())
def test_fix_keeps_its_promises_on_generated_projects(files: dict[str, str]) -> None:
    _assert_fix_keeps_its_promises(files)
    _assert_unsafe_fix_settles(files)


# --- the pieces ---------------------------------------------------------------------------------


def test_a_file_with_bad_bytes_is_never_fixed() -> None:
    source = decode(b'AGENT: A\nGOAL: "\xff"\nHANDOFF:\n  - TO: A\n    HISTORY: last_0\n')
    project = Project("/")
    project.update("/a.abl", source.text, source.diagnostics)
    outcome = fix_project(project, ["/a.abl"], lambda p: _reported(project, p), unsafe=True)
    assert not outcome.changed


def test_many_declarations_and_moved_sections_settle_in_one_run() -> None:
    # Each fix inserts at one place (the end of the `session:` list, below the header); with one
    # insertion per pass, twelve of them outran the passes and a second --fix changed the file.
    names = [f"note_{i}" for i in range(12)]
    stray = "".join(f"# stray {i}\nLIMITATIONS: []\n" for i in range(12))
    text = (
        stray + 'SUPERVISOR: Hub\nGOAL: "g"\nMEMORY:\n  session:\n    - order_id\n'
        "HANDOFF:\n  - TO: Child\n    WHEN: order_id IS SET\n    RETURN: true\n    ON_RETURN:\n      SET:\n"
        + "".join(f"        {name}: 1\n" for name in names)
        + 'AGENT: Child\nGOAL: "c"\n'
    )
    project = _project({"/hub.agent.abl": text})
    outcome = fix_project(project, ["/hub.agent.abl"], lambda p: _reported(project, p), unsafe=True)
    assert outcome.settled
    fixed = project.texts["/hub.agent.abl"]
    assert "".join(f"    - {name}\n" for name in ["order_id", *names]) in fixed
    again = fix_project(project, ["/hub.agent.abl"], lambda p: _reported(project, p), unsafe=True)
    assert not again.changed


def _toggling(project: Project, path: str) -> list[Diagnostic]:
    """A rule whose fix turns `a` into `b` and `b` back into `a`."""
    text = project.texts[path]
    swap = TextEdit(Range.on_line(0, 0, 1), "b" if text.startswith("a") else "a")
    return [Diagnostic("W801", Severity.WARNING, "swap", Range.on_line(0, 0, 1), (Fix("swap", (swap,), True),))]


def test_fixes_that_undo_each_other_stop_and_say_so() -> None:
    project = _project({"/a.abl": "a: 1\n"})
    calls = []
    outcome = fix_project(project, ["/a.abl"], lambda p: calls.append(p) or _toggling(project, p))
    assert not outcome.settled
    assert len(calls) == 2  # `a` → `b` → `a`: the second text was seen before


def _edit(line: int, start: int, end: int, text: str) -> TextEdit:
    return TextEdit(Range.on_line(line, start, end), text)


def test_fixes_apply_whole_and_the_earlier_wins() -> None:
    text = "abcdef\n"
    first = Fix("first", (_edit(0, 0, 2, "XY"), _edit(0, 4, 5, "Z")), True)
    overlapping = Fix("second", (_edit(0, 1, 3, "Q"), _edit(0, 5, 6, "W")), True)
    assert apply_fixes(text, [first, overlapping]) == ("XYcdZf\n", [0])
    assert apply_fixes(text, [overlapping, first]) == ("aQdeW\n", [0])


def test_the_same_edit_offered_twice_is_made_once_and_both_count() -> None:
    same = _edit(0, 0, 1, "A")
    assert apply_fixes("abc", [Fix("one", (same,), True), Fix("two", (same,), True)]) == ("Abc", [0, 1])


def test_two_insertions_at_one_place_do_not_both_apply() -> None:
    assert apply_fixes("ab", [Fix("x", (_edit(0, 1, 1, "X"),), True), Fix("y", (_edit(0, 1, 1, "Y"),), True)]) == (
        "aXb",
        [0],
    )


def _pairwise(text: str, fixes: list[Fix]) -> tuple[str, list[int]]:
    """`apply_fixes` as its docstring says, every new edit against every taken one."""
    taken: list[tuple[int, int, str, bool, int]] = []
    applied = []
    for number, fix in enumerate(fixes):
        new = [(e.range.start.character, e.range.end.character, e.new_text, e.stacks, number) for e in fix.edits]
        new = [s for s in new if s[:3] not in [t[:3] for t in taken]]
        pairs = [(a, b) for a in new for b in taken] + [(a, b) for i, a in enumerate(new) for b in new[i + 1 :]]
        if any(_overlap_or_touch(a, b) for a, b in pairs):
            continue
        taken.extend(new)
        applied.append(number)
    # Later edits first; stacked insertions at one place keep the order of their fixes.
    for start, end, new_text, _, _ in sorted(taken, key=lambda t: (t[0], t[1], t[4]), reverse=True):
        text = text[:start] + new_text + text[end:]
    return text, applied


def _overlap_or_touch(a: tuple[int, int, str, bool, int], b: tuple[int, int, str, bool, int]) -> bool:
    overlap = a[0] < b[1] and b[0] < a[1]
    stacked = a[0] == a[1] == b[0] == b[1] and a[3] and b[3]
    a_inserts_at_b = a[0] == a[1] and b[0] <= a[0] <= b[1]
    b_inserts_at_a = b[0] == b[1] and a[0] <= b[0] <= a[1]
    return overlap or (not stacked and (a_inserts_at_b or b_inserts_at_a))


_SPAN = st.tuples(st.integers(0, 12), st.integers(0, 4), st.sampled_from(["", "x", "yz"]), st.booleans())


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(_SPAN, min_size=1, max_size=3), max_size=12))
def test_fixes_by_the_thousand_are_taken_as_the_pairwise_rule_says(
    spans: list[list[tuple[int, int, str, bool]]],
) -> None:
    text = "abcdefghijklmnop"
    fixes = [
        Fix(
            "f",
            tuple(TextEdit(Range.on_line(0, s, min(s + n, len(text))), t, n == 0 and k) for s, n, t, k in edits),
            True,
        )
        for edits in spans
    ]
    assert apply_fixes(text, fixes) == _pairwise(text, fixes)


def test_insertions_that_stack_go_in_the_order_of_their_fixes() -> None:
    first, second = (Fix(t, (TextEdit(Range.on_line(0, 1, 1), t, True),), True) for t in ("X", "Y"))
    assert apply_fixes("ab", [first, second]) == ("aXYb", [0, 1])
    assert apply_fixes("ab", [second, first]) == ("aYXb", [0, 1])


# --- the registry says what --fix does ---------------------------------------------------------------


def _offered() -> dict[str, list[tuple[bool, ...]]]:
    """code -> the safety of each fix of each diagnostic of that code, over every unit."""
    offered: dict[str, list[tuple[bool, ...]]] = {}
    for files in UNITS.values():
        project = _project(files)
        for path in project.documents:
            for d in _reported(project, path):
                offered.setdefault(d.code, []).append(tuple(f.safe for f in d.fixes))
    return offered


OFFERED = _offered()


@pytest.mark.parametrize("entry", CODES, ids=[c.code for c in CODES])
def test_the_fixes_offered_agree_with_the_registry(entry) -> None:
    """What the docs page says about `--fix` (rendered from `fix_safety`) is what happens."""
    seen = OFFERED.get(entry.code, [])
    # INVALID_ENCODING needs bytes that are not UTF-8, which these units do not keep.
    assert seen or entry.fix_safety is FixSafety.NONE, f"{entry.code} is reported by no fixture or example"
    if entry.fix_safety is FixSafety.NONE:
        assert all(not fixes for fixes in seen), f"{entry.code} is registered without a quick fix"
    elif entry.fix_safety is FixSafety.UNSAFE:
        assert any(seen) and not any(any(fixes) for fixes in seen)
    elif entry.fix_safety is FixSafety.SAFE:
        assert all(fixes and fixes[0] for fixes in seen if fixes), f"{entry.code}: the first fix is not always safe"
        assert any(fixes for fixes in seen)
    else:
        assert any(fixes and fixes[0] for fixes in seen), f"{entry.code}: no fixture shows the safe case"
        assert any(fixes and not any(fixes) for fixes in seen), f"{entry.code}: no fixture shows the unsafe case"


@pytest.mark.parametrize(
    "flow",
    [
        'FLOW:\n\tstart:\n\t\tRESPOND: "hi"\n\tnext:\n',  # tabs only
        "FLOW:\n\tstart:\n",  # a tab, nothing under the step: the new line goes two columns in
        'FLOW:\n  start:\n      RESPOND: "hi"\n',  # spaces, properties deeper than usual
    ],
)
def test_a_line_added_under_a_step_nests_under_it_however_it_is_indented(flow: str) -> None:
    # The parser reads a tab as reaching column 8; a line indented by counting characters (one
    # for the tab) would land outside the step and make the file unreadable.
    project = _project({"/a.agent.abl": 'AGENT: A\nGOAL: "g"\n' + flow})
    fix_project(project, ["/a.agent.abl"], lambda p: _reported(project, p), unsafe=True)
    left = _codes(project)
    assert not left, f"{dict(left)}\n{project.texts['/a.agent.abl']}"
    flow = project.documents["/a.agent.abl"].agents[0].flow
    assert flow is not None and flow.written
    assert all(step.declares_reasoning and step.reasoning is not None for step in flow.written)
    assert {step.reasoning.text for step in flow.written if step.reasoning is not None} == {"false"}
