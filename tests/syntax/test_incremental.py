"""Reparsing after an edit gives the tree a full parse gives, and keeps untouched blocks' nodes."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abl.syntax import parse
from abl.syntax.cst import AnchoredRange, Node, NodeKind, SourceFile, Trivia
from abl.syntax.dump import dump
from abl.syntax.incremental import block_starts, reparse

HERE = Path(__file__).parent
EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "spec" / "examples"
SEED_PATHS = sorted((HERE / "cases").glob("*.abl")) + (sorted(EXAMPLES.glob("*.abl")) if EXAMPLES.is_dir() else [])
SEEDS = [p.read_bytes().decode("utf-8") for p in SEED_PATHS]

# Characters and lines that change structure: indentation, dashes, colons, quotes, brackets,
# pipes, comments, line ends of every kind, a byte-order mark, tabs.
PIECES = st.sampled_from(
    [
        "x",
        " ",
        "  ",
        "\t",
        "-",
        "- ",
        ":",
        ": ",
        "#",
        " # note",
        '"',
        "'",
        "[",
        "]",
        "{",
        "}",
        ",",
        "|",
        "|\n",
        ">-\n",
        "\n",
        "\r\n",
        "\r",
        "\ufeff",
        "é",
        "AGENT: Extra\n",
        "GOAL: g\n",
        "  - TO: B\n",
        "    WHEN: a == 1 // c\n",
        "  # indented comment\n",
        "# comment\n",
        "\n\n",
        "HANDOFF:\n  - TO: [a,\n",
        "    b]\n",
        "\tkey: v\n",
        "PERSONA: |\n  text\n",
    ]
)


class _Failures(logging.Handler):
    """Reparse falls back to a full parse when it hits a bug; the tests must see such bugs."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


FAILURES = _Failures()
logging.getLogger("abl.syntax.incremental").addHandler(FAILURES)


# --- comparing trees field by field ---------------------------------------------------------


# Every position a node reports (absolute, whatever its anchor), and its other fields.
_FIELDS = (
    "kind",
    "col",
    "key",
    "row",
    "line_start",
    "start",
    "end",
    "key_start",
    "key_end",
    "value_start",
    "value_end",
    "value_end_row",
    "value_end_char",
    "comment_start",
    "pipe_end_row",
)


def _node_fields(node: Node) -> dict[str, object]:
    unset = set()  # fields the scanner never sets for this kind of node
    if node.kind is not NodeKind.ENTRY:
        unset |= {"key_start", "key_end"}
    if node.kind is NodeKind.ITEM:
        unset.add("value_end_row")
    return {name: getattr(node, name) for name in _FIELDS if name not in unset}


def _anchors_hold(source: SourceFile) -> None:
    """Each top-level tree has an anchor of its own, shared by all of its nodes, which knows
    the trivia lines inside the tree."""
    seen: set[int] = set()
    for top in source.nodes:
        anchor = top.anchor
        assert id(anchor) not in seen
        seen.add(id(anchor))
        inside = [t for n in top.walk() if n is not top for t in n.leading]
        assert all(n.anchor is anchor for n in top.walk())
        assert [id(t) for t in anchor.trivia] == [id(t) for t in inside]


def _trivia(items: list[Trivia]) -> list[tuple]:
    return [(t.kind, t.row, t.start, t.end) for t in items]


def _same_node(got: Node, want: Node, text: str) -> None:
    assert _node_fields(got) == _node_fields(want)
    assert got.source is text or got.source == text
    assert _trivia(got.leading) == _trivia(want.leading)
    assert len(got.children) == len(want.children)
    for g, w in zip(got.children, want.children, strict=True):
        _same_node(g, w, text)


def assert_same_as_full_parse(got: SourceFile, text: str) -> None:
    assert not FAILURES.records, FAILURES.records[0].exc_text or FAILURES.records[0].getMessage()
    want = parse(text)
    assert got.text == text
    assert got.to_text() == text
    assert dump(got) == dump(want)
    assert got.diagnostics == want.diagnostics
    assert _trivia(got.trailing) == _trivia(want.trailing)
    assert len(got.nodes) == len(want.nodes)
    for g, w in zip(got.nodes, want.nodes, strict=True):
        _same_node(g, w, text)
    assert [b.text for b in got.blocks] == [b.text for b in want.blocks]
    assert all(b.node is n for b, n in zip(got.blocks, got.nodes, strict=True))
    assert got.index.line_count == want.index.line_count
    assert got.index._starts == want.index._starts  # moved by the edit or counted again: the same
    _anchors_hold(got)
    _anchors_hold(want)
    assert got.rows_moved == any(b.row_shift for b in got.blocks)


# --- random edits -------------------------------------------------------------------------


def _edit(data: st.DataObject, text: str) -> str:
    action = data.draw(st.sampled_from(["insert", "delete", "replace", "insert line", "delete line", "move line"]))
    at = data.draw(st.integers(0, len(text)))
    if action == "insert":
        return text[:at] + data.draw(PIECES) + text[at:]
    if action == "delete":
        return text[:at] + text[at + data.draw(st.integers(1, 12)) :]
    if action == "replace":
        return text[:at] + data.draw(PIECES) + text[at + data.draw(st.integers(1, 6)) :]
    lines = text.splitlines(keepends=True)
    if not lines:
        return data.draw(PIECES)
    i = data.draw(st.integers(0, len(lines) - 1))
    if action == "insert line":
        lines.insert(i, data.draw(PIECES) + "\n")
    elif action == "delete line":
        del lines[i]
    else:
        line = lines.pop(i)
        lines.insert(data.draw(st.integers(0, len(lines))), line if line.endswith("\n") else line + "\n")
    return "".join(lines)


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(SEEDS), st.data())
def test_reparse_after_random_edits_equals_full_parse(seed: str, data: st.DataObject) -> None:
    edited = seed
    for _ in range(data.draw(st.integers(1, 3))):
        edited = _edit(data, edited)
    assert_same_as_full_parse(reparse(parse(seed), edited), edited)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(SEEDS), st.data())
def test_reparse_chains_like_an_editor_session(seed: str, data: st.DataObject) -> None:
    """Each reparse starts from the previous reparse, so the per-block records it keeps are right."""
    tree = parse(seed)
    text = seed
    for _ in range(data.draw(st.integers(2, 6))):
        text = _edit(data, text)
        tree = reparse(tree, text)
        assert_same_as_full_parse(tree, text)


@settings(max_examples=200, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join), st.lists(PIECES, max_size=30).map("".join))
def test_reparse_between_unrelated_texts(a: str, b: str) -> None:
    assert_same_as_full_parse(reparse(parse(a), b), b)


# --- reuse --------------------------------------------------------------------------------

THREE_AGENTS = """\
# Support desk
AGENT: Triage
GOAL: "Find out what the customer needs"
PERSONA: |
  Friendly.
  # not a comment: part of the persona text
HANDOFF:
  - TO: Billing
    WHEN: topic == "billing"  // money questions
    PASS: [order_id,
      amount]

AGENT: Billing
GOAL: "Sort out invoices"
GATHER:
  order_id:
    PROMPT: "Order number?"

AGENT: Refunds
GOAL: "Refund orders"
"""


def _tops(tree: SourceFile) -> dict[str, Node]:
    """Top-level nodes by `KEY value` (unique in the sample)."""
    return {f"{n.key} {n.value}": n for n in tree.nodes}


def test_editing_inside_one_block_keeps_every_other_block() -> None:
    old = parse(THREE_AGENTS)
    before = _tops(old)
    text = THREE_AGENTS.replace("Sort out invoices", "Sort out all invoices")
    new = reparse(old, text)
    assert_same_as_full_parse(new, text)
    after = _tops(new)
    changed = {k for k in after if k not in before or after[k] is not before[k]}
    assert changed == {'GOAL "Sort out all invoices"'}
    # The carried blocks did not move rows, so nothing built from their ranges is stale.
    assert all(b.row_shift == 0 for b in new.blocks)
    # Their inner nodes are the very same objects too.
    gather = after["GATHER "]
    assert gather.children[0].children[0] is before["GATHER "].children[0].children[0]


def test_a_line_inserted_above_moves_blocks_without_reading_them_again() -> None:
    old = parse(THREE_AGENTS)
    before = _tops(old)
    text = THREE_AGENTS.replace("# Support desk\n", "# Support desk\n# owner: ops\n")
    new = reparse(old, text)
    assert_same_as_full_parse(new, text)
    after = _tops(new)
    assert all(after[k] is before[k] for k in before)
    assert {b.row_shift for b in new.blocks} == {1}


@pytest.mark.parametrize(
    ("before", "after", "edited"),
    [
        # Enter at the end of a column-0 line, with and without the indentation an editor adds.
        ('GOAL: "Sort out invoices"\n', 'GOAL: "Sort out invoices"\n\n', 'GOAL "Sort out invoices"'),
        ('GOAL: "Sort out invoices"\n', 'GOAL: "Sort out invoices"\n    \n', 'GOAL "Sort out invoices"'),
        # The empty line after a block taken away.
        ("    amount]\n\n", "    amount]\n", "HANDOFF "),
    ],
)
def test_a_blank_line_after_a_block_is_an_edit_of_that_block(before: str, after: str, edited: str) -> None:
    """Comparing the texts places a line break typed at the end of a line at the start of the
    next block; the reparse reads it as the edit of the block above, as for any keystroke. Blank
    space after a block's lines leaves the block as it was, so that block is kept too (the very
    node: later layers see a move, not an edit), and those below only move."""
    text = THREE_AGENTS.replace(before, after, 1)
    assert text != THREE_AGENTS
    old = parse(THREE_AGENTS)
    kept = _tops(old)
    new = reparse(old, text)
    assert_same_as_full_parse(new, text)
    assert new.edited_block >= 0, "the keystroke path was not taken"
    assert _tops(new)[edited] is kept[edited]
    assert all(_tops(new)[k] is n for k, n in kept.items())


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("Z: 0\nA: [1,\nB: x\n", "Z: 0\nA: [1,\n\nB: x\n"),  # an open bracket swallows the blank line
        ("Z: 0\nA: |\n  t\nB: x\n", "Z: 0\nA: |\n  t\n\nB: x\n"),
        ("Z: 0\nA: |+\n  t\nB: x\n", "Z: 0\nA: |+\n  t\n\n\nB: x\n"),
        ("Z: 0\nA: |\n  t\n\n  u\nB: x\n", "Z: 0\nA: |\n  t\n\n\n  u\nB: x\n"),  # inside the text
        ("Z: 0\nA:\n  - b\nB: x\n", "Z: 0\nA:\n  - b\n  \nB: x\n"),
        ("Z: 0\nA: x\n\n\nB: x\n", "Z: 0\nA: x\nB: x\n"),  # blank lines taken away
        ("Z: 0\nA: x\nB: x\n", "Z: 0\nA: x\r\n\nB: x\n"),
    ],
)
def test_blank_space_after_a_block_keeps_it_only_when_its_lines_stay_the_same(before: str, after: str) -> None:
    old = parse(before)
    block = old.nodes[1]
    lines = [(n.kind, n.row, n.start, n.end, n.value_end_row) for n in block.walk()]
    new = reparse(old, after)
    assert_same_as_full_parse(new, after)
    if new.nodes[1] is block:  # kept: then it reads as a fresh parse's block does
        fresh = parse(after).nodes[1]
        assert [(n.kind, n.row, n.start, n.end, n.value_end_row) for n in fresh.walk()] == lines


def test_swapped_sections_keep_their_nodes() -> None:
    text = "AGENT: A\nGOAL: one\nPERSONA: two\n"
    old = parse(text)
    goal, persona = old.nodes[1], old.nodes[2]
    swapped = "AGENT: A\nPERSONA: two\nGOAL: one\n"
    new = reparse(old, swapped)
    assert_same_as_full_parse(new, swapped)
    assert new.nodes[1] is persona and new.nodes[2] is goal
    assert [b.row_shift for b in new.blocks] == [0, -1, 1]


def test_repeated_blocks_keep_their_own_trees() -> None:
    text = "".join(f"AGENT: A{i}\nGATHER:\n  order_id:\n    TYPE: string\n" for i in range(4))
    old = parse(text)
    gathers = [n for n in old.nodes if n.key == "GATHER"]
    edited = text.replace("AGENT: A1", "AGENT: B1")
    new = reparse(old, edited)
    assert_same_as_full_parse(new, edited)
    assert [n for n in new.nodes if n.key == "GATHER"] == gathers
    assert all(b.row_shift == 0 for b in new.blocks)


def test_a_line_taken_away_after_one_of_repeated_blocks_keeps_each_its_own_tree() -> None:
    # The block's twins further down have the text it now has; it keeps its own node rather
    # than taking a twin's, which would shift every twin below onto its neighbour's node.
    text = "".join(f"AGENT: A{i}\nGATHER:\n  order_id:\n    TYPE: string\nGOAL: g{i}\n" for i in range(4))
    noted = text.replace("GOAL: g1\n", "# note\nGOAL: g1\n")
    old = parse(noted)
    nodes = list(old.nodes)
    new = reparse(old, text)
    assert_same_as_full_parse(new, text)
    assert all(a is b for a, b in zip(new.nodes, nodes, strict=True))


def test_comment_lines_between_blocks_lead_the_next_block() -> None:
    old = parse(THREE_AGENTS)
    refunds = _tops(old)["AGENT Refunds"]
    billing_goal = _tops(old)['GOAL "Sort out invoices"']
    text = THREE_AGENTS.replace("\nAGENT: Refunds", "\n# refunds live here\nAGENT: Refunds")
    new = reparse(old, text)
    assert_same_as_full_parse(new, text)
    assert _tops(new)["AGENT Refunds"] is refunds
    assert [new.text[t.start : t.end] for t in refunds.leading] == ["\n", "# refunds live here\n"]
    # Not read as an edit of the block above (as blank space typed there is): every block stays.
    assert all(n is old_n for n, old_n in zip(new.nodes, old.nodes, strict=True))
    assert _tops(new)['GOAL "Sort out invoices"'] is billing_goal


def test_trivia_added_after_a_block_keeps_the_block() -> None:
    old = parse(THREE_AGENTS)
    before = _tops(old)
    text = THREE_AGENTS.replace('GOAL: "Refund orders"\n', 'GOAL: "Refund orders"\n\n# refunds end here\n')
    text = text.replace("      amount]\n", "      amount]\n# triage ends here\n")
    new = reparse(old, text)
    assert_same_as_full_parse(new, text)
    after = _tops(new)
    assert all(after[k] is before[k] for k in before)


@pytest.mark.parametrize(
    "before, after",
    [
        ("A: [1,\nB: x\n", "A: [1,\n\nB: x\n"),  # an open bracket swallows the new blank line
        ("A: |\n  t\nB: x\n", "A: |\n  t\n  # more text\nB: x\n"),  # a pipe swallows the new line
        ("A: x\nB: x\n", "A: x\n  child: y\nB: x\n"),
        ("A: x\n# c\nB: x\n", "A: x\n# c\n  child: y\nB: x\n"),
        ("A: x\n\tB: y\nC: z\n", "A: x\n\tB: y\n\nC: z\n"),
    ],
)
def test_new_lines_after_a_block_that_the_block_takes_in(before: str, after: str) -> None:
    assert_same_as_full_parse(reparse(parse(before), after), after)


def test_pipe_text_that_reaches_column_zero_is_split_where_the_parser_splits() -> None:
    text = "GOAL: |\n  one\n\n  two\nPERSONA: x\n"
    old = parse(text)
    edited = text.replace("PERSONA", "# note\nPERSONA")
    assert_same_as_full_parse(reparse(old, edited), edited)
    unindented = text.replace("  two", "two")
    assert_same_as_full_parse(reparse(old, unindented), unindented)


def test_open_bracket_continued_across_lines() -> None:
    text = "PASS: [a,\n  b,\n\nGOAL: x\n"
    old = parse(text)
    closed = text.replace("  b,", "  b]")
    assert_same_as_full_parse(reparse(old, closed), closed)


def test_only_the_first_tab_warning_is_reported_after_edits() -> None:
    text = "AGENT: A\nGATHER:\n\tname:\n\t\tprompt: x\n        type: y\nAGENT: B\nGATHER:\n\tage:\n\t\tprompt: x\n        type: y\n"
    old = parse(text)
    assert [d.range.start.line for d in old.diagnostics if d.code == "TAB_INDENTATION"] == [4]
    fixed_first = text.replace("\tname:\n\t\tprompt: x\n        type: y\n", "  name:\n    prompt: x\n    type: y\n")
    new = reparse(old, fixed_first)
    assert_same_as_full_parse(new, fixed_first)
    assert [d.range.start.line for d in new.diagnostics if d.code == "TAB_INDENTATION"] == [9]
    # The block that now carries the warning was not read again to find it.
    assert _tops(new)["AGENT B"] is _tops(old)["AGENT B"]


@pytest.mark.parametrize(
    "before, after",
    [
        ("\ufeffAGENT: A\nGOAL: x\n", "\ufeffAGENT: A\nGOAL: y\n"),
        ("\ufeffAGENT: A\nGOAL: x\n", "AGENT: A\nGOAL: x\n"),
        ("AGENT: A\nGOAL: x\n", "\ufeffAGENT: A\nGOAL: x\n"),
        ("AGENT: A\n\ufeffGOAL: x\n", "\ufeffGOAL: x\n"),
        ("  AGENT: A\nGOAL: x\n", "AGENT: A\nGOAL: x\n"),
        ("AGENT: A\nGOAL: x\n", "  AGENT: A\nGOAL: x\n"),
        ("# head\n\nAGENT: A\nGOAL: x\n", "AGENT: A\nGOAL: x\n"),
        ("AGENT: A\nGOAL: x\n", "GOAL: x\n"),
        ("AGENT: A\r\nGOAL: x\r\n", "AGENT: A\r\n\r\nGOAL: x\r\n"),
        ("AGENT: A\n\r\nGOAL: x", "AGENT: A\n\rGOAL: x"),
        ("AGENT: A\nGOAL: x\n", ""),
        ("", "AGENT: A\n"),
        ("# only a comment\n", "# only a comment\nAGENT: A\n"),
    ],
)
def test_file_start_and_line_end_edge_cases(before: str, after: str) -> None:
    assert_same_as_full_parse(reparse(parse(before), after), after)


def test_block_starts_are_the_column_zero_lines() -> None:
    text = "A: 1\n  b: 2\n# c\n\nD: |\n  e\n\r\nF: 3\n\rG"
    assert block_starts(text) == [0, text.index("D:"), text.index("F:"), text.index("\rG")]


def test_a_large_rewrite_falls_back_to_one_full_parse() -> None:
    old = parse("".join(f"S{i}: {i}\n" for i in range(40)))
    text = "".join(f"T{i}: {i}\n" for i in range(40))
    new = reparse(old, text)
    assert_same_as_full_parse(new, text)
    assert not any(n in old.nodes for n in new.nodes)


def test_an_anchored_range_reads_where_its_block_is_now() -> None:
    old = parse("AGENT: A\nGOAL: g\nHANDOFF:\n  - TO: B\n")
    handoff = old.nodes[2]
    target = handoff.children[0]  # `- TO: B`
    where = AnchoredRange(handoff.anchor, target.range())
    assert where == target.range() and hash(where) == hash(target.range())
    new = reparse(old, "AGENT: A\nGOAL: g\n\n\nHANDOFF:\n  - TO: B\n")
    assert new.nodes[2] is handoff  # kept, moved two rows down
    assert where.range.start.line == target.range().start.line == 5
    again = reparse(new, "AGENT: A\nGOAL: g\n\n\nHANDOFF:\n  - TO: C\n")
    assert again.nodes[2] is not handoff  # read again: the old block no longer moves
    moved = reparse(again, "\n" + again.text)
    assert moved.nodes[2].children[0].range().start.line == 6 and where.range.start.line == 5
    fresh = AnchoredRange(moved.nodes[2].anchor, moved.nodes[2].children[0].range())
    assert fresh == fresh.range and not fresh.same_place(where)
