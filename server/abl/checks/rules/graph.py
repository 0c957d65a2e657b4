"""The project's handoff graph (`abl.workspace.graph`): agents nothing reaches, and loops of
handoffs that the runtime refuses.

## What it does
- `UNREACHABLE_AGENT`: in a project with a supervisor, an agent that no chain of handoffs or
  delegates from a supervisor reaches. A project without a supervisor gets no such report: its
  entry agent is chosen on deployment, so any agent could be the one that starts. Nor does an
  agent that a route names with a typo (`INVALID_HANDOFF_TARGET` already suggests its name).
- `HANDOFF_CYCLE`: a `HANDOFF` route on a loop of routes that no hand-back to a waiting parent
  closes, with the loop in the message.

## Why is this bad?
An unreachable agent never runs, whatever it declares: usually a route to it was lost or its
name was mistyped in a `TO:`. A handoff to an agent already in the active handoff chain is
refused as `recursion` (a permanent handoff keeps the caller in the chain), so a loop of routes
fails when the conversation comes round to its start, and the route's `ON_FAILURE` runs instead.

## Fix safety
No fix: which route is missing, or which route should return, is the author's call.

Both rules read the graph through `project.graph_facts(name)`, which the check cache keeps by
value: after an edit elsewhere they run again only if what the graph says about their agent
changed.
"""

from __future__ import annotations

from abl.checks.context import Check, agent_rule
from abl.model import Agent
from abl.workspace.loops import LoopEnds

# A loop longer than this is shown by its ends, so that a message stays readable.
_SHOWN_AGENTS = 8


@agent_rule("UNREACHABLE_AGENT")
def unreachable_agent(check: Check, agent: Agent) -> None:
    name = agent.name.text
    facts = check.project.graph_facts(name)
    if not facts.unreachable or facts.declared_by is not agent.header:
        return  # reachable, or a second agent of the same name (routes reach the first)
    if facts.named_by_typo:
        return  # a route names it with a typo: `INVALID_HANDOFF_TARGET` says so, with the name
    roots = ", ".join(facts.roots[:3]) + (", ..." if len(facts.roots) > 3 else "")
    check.report(
        "UNREACHABLE_AGENT",
        f"{name} is never reached: no handoff or delegate leads to it from {roots}, directly or through "
        "other agents, so it never runs; add a route to it or remove it",
        agent.name.range,
    )


@agent_rule("HANDOFF_CYCLE")
def handoff_cycle(check: Check, agent: Agent) -> None:
    routes = {route.index: route for route in agent.handoffs if route.target is not None}
    facts = check.project.graph_facts(agent.name.text, tuple(routes))
    if facts.declared_by is not agent.header:
        return
    for index, cycle in facts.cycles:
        target = routes[index].target
        assert target is not None
        check.report(
            "HANDOFF_CYCLE",
            f"this route is on the handoff loop {_show(cycle)}: the runtime refuses a handoff to an agent "
            "already in the handoff chain (`recursion`) and runs `ON_FAILURE` instead; make the route out "
            "returnable (`RETURN: true`) so that the way back resumes the waiting parent, or break the loop",
            target.range,
        )


def _show(loop: LoopEnds) -> str:
    names = [*loop.head, *loop.tail, loop.head[0]]  # `tail` is empty when `head` is the whole loop
    if loop.length + 1 > _SHOWN_AGENTS:
        names = [*names[: _SHOWN_AGENTS // 2], "…", *names[-(_SHOWN_AGENTS // 2) :]]
    return " → ".join(names)
