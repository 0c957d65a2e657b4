"""Nesting beyond the limit is a diagnostic; nothing recurses as deep as the input."""

from __future__ import annotations

import pytest

from abl.checks.engine import CheckOptions, check_project
from abl.syntax.incremental import reparse
from abl.syntax.parser import parse
from abl.syntax.values import read_value
from abl.workspace import Project

DEPTH = 5000  # far past Python's default recursion limit of 1000
HEAD = 'AGENT: X\nGOAL: "g"\n'

CASES = {
    "items": HEAD + "LIMITATIONS:\n" + "".join("  " * (i + 1) + "- a\n" for i in range(DEPTH)),
    "maps": HEAD + "GATHER:\n" + "".join("  " * (i + 1) + "a:\n" for i in range(DEPTH)),
    "pass_maps": HEAD + "HANDOFF:\n  - TO: Y\n    PASS: " + "{a: " * DEPTH + "1" + "}" * DEPTH + "\n",
    "pass_lists": HEAD + "HANDOFF:\n  - TO: Y\n    PASS: " + "[" * DEPTH + "a" + "]" * DEPTH + "\n",
    "goal": "AGENT: X\nGOAL: " + "[" * DEPTH + "]" * DEPTH + "\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_deep_input_is_reported_not_crashed(name: str) -> None:
    text = CASES[name]
    source = parse(text)
    assert source.to_text() == text
    assert sum(1 for _ in source.walk()) >= 1
    project = Project("/")
    project.update("/a.abl", text, [])
    diags = check_project(project, CheckOptions(strict_rules=True))["/a.abl"]
    assert "NESTING_TOO_DEEP" in {d.code for d in diags}


def test_shallow_values_still_read() -> None:
    value = read_value("[" * 64 + "a" + "]" * 64)
    assert value.error is None
    assert read_value("[" * 65 + "a" + "]" * 65).error is not None


@pytest.mark.parametrize("levels,ok", [(32, True), (33, False)])
def test_expression_depth_limit(levels: int, ok: bool) -> None:
    from abl.expr.parse import parse_condition

    result = parse_condition("NOT " * levels + "a")
    assert result.ok is ok


def test_too_deep_is_reported_once_per_top_level_block_whichever_way_it_is_read() -> None:
    # A column-0 line of text opens a block of its own: read alone after an edit, it reports
    # its own nesting, so a parse of the whole file must too (it did not after a tool signature).
    text = f"AGENT: A\nTOOLS:\n  refund(x: {'{a: ' * 70}1) -> string\n{'[' * 80}a\n"
    whole = [d.range.start.line for d in parse(text).diagnostics if d.code == "NESTING_TOO_DEEP"]
    assert whole == [2, 3]
    edited = text.replace("AGENT: A", "AGENT: Ab", 1)
    again = reparse(parse(text), edited)
    assert sorted((d.code, d.range) for d in again.diagnostics) == sorted(
        (d.code, d.range) for d in parse(edited).diagnostics
    )
