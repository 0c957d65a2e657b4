"""Starting values of a new thread: `MEMORY` session variables with an `INITIAL` value."""

from __future__ import annotations

from typing import Any

from abl.expr import Environment
from abl.model.types import Agent
from abl.runtime.evaluation import value_of


def initial_values(agent: Agent, env: Environment) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for var in agent.memory:
        if var.initial is not None:
            value, _ = value_of(var.initial.raw, values, env)
            if value is not None:
                values[var.name.text] = value
    return values
