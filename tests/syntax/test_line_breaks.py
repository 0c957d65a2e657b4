"""Where ABL lines end: at `\n` (with a `\r` before it) only. The characters Python's
`str.splitlines` also breaks at are ordinary characters of a line, in values, in pipe blocks
and in the rows every position counts, as the editors' protocol counts them too."""

from __future__ import annotations

import pytest

from abl.syntax import parse
from abl.text import split_lines

NOT_LINE_BREAKS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("character", NOT_LINE_BREAKS, ids=lambda c: f"U+{ord(c):04X}")
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_character_splitlines_breaks_at_stays_inside_its_line(character: str, newline: str) -> None:
    text = newline.join(["AGENT: A", "GOAL: |", f"  one{character}two", "PERSONA: x", ""])
    source = parse(text)
    goal, persona = (n for n in source.walk() if n.key in ("GOAL", "PERSONA"))
    assert goal.pipe_text == f"one{character}two\n"
    assert persona.key_range.start.line == 3
    assert source.index.line_count == 5
    assert split_lines(text) == ["AGENT: A", "GOAL: |", f"  one{character}two", "PERSONA: x"]


def test_split_lines_reads_lines_as_the_parser_does() -> None:
    assert split_lines("") == []
    assert split_lines("a\r\nb\n") == ["a", "b"]
    assert split_lines("a\rb\n\n") == ["a\rb", ""]
