"""Starting values of a new thread: `MEMORY` session variables with an `INITIAL` value, and the
persistent paths its caller grants it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from abl.expr import Environment
from abl.model.types import Agent, MemoryGrant
from abl.runtime.evaluation import value_of


def initial_values(agent: Agent, env: Environment) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for var in agent.memory:
        if var.initial is not None:
            value, _ = value_of(var.initial.raw, values, env)
            if value is not None:
                values[var.name.text] = value
    return values


def granted_memory(caller_values: dict[str, Any], grants: Iterable[MemoryGrant]) -> dict[str, Any]:
    """The granted persistent paths that hold a value in the caller's thread: no persistent
    memory reaches another agent without a grant (PLATFORM-RUNTIME.md 3.5). Locally there is no
    fact store, so the caller's thread is where a value is found."""
    return {g.path.text: caller_values[g.path.text] for g in grants if caller_values.get(g.path.text) is not None}
