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

Both rules read the whole graph through `project.graph()`, which the check cache tracks as a
read of every agent: they run again whenever any agent changes.
"""

from __future__ import annotations

from abl.checks.context import Check, agent_rule
from abl.model import Agent
from abl.suggest import did_you_mean
from abl.workspace.graph import NodeKind

# A loop longer than this is shown by its ends, so that a message stays readable.
_SHOWN_AGENTS = 8


@agent_rule("UNREACHABLE_AGENT")
def unreachable_agent(check: Check, agent: Agent) -> None:
    graph = check.project.graph()
    name = agent.name.text
    node = graph.node(name)
    if name not in graph.unreachable or node is None or node.path != agent.path or node.range != agent.name.range:
        return  # reachable, or a second agent of the same name (routes reach the first)
    missing = [n.label for n in graph.nodes.values() if n.kind is NodeKind.MISSING]
    if missing and any(did_you_mean(typo, [name]) == name for typo in missing):
        return  # a route names it with a typo: `INVALID_HANDOFF_TARGET` says so, with the name
    roots = ", ".join(graph.roots[:3]) + (", ..." if len(graph.roots) > 3 else "")
    check.report(
        "UNREACHABLE_AGENT",
        f"{name} is never reached: no handoff or delegate leads to it from {roots}, directly or through "
        "other agents, so it never runs; add a route to it or remove it",
        agent.name.range,
    )


@agent_rule("HANDOFF_CYCLE")
def handoff_cycle(check: Check, agent: Agent) -> None:
    graph = check.project.graph()
    node = graph.node(agent.name.text)
    if node is None or node.path != agent.path or node.range != agent.name.range:
        return
    for route in agent.handoffs:
        if route.target is None:
            continue
        cycle = graph.cycle_through(agent.name.text, route.index)
        if cycle is None:
            continue
        check.report(
            "HANDOFF_CYCLE",
            f"this route is on the handoff loop {_show(cycle)}: the runtime refuses a handoff to an agent "
            "already in the handoff chain (`recursion`) and runs `ON_FAILURE` instead; make the route out "
            "returnable (`RETURN: true`) so that the way back resumes the waiting parent, or break the loop",
            route.target.range,
        )


def _show(cycle: tuple[str, ...]) -> str:
    names = list(cycle) + [cycle[0]]
    if len(names) > _SHOWN_AGENTS:
        names = names[: _SHOWN_AGENTS // 2] + ["…"] + names[-(_SHOWN_AGENTS // 2) :]
    return " → ".join(names)
