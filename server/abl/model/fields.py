"""Which variables an agent declares, and which it (obviously) produces.

The platform's `UNKNOWN_HANDOFF_RETURN_FIELD` check accepts a child field when the child
declares or obviously produces it: gather fields, session and persistent memory, `ON_START`
and flow `SET`s, tool results (`last_<tool>_result`), the parent variables of its own return
maps, and `CALL ... AS` names. A dotted name counts by its root.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from abl.model.movable import Movable
from abl.model.types import Agent, Assignment, MemoryVar


def root(name: str) -> str:
    return name.split(".", 1)[0].split("[", 1)[0]


def produced_fields(agent: Agent) -> set[str]:
    """Every name the agent can hold a value for at runtime."""
    names: set[str] = set()
    names.update(f.name.text for f in agent.all_gather_fields())
    names.update(v.name.text for v in agent.memory)
    names.update(set_targets(agent))
    for tool in agent.tools:
        names.add(f"last_{tool.name.text}_result")
        names.add(tool.name.text)
    for route in agent.handoffs:
        if route.on_return is not None:
            names.update(m.parent.text for m in route.on_return.map)
        names.update(m.parent.text for m in route.legacy_map)
    for d in agent.delegates:
        names.update(m.parent.text for m in d.returns)
    if agent.flow is not None:
        names.update(n.text for n in agent.flow.call_results)
    names.update(n.text for n in agent.call_results)
    for rule in agent.remember:
        if rule.target is not None:
            names.add(rule.target.text)
    return names | {root(n) for n in names}


def own_assignments(agent: Agent) -> list[Assignment]:
    """Every `SET` that writes into the agent's own variables: `ON_START`, `COMPLETE`, the flow,
    hooks, action handlers and `ON_RETURN`. A handoff route's own `SET` (`CONTEXT.set`) is not
    here: it writes into the target's variables (`handoff_assignments`)."""
    found: list[Assignment] = []
    if agent.on_start is not None:
        found.extend(agent.on_start.set)
    for rule in agent.complete:
        found.extend(rule.set)
    if agent.flow is not None:
        found.extend(agent.flow.sets)
    found.extend(agent.hooks_sets)
    found.extend(agent.handler_sets)
    for route in agent.handoffs:
        if route.on_return is not None:
            found.extend(route.on_return.set)
    return found


def handoff_assignments(agent: Agent) -> list[Assignment]:
    """The `SET`s of the agent's handoff routes, written into each target's variables."""
    return [assignment for route in agent.handoffs for assignment in route.set]


def set_targets(agent: Agent) -> set[str]:
    """Variables the agent's own `SET`s write (see `own_assignments`)."""
    return {a.target.text for a in own_assignments(agent)}


RESERVED_TARGET = "reserved_target"
UNDECLARED_TARGET = "undeclared_target"
READ_ONLY_TARGET = "read_only_target"
_INDEX = re.compile(r"\[[^\]]*\]")


@dataclass(frozen=True, slots=True)
class WriteRefusal(Movable):
    """Why an agent may not write a variable: `code` is the `memory_error` code; a read-only
    target carries the declaration that grants only read access."""

    code: str
    declaration: MemoryVar | None = None


class WriteAccess:
    """What a returning child may write into an agent (seed 004: "The parent must be allowed to
    write each `MAP` and `SET` target"). The agent may write its `MEMORY` session variables, its
    `GATHER` fields and the persistent paths it does not declare read-only (`ACCESS: read`, or
    listed under `READS:`); not a name starting with `_` (the runtime's own) nor anything it does
    not declare. A dotted target is judged by its longest declared prefix (`user.tier.level` by
    `user.tier`, `offer.stage` by `offer`). The runtime and the checker both ask this."""

    def __init__(self, agent: Agent) -> None:
        declared: dict[str, list[MemoryVar]] = {}
        for var in agent.memory:
            declared.setdefault(var.name.text, []).append(var)
        self._gathered = frozenset(f.name.text for f in agent.all_gather_fields())
        self._declared = declared

    def refusal(self, target: str) -> WriteRefusal | None:
        """None when the agent may write `target`, else why not."""
        if target.startswith("_"):
            return WriteRefusal(RESERVED_TARGET)
        for prefix in declaring_names(target):
            if prefix in self._gathered:
                return None
            found = self._declared.get(prefix)
            if found:
                if any(var.writable for var in found):
                    return None
                return WriteRefusal(READ_ONLY_TARGET, found[0])
        return WriteRefusal(UNDECLARED_TARGET)


def declaring_names(target: str) -> list[str]:
    """`a.b[0].c` → `a.b.c`, `a.b`, `a`: the names that may declare it, longest first. Only a
    closed index is left out: `a[[` is declared by `a[[` alone, not by `a`."""
    parts = _INDEX.sub("", target).split(".")
    return [".".join(parts[:end]) for end in range(len(parts), 0, -1)]


def declared_variables(agent: Agent) -> set[str]:
    """Names a condition or template of this agent may read without a warning."""
    return produced_fields(agent) | {i.name.text for i in agent.intents}
