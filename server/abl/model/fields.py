"""Which variables an agent declares, and which it (obviously) produces.

The platform's `UNKNOWN_HANDOFF_RETURN_FIELD` check accepts a child field when the child
declares or obviously produces it: gather fields, session and persistent memory, `ON_START`
and flow `SET`s, tool results (`last_<tool>_result`), the parent variables of its own return
maps, and `CALL ... AS` names. A dotted name counts by its root.
"""

from __future__ import annotations

from abl.model.types import Agent


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


def set_targets(agent: Agent) -> set[str]:
    """Variables written by any `SET` of the agent (ON_START, COMPLETE, flow, hooks, handlers, returns)."""
    out: set[str] = set()
    if agent.on_start is not None:
        out.update(a.target.text for a in agent.on_start.set)
    for rule in agent.complete:
        out.update(a.target.text for a in rule.set)
    if agent.flow is not None:
        out.update(a.target.text for a in agent.flow.sets)
    out.update(a.target.text for a in agent.hooks_sets)
    out.update(a.target.text for a in agent.handler_sets)
    for route in agent.handoffs:
        if route.on_return is not None:
            out.update(a.target.text for a in route.on_return.set)
    return out


def writable_variables(agent: Agent) -> frozenset[str]:
    """What a returning child may write into this agent: its `MEMORY` variables and `GATHER`
    fields. A return whose `MAP`, `SET` or `CLEAR` names anything else (by its root) is refused
    as a whole at runtime: `memory_error`, and none of its effects apply (seed 004)."""
    return frozenset(v.name.text for v in agent.memory) | {f.name.text for f in agent.all_gather_fields()}


def declared_variables(agent: Agent) -> set[str]:
    """Names a condition or template of this agent may read without a warning."""
    return produced_fields(agent) | {i.name.text for i in agent.intents}
