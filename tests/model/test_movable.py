"""Agents moved by lines added above them are copies that fill themselves in when read: equal to
the agents lowering the moved text gives, read only as far as someone looks, never stacked up."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import abl.model
from abl.model import lower, movable
from abl.model.incremental import relower
from abl.model.movable import Movable, is_filled
from abl.syntax import parse
from abl.syntax.incremental import reparse

AGENTS = "".join(
    f'AGENT: Agent_{i}\nGOAL: "Help {i}"\nGATHER:\n  order_id:\n    PROMPT: "Order?"\n'
    f"HANDOFF:\n  - TO: Agent_{(i + 1) % 5}\n    WHEN: order_id IS SET\n    RETURN: true\n\n"
    for i in range(5)
)


def test_every_dataclass_of_the_model_can_be_moved() -> None:
    # A model class outside `Movable` would be shared by a moved agent, positions and all.
    found = []
    for info in pkgutil.iter_modules(abl.model.__path__):
        module = importlib.import_module(f"abl.model.{info.name}")
        for _, kind in inspect.getmembers(module, inspect.isclass):
            if kind.__module__ == module.__name__ and dataclasses.is_dataclass(kind):
                found.append(kind)
                assert issubclass(kind, Movable), f"{kind.__qualname__} does not derive from Movable"
    assert len(found) > 40


def _moved_text(text: str) -> str:
    return text.replace('GOAL: "Help 0"\n', 'GOAL: "Help 0"\n# a note\n\n', 1)


def test_a_moved_agent_is_read_only_as_far_as_it_is_looked_at() -> None:
    doc = lower(parse(AGENTS), "/f.abl")
    edited = _moved_text(AGENTS)
    new = relower(doc, reparse(doc.source, edited))
    last = new.agents[4]
    assert last is not doc.agents[4] and not is_filled(last)
    route = last.handoffs[0]  # fills the agent, not yet the route
    assert is_filled(last) and not is_filled(route)
    assert route.range.start.line == doc.agents[4].handoffs[0].range.start.line + 2
    assert is_filled(route)
    assert not is_filled(new.agents[3])


def test_moving_again_before_anyone_read_it_does_not_stack_copies() -> None:
    doc = lower(parse(AGENTS), "/f.abl")
    first = doc.agents[4]
    text = AGENTS
    for _ in range(30):
        text = "# one more line\n" + text
        doc = relower(doc, reparse(doc.source, text))
    pending = object.__getattribute__(doc.agents[4], "_pending")
    assert pending[0] is first and pending[1] == 30
    assert doc.agents[4].handoffs[0].range.start.line == first.handoffs[0].range.start.line + 30


def test_a_value_held_in_two_places_stays_one_value() -> None:
    doc = lower(parse(AGENTS), "/f.abl")
    agent = doc.agents[2]
    shared = agent.gather[0]
    object.__setattr__(agent, "call_results", [shared.name])
    copy = movable.moved(agent, 3)
    assert copy.call_results[0] is copy.gather[0].name
    assert copy.gather[0].name.range.start.line == shared.name.range.start.line + 3
