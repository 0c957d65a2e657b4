"""`PATTERN_BACKTRACKS` looks for patterns in every condition and assignment of an agent's model,
walking only the fields whose annotations can hold one: it finds what a walk of every field finds."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import sys
import types
import typing
from pathlib import Path

import pytest

import abl.model
from abl.checks.rules import patterns
from abl.model import Agent, load_document
from abl.model.types import Assignment, Condition
from fixture import parse_fixture

TESTS = Path(__file__).resolve().parents[1]
EXAMPLES = TESTS.parents[1] / "shared" / "spec" / "examples"


def _agents() -> list[Agent]:
    texts = [
        parse_fixture(p.read_bytes().decode("utf-8", "replace")).files
        for p in sorted((TESTS / "checks" / "cases").glob("*.abl"))
    ]
    found = (
        [{p.name: p.read_bytes().decode("utf-8", "replace")} for p in sorted(EXAMPLES.glob("*.abl"))]
        if EXAMPLES.is_dir()
        else []
    )
    agents: list[Agent] = []
    for files in [*texts, *found]:
        for path, text in files.items():
            agents.extend(load_document(text, path).agents)
    return agents


def _everything(agent: Agent) -> set[int]:
    """The ids of every condition and assignment reachable from the agent, every field walked."""
    found: set[int] = set()
    seen: set[int] = set()
    pending: list[object] = [agent]
    while pending:
        item = pending.pop()
        if isinstance(item, (Condition, Assignment)):
            found.add(id(item))
        if isinstance(item, (list, tuple)):
            pending.extend(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif dataclasses.is_dataclass(item) and type(item).__module__.startswith("abl.model") and id(item) not in seen:
            seen.add(id(item))
            pending.extend(getattr(item, spec.name) for spec in dataclasses.fields(item))
    return found


AGENTS = _agents()


def test_the_walk_leaves_out_fields_that_hold_no_condition() -> None:
    # The annotations resolve (a name they cannot would make every field walked again).
    walked = patterns._field_names(Agent)
    assert "goal" not in walked and "gather" not in walked
    assert {"handoffs", "complete", "flow", "hooks_sets"} <= set(walked)


def test_every_model_class_annotation_resolves() -> None:
    # A name the model imports for the type checker only, missing from the walk's table, would
    # make that class walked whole again, silently.
    for info in pkgutil.iter_modules(abl.model.__path__):
        module = importlib.import_module(f"abl.model.{info.name}")
        for kind in vars(module).values():
            if isinstance(kind, type) and kind.__module__ == module.__name__ and dataclasses.is_dataclass(kind):
                typing.get_type_hints(kind, localns=patterns._ANNOTATED)


@pytest.mark.parametrize("agent", AGENTS, ids=lambda agent: f"{Path(agent.path).name}:{agent.name.text}")
def test_the_walk_finds_every_condition_and_assignment(agent: Agent) -> None:
    assert {id(found) for found in patterns._conditions_and_assignments(agent)} == _everything(agent)


_CYCLE = """
from __future__ import annotations
from dataclasses import dataclass, field
from abl.model.types import Condition

@dataclass
class Branch:
    steps: list[Step] = field(default_factory=list)

@dataclass
class Step:
    when: Condition | None = None
    branches: list[Branch] = field(default_factory=list)
"""


def test_a_class_met_again_through_its_own_fields_is_walked_into(monkeypatch) -> None:
    # Steps hold branches of steps: a branch holds a condition only through its steps. Asked
    # about the branch first, the step's fields are worked out while the branch's are: the
    # branch must not be taken for empty then, or no nested step would ever be walked.
    module = types.ModuleType("abl.model.cycle_case")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(_CYCLE, module.__name__, "exec"), module.__dict__)
    assert patterns._may_hold(module.Branch)
    assert patterns._field_names(module.Step) == ("when", "branches")
    assert patterns._field_names(module.Branch) == ("steps",)
