"""Running a `HANDOFF` route: refusals, the target thread, its context and history.

A route is refused before the target accepts it when the target does not exist
(`missing_target`), is already in the active handoff chain (`recursion`), is a thread that gave
control back this very turn with a question still open (`target_waiting_for_input`), is
switched off by `ENABLED_WHEN` (`disabled`), or when the nesting is already at its depth limit
(waiting parents, the active agent and this turn's one-way handoffs: `depth_limit`).
Only these failures run `ON_FAILURE`. A route to the waiting parent is a hand-back: the child
returns (see `returns`).

An accepted route creates the target thread (history resolved once, here) or resumes the
target's waiting thread (`thread_resume`: its own history is kept and `HISTORY` is not applied
again). The target runs at once on the same customer message; `handoff_completed` then reports
the outcome and the attempt's duration from the injected clock.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from abl.model.types import Agent, FailureKind, HandoffRoute
from abl.runtime import history
from abl.runtime.engine import MAX_HANDOFF_DEPTH, Engine, TurnContext
from abl.runtime.evaluation import check, fill, value_of
from abl.runtime.history import Entry
from abl.runtime.state import ACTIVE, COMPLETED, WAITING, Frame, Thread


def perform(engine: Engine, caller: Thread, route: HandoffRoute, message: Entry, ctx: TurnContext) -> bool:
    """Run the route. True when the turn is answered (the target ran, or ON_FAILURE responded)."""
    started = engine.clock.now()
    data = engine.data
    target = route.target.text if route.target is not None else ""

    parent = data.waiting_parent()
    if parent is not None and parent.agent == target and data.active == caller.id:
        from abl.runtime.returns import hand_back

        hand_back(engine, caller, route, message, ctx)
        _completed(engine, caller, target, started, "success")
        return True

    target_agent = engine.agent(target)
    if target_agent is None:
        return _fail(engine, caller, route, ctx, started, "error", "missing_target",
                     f"no agent named `{target}` in the project")
    if target == caller.agent or target in data.chain:
        cycle = " → ".join([*data.chain, target])
        return _fail(engine, caller, route, ctx, started, "rejected", "recursion",
                     f"`{target}` is already active in the handoff chain ({cycle})")
    resumable = _waiting_thread(engine, target)
    if resumable is not None and resumable.waiting_for_input and resumable.suspended_turn == ctx.index:
        fields = ", ".join(resumable.waiting_for_input)
        return _fail(engine, caller, route, ctx, started, "rejected", "target_waiting_for_input",
                     f"`{target}` is waiting for the customer's answer ({fields})")
    depth = nesting_depth(engine, ctx)
    if depth >= MAX_HANDOFF_DEPTH:
        engine.emit("error", {"code": "handoff_depth_limit", "limit": MAX_HANDOFF_DEPTH, "depth": depth,
                              "chain": list(data.chain), "message": f"the handoff to `{target}` would nest more "
                              f"than {MAX_HANDOFF_DEPTH} agents; it is stopped"}, caller)
        return _fail(engine, caller, route, ctx, started, "error", "depth_limit",
                     f"the handoff chain already holds {MAX_HANDOFF_DEPTH} agents")
    if route.enabled_when is not None and not route.enabled_when.is_natural_language:
        if not check(route.enabled_when.parse, caller.values, None, engine.env).result:
            return _fail(engine, caller, route, ctx, started, "blocked", "disabled",
                         f"ENABLED_WHEN of the route to `{target}` is false")

    context, passed = build_context(engine, caller, route)
    summary = str(context.get("_handoff_summary", ""))
    if resumable is not None:
        child = resumable
        preserved_keys = sorted(child.values)
        preserved_length = len(child.history)
        merge_context(child, context)
        child.status = ACTIVE
        child.waiting_for_input = []
        child.suspended_turn = None
        mode_shown: dict[str, Any] = {"mode": "thread_resume", "count": None}
        copied = 0
    else:
        selection = select_history(engine, caller, route, message, summary)
        child = Thread(
            id=engine.ids.next_id("thread"),
            agent=target,
            values=initial_values(engine, target_agent),
            history=list(selection.messages),
            origin=caller.id,
            returnable=route.is_returnable,
            history_mode=selection.mode,
            history_count=selection.count,
        )
        for name, value in context.items():
            child.set_value(name, value)
        data.threads[child.id] = child
        mode_shown = {"mode": selection.mode, "count": selection.count}
        copied = len(selection.messages)

    if route.is_returnable:
        caller.status = WAITING
        data.stack.append(Frame(caller.id, child.id, route.index, message, len(data.chain), child.history_mode))
    else:
        caller.status = COMPLETED
        ctx.one_way_hops += 1
    data.chain.append(target)
    data.active = child.id

    engine.emit("handoff", {
        "from": caller.agent,
        "to": target,
        "returnExpected": route.is_returnable,
        "reasonCode": "handoff_return_expected" if route.is_returnable else "handoff_permanent",
        "history": mode_shown,
        "historyMessages": copied,
        "passed": passed,
        "route": route.index,
    }, caller)
    if resumable is not None:
        engine.emit("thread_resume", {"preservedHistoryLength": preserved_length,
                                      "preservedDataKeys": preserved_keys,
                                      "reasonCode": "thread_resume_handoff"}, child)

    from abl.runtime.turn import process

    process(engine, child, message, ctx)
    _completed(engine, caller, target, started, "success")
    return True


def nesting_depth(engine: Engine, ctx: TurnContext) -> int:
    """How deep the active agent sits: its waiting parents, itself, and the one-way handoffs this
    turn has already made. A permanent handoff in an earlier turn ended its caller's thread, so
    it does not count; a wizard of many one-way steps never reaches the limit, a loop does."""
    return len(engine.data.stack) + 1 + ctx.one_way_hops


# --- context -------------------------------------------------------------------------------------


def build_context(engine: Engine, caller: Thread, route: HandoffRoute) -> tuple[dict[str, Any], list[str]]:
    """PASS fields that have a value, `_handoff_summary`, `_handoff_from`, then the route's SET."""
    context: dict[str, Any] = {"_handoff_from": caller.agent}
    passed: list[str] = []
    for name in route.passes:
        value = caller.values.get(name.text)
        if value is None:
            continue
        context[name.text] = value
        passed.append(name.text)
    if route.summary is not None and route.summary.text.strip():
        summary = fill(route.summary.text, caller.values, engine.env).strip()
        if summary:
            context["_handoff_summary"] = summary
    for assignment in route.set:
        value, _ = value_of(assignment.expr, caller.values, engine.env)
        context[assignment.target.text] = value
    return context, passed


def merge_context(thread: Thread, context: dict[str, Any]) -> None:
    """Resume-time merge: runtime keys (`_...`) always win; others only fill what is unset."""
    for name, value in context.items():
        if name.startswith("_") or thread.values.get(name) is None:
            thread.set_value(name, value)


def initial_values(engine: Engine, agent: Agent) -> dict[str, Any]:
    """`MEMORY` session variables with an `INITIAL` value."""
    values: dict[str, Any] = {}
    for var in agent.memory:
        if var.initial is not None:
            value, _ = value_of(var.initial.raw, values, engine.env)
            if value is not None:
                values[var.name.text] = value
    return values


def select_history(engine: Engine, caller: Thread, route: HandoffRoute, message: Entry,
                   summary: str) -> history.Selection:
    """The caller's earlier messages the target receives (the forwarded message itself follows)."""
    mode = route.history_mode
    count = route.history.resolved_count if route.history is not None else None
    earlier = [e for e in caller.history if e.seq != message.seq]
    children: list[Entry] = []
    excluded: list[str] = []
    if history.resolve_mode(mode, count, summary)[0] == "full":
        for thread in engine.data.descendants(caller.id):
            if thread.sensitive:
                excluded.append(thread.id)
            children.extend(e for e in thread.history if e.thread == thread.id)
    return history.select(mode, count, summary, earlier, children, excluded)


def _waiting_thread(engine: Engine, agent: str) -> Thread | None:
    """The target's most recent thread that is waiting and not a parent on the stack."""
    parents = {frame.parent for frame in engine.data.stack}
    for thread in reversed(list(engine.data.threads.values())):
        if thread.agent == agent and thread.status == WAITING and thread.id not in parents:
            return thread
    return None


# --- outcomes ------------------------------------------------------------------------------------


def _completed(engine: Engine, caller: Thread, target: str, started: datetime, outcome: str,
               cause: str | None = None, code: str | None = None) -> None:
    fields: dict[str, Any] = {"to": target, "outcome": outcome, "durationMs": _ms(started, engine.clock.now())}
    if cause is not None:
        fields["cause"] = cause
        fields["code"] = code
    engine.emit("handoff_completed", fields, caller)


def _fail(engine: Engine, caller: Thread, route: HandoffRoute, ctx: TurnContext,
          started: datetime, outcome: str, code: str, cause: str) -> bool:
    target = route.target.text if route.target is not None else ""
    _completed(engine, caller, target, started, outcome, cause, code)
    failure = route.on_failure
    if failure is None or failure.kind is FailureKind.CONTINUE:
        return False
    if failure.kind is FailureKind.RESPOND and failure.message:
        engine.say(caller, fill(failure.message, caller.values, engine.env), ctx)
        return True
    if failure.kind is FailureKind.ESCALATE:
        from abl.runtime.escalate import escalate

        escalate(engine, caller, f"the handoff to {target} failed: {cause}", None, ctx, source="on_failure")
        return True
    engine.emit("warning", {"code": "on_failure_not_run", "value": failure.value.raw,
                            "message": f"ON_FAILURE `{failure.value.raw}` is not run by the local runtime; "
                                       "the agent continues"}, caller)
    return False


def _ms(start: datetime, end: datetime) -> int:
    return int(round((end - start).total_seconds() * 1000))
