"""Handoff targets must exist in the project, and must not be the agent itself.

## What it does
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
from abl.checks.rules.handoff_text import closest, quoted_list
from abl.model import Agent, Name


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
        _check_target(check, f"{where} handoff target", name, known)


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
    guess = closest(name.text, known)
    hint = f"; did you mean \"{guess}\"" if guess else ""
    offered = []
    if guess is not None:
        # Another agent takes the conversation: a change to what runs.
        offered.append(fixes.replace(f"Use `{guess}`", name.range, guess, safe=False))
    check.report(
        "INVALID_HANDOFF_TARGET",
        f'{label} "{name.text}" does not exist in this project; known agents: {quoted_list(known)}{hint}',
        name.range,
        fixes=offered,
    )
