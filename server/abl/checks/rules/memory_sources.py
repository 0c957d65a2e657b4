"""W801: a session variable that nothing ever fills.

## What it does
Checks each `MEMORY` session variable of an agent for a population source. The sources are
every way the runtime fills a variable: a GATHER field of that name (also a flow step's), a
tool result (`CALL ... AS`, `last_<tool>_result`) or a `TRANSFORM ... INTO`, a `SET` anywhere
in the agent (including `ON_RETURN.SET`, `ON_START.SET`, `COMPLETE.SET` and handlers), a
`REMEMBER` trigger, the parent side of an `ON_RETURN.MAP` or a DELEGATE `RETURNS` entry, and
what its callers hand over: a route's `PASS` and `SET` (`CONTEXT.set`) into it, and a
DELEGATE's `INPUT` to it, from any file of the project (`Project.handed_over`).

## Why is this bad?
The variable stays empty for the whole session: every `IS SET` on it is false and every
template that shows it has a gap. Seed 004: declaring `income_note` without the `SET` line
that fills it gives exactly this warning.
"""

from __future__ import annotations

from abl.checks.context import Check, agent_rule
from abl.model import Agent, handoff_assignments, set_targets
from abl.model.fields import root


@agent_rule("W801")
def session_variable_without_source(check: Check, agent: Agent) -> None:
    sources = population_sources(agent) | check.project.handed_over(agent.name.text)
    for var in agent.memory:
        if var.scope != "session":
            continue
        name = var.name.text
        if name in sources or root(name) in sources:
            continue
        if var.initial is not None and var.initial.text.strip():
            outcome = f"so it keeps its `INITIAL` value {var.initial.raw.strip()} for the whole session"
        else:
            outcome = "so it stays empty for the whole session"
        check.report(
            "W801",
            f'Session variable "{name}" has no population source; nothing in {agent.name.text} gathers, sets, '
            f"maps or remembers it and no caller passes it, {outcome}",
            var.name.range,
        )


def population_sources(agent: Agent) -> set[str]:
    """Every variable name something in the agent writes."""
    names: set[str] = {f.name.text for f in agent.all_gather_fields()}
    names |= set_targets(agent)
    names.update(a.target.text for a in handoff_assignments(agent))
    for route in agent.handoffs:
        if route.on_return is not None:
            names.update(m.parent.text for m in route.on_return.map)
        names.update(m.parent.text for m in route.legacy_map)
    for delegate in agent.delegates:
        names.update(m.parent.text for m in delegate.returns)
    for rule in agent.remember:
        if rule.target is not None:
            names.add(rule.target.text)
    if agent.flow is not None:
        names.update(n.text for n in agent.flow.call_results)
    names.update(n.text for n in agent.call_results)
    names.update(f"last_{tool.name.text}_result" for tool in agent.tools)
    return names | {root(n) for n in names}
