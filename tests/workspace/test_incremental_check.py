"""Editing a file keeps the agents it did not touch, and checking after the edit (with rule results
kept between checks) reports exactly what checking from scratch reports."""

from __future__ import annotations

import dataclasses
import enum
import gc
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abl.checks import layout
from abl.checks.cache import CheckCache
from abl.checks.context import AGENT_RULES, BLOCK_RULES, DOCUMENT_RULES
from abl.checks.engine import CheckOptions, check_project
from abl.model import lower
from abl.model.incremental import blocks_of, relower
from abl.model.movable import is_filled
from abl.syntax import parse
from abl.syntax.cst import Anchor, Node
from abl.syntax.incremental import reparse
from abl.workspace import Project
from fixture import parse_fixture

TESTS = Path(__file__).resolve().parents[1]
EXAMPLES = TESTS.parents[1] / "shared" / "spec" / "examples"
STRICT = CheckOptions(strict_rules=True)


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "replace")


def _projects() -> list[dict[str, str]]:
    """Real multi-agent projects: the shared examples, the check fixtures, the sample projects."""
    out: list[dict[str, str]] = []
    if EXAMPLES.is_dir():
        out.extend({f"/ex/{p.name}": _read(p)} for p in sorted(EXAMPLES.glob("*.abl")))
    out.extend(parse_fixture(_read(p)).files for p in sorted((TESTS / "checks" / "cases").glob("*.abl")))
    for folder in ("runtime/projects/loan", "runtime/projects/retail", "cli/projects/bank"):
        root = TESTS / folder
        files = {f"/{folder}/{p.relative_to(root)}": _read(p) for p in sorted(root.rglob("*.abl"))}
        if files:
            out.append(files)
    return out


PROJECTS = _projects()
SINGLE_FILES = [text for project in PROJECTS for text in project.values()]

PIECES = st.sampled_from(
    [
        "x",
        " ",
        "  ",
        "\t",
        "- ",
        ":",
        ": ",
        "#",
        '"',
        "[",
        "]",
        "{",
        "}",
        "|\n",
        "\n",
        "\r\n",
        "_2",
        "AGENT: Extra\nGOAL: g\n",
        "  - TO: Extra\n",
        "    PASS: [order_id]\n",
        "# comment\n",
        "COMPLETE:\n  - WHEN: done IS SET\n",
        "  WHEN: a == 1\n",
        "HANDOFF:\n",
        "RETURN: true\n",
    ]
)


def _edit(data: st.DataObject, text: str) -> str:
    action = data.draw(st.sampled_from(["insert", "delete", "replace", "insert line", "delete line"]))
    at = data.draw(st.integers(0, len(text)))
    if action == "insert":
        return text[:at] + data.draw(PIECES) + text[at:]
    if action == "delete":
        return text[:at] + text[at + data.draw(st.integers(1, 10)) :]
    if action == "replace":
        return text[:at] + data.draw(PIECES) + text[at + data.draw(st.integers(1, 5)) :]
    lines = text.splitlines(keepends=True)
    if not lines:
        return data.draw(PIECES)
    i = data.draw(st.integers(0, len(lines) - 1))
    if action == "insert line":
        lines.insert(i, data.draw(PIECES) + "\n")
    else:
        del lines[i]
    return "".join(lines)


# --- comparing models built in different ways ------------------------------------------------


def plain(value: object, depth: int = 0) -> object:
    """A value-only picture of a model object: nodes become their kind and place."""
    if isinstance(value, Node):
        return ("node", value.kind, value.row, value.start, value.end)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if depth > 40:
            return type(value).__name__
        return (
            type(value).__name__,
            *tuple(
                (f.name, plain(getattr(value, f.name), depth + 1))
                for f in dataclasses.fields(value)
                if f.name != "source" and f.compare  # not the links an edit leaves for later layers
            ),
        )
    if isinstance(value, (list, tuple)):
        return tuple(plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return tuple((k, plain(v, depth + 1)) for k, v in value.items())
    if isinstance(value, (str, int, float, bool, type(None), enum.Enum)):
        return value
    return repr(value)


# --- relowering ---------------------------------------------------------------------------

THREE = """\
AGENT: Triage
GOAL: "Find out what the customer needs"
HANDOFF:
  - TO: Billing
    WHEN: topic == "billing"
    PASS: [order_id]
    HISTORY: full
    ON_FAILURE: CONTINUE

AGENT: Billing
GOAL: "Sort out invoices"
GATHER:
  order_id:
    PROMPT: "Order number?"

AGENT: Refunds
GOAL: "Refund orders"
"""


def test_an_edit_inside_one_agent_keeps_the_other_agents() -> None:
    project = Project("/p")
    project.update("/p/a.abl", THREE)
    before = {a.name.text: a for a in project.documents["/p/a.abl"].agents}
    changes = project.edit("/p/a.abl", THREE.replace("Sort out invoices", "Sort out all invoices"))
    after = {a.name.text: a for a in project.documents["/p/a.abl"].agents}
    assert after["Triage"] is before["Triage"] and after["Refunds"] is before["Refunds"]
    assert after["Billing"] is not before["Billing"]
    assert [a.name.text for a in changes.changed] == ["Billing"]
    assert changes.removed == (before["Billing"],)
    assert project.last_edit is changes
    assert after["Billing"].goal is not None and after["Billing"].goal.text == "Sort out all invoices"


def test_agents_below_an_inserted_line_are_read_again_for_their_new_rows() -> None:
    project = Project("/p")
    project.update("/p/a.abl", THREE)
    before = {a.name.text: a for a in project.documents["/p/a.abl"].agents}
    text = THREE.replace("AGENT: Billing", "# billing\nAGENT: Billing")
    changes = project.edit("/p/a.abl", text)
    assert {a.name.text for a in changes.changed} == {"Billing", "Refunds"}
    assert project.agent("Triage") is before["Triage"]
    assert project.agent("Refunds").name.range.start.line == before["Refunds"].name.range.start.line + 1
    assert plain(project.documents["/p/a.abl"].agents) == plain(lower(parse(text), "/p/a.abl").agents)


def test_the_same_text_changes_nothing() -> None:
    project = Project("/p")
    project.update("/p/a.abl", THREE)
    doc = project.documents["/p/a.abl"]
    changes = project.edit("/p/a.abl", THREE)
    assert changes.changed == () and changes.removed == ()
    assert project.documents["/p/a.abl"] is doc


def test_a_new_file_counts_all_its_agents_as_changed() -> None:
    project = Project("/p")
    changes = project.edit("/p/new.abl", THREE)
    assert [a.name.text for a in changes.changed] == ["Triage", "Billing", "Refunds"]


def test_column_zero_flow_steps_stay_with_their_agents() -> None:
    text = (
        "AGENT: A\nGOAL: a\nFLOW:\n  steps: [ask]\nask:\n  SAY: hi\n"
        "AGENT: B\nGOAL: b\nFLOW:\n  steps: [greet]\ngreet:\n  SAY: hello\n"
    )
    old = lower(parse(text), "/f.abl")
    edited = text.replace("GOAL: b", "GOAL: bb")
    new = relower(old, reparse(old.source, edited))
    assert new.agents[0] is old.agents[0] and new.agents[1] is not old.agents[1]
    assert plain(new) == plain(lower(parse(edited), "/f.abl"))
    assert [(agent.name.text, node.key) for agent, node in new.column_zero_steps] == [("A", "ask"), ("B", "greet")]


def test_a_new_line_typed_in_a_section_moves_the_agents_below_without_grouping_the_file_again() -> None:
    text = (
        "AGENT: A\nGOAL: a\nPERSONA: p\n"
        "AGENT: B\nGOAL: b\nFLOW:\n  steps: [greet]\ngreet:\n  SAY: hello\n"
        "AGENT: C\nGOAL: c\nHANDOFF:\n  - TO: B\n    WHEN: x IS SET\n"
    )
    for edited, block in ((text.replace("GOAL: a\n", "GOAL: a\n\n"), 1), (text.replace("p\n", "|\n  p\n  q\n", 1), 2)):
        old = lower(parse(text), "/f.abl")  # a reparse gives up the tree it starts from
        source = reparse(old.source, edited)
        assert source.rows_moved and source.edited_block == block  # the keystroke path, rows moved
        new = relower(old, source)
        assert new.edited_agent == 0 and new.agents[0] is not old.agents[0]
        # B and C only moved: copies of the agents they were, not read again from their blocks.
        for copy, was in zip(new.agents[1:], old.agents[1:], strict=True):
            assert copy.header is was.header and not is_filled(copy)
        assert plain(new) == plain(lower(parse(edited), "/f.abl"))
        assert [(a, n.key) for a, n in new.column_zero_steps] == [(new.agents[1], "greet")]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(SINGLE_FILES), st.data())
def test_relowered_documents_equal_fresh_ones(seed: str, data: st.DataObject) -> None:
    doc = lower(parse(seed), "/f.abl")
    text = seed
    for _ in range(data.draw(st.integers(1, 3))):
        text = _edit(data, text)
        previous = {id(a): a for a in doc.agents}
        doc = relower(doc, reparse(doc.source, text))
        fresh = lower(parse(text), "/f.abl")
        assert plain(doc) == plain(fresh)
        # A carried agent is only ever one whose sections are the very same, unmoved nodes.
        moved = {id(b.node) for b in doc.source.blocks if b.row_shift}
        for agent in doc.agents:
            if id(agent) in previous:
                assert not any(id(n) in moved for n in agent.sections)


def _placed(blocks: object) -> list[tuple]:
    return [(id(b.node), b.placement, id(b.agent), b.document, b.match) for b in blocks]  # type: ignore[attr-defined]


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(SINGLE_FILES), st.data())
def test_kept_block_layout_equals_a_fresh_one(seed: str, data: st.DataObject) -> None:
    doc = lower(parse(seed), "/f.abl")
    text = seed
    list(layout.blocks(doc))
    for _ in range(data.draw(st.integers(1, 4))):
        text = _edit(data, text)
        doc = relower(doc, reparse(doc.source, text))
        assert _placed(layout.blocks(doc)) == _placed(layout._blocks(doc))


def _notable(doc: object) -> list[tuple[int | None, int]]:
    return [(id(p.node) if p else None, id(b.node)) for p, b in layout.notable_blocks(doc)]  # type: ignore[arg-type]


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(SINGLE_FILES), st.data())
def test_kept_notable_blocks_equal_fresh_ones(seed: str, data: st.DataObject) -> None:
    # The blocks the document rules look at, carried from edit to edit, are those a walk of the
    # whole file finds (stray sections, column-0 steps, removed keys, repeated sections).
    doc = lower(parse(seed), "/f.abl")
    text = seed
    _notable(doc)
    for _ in range(data.draw(st.integers(1, 4))):
        text = _edit(data, text)
        doc = relower(doc, reparse(doc.source, text))
        kept = _notable(doc)
        placed = layout._placed(doc)
        fresh = layout._notable_between(placed, 0, len(placed))
        assert kept == [(id(placed[i - 1].node) if i else None, id(placed[i].node)) for i in fresh]


def test_a_keystroke_looks_for_notable_blocks_in_the_edited_agent_only(monkeypatch) -> None:
    text = "AGENT: A\nGOAL: a\nGOAL: b\n\nAGENT: B\nGOAL: b\nPERSONA: p\n\nAGENT: C\nGOAL: c\nGOAL: d\n"
    doc = lower(parse(text), "/f.abl")
    assert [b.node.row for _, b in layout.notable_blocks(doc)] == [1, 2, 9, 10]  # the repeated GOALs
    walked: list[tuple[int, int]] = []
    walk = layout._notable_between
    monkeypatch.setattr(layout, "_notable_between", lambda placed, a, b: walked.append((a, b)) or walk(placed, a, b))
    doc = relower(doc, reparse(doc.source, text.replace("GOAL: b\nPERSONA", "GOAL: b\n\nPERSONA")))
    assert [b.node.row for _, b in layout.notable_blocks(doc)] == [1, 2, 10, 11]  # C's moved a row
    assert walked == [(3, 6)]  # agent B's blocks, not the whole file


def test_agents_a_new_line_moved_are_copies_with_moved_positions() -> None:
    text = "AGENT: A\nGOAL: a\n\nAGENT: B\nGOAL: b\nHANDOFF:\n  - TO: A\n    WHEN: x IS SET\n    RETURN: true\n"
    doc = lower(parse(text), "/f.abl")
    edited = text.replace("GOAL: a\n", "GOAL: a\n# a note\n")
    new = relower(doc, reparse(doc.source, edited))
    assert new.agents[1] is not doc.agents[1] and new.agents[1].header is doc.agents[1].header
    assert new.agents[1].handoffs[0].target.range.start.line == doc.agents[1].handoffs[0].target.range.start.line + 1
    assert plain(new) == plain(lower(parse(edited), "/f.abl"))


def test_a_keystroke_places_only_the_edited_agents_blocks_again() -> None:
    text = "AGENT: A\nGOAL: a\nPERSONA: p\n\nAGENT: B\nGOAL: b\nPERSONA: q\n"
    doc = lower(parse(text), "/f.abl")
    before = list(layout.blocks(doc))
    doc = relower(doc, reparse(doc.source, text.replace("GOAL: b", "GOAL: bb")))
    after = list(layout.blocks(doc))
    assert doc.edited_agent == 1
    assert all(x is y for x, y in zip(before[:3], after[:3], strict=True))  # agent A's, carried
    assert all(b.agent is doc.agents[1] for b in after[3:])
    assert _placed(after) == _placed(layout._blocks(doc))


def test_a_new_line_places_the_agents_below_as_they_were_with_their_moved_copies(monkeypatch) -> None:
    text = "AGENT: A\nGOAL: a\n\nAGENT: B\nGOAL: b\nPERSONA: p\n\nAGENT: C\nGOAL: c\nHANDOFF:\n  - TO: A\n"
    doc = lower(parse(text), "/f.abl")
    before = list(layout.blocks(doc))
    doc = relower(doc, reparse(doc.source, text.replace("GOAL: b\n", "GOAL: b\n\n")))
    assert doc.edited_agent == 1 and doc.source.rows_moved
    with monkeypatch.context() as patched:
        patched.setattr(layout, "_blocks", lambda doc: pytest.fail("the whole file was placed again"))
        after = list(layout.blocks(doc))
    assert all(x is y for x, y in zip(before[:2], after[:2], strict=True))  # agent A's, above the edit
    assert [b.agent for b in after[5:]] == [doc.agents[2]] * 3  # agent C's, with its moved copy
    assert all(x is y for x, y in zip(before[5:], after[5:], strict=True))  # the very blocks
    assert _placed(after) == _placed(layout._blocks(doc))


# --- checking -----------------------------------------------------------------------------


def _fresh_check(files: dict[str, str]) -> dict:
    project = Project("/p")
    for path, text in files.items():
        project.update(path, text)
    return check_project(project, STRICT)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], deadline=None)
@given(st.sampled_from(PROJECTS), st.data())
def test_checks_after_edits_equal_checks_from_scratch(files: dict[str, str], data: st.DataObject) -> None:
    project = Project("/p")
    for path, text in files.items():
        project.update(path, text)
    cache = CheckCache()
    assert check_project(project, STRICT, cache) == _fresh_check(files)
    current = dict(files)
    for _ in range(data.draw(st.integers(1, 4))):
        path = data.draw(st.sampled_from(sorted(current)))
        current[path] = _edit(data, current[path])
        project.edit(path, current[path])
        assert check_project(project, STRICT, cache) == _fresh_check(current)


def _many_agents(count: int, field: str = "", route: str = "", between: str = "\n") -> str:
    """`count` agents in a ring of returnable routes, each mapping a field the next one lacks;
    `field` and `route` are lines added to each agent's field and route."""
    return (
        between.join(
            f'AGENT: Agent_{i}\nGOAL: "Help {i}"\nGATHER:\n  order_id:\n{field}    PROMPT: "Order?"\n'
            f"HANDOFF:\n  - TO: Agent_{(i + 1) % count}\n    WHEN: order_id IS SET\n{route}    RETURN: true\n"
            f"    ON_RETURN:\n      MAP:\n        nope: order_id\n"
            for i in range(count)
        )
        + between
    )


def test_agents_moved_by_a_new_line_keep_their_findings_moved() -> None:
    # A line typed above them moves every agent below without changing one: their rules' findings
    # are taken over a row lower instead of being worked out again.
    text = _many_agents(30)
    project = Project("/p")
    project.update("/p/a.abl", text)
    cache = CheckCache()
    check_project(project, STRICT, cache)
    moved = text.replace('GOAL: "Help 0"\n', 'GOAL: "Help 0"\n# a note\n', 1)
    project.edit("/p/a.abl", moved)
    assert check_project(project, STRICT, cache) == _fresh_check({"/p/a.abl": moved})
    agent_runs = [run for run in cache.runs if run.agent is not None]
    assert len(agent_runs) < len(AGENT_RULES) * 30 // 4, f"{len(agent_runs)} agent rules ran again"
    # Only a finding that points into another agent (the child's declaration, as related
    # information) is worked out again for the agents that only moved.
    again = {run.codes for run in agent_runs if run.agent != "Agent_0"}
    assert again <= {"UNKNOWN_HANDOFF_RETURN_FIELD,MAP_DIRECTION_REVERSED"}


def test_block_findings_below_a_new_line_move_without_their_rules_running_again() -> None:
    # `persona:` is written in lowercase in every agent: a block rule's finding on each. Enter at
    # the end of the first agent's GOAL moves them all a row down, and back.
    text = _many_agents(12).replace('GOAL: "Help', 'persona: "p"\nGOAL: "Help')
    project = Project("/p")
    project.update("/p/a.abl", text)
    cache = CheckCache()
    first = check_project(project, STRICT, cache)["/p/a.abl"]
    assert sum(d.code == "SECTION_KEYWORD_CASE" for d in first) == 12
    block_rules = {codes for codes, _ in BLOCK_RULES}
    for now in (text.replace('GOAL: "Help 0"\n', 'GOAL: "Help 0"\n\n', 1), text):
        project.edit("/p/a.abl", now)
        assert check_project(project, STRICT, cache) == _fresh_check({"/p/a.abl": now})
        assert not [run for run in cache.runs if run.codes in block_rules]


def test_findings_whose_fix_inserts_after_their_agent_move_without_their_rules_running_again() -> None:
    # Each agent's last lines are its return map, and the fixes of `RETURN_VALUE_NOT_MAPPED`
    # and `HISTORY_NOT_SET` insert lines after them: at the start of the row after the agent,
    # which moves with it. A new line in the first agent moves the others without re-running them.
    text = (
        _many_agents(12)
        .replace("WHEN: order_id IS SET", "WHEN: order_id IS SET AND amount > 0")
        .replace("  order_id:\n", '  order_id:\n    PROMPT: "Which?"\n  amount:\n')
    )
    project = Project("/p")
    project.update("/p/a.abl", text)
    cache = CheckCache()
    first = check_project(project, STRICT, cache)["/p/a.abl"]
    assert sum(d.code == "RETURN_VALUE_NOT_MAPPED" for d in first) == 12
    assert sum(d.code == "HISTORY_NOT_SET" for d in first) == 12
    for now in (text.replace('GOAL: "Help 0"\n', 'GOAL: "Help 0"\n\n', 1), text):
        project.edit("/p/a.abl", now)
        assert check_project(project, STRICT, cache) == _fresh_check({"/p/a.abl": now})
        again = {(run.agent, run.codes) for run in cache.runs}
        for codes in ("RETURN_VALUE_NOT_MAPPED", "HISTORY_NOT_SET"):
            assert {agent for agent, ran in again if ran == codes} <= {"Agent_0"}


def test_a_keystroke_looks_at_the_blocks_of_the_edited_agent_only(monkeypatch) -> None:
    # The other blocks are the very objects they were (`layout`): their kept findings are taken
    # over, moved with their rows, without a look at each of the file's blocks.
    text = _many_agents(12).replace('GOAL: "Help', 'persona: "p"\nGOAL: "Help')
    project, cache = _checked(text)
    looked: list[str] = []
    real = CheckCache._block
    monkeypatch.setattr(
        CheckCache,
        "_block",
        lambda self, p, d, block, *rest: looked.append(block.agent.name.text) or real(self, p, d, block, *rest),
    )
    for now in (text.replace('GOAL: "Help 3"\n', 'GOAL: "Help 3"\n\n', 1), text, text.replace('"Help 5"', '"Help 55"')):
        looked.clear()
        project.edit("/p/a.abl", now)
        assert check_project(project, STRICT, cache) == _fresh_check({"/p/a.abl": now})
        assert looked and set(looked) == {"Agent_5" if "55" in now else "Agent_3"}


def _agents_with_findings_in_two_sections(count: int) -> str:
    return _many_agents(count, field="    TYPE: strnig\n", route="    HISTORY: everything\n", between="")


@pytest.mark.parametrize(
    ("after", "inserted"),
    [
        ('GOAL: "Help 4"\n', "\n"),  # Enter at the end of a section's line
        ('GOAL: "Help 4"\n', "   \n\n"),
        ('    PROMPT: "Order?"\nHANDOFF:\n  - TO: Agent_5', "# routes\n"),  # a comment leads the next section
    ],
)
def test_lines_added_between_an_agents_sections_move_its_findings_section_by_section(after: str, inserted: str) -> None:
    # The sections above the new lines stay, those below move: each finding moves with the
    # section it lies in, and the agent's rules are not run again. (A finding that also points
    # into another agent is the only kind run again, as it is for an agent moved whole.)
    text = _agents_with_findings_in_two_sections(12)
    project = Project("/p")
    project.update("/p/a.abl", text)
    cache = CheckCache()
    check_project(project, STRICT, cache)
    at = text.index(after) + (len(after) if after.startswith("GOAL") else len('    PROMPT: "Order?"\n'))
    edited = text[:at] + inserted + text[at:]
    for now in (edited, text):  # the lines typed, then taken away again
        project.edit("/p/a.abl", now)
        assert check_project(project, STRICT, cache) == _fresh_check({"/p/a.abl": now})
        again = {run.codes for run in cache.runs if run.agent is not None}
        assert again <= {"UNKNOWN_HANDOFF_RETURN_FIELD,MAP_DIRECTION_REVERSED"}, again


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], deadline=None)
@given(st.sampled_from(PROJECTS), st.data())
def test_blank_and_comment_lines_typed_anywhere_check_as_from_scratch(
    files: dict[str, str], data: st.DataObject
) -> None:
    # Enter pressed at the end of any line, blank lines taken away, comment lines added: the
    # edits that move sections of one agent by different numbers of rows.
    project = Project("/p")
    for path, text in files.items():
        project.update(path, text)
    cache = CheckCache()
    check_project(project, STRICT, cache)
    current = dict(files)
    for _ in range(data.draw(st.integers(1, 5))):
        path = data.draw(st.sampled_from(sorted(current)))
        lines = current[path].splitlines(keepends=True) or [""]
        i = data.draw(st.integers(0, len(lines) - 1))
        kind = data.draw(st.sampled_from(["enter", "blank", "comment", "take away"]))
        if kind == "take away":
            if lines[i].strip() == "":
                del lines[i]
        elif kind == "enter":
            body = lines[i].rstrip("\r\n")
            lines[i] = body + "\n" + lines[i][len(body) :] if lines[i] != body else body + "\n"
        else:
            lines.insert(i, "\n" if kind == "blank" else "# note\n")
        current[path] = "".join(lines)
        project.edit(path, current[path])
        assert check_project(project, STRICT, cache) == _fresh_check(current)


def test_a_first_line_that_starts_ending_in_crlf_changes_the_line_ends_of_moved_fixes() -> None:
    # Fixes write the line end of the file's first line. Once a `\r\n` was further down, "the
    # file has a `\r\n`" held before and after a `\r\n` typed at the top, and the agents it
    # moved kept fixes ending in `\n` (found by the test above).
    (text,) = parse_fixture(_read(TESTS / "checks" / "cases" / "HISTORY_NOT_SET.fires.abl")).files.values()
    project = Project("/p")
    project.update("/p/a.abl", text)
    cache = CheckCache()
    check_project(project, STRICT, cache)
    lines = text.splitlines(keepends=True)
    lines.insert(1, "\r\n\n")
    for edited in ("".join(lines), "\r\n" + "".join(lines)):
        project.edit("/p/a.abl", edited)
        assert check_project(project, STRICT, cache) == _fresh_check({"/p/a.abl": edited})


def _three_files() -> Project:
    project = Project("/p")
    project.update("/p/triage.abl", THREE.split("\nAGENT: Billing")[0])
    project.update("/p/billing.abl", "AGENT: Billing" + THREE.split("\nAGENT: Billing")[1].split("\nAGENT: Refunds")[0])
    project.update("/p/refunds.abl", "AGENT: Refunds" + THREE.split("\nAGENT: Refunds")[1])
    return project


def test_only_rules_that_consult_a_changed_agent_run_again() -> None:
    project = _three_files()
    cache = CheckCache()
    check_project(project, STRICT, cache)
    blocks_in_files = sum(len(doc.source.nodes) for doc in project.documents.values())
    expected = 3 * len(DOCUMENT_RULES) + blocks_in_files * len(BLOCK_RULES) + 3 * len(AGENT_RULES)
    assert len(cache.runs) == expected and cache.reused == 0

    edited = project.texts["/p/billing.abl"].replace("Sort out invoices", "Sort out every invoice")
    project.edit("/p/billing.abl", edited)
    check_project(project, STRICT, cache)
    ran = {(r.path, r.agent, r.codes) for r in cache.runs}
    all_agent_rules = {codes for codes, _ in AGENT_RULES}
    # The edited agent and the edited file's document rules all ran again.
    assert {c for p, a, c in ran if a == "Billing"} == all_agent_rules
    block_codes = {c for c, _ in BLOCK_RULES}
    assert {c for p, a, c in ran if p == "/p/billing.abl" and a is None} == {c for c, _ in DOCUMENT_RULES} | block_codes
    # Block rules walked the edited block only (GOAL), not the file's other blocks.
    assert sum(1 for r in cache.runs if r.codes in block_codes) == len(BLOCK_RULES)
    # Elsewhere, only rules that consulted every agent (or Billing itself) ran, and not all of them.
    for path, name in (("/p/triage.abl", "Triage"), ("/p/refunds.abl", "Refunds")):
        again = {c for p, a, c in ran if a == name}
        assert again < all_agent_rules
        assert again == _consulting(cache, path, name, "Billing")
    assert cache.reused > 0
    assert check_project(project, STRICT, cache) == _fresh_check(project.texts)


def _consulting(cache: CheckCache, path: str, name: str, changed: str) -> set[str]:
    """Rules of agent `name` whose stored reads involve every agent, any document, or agent
    `changed` (the list of names did not change)."""
    entry = cache._files[path]
    agent = next(e.agent for e in entry.agent_results.values() if e.agent.name.text == name)
    results = entry.agent_results[id(agent)].results
    codes = {rule: c for c, rule in AGENT_RULES}
    return {
        codes[rule]
        for rule, res in results.items()
        if res.reads.roster or res.reads.documents or changed in res.reads.agents
    }


def test_an_edit_outside_any_agent_runs_no_rule_of_other_files() -> None:
    project = _three_files()
    cache = CheckCache()
    check_project(project, STRICT, cache)
    billing = project.agent("Billing")
    changes = project.edit("/p/billing.abl", project.texts["/p/billing.abl"] + "# a note at the end\n")
    assert changes.changed == () and project.agent("Billing") is billing
    check_project(project, STRICT, cache)
    assert {r.path for r in cache.runs} <= {"/p/billing.abl"}
    # Billing's rules that read only Billing itself (and its own lines) were not run again.
    again = {r.codes for r in cache.runs if r.agent == "Billing"}
    assert again < {codes for codes, _ in AGENT_RULES}
    assert "MISSING_GOAL" in {codes for codes, _ in AGENT_RULES} and "MISSING_GOAL" not in again
    assert check_project(project, STRICT, cache) == _fresh_check(project.texts)


def test_names_appearing_rerun_the_rules_that_looked_them_up() -> None:
    project = Project("/p")
    project.update("/p/triage.abl", THREE.split("\nAGENT: Billing")[0])
    cache = CheckCache()
    first = check_project(project, STRICT, cache)
    assert any(d.code == "INVALID_HANDOFF_TARGET" for d in first["/p/triage.abl"])
    project.edit("/p/billing.abl", "AGENT: Billing\nGOAL: bills\n")
    second = check_project(project, STRICT, cache)
    assert not any(d.code == "INVALID_HANDOFF_TARGET" for d in second["/p/triage.abl"])
    assert second == _fresh_check(project.texts)


def test_a_rule_that_fails_is_run_and_reported_again() -> None:
    calls: list[str] = []

    def broken(check, agent) -> None:
        calls.append(agent.name.text)
        raise RuntimeError("boom")

    AGENT_RULES.append(("MISSING_GOAL", broken))
    try:
        project = _three_files()
        cache = CheckCache()
        check_project(project, CheckOptions(), cache)
        check_project(project, CheckOptions(), cache)
    finally:
        AGENT_RULES.remove(("MISSING_GOAL", broken))
    assert sorted(calls) == sorted(["Triage", "Billing", "Refunds"] * 2)


def test_a_caller_passing_a_new_field_rechecks_the_agent_it_calls() -> None:
    """The callee did not change, but what it may read did: its rules that consult callers run again."""
    project = Project("/p")
    project.update("/p/triage.abl", THREE.split("\nAGENT: Billing")[0])
    project.update(
        "/p/billing.abl",
        'AGENT: Billing\nGOAL: bills\nCOMPLETE:\n  - WHEN: customer_tier == "gold"\n    RESPOND: "done"\n',
    )
    cache = CheckCache()
    first = check_project(project, STRICT, cache)
    assert any(d.code == "UNDEFINED_CONDITION_VAR" for d in first["/p/billing.abl"])
    billing = project.agent("Billing")
    project.edit(
        "/p/triage.abl", project.texts["/p/triage.abl"].replace("PASS: [order_id]", "PASS: [order_id, customer_tier]")
    )
    second = check_project(project, STRICT, cache)
    assert project.agent("Billing") is billing
    assert not any(d.code == "UNDEFINED_CONDITION_VAR" for d in second["/p/billing.abl"])
    assert second == _fresh_check(project.texts)


def test_a_file_no_edit_reached_is_answered_whole() -> None:
    project = _three_files()
    cache = CheckCache()
    check_project(project, STRICT, cache)
    edited = project.texts["/p/billing.abl"].replace("Sort out invoices", "Sort out every invoice")
    project.edit("/p/billing.abl", edited)
    check_project(project, STRICT, cache)
    # No rule of another file ran, not even the document rules that look across the project.
    assert not [r for r in cache.runs if r.path != "/p/billing.abl" and r.agent is None]
    assert check_project(project, STRICT, cache) == _fresh_check(project.texts)


def test_a_namesake_that_moves_updates_the_duplicate_name_report() -> None:
    project = Project("/p")
    project.update("/p/a.abl", "AGENT: Billing\nGOAL: bills\n")
    project.update("/p/b.abl", "AGENT: Billing\nGOAL: more bills\n")
    cache = CheckCache()
    first = check_project(project, STRICT, cache)
    assert [d.message for d in first["/p/a.abl"] if d.code == "DUPLICATE_AGENT_NAME"] == [
        "agent name `Billing` is also declared at b.abl:1; names must be unique in the project, so the platform "
        "rejects it"
    ]
    project.edit("/p/b.abl", "# moved down a line\nAGENT: Billing\nGOAL: more bills\n")
    second = check_project(project, STRICT, cache)
    assert any("b.abl:2" in d.message for d in second["/p/a.abl"] if d.code == "DUPLICATE_AGENT_NAME")
    assert second == _fresh_check(project.texts)
    project.edit("/p/b.abl", "# moved down a line\nAGENT: Invoices\nGOAL: more bills\n")
    assert not [d for d in check_project(project, STRICT, cache)["/p/a.abl"] if d.code == "DUPLICATE_AGENT_NAME"]


def test_keystrokes_keep_no_replaced_block_alive() -> None:
    """A block an edit replaced holds the text of its time (a file's worth): nothing kept
    across edits may hold on to it, or typing grows the heap by a file per keystroke."""
    text = "".join(f'AGENT: A{i}\nGOAL: "g{i}"\nPERSONA: p\n\n' for i in range(30))
    project = Project("/p")
    project.update("/p/a.abl", text)
    cache = CheckCache()
    check_project(project, STRICT, cache)

    def anchors_alive() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, Anchor))

    before = anchors_alive()
    for i in range(40):
        text = text.replace(f'"g{i % 30}', f'"g{i % 30}x', 1)
        project.edit("/p/a.abl", text)
        check_project(project, STRICT, cache)
    assert anchors_alive() <= before + 3  # the edited blocks' new anchors replace the old


def test_route_edits_keep_no_replaced_block_alive_in_the_graph() -> None:
    """The graph's ranges are anchored to their blocks: an edge kept for a route block an edit
    read again would keep that block's anchor, and the file's text of its time, alive. So the
    anchors alive after one round of edits over every agent are as many after a second."""
    text = "".join(
        f'AGENT: A{i}\nGOAL: "g{i}"\nHANDOFF:\n  - TO: A{(i + 1) % 30}\n    WHEN: "w{i}"\n    RETURN: true\n\n'
        for i in range(30)
    )
    project, cache = _checked_with_graph(text)
    alive: list[int] = []
    for i in range(120):
        if i % 4 == 3:
            text = text.replace(f'"g{i % 30}"\n', f'"g{i % 30}"\n\n', 1)  # Enter: the routes below move
        else:
            text = text.replace(f'"w{i % 30}', f'"w{i % 30}x', 1)  # a route's block read again
        project.edit("/p/a.abl", text)
        check_project(project, STRICT, cache)
        project.graph()
        if i % 60 == 59:  # each agent edited twice per round, a round of Enter edits among them
            alive.append(_alive(lambda o: isinstance(o, Anchor)))
    assert alive[1] <= alive[0] + 3, alive


def _checked(text: str) -> tuple[Project, CheckCache]:
    """`/p/a.abl` holding `text`, checked once with a cache kept for later checks."""
    project = Project("/p")
    project.update("/p/a.abl", text)
    cache = CheckCache()
    check_project(project, STRICT, cache)
    return project, cache


def _checked_with_graph(text: str) -> tuple[Project, CheckCache]:
    """As `_checked`, its graph built too."""
    project, cache = _checked(text)
    project.graph()
    return project, cache


def _alive(counted: Callable[[object], bool]) -> int:
    """How many objects the test counts are alive once the collector has run."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if counted(o))


def test_lines_typed_above_agents_keep_no_earlier_copies_alive() -> None:
    """An agent a new line moved is a copy that stands for the agent before it; a copy of a copy
    stands for the first one, and nothing kept across edits may chain the copies of every
    earlier edit (each Enter would keep a copy of every agent below it)."""
    text = _many_agents(30)
    project, cache = _checked_with_graph(text)

    def agents_alive() -> int:
        return _alive(lambda o: type(o).__name__ == "Agent")

    lines = text.split("\n")
    moved = "\n".join([*lines[:2], "", *lines[2:]])
    for i in range(4):
        project.edit("/p/a.abl", moved if i % 2 == 0 else text)
        check_project(project, STRICT, cache)
        project.graph()
    before = agents_alive()
    for i in range(40):
        project.edit("/p/a.abl", moved if i % 2 == 0 else text)
        check_project(project, STRICT, cache)
        project.graph()
    assert agents_alive() <= before + 5


def _by_name(project: Project) -> dict[str, list[tuple[str, str]]]:
    return {
        name: [(ref.document.path, ref.agent.header.value) for ref in refs]
        for name, refs in project.agents_by_name().items()
    }


def test_the_agents_by_name_table_after_edits_equals_a_fresh_one() -> None:
    # The edited file's names are patched into the table; namesakes in other files keep their
    # project order around the edited file's agents.
    files = {
        "/p/a.abl": "AGENT: Shared\nGOAL: a\n\nAGENT: Only_A\nGOAL: a\n",
        "/p/b.abl": "AGENT: Shared\nGOAL: b\n\nAGENT: Only_B\nGOAL: b\n",
        "/p/c.abl": "AGENT: Shared\nGOAL: c\n",
    }
    project = Project("/p")
    for path, text in files.items():
        project.update(path, text)
    project.agents_by_name()
    edits = [
        ("/p/b.abl", "AGENT: Renamed\nGOAL: b\n\nAGENT: Only_B\nGOAL: b\n"),  # a namesake leaves
        ("/p/b.abl", "AGENT: Shared\nGOAL: b\n\nAGENT: Shared\nGOAL: b2\n"),  # and comes back twice
        ("/p/a.abl", "# moved\nAGENT: Shared\nGOAL: a\n"),  # a name goes away
        ("/p/c.abl", "AGENT: Only_A\nGOAL: c\n"),
    ]
    for path, text in edits:
        files[path] = text
        project.edit(path, text)
        fresh = Project("/p")
        for other, body in files.items():
            fresh.update(other, body)
        assert _by_name(project) == _by_name(fresh), text
        assert project.agent_names() == fresh.agent_names()


def _ring_files(files: int, per_file: int, permanent: int) -> dict[str, str]:
    """Agents in a ring over several files, each with a returnable route to the next (but the
    agent at `permanent`) and a permanent one to the seventh after it."""
    count = files * per_file
    texts = {}
    for f in range(files):
        blocks = []
        for i in range(f * per_file, (f + 1) * per_file):
            back = "" if i == permanent else "    RETURN: true\n"
            blocks.append(
                f'AGENT: A{i}\nGOAL: "g"\nHANDOFF:\n  - TO: A{(i + 1) % count}\n    WHEN: n == 0\n{back}'
                f"  - TO: A{(i + 7) % count}\n    WHEN: n == 1\n"
            )
        texts[f"/p/f{f}.abl"] = "\n".join(blocks)
    return texts


def test_a_return_toggled_asks_again_only_about_the_agents_whose_graph_facts_changed(monkeypatch) -> None:
    files = _ring_files(20, 10, -1)
    project = Project("/p")
    for path, text in files.items():
        project.update(path, text)
    cache = CheckCache()
    check_project(project, STRICT, cache)
    check_project(project, STRICT, cache)  # every file's findings settled
    asked: list[str] = []
    real = Project.graph_facts
    monkeypatch.setattr(
        Project, "graph_facts", lambda self, name, routes=(): asked.append(name) or real(self, name, routes)
    )
    toggled = _ring_files(20, 10, 105)
    project.edit("/p/f10.abl", toggled["/p/f10.abl"])
    after = check_project(project, STRICT, cache)
    named = set(asked)
    monkeypatch.undo()
    assert after == _fresh_check(toggled)
    # Only the findings of the agents the edit re-read, and of those naming them, are asked again:
    # the graph says no other agent's facts changed.
    assert named and len(named) < 40, sorted(named)


def test_callers_a_new_line_moved_are_not_read_again_for_what_they_hand_over(monkeypatch) -> None:
    # What a caller hands over is names only: its moved copy hands over the same, so no agent
    # is read for it again and no callee's answer is worked out again (the very same sets).
    from abl.workspace import index

    text = _many_agents(6, route="    PASS: [order_id]\n")
    project = Project("/p")
    project.update("/p/a.abl", text)
    names = [f"Agent_{i}" for i in range(6)]
    before = [project.handed_over(name) for name in names]
    assert all(before)
    read: list[str] = []
    real = index._handed_by
    monkeypatch.setattr(index, "_handed_by", lambda agent: read.append(agent.name.text) or real(agent))
    project.edit("/p/a.abl", text.replace('GOAL: "Help 1"\n', 'GOAL: "Help 1"\n\n', 1))
    assert all(now is then for now, then in zip([project.handed_over(name) for name in names], before, strict=True))
    callees = [project.callees_of(agent) for agent in project.all_agent_objects()]
    assert callees == [(f"Agent_{(i + 1) % 6}",) for i in range(6)]
    assert not read
    # A route typed in one agent reads that agent again, and only that one.
    project.edit("/p/a.abl", text.replace("    PASS: [order_id]\n", "    PASS: [order_ref]\n", 1))
    assert project.handed_over("Agent_1") == frozenset({"order_ref"})
    assert read == ["Agent_0"]


def test_agents_a_new_line_only_moved_are_not_asked_about_again(monkeypatch) -> None:
    # Every agent below the new line is read from the blocks of the one it replaces, in the
    # same order, and the graph says no finding changed: what their rules asked of the project
    # is known to read the same, without asking.
    text = _many_agents(30)
    project, cache = _checked(text)
    asked: list[object] = []
    real = CheckCache._same_answers
    monkeypatch.setattr(
        CheckCache, "_same_answers", staticmethod(lambda reads, p: asked.append(reads) or real(reads, p))
    )
    moved = text.replace('GOAL: "Help 1"\n', 'GOAL: "Help 1"\n\n', 1)
    project.edit("/p/a.abl", moved)
    assert check_project(project, STRICT, cache) == _fresh_check({"/p/a.abl": moved})
    assert not asked
    # An edit inside an agent asks again about what read it.
    edited = moved.replace("nope: order_id", "nope: order_ref", 1)
    project.edit("/p/a.abl", edited)
    assert check_project(project, STRICT, cache) == _fresh_check({"/p/a.abl": edited})


def test_two_agents_of_one_name_that_swap_places_are_asked_about_again() -> None:
    # The same blocks, moved: but `agent("Billing")` now finds the other one, whose fields
    # decide whether Triage's `MAP` names a field Billing has.
    # (Headers of different text, so that each block keeps its node as it moves.)
    first = 'AGENT: Billing  # one\nGOAL: "Bill"\nGATHER:\n  order_id:\n    PROMPT: "Order?"\n'
    second = 'AGENT: Billing  # two\nGOAL: "Bill again"\n'
    triage = (
        'AGENT: Triage\nGOAL: "Route"\nHANDOFF:\n  - TO: Billing\n    WHEN: order_id IS SET\n'
        "    RETURN: true\n    ON_RETURN:\n      MAP:\n        order_id: order_id\n"
    )
    text = triage + "\n" + first + "\n" + second + "\n"
    swapped = triage + "\n" + second + "\n" + first + "\n"
    project = Project("/p")
    project.update("/p/a.abl", text)
    cache = CheckCache()
    assert check_project(project, STRICT, cache) == _fresh_check({"/p/a.abl": text})
    before = {blocks_of(a) for a in project.documents["/p/a.abl"].agents}
    project.edit("/p/a.abl", swapped)
    assert {blocks_of(a) for a in project.documents["/p/a.abl"].agents} == before  # only moved
    assert check_project(project, STRICT, cache) == _fresh_check({"/p/a.abl": swapped})
    project.edit("/p/a.abl", text)
    assert check_project(project, STRICT, cache) == _fresh_check({"/p/a.abl": text})


def test_results_that_read_their_own_document_keep_no_earlier_document_alive() -> None:
    """A rule that reads its file beyond its agent's lines (the fix of INVALID_AGENT_NAME renames
    every route to the agent in the file) keeps the document in its result: lines typed above
    the agent and keystrokes in others must leave only the current one (and the one its
    keystroke path reads from) alive: a result left behind by a moved agent would keep its
    file's text of that time."""
    text = "".join(
        f'AGENT: A-{i}\nGOAL: "Help {i}"\nHANDOFF:\n  - TO: A-{(i + 1) % 30}\n    WHEN: x IS SET\n' for i in range(30)
    )
    project = Project("/p")
    project.update("/p/a.abl", text)
    project.update("/p/b.abl", 'AGENT: Z\nGOAL: "z"\n')
    cache = CheckCache()
    check_project(project, STRICT, cache)
    entries = cache._files["/p/a.abl"].agent_results.values()
    reads = any(r.reads.own_document for e in entries for r in e.results.values())
    assert reads, "the scenario needs a rule that reads its document"
    del entries

    def documents_alive() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if type(o).__name__ == "Document")

    before = documents_alive()
    lines = text.split("\n")
    for i in range(30):
        if i % 3 == 0:
            lines.insert(2, "")
        elif i % 3 == 1:
            del lines[2]
        else:
            row = next(r for r in range((i * 7) % len(lines), len(lines)) if lines[r].startswith("GOAL"))
            lines[row] = lines[row].replace("Help", "Help x", 1)
        project.edit("/p/a.abl", "\n".join(lines))
        check_project(project, STRICT, cache)
        project.graph()
    assert documents_alive() <= before + 1


def test_a_moved_finding_is_the_finding_with_every_range_in_its_file_moved() -> None:
    """`moved_diagnostic` sets the slots of a diagnostic, a fix and an edit one by one: it must
    set every field each class has (a field added to them without it would be left unset).
    Without a path, no related place moves (the reparse's own findings, whose file it does not
    know); an edit keeps whether it stacks."""
    from dataclasses import fields, replace

    from abl.diagnostics import Diagnostic, Fix, Severity, TextEdit, moved_diagnostic
    from abl.text import Position, Range

    assert [f.name for f in fields(Diagnostic)] == ["code", "severity", "message", "range", "fixes", "related"]
    assert [f.name for f in fields(Fix)] == ["title", "edits", "safe"]
    assert [f.name for f in fields(TextEdit)] == ["range", "new_text", "stacks"]

    def at(line: int) -> Range:
        return Range(Position(line, 2), Position(line + 1, 0))

    found = Diagnostic(
        "RETURN_VALUE_NOT_MAPPED",
        Severity.WARNING,
        "m",
        at(3),
        (Fix("t", (TextEdit(at(4), "x", True), TextEdit(at(5), "")), False),),
        (("/p/a.abl", at(6), "here"), ("/p/b.abl", at(6), "there")),
    )
    moved = moved_diagnostic(found, 2, "/p/a.abl")
    assert moved == replace(
        found,
        range=at(5),
        fixes=(Fix("t", (TextEdit(at(6), "x", True), TextEdit(at(7), "")), False),),
        related=(("/p/a.abl", at(8), "here"), ("/p/b.abl", at(6), "there")),
    )
    assert hash(moved) == hash(replace(moved))
    assert moved_diagnostic(found, 2).related == found.related
