"""One definition of the variables an agent's `SET`s write, shared by checks, runtime and editor.

Each `SET` in the fixture names where it sits (`from_hook`, `into_helper`, ...). A handoff
route's own `SET` writes into the target (`CONTEXT.set`), so it is a handoff assignment and
never one of the agent's own."""

from __future__ import annotations

from pathlib import Path

from abl.ide.references import document_occurrences
from abl.model import handoff_assignments, load_document, own_assignments, set_targets

CASE = Path(__file__).parent / "cases" / "assignments.abl"
OWN = {"from_on_start", "from_hook", "from_handler", "from_flow", "from_on_return", "from_complete"}


def _document():
    return load_document(CASE.read_text(), str(CASE))


def _desk():
    return next(agent for agent in _document().agents if agent.name.text == "Desk")


def test_own_assignments_cover_every_place_a_set_writes_the_agent() -> None:
    desk = _desk()
    assert {a.target.text for a in own_assignments(desk)} == OWN
    assert set_targets(desk) == OWN


def test_a_route_set_writes_into_its_target_not_the_agent() -> None:
    assert [a.target.text for a in handoff_assignments(_desk())] == ["into_helper"]


def test_the_editor_index_scopes_each_set_where_it_writes() -> None:
    writes = {(o.symbol.scope, o.symbol.name) for o in document_occurrences(_document()) if o.role == "set"}
    assert writes == {("Desk", name) for name in OWN} | {("Helper", "into_helper")}
