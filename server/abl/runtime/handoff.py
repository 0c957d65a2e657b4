"""Running a `HANDOFF` route: refusals, acceptance, the target thread, its context and history.

A route is refused before the target accepts it when the target does not exist
(`missing_target`), is already in the active handoff chain (`recursion`), is a thread that gave
control back this very turn with a question still open (`target_waiting_for_input`), is
switched off by `ENABLED_WHEN` (`disabled`), when the nesting is already at its depth limit
(`depth_limit`), or when the target takes longer to accept than the route's `TIMEOUT`
(`timeout`; a target's acceptance time comes from `RuntimeOptions.handoff_delays`). Only these
failures run `ON_FAILURE`. A route to the waiting parent is a hand-back: the child returns.

An accepted route creates the target thread (history resolved once, here) or resumes the
target's waiting thread (`thread_resume`: its own history is kept and `HISTORY` is not applied
again). The target runs at once on the same customer message; `handoff_completed` then reports
the outcome and the attempt's duration on the session's timeline. A returnable route with a
`TIMEOUT` makes the parent stop waiting once that much time has passed (see `returns.time_out`).
"""

from __future__ import annotations

from typing import Any

from abl.model.history import read_default
from abl.model.lower_steps import duration_ms
from abl.model.types import FailureKind, HandoffRoute, Name, ReturnFlag, Scalar
from abl.runtime.agenda import NOTHING, GiveBack, Handle, RunSiblings, Settle, Steps
from abl.runtime.engine import MAX_HANDOFF_DEPTH, Engine, TurnContext
from abl.runtime.escalate import escalate
from abl.runtime.evaluation import check, value_of
from abl.runtime.history import Entry, Selection, resolve_mode, select
from abl.runtime.session_file import MAX_MS
from abl.runtime.state import ACTIVE, COMPLETED, WAITING, Frame, Thread
from abl.runtime.values import granted_memory, initial_values
from abl.text import Range

FLOW_ROUTE = -1  # the route index of a handoff a flow makes itself (a transition or a digression)


def flow_route(target: Name, returnable: bool) -> HandoffRoute:
    """A route for a handoff written in a flow (`THEN: HANDOFF X`, a digression's `HANDOFF`):
    full history, nothing passed, no ON_RETURN."""
    route = HandoffRoute(FLOW_ROUTE, target.range, target.range, target=target)
    route.returns = _RETURNS_TRUE if returnable else None
    return route


def perform(
    engine: Engine,
    caller: Thread,
    route: HandoffRoute,
    message: Entry,
    ctx: TurnContext,
    *,
    siblings: tuple[tuple[str, str], ...] = (),
    source: str | None = None,
) -> Steps | None:
    """Run the route: the steps that follow, or None when it failed and the caller goes on."""
    started = engine.timeline.now_ms()
    data = engine.data
    target = route.target.text if route.target is not None else ""
    ctx.attempts += 1
    attempt = ctx.attempts

    parent = data.waiting_parent()
    if parent is not None and parent.agent == target and data.active == caller.id:
        return hand_back(engine, caller, parent, route, message, started, attempt)

    target_agent = engine.agent(target)
    if target_agent is None and route.remote:
        return fail(
            engine,
            caller,
            route,
            ctx,
            started,
            "error",
            "remote_target",
            f"`{target}` runs in another deployment, which the local runtime does not call (declare it "
            "in the project to run it here)",
        )
    if target_agent is None:
        return fail(
            engine, caller, route, ctx, started, "error", "missing_target", f"no agent named `{target}` in the project"
        )
    if target == caller.agent or target in data.chain:
        cycle = " → ".join([*data.chain, target])
        return fail(
            engine,
            caller,
            route,
            ctx,
            started,
            "rejected",
            "recursion",
            f"`{target}` is already active in the handoff chain ({cycle})",
        )
    resumable = waiting_thread(engine, target)
    if resumable is not None and resumable.waiting_for_input and resumable.suspended_turn == ctx.index:
        awaited = ", ".join(resumable.waiting_for_input)
        return fail(
            engine,
            caller,
            route,
            ctx,
            started,
            "rejected",
            "target_waiting_for_input",
            f"`{target}` is waiting for the customer's answer ({awaited})",
        )
    depth = nested_handoffs(engine, ctx)
    if depth >= MAX_HANDOFF_DEPTH:
        engine.emit(
            "error",
            {
                "code": "handoff_depth_limit",
                "limit": MAX_HANDOFF_DEPTH,
                "depth": depth,
                "chain": list(data.chain),
                "message": f"the handoff to `{target}` would nest more than {MAX_HANDOFF_DEPTH} handoffs; it is stopped",
            },
            caller,
        )
        return fail(
            engine,
            caller,
            route,
            ctx,
            started,
            "error",
            "depth_limit",
            f"the handoff chain already holds {MAX_HANDOFF_DEPTH} nested handoffs",
        )
    if (
        route.enabled_when is not None
        and not route.enabled_when.is_natural_language
        and not check(route.enabled_when.parse, caller.values, None, engine.env).result
    ):
        return fail(
            engine,
            caller,
            route,
            ctx,
            started,
            "blocked",
            "disabled",
            f"ENABLED_WHEN of the route to `{target}` is false",
        )
    timeout = duration_ms(route.timeout.text) if route.timeout is not None else None
    if timeout is not None:
        timeout = min(timeout, MAX_MS)  # a longer wait never ends (time stops there, see `timeline`)
    delay = int(engine.options.handoff_delays.get(target, 0))
    if timeout is not None and delay > timeout:
        engine.timeline.advance(timeout)
        return fail(
            engine,
            caller,
            route,
            ctx,
            started,
            "timeout",
            "timeout",
            f"`{target}` did not accept within {route.timeout.text if route.timeout else ''}",
        )
    engine.timeline.advance(delay)

    context, passed = build_context(engine, caller, route)
    summary = str(context.get("_handoff_summary", ""))
    resolved_mode, resolved_count = resolve_mode(*history_setting(engine, route), summary)
    if resumable is not None:
        child = resumable
        preserved_keys = sorted(child.values)
        preserved_length = len(child.history)
        merge_context(child, context)
        child.status = ACTIVE
        child.waiting_for_input = []
        child.suspended_turn = None
        copied = 0
    else:
        selection = select_history(engine, caller, route, message, summary)
        child = Thread(
            id=engine.ids.next_id("thread"),
            agent=target,
            values=initial_values(target_agent, engine.env),
            history=list(selection.messages),
            origin=caller.id,
            returnable=route.is_returnable,
            history_mode=selection.mode,
            history_count=selection.count,
        )
        for name, value in context.items():
            child.set_value(name, value)
        data.threads[child.id] = child
        copied = len(selection.messages)

    if route.is_returnable:
        caller.status = WAITING
        on_timeout = timeout_action(route.on_timeout.text if route.on_timeout is not None else None)
        data.stack.append(
            Frame(
                caller.id,
                child.id,
                route.index,
                message,
                len(data.chain),
                child.history_mode,
                engine.timeline.now_ms(),
                timeout,
                on_timeout,
            )
        )
    else:
        caller.status = COMPLETED
        ctx.one_way_hops += 1
    data.chain.append(target)
    data.active = child.id

    fields: dict[str, Any] = {
        "from": caller.agent,
        "to": target,
        "returnExpected": route.is_returnable,
        "reasonCode": "handoff_return_expected" if route.is_returnable else "handoff_permanent",
        "history": {"mode": resolved_mode, "count": resolved_count},
        "historyMessages": copied,
        "passed": passed,
    }
    if route.index >= 0:
        fields["route"] = route.index
    if resumable is not None:
        fields["resumed"] = True
    if source is not None:
        fields["source"] = source
    engine.emit("handoff", fields, caller)
    if resumable is not None:
        engine.emit(
            "thread_resume",
            {
                "preservedHistoryLength": preserved_length,
                "preservedDataKeys": preserved_keys,
                "reasonCode": "thread_resume_handoff",
            },
            child,
        )
    else:
        engine.announce(child)
    after: Steps = (RunSiblings(caller, siblings, attempt),) if siblings else NOTHING
    return (Handle(child, message), *after, Settle(caller, target, started, attempt))


def hand_back(
    engine: Engine, child: Thread, parent: Thread, route: HandoffRoute, message: Entry, started: int, attempt: int
) -> Steps:
    """The child's own route leads to its waiting parent: the parent's thread resumes (its own
    history is kept, so the route's HISTORY is reported but not applied), and the child returns."""
    from_agent = child.agent
    passed = [n.text for n in route.passes if child.values.get(n.text) is not None]
    mode, count = resolve_mode(*history_setting(engine, route), "")
    fields: dict[str, Any] = {
        "from": from_agent,
        "to": parent.agent,
        "returnExpected": route.is_returnable,
        "reasonCode": "handoff_return_expected" if route.is_returnable else "handoff_permanent",
        "history": {"mode": mode, "count": count},
        "historyMessages": 0,
        "passed": passed,
        "resumed": True,
        "handBack": True,
    }
    if route.index >= 0:
        fields["route"] = route.index
    engine.emit("handoff", fields, child)
    engine.emit(
        "thread_resume",
        {
            "preservedHistoryLength": len(parent.history),
            "preservedDataKeys": sorted(parent.values),
            "reasonCode": "thread_resume_handoff",
        },
        parent,
    )
    return (GiveBack(child, message, message, "handback"), Settle(child, parent.agent, started, attempt))


def settle(engine: Engine, item: Settle, ctx: TurnContext) -> Steps:
    """`handoff_completed` for an accepted attempt, once the target has run."""
    sibling_ms = ctx.siblings.pop(item.attempt, None)
    duration = engine.timeline.now_ms() - item.started_ms - (sibling_ms or 0)
    fields: dict[str, Any] = {"to": item.target, "outcome": "success", "durationMs": max(duration, 0)}
    if sibling_ms is not None:
        fields["siblingIntentMs"] = sibling_ms
    engine.emit("handoff_completed", fields, item.caller)
    return NOTHING


def nested_handoffs(engine: Engine, ctx: TurnContext) -> int:
    """The handoffs that lead to the active agent: one per waiting parent, and the one-way
    handoffs this turn has already made. A permanent handoff in an earlier turn ended its
    caller's thread, so it does not count; a wizard of many one-way steps never reaches the
    limit, a loop does."""
    return len(engine.data.stack) + ctx.one_way_hops


# --- context -------------------------------------------------------------------------------------


def build_context(engine: Engine, caller: Thread, route: HandoffRoute) -> tuple[dict[str, Any], list[str]]:
    """PASS fields that have a value, granted memory paths that have one, `_handoff_summary`,
    `_handoff_from`, then the route's SET."""
    context: dict[str, Any] = {"_handoff_from": caller.agent}
    context.update(granted_memory(caller.values, route.memory_grants))
    passed: list[str] = []
    for name in route.passes:
        value = caller.values.get(name.text)
        if value is None:
            continue
        context[name.text] = value
        passed.append(name.text)
    if route.summary is not None and route.summary.text.strip():
        summary = engine.render(caller, route.summary.text).strip()
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


def select_history(engine: Engine, caller: Thread, route: HandoffRoute, message: Entry, summary: str) -> Selection:
    """The caller's earlier messages the target receives (the forwarded message itself follows)."""
    mode, count = history_setting(engine, route)
    earlier = [e for e in caller.history if e.seq != message.seq]
    children: list[Entry] = []
    excluded: list[str] = []
    if resolve_mode(mode, count, summary)[0] == "full":
        for thread in engine.data.descendants(caller.id):
            if thread.sensitive:
                excluded.append(thread.id)
            children.extend(e for e in thread.history if e.thread == thread.id)
    return select(mode, count, summary, earlier, children, excluded)


def waiting_thread(engine: Engine, agent: str) -> Thread | None:
    """The target's most recent thread that is waiting and not a parent on the stack."""
    parents = {frame.parent for frame in engine.data.stack}
    for thread in reversed(list(engine.data.threads.values())):
        if thread.agent == agent and thread.status == WAITING and thread.id not in parents:
            return thread
    return None


# --- outcomes ------------------------------------------------------------------------------------


def fail(
    engine: Engine,
    caller: Thread,
    route: HandoffRoute,
    ctx: TurnContext,
    started: int,
    outcome: str,
    code: str,
    cause: str,
) -> Steps | None:
    """A handoff that failed before the target accepted it: `handoff_completed`, then
    `ON_FAILURE`. None when the caller goes on as if no route had matched."""
    target = route.target.text if route.target is not None else ""
    duration = max(engine.timeline.now_ms() - started, 0)
    engine.emit(
        "handoff_completed",
        {"to": target, "outcome": outcome, "durationMs": duration, "cause": cause, "code": code},
        caller,
    )
    failure = route.on_failure
    if failure is None or failure.kind is FailureKind.CONTINUE:
        return None
    if failure.kind is FailureKind.RESPOND and failure.message:
        engine.say(caller, engine.render(caller, failure.message), ctx)
        return NOTHING
    if failure.kind is FailureKind.ESCALATE:
        escalate(engine, caller, f"the handoff to {target} failed: {cause}", None, ctx, source="on_failure")
        return NOTHING
    engine.emit(
        "warning",
        {
            "code": "on_failure_not_run",
            "value": failure.value.raw,
            "message": f"ON_FAILURE `{failure.value.raw}` is not run by the local runtime; the agent continues",
        },
        caller,
    )
    return None


def history_setting(engine: Engine, route: HandoffRoute) -> tuple[str, int | None]:
    """The route's `HISTORY` as written, else the project's `default-history`."""
    if route.history is not None:
        return route.history.resolved_mode, route.history.resolved_count
    return read_default(engine.project.default_history)


_NOWHERE = Range.empty(0, 0)
_RETURNS_TRUE = ReturnFlag(Name("RETURN", _NOWHERE), Scalar("true", "true", False, _NOWHERE))


def timeout_action(written: str | None) -> str:
    """`ON_TIMEOUT` as the parent reads it, in the words a saved session holds: `continue`,
    `respond:<text>`, or `escalate` (also for anything else, as when it is not written)."""
    text = (written or "").strip()
    if text.lower() == "continue":
        return "continue"
    if text.lower().startswith("respond:"):
        return "respond:" + text[len("respond:") :]
    return "escalate"
