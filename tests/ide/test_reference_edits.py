"""The reference index after edits equals the index of the same text read afresh: an agent's
occurrences are kept per agent object, and must never outlive the agent's position."""

from __future__ import annotations

from pathlib import Path

from abl.ide.references import ReferenceIndex
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
