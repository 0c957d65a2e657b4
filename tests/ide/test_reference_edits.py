"""The reference index after edits equals the index of the same text read afresh: an agent's
occurrences are kept per agent object, and must never outlive the agent's position."""

from __future__ import annotations

from pathlib import Path

from abl.ide.references import Occurrence, ReferenceIndex
from abl.text import Position
from abl.workspace import Project

REPO = Path(__file__).resolve().parents[2]
TEXT = (REPO / "examples").glob("**/*.abl")


def everything(index: ReferenceIndex, path: str) -> list[tuple]:
    return sorted(
        (o.symbol.kind.value, o.symbol.name, o.symbol.scope or "", o.range.start, o.range.end, o.definition, o.role)
        for o in index.in_file(path)
    )


def edits(text: str) -> list[str]:
    lines = text.split("\n")
    middle = len(lines) // 2
    return [
        "# a first line that moves every agent\n" + text,
        "\n".join([*lines[:middle], "# a line in the middle", *lines[middle:]]),
        text.replace("GOAL: ", "GOAL:  ", 1),  # one column further on one line
        text.replace("\n\n", "\n", 1),
        text,
    ]


def test_occurrences_after_edits_equal_a_fresh_reading() -> None:
    files = sorted(TEXT)
    assert files, "the bundled examples hold ABL files"
    for file in files:
        text = file.read_text(encoding="utf-8")
        project = Project("/p")
        project.update("/p/a.abl", text)
        ReferenceIndex.of(project)
        for edited in edits(text):
            project.edit("/p/a.abl", edited)
            fresh = Project("/q")
            fresh.update("/q/a.abl", edited)
            got = everything(ReferenceIndex.of(project), "/p/a.abl")
            assert got == everything(ReferenceIndex.of(fresh), "/q/a.abl"), file.name


def test_the_occurrence_under_each_position_is_found_in_its_agents_group() -> None:
    """`at` reads only the groups (agents) spanning the cursor's row: the same answer as reading
    every occurrence of the file, at every position of every example, also after an edit."""
    for file in sorted(TEXT):
        text = file.read_text(encoding="utf-8")
        project = Project("/p")
        project.update("/p/a.abl", text)
        for version in (text, edits(text)[2]):
            project.edit("/p/a.abl", version)
            index = ReferenceIndex.of(project)
            every = index.in_file("/p/a.abl")
            for row, line in enumerate(version.split("\n")):
                for char in range(0, len(line) + 1):
                    pos = Position(row, char)
                    assert index.at("/p/a.abl", pos) == narrowest_by_scan(every, pos), (file.name, pos)


def narrowest_by_scan(occurrences: list[Occurrence], pos: Position) -> Occurrence | None:
    """The first of the narrowest occurrences holding `pos`, reading them all in file order."""
    holding = [o for o in occurrences if o.range.start <= pos <= o.range.end]
    if not holding:
        return None
    width = min(
        (o.range.end.line - o.range.start.line, o.range.end.character - o.range.start.character) for o in holding
    )
    return next(
        o
        for o in holding
        if (o.range.end.line - o.range.start.line, o.range.end.character - o.range.start.character) == width
    )
