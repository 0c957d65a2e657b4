"""Shared helpers for the editor-feature fixture tests.

A case is fixture text (see `tests/fixture.py`): files separated by `#- /path.abl` lines, with
one `$0` cursor. `project_at(text)` loads every file into one project and returns it with the
cursor's path and position, so each `check_*` helper is one call of the feature under test.
"""

from __future__ import annotations

import textwrap

from abl.text import Position
from abl.workspace import Project
from fixture import parse_fixture

DEFAULT_CHILD = """\
AGENT: Income_Agent
GOAL: "Collect the annual income"
GATHER:
  annual_income:
    type: number
    prompt: "What is your annual income?"
  employer:
    type: string
"""


def project_at(text: str, with_child: bool = True) -> tuple[Project, str, Position]:
    fx = parse_fixture(textwrap.dedent(text))
    project = Project("/project")
    for path, body in fx.files.items():
        project.update(path, body)
    if with_child and "/child.abl" not in fx.files:
        project.update("/child.abl", DEFAULT_CHILD)
    assert fx.cursor is not None, "the case needs a $0 cursor"
    path, line, character = fx.cursor
    return project, path, Position(line, character)
