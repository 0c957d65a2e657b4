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

from abl.checks.autofix import applicable, fix_project
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
    _assert_no_fix_left(project, unsafe=False)


def _assert_unsafe_fix_settles(files: dict[str, str]) -> None:
    project = _project(files)
    syntax_before = _codes(project)["SYNTAX_ERROR"]
    fix_project(project, sorted(project.documents), lambda p: _reported(project, p), unsafe=True)
    assert _codes(project)["SYNTAX_ERROR"] <= syntax_before
    again = fix_project(project, sorted(project.documents), lambda p: _reported(project, p), unsafe=True)
    assert not again.changed, f"a second --fix --unsafe-fixes changed {again.changed}"
    _assert_no_fix_left(project, unsafe=True)


def _assert_no_fix_left(project: Project, *, unsafe: bool) -> None:
    """What `abl check` still calls fixable after `--fix` is what `--fix` cannot apply: a fix in a
    block the parser could not read. Any other would be a promise the command does not keep."""
    for path in project.documents:
        left = [d.code for d, _ in applicable(project, path, _reported(project, path), unsafe)]
        assert not left, (
            f"{path}: --fix{' --unsafe-fixes' if unsafe else ''} left fixable {left}\n{project.texts[path]}"
        )


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


def test_a_fix_may_write_where_it_deletes() -> None:
    # A block cut and written again at its own place (deeper, under a new key) is one fix whose
    # insertion touches its deletion: taken whole, the insertion first.
    moved = Fix("move", (_edit(0, 1, 3, ""), _edit(0, 1, 1, "[bc]")), True)
    assert apply_fixes("abcd", [moved]) == ("a[bc]d", [0])
    # Another fix's insertion there still waits for the next pass.
    other = Fix("other", (_edit(0, 1, 1, "X"),), True)
    assert apply_fixes("abcd", [moved, other]) == ("a[bc]d", [0])


def test_two_insertions_at_one_place_do_not_both_apply() -> None:
    assert apply_fixes("ab", [Fix("x", (_edit(0, 1, 1, "X"),), True), Fix("y", (_edit(0, 1, 1, "Y"),), True)]) == (
        "aXb",
        [0],
    )


def _pairwise(text: str, fixes: list[Fix]) -> tuple[str, list[int]]:
    """`apply_fixes` as its docstring says, every new edit against every taken one."""
    taken: list[tuple[int, int, str, bool, int, int]] = []
    applied = []
    for number, fix in enumerate(fixes):
        new = [
            (e.range.start.character, e.range.end.character, e.new_text, e.stacks, number, k)
            for k, e in enumerate(fix.edits)
        ]
        new = [s for s in new if s[:3] not in [t[:3] for t in taken]]
        # Against other fixes' edits neither overlap nor touch; among one fix's own, no overlap.
        if any(_overlap_or_touch(a, b) for a in new for b in taken) or any(
            _overlap(a, b) for i, a in enumerate(new) for b in new[i + 1 :]
        ):
            continue
        taken.extend(new)
        applied.append(number)
    # Later edits first; insertions at one place keep the order of their fixes, and of their edits.
    for start, end, new_text, *_ in sorted(taken, key=lambda t: (t[0], t[1], t[4], t[5]), reverse=True):
        text = text[:start] + new_text + text[end:]
    return text, applied


def _overlap(a: tuple, b: tuple) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _overlap_or_touch(a: tuple, b: tuple) -> bool:
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


def _with_tabs(text: str) -> str:
    """Each run of two spaces of indentation written as a tab (a line with an odd number is
    kept): the same nesting, at four times the width."""
    lines = []
    for line in text.split("\n"):
        content = line.lstrip(" ")
        spaces = len(line) - len(content)
        lines.append("\t" * (spaces // 2) + content if spaces % 2 == 0 else line)
    return "\n".join(lines)


def _shape(project: Project) -> list[tuple[str, list[tuple[int, str, str, str]]]]:
    """Every node of every file as (depth, kind, key, value): the structure, whatever the
    indentation it is written with."""

    def nodes(node, depth: int):
        yield depth, node.kind.name, node.key, node.value.strip()
        for child in node.children:
            yield from nodes(child, depth + 1)

    return [
        (path, [n for top in doc.source.nodes for n in nodes(top, 0)])
        for path, doc in sorted(project.documents.items())
    ]


# The fixtures whose lines an indentation of tabs reads as their spaces (list items with keys
# under them need spaces after the dash, so most handoff files have no such reading).
TABBED = {
    name: files
    for name, files in UNITS.items()
    if _shape(_project({p: _with_tabs(t) for p, t in files.items()})) == _shape(_project(files))
}


@pytest.mark.parametrize("name", sorted(TABBED))
def test_fixes_make_the_same_structure_in_a_file_indented_with_tabs(name: str) -> None:
    # A fix that writes new lines must nest them as the lines around them are nested: written
    # with spaces of the width it counted, a line under tabs lands at another depth.
    spaced, tabbed = _project(TABBED[name]), _project({p: _with_tabs(t) for p, t in TABBED[name].items()})
    for project in (spaced, tabbed):
        fix_project(project, sorted(project.documents), lambda p, project=project: _reported(project, p), unsafe=True)
    assert _shape(tabbed) == _shape(spaced), _texts(tabbed, sorted(tabbed.documents))


def test_some_fixtures_read_the_same_with_tabs() -> None:
    assert len(TABBED) > 50, len(TABBED)


TAB_ROUTES = (
    "SUPERVISOR: Hub\n"
    'GOAL: "g"\n'
    "MEMORY:\n\tsession:\n\t\t- a\n"
    "HANDOFF:\n"
    "\t- TO: Child\n\t  WHEN: a IS NOT SET\n\t  RETURN: true\n\t  MAP:\n\t    a: a\n"
    "\t- TO: Child\n\t  WHEN: a IS SET\n\t  RETURN: true\n\t  ON_RETURN:\n\t    action: continue\n\t  MAP:\n\t    a: a\n"
    "\nAGENT: Child\n"
    'GOAL: "c"\n'
    'GATHER:\n\ta:\n\t\tPROMPT: "?"\n\t\tTYPE: string\n'
    'COMPLETE:\n\t- WHEN: a IS SET\n\t  RESPOND: "ok"\n'
)


def test_a_map_moved_under_on_return_lands_there_in_routes_indented_with_tabs() -> None:
    # Two spaces put in front of a tab move a line nowhere (the tab still reaches column 8): the
    # moved `MAP` must be written deeper than `ON_RETURN` as the parser measures it.
    project = _project({"/hub.agent.abl": TAB_ROUTES})
    fix_project(project, ["/hub.agent.abl"], lambda p: _reported(project, p), unsafe=True)
    assert "LEGACY_TOP_LEVEL_MAP" not in _codes(project), project.texts["/hub.agent.abl"]
    routes = project.documents["/hub.agent.abl"].agents[0].handoffs
    assert [[(m.child.text, m.parent.text) for m in r.on_return.map] for r in routes] == [[("a", "a")]] * 2
