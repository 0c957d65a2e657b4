"""Handoff targets must exist in the project, and must not be the agent itself.

## What it does
`MISSING_HANDOFF_TARGET` reports a route with no `TO:` (or an empty one).
`INVALID_HANDOFF_TARGET` checks every name a handoff can go to (route `TO:`, a constraint's
`ON_FAIL: HANDOFF X`, an error handler's `HANDOFF_TARGET` or `HANDOFF X`) against every agent
and supervisor in the whole project, not just the file. Remote routes are skipped: their
target lives in another deployment. `SELF_HANDOFF_TARGET` reports a route to its own agent.

## Why is this bad?
The platform compiles the project as a whole and rejects a name it cannot find; a route to
the active agent is refused at runtime as a cycle.

## Fix safety
The closest known name is offered, unsafe: it decides where the conversation goes.
"""

from __future__ import annotations

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.checks.handoff_text import nameable, quoted_list, route_entry
from abl.model import Agent, Name
from abl.suggest import did_you_mean


@agent_rule("MISSING_HANDOFF_TARGET")
def missing_handoff_target(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        if route.target is not None and route.target.text.strip():
            continue
        to = route_entry(route, "TO")
        if to is not None:
            where, what = to.key_range, "the route's `TO:` is empty"
        else:
            content = route.node.content if route.node is not None else None
            where = content.head_range if content is not None else route.dash_range
            what = "the route has no `TO:`"
            if route_entry(route, "AGENT") is not None:
                what += " (`AGENT:` names a DELEGATE target, not a route's)"
        check.report(
            "MISSING_HANDOFF_TARGET",
            f"{what}, so it has nowhere to go; the compiler rejects it: add `TO:` with the agent that "
            "takes the conversation",
            where,
        )


@agent_rule("INVALID_HANDOFF_TARGET")
def invalid_handoff_target(check: Check, agent: Agent) -> None:
    known = check.project.agent_names()
    for route in agent.handoffs:
        if route.target is None or route.remote or not route.target.text:
            continue
        _check_target(check, "HANDOFF target", route.target, known)
    # A route's `ON_FAILURE: HANDOFF X` is not an accepted failure action at all; that is
    # reported as INVALID_HANDOFF_FAILURE_ACTION, so its target is not checked twice.
    route_failure_targets = {
        (r.on_failure.target.text, r.on_failure.target.range)
        for r in agent.handoffs
        if r.on_failure is not None and r.on_failure.target is not None
    }
    for where, name in agent.other_handoff_refs:
        if (name.text, name.range) in route_failure_targets:
            continue
        label = "ON_ERROR handoff target" if where.startswith("ON_ERROR") else f"{where} HANDOFF target"
        _check_target(check, label, name, known)


@agent_rule("SELF_HANDOFF_TARGET")
def self_handoff_target(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        if route.target is None or route.target.text != agent.name.text:
            continue
        check.report(
            "SELF_HANDOFF_TARGET",
            f"{agent.name.text} hands off to itself; the compiler rejects a route to its own agent: "
            "name the agent that should take the conversation",
            route.target.range,
        )


def _check_target(check: Check, label: str, name: Name, known: list[str]) -> None:
    if check.project.agent(name.text) is not None:
        return
    guess = did_you_mean(name.text, nameable(known))
    hint = f'; did you mean "{guess}"' if guess else ""
    offered = fixes.use_instead(guess, name.range)
    check.report(
        "INVALID_HANDOFF_TARGET",
        f'{label} "{name.text}" does not exist in this project; known agents: {quoted_list(known)}{hint}',
        name.range,
        fixes=offered,
    )
