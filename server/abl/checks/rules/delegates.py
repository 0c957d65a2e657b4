"""DELEGATE entries: their targets, the fields they bring back, and who may delegate at all.

## What it does
- `INVALID_DELEGATE_TARGET`: `AGENT:` (or `TO:`) names no agent of the project (the whole
  workspace; remote targets are not checked). The message lists known agents and the closest one.
- `SELF_DELEGATE_TARGET`: the entry names the agent that declares it.
- `UNKNOWN_DELEGATE_RETURN_FIELD`: a `RETURNS` entry (`child_field: parent_var`) names a child
  field the target neither declares nor obviously produces (`abl.model.produced_fields`).
- `AGENT_RETURNED_WORK_REQUIRES_ORCHESTRATOR`: an agent whose `BEHAVIOR.role` is `router` or
  `assistant` declares `DELEGATE`.
- `INVALID_EXECUTION_ROLE`: a `SUPERVISOR` with `role: assistant`, or a `router` with no
  `HANDOFF` target.
- `DELEGATE_CHILD_GATHER_INPUT_UNMAPPED`: the delegate's target has a required top-level
  GATHER field (no default, no activation condition) that the delegate's `INPUT` does not supply.

## Why is this bad?
The compiler rejects unknown and self targets and delegation outside an orchestrator. A
`RETURNS` field the child never produces leaves the parent variable unwritten.

## Fix safety
Every suggestion (another target, another child field, `role: orchestrator`) changes what runs:
unsafe.
"""

from __future__ import annotations

from collections.abc import Iterator

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.checks.handoff_text import nameable
from abl.diagnostics import Fix
from abl.model import Agent, produced_fields
from abl.model.fields import root
from abl.model.types import Delegate, Name
from abl.suggest import did_you_mean, did_you_mean_name

# Roles that may not bring work back from a sub-agent (ABL-REFERENCE §3.23).
_NON_DELEGATING_ROLES = ("router", "assistant")
_ORCHESTRATOR = "orchestrator"
_LISTED = 12


@agent_rule("INVALID_DELEGATE_TARGET", "SELF_DELEGATE_TARGET")
def delegate_target(check: Check, agent: Agent) -> None:
    known = check.project.agent_names()
    for delegate in agent.delegates:
        target = delegate.target
        if target is None or not target.text:
            continue
        if target.text == agent.name.text:
            check.report(
                "SELF_DELEGATE_TARGET",
                f"`{agent.name.text}` delegates to itself; a delegate must call another agent, so the "
                "compiler rejects it",
                target.range,
            )
            continue
        if delegate.remote or check.project.agent(target.text) is not None:
            continue
        listed = ", ".join(known[:_LISTED]) + (f" and {len(known) - _LISTED} more" if len(known) > _LISTED else "")
        message = f'DELEGATE target "{target.text}" does not exist in this project; known agents: {listed or "none"}'
        found: tuple[Fix, ...] = ()
        better = did_you_mean(target.text, [n for n in nameable(known) if n != agent.name.text])
        if better is not None:
            message += f"; did you mean `{better}`?"
            found = (fixes.replace(f"Delegate to `{better}`", target.range, better, safe=False),)
        check.report("INVALID_DELEGATE_TARGET", message, target.range, found)


@agent_rule("UNKNOWN_DELEGATE_RETURN_FIELD")
def unknown_delegate_return_field(check: Check, agent: Agent) -> None:
    for delegate, _, child in _local_children(check, agent):
        produced = produced_fields(child)
        for entry in delegate.returns:
            field = entry.child.text
            if root(field) in produced:
                continue
            message = (
                f"`RETURNS` reads `{field}` from `{child.name.text}`, which neither declares nor "
                f"obviously produces it, so `{entry.parent.text}` is never written by this delegate"
            )
            found: tuple[Fix, ...] = ()
            better = did_you_mean_name(field, sorted(produced))
            if better is not None:
                message += f"; did you mean `{better}`?"
                found = (fixes.replace(f"Read `{better}`", entry.child.range, better, safe=False),)
            check.report("UNKNOWN_DELEGATE_RETURN_FIELD", message, entry.child.range, found)


@agent_rule("AGENT_RETURNED_WORK_REQUIRES_ORCHESTRATOR")
def delegate_needs_orchestrator(check: Check, agent: Agent) -> None:
    role = agent.role
    if role is None or role.lower not in _NON_DELEGATING_ROLES or not agent.delegates:
        return
    check.report(
        "AGENT_RETURNED_WORK_REQUIRES_ORCHESTRATOR",
        f"`{agent.name.text}` has `role: {role.text}` and declares `DELEGATE`; only an "
        f"`{_ORCHESTRATOR}` may bring work back from a delegate, so the compiler rejects it",
        role.range,
        (fixes.replace(f"Make the role `{_ORCHESTRATOR}`", role.range, _ORCHESTRATOR, safe=False),),
    )


@agent_rule("INVALID_EXECUTION_ROLE")
def invalid_execution_role(check: Check, agent: Agent) -> None:
    role = agent.role
    if role is None:
        return
    if role.lower == "assistant" and agent.is_supervisor:
        check.report(
            "INVALID_EXECUTION_ROLE",
            f"`{agent.name.text}` is a supervisor with `role: assistant`; an assistant is a leaf agent, so "
            "the compiler rejects it: use `router` (only hands off) or `orchestrator` (may also answer and delegate)",
            role.range,
        )
    elif role.lower == "router" and not any(r.target is not None and r.target.text for r in agent.handoffs):
        check.report(
            "INVALID_EXECUTION_ROLE",
            f"`{agent.name.text}` has `role: router` but no `HANDOFF` target; a router never answers itself, so "
            "the compiler rejects it: add a `HANDOFF` route, or use `orchestrator`",
            role.range,
        )


@agent_rule("DELEGATE_CHILD_GATHER_INPUT_UNMAPPED")
def delegate_child_input_unmapped(check: Check, agent: Agent) -> None:
    for delegate, target, child in _local_children(check, agent):
        supplied = {param.text for param, _ in delegate.inputs}
        missing = [f.name.text for f in child.gather if _needs_input(child, f) and f.name.text not in supplied]
        if not missing:
            continue
        names = ", ".join(f"`{m}`" for m in missing)
        adds = ", ".join(f"`{m}: <value>`" for m in missing)
        check.report(
            "DELEGATE_CHILD_GATHER_INPUT_UNMAPPED",
            f"`{child.name.text}` requires GATHER field{'s' if len(missing) > 1 else ''} {names}, which this "
            f"DELEGATE's `INPUT` does not supply; a delegate cannot ask the customer, so the compiler rejects it: "
            f"add {adds} to `INPUT`",
            target.range,
        )


def _local_children(check: Check, agent: Agent) -> Iterator[tuple[Delegate, Name, Agent]]:
    """Each delegate of `agent` to another agent of this project, with its target and that agent."""
    for delegate in agent.delegates:
        target = delegate.target
        if target is None or delegate.remote or target.text == agent.name.text:
            continue
        child = check.project.agent(target.text)
        if child is not None:
            yield delegate, target, child


def _needs_input(child: Agent, field) -> bool:
    """A required field with no default that is always asked (no activation condition)."""
    if not field.is_required or field.default is not None:
        return False
    section = child.section("GATHER")
    node = section.find(field.name.text) if section is not None else None
    if node is None:
        return True
    activation = node.find("activation") or node.find("WHEN")
    return activation is None or (
        not activation.children and activation.value.strip().strip("\"'").lower() == "required"
    )
