"""`DELEGATE`: a synchronous call to another agent, without the customer.

The sub-agent starts from its `INPUT` values (parent expressions), runs its `COMPLETE` rules once,
and its `RETURNS` fields are copied into the parent. It cannot ask the customer anything: a
required `GATHER` field that `INPUT` does not fill makes the call fail. The same one-shot run
serves the sibling requests of a parallel multi-intent plan (`run_one_shot`), which may also read
their own fields from the words that asked for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from abl.model.types import Agent, Delegate
from abl.runtime.engine import Engine, TurnContext
from abl.runtime.evaluation import check, value_of
from abl.runtime.gather import next_required
from abl.runtime.history import Entry
from abl.runtime.state import COMPLETED, Thread
from abl.runtime.values import granted_memory, initial_values


@dataclass(frozen=True, slots=True)
class OneShot:
    """What a one-shot run of an agent gave: its COMPLETE reply, its values, or the field it lacks."""

    completed: bool
    reply: str | None = None
    values: Mapping[str, Any] = field(default_factory=dict)
    missing: str | None = None


def run_delegates(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext) -> bool:
    """Run every delegate whose condition holds; True when at least one ran."""
    agent = engine.agent(thread.agent)
    if agent is None or not agent.delegates:
        return False
    ran = False
    for delegate in agent.delegates:
        when = delegate.when
        if when is not None and engine.holds(when, thread, message, ctx):
            run_delegate(engine, thread, delegate)
            ran = True
    return ran


def run_delegate(engine: Engine, parent: Thread, delegate: Delegate) -> None:
    target = delegate.target.text if delegate.target is not None else ""
    purpose = engine.render(parent, delegate.purpose.text) if delegate.purpose is not None else ""
    inputs: dict[str, Any] = {}
    for name, expression in delegate.inputs:
        value, _ = value_of(expression, parent.values, engine.env)
        if value is not None:
            inputs[name.text] = value
    engine.emit(
        "delegate_start", {"from": parent.agent, "to": target, "purpose": purpose, "input": sorted(inputs)}, parent
    )
    agent = engine.agent(target)
    if agent is None:
        _done(engine, parent, target, False, error=f"no agent named `{target}` in the project")
        return
    shot = run_one_shot(engine, parent, agent, inputs, granted_memory(parent.values, delegate.memory_grants))
    if not shot.completed and shot.missing is not None:
        _done(
            engine,
            parent,
            target,
            False,
            error=f"`{target}` needs `{shot.missing}` from the customer; a delegate cannot ask, so give it in INPUT",
        )
        return
    returned: list[str] = []
    for entry in delegate.returns:
        value = shot.values.get(entry.child.text)
        if value is None:
            continue
        parent.set_value(entry.parent.text, value)
        returned.append(entry.parent.text)
    _done(engine, parent, target, True, returned=returned, result=shot.reply)


def run_one_shot(
    engine: Engine, parent: Thread, agent: Agent, inputs: Mapping[str, Any], granted: Mapping[str, Any] | None = None
) -> OneShot:
    """Run `agent` once on `inputs` (and the memory `granted` to it): its first COMPLETE rule
    that holds answers for it."""
    child = Thread(
        id=engine.ids.next_id("delegate"),
        agent=agent.name.text,
        values={**initial_values(agent, engine.env), **(granted or {})},
        origin=parent.id,
        status=COMPLETED,
    )
    for name, value in inputs.items():
        child.set_value(name, value, gathered=True)
    for rule in agent.complete:
        if rule.when is None or rule.when.is_natural_language:
            continue
        if check(rule.when.parse, child.values, None, engine.env).result:
            for assignment in rule.set:
                value, _ = value_of(assignment.expr, child.values, engine.env)
                child.set_value(assignment.target.text, value)
            reply = engine.render(child, rule.respond.text) if rule.respond is not None else None
            return OneShot(True, reply, dict(child.values))
    missing = next_required(agent, child)
    return OneShot(False, None, dict(child.values), missing.name.text if missing is not None else None)


def _done(
    engine: Engine,
    parent: Thread,
    target: str,
    success: bool,
    *,
    error: str | None = None,
    returned: list[str] | None = None,
    result: str | None = None,
) -> None:
    fields: dict[str, Any] = {"to": target, "success": success, "returned": returned or []}
    if error is not None:
        fields["error"] = error
    if result is not None:
        fields["result"] = result
    engine.emit("delegate_complete", fields, parent)
