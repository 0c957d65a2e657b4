"""A returnable child gives control back to its waiting parent, or the parent stops waiting.

Three ways back (seed 004): the child completes, the child hands off to its waiting parent,
or a reasoning child (no `FLOW`) sees a customer message that belongs to the parent more than
to itself (the built-in return; the message is forwarded). Then, in order:

1. the parent becomes active again; with history `full` or `last_n` the child's replies join the
   parent's conversation, and a forwarded message joins it as a customer message;
2. the effects, all or nothing: `MAP` (only child fields with a value), then `SET`, then `CLEAR`,
   then a handler's `RESPOND`. A target the parent may not write (`abl.model.WriteAccess`: not
   declared in its `MEMORY` or `GATHER`, a persistent path it may only read, or a reserved `_`
   name) cancels every effect and emits `memory_error`;
3. `handoff_return_handler`, then the action the model decided (`OnReturn.effective_action`, else
   the handler's `RESUME_INTENT`): `continue`, or `resume_intent`, which replays one message
   through the parent's routes, one level deep (`resume_intent_depth_limit` beyond). A parent in
   the middle of its flow asks its open question again instead (no replay).

A returnable route with a `TIMEOUT` makes the parent stop waiting when the next message arrives
after that much time: `handoff_completed` with outcome `timeout`, then the route's `ON_TIMEOUT`
(`continue`, `escalate` (the default) or `respond:<message>`). `ON_FAILURE` does not run: the
child had accepted.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from abl.model.fields import RESERVED_TARGET, WriteRefusal
from abl.model.types import HandoffRoute, OnReturn, ReturnHandler, read_flag
from abl.runtime.agenda import NOTHING, AnswerIfSilent, EndReplay, GiveBack, Handle, ResumeFlow, Steps, SurfaceQueue
from abl.runtime.engine import Engine, TurnContext
from abl.runtime.escalate import escalate
from abl.runtime.evaluation import value_of
from abl.runtime.history import Entry, replies_joining_parent
from abl.runtime.plan import AgentPlan
from abl.runtime.state import ACTIVE, COMPLETED, WAITING, Thread

MAX_REPLAY_DEPTH = 1
# How clearly the parent's match must beat the child's own scope before a reasoning child gives
# control back: a near tie ("my order number is 5521" to a returns agent that asked for the
# order) is an answer to the child, not a new topic.
RETURN_MARGIN = 0.15


def return_to_parent(engine: Engine, item: GiveBack, ctx: TurnContext) -> Steps:
    """Pop the stack and resume the parent; see the module docstring for the order of things."""
    child, message, forwarded, cause = item.child, item.message, item.forwarded, item.cause
    data = engine.data
    frame = data.stack.pop()
    parent = data.threads[frame.parent]
    plan = engine.plan(parent.agent)
    route = plan.agent.handoffs[frame.route] if 0 <= frame.route < len(plan.agent.handoffs) else None

    if cause == "parent_return":
        child.status = WAITING
        child.waiting_for_input = [child.asked] if child.asked else []
        child.suspended_turn = ctx.index
    else:
        child.status = COMPLETED
    del data.chain[frame.chain_length :]
    parent.status = ACTIVE
    data.active = parent.id

    _join_conversation(engine, parent, frame.child, frame.history_mode, forwarded)

    on_return = route.on_return if route is not None else None
    handler = _handler(engine, parent, plan, on_return)
    action, resume_with = _action(engine, parent, on_return, handler, forwarded is not None)
    mapped, set_fields, cleared, emitted = _apply_effects(engine, parent, child, plan, route, on_return, handler)
    engine.emit(
        "handoff_return_handler",
        {
            "from": child.agent,
            "to": parent.agent,
            "handler": handler.name.text if handler is not None else None,
            "action": action,
            "mappedFields": mapped,
            "setFields": set_fields,
            "clearedFields": cleared,
            "emittedResponse": emitted,
            "cause": cause,
            "reasonCode": "handoff_return_resume_intent" if action == "resume_intent" else "handoff_return_continue",
        },
        parent,
    )
    if emitted:
        engine.say(parent, emitted, ctx)

    after: Steps = (SurfaceQueue(parent), AnswerIfSilent(parent, forwarded if forwarded is not None else message))
    if _in_flow(engine, parent):
        # A parent in the middle of its flow is not routed again: its open step goes on.
        return (ResumeFlow(parent, forwarded if forwarded is not None else message), SurfaceQueue(parent))
    if action == "resume_intent":
        replayed = _pick_message(engine, resume_with, frame.utterance, frame.child, forwarded, ctx)
        return (*replay(engine, parent, replayed, resume_with, ctx), *after)
    return after


def replay(engine: Engine, parent: Thread, message: Entry, resume_with: str, ctx: TurnContext) -> Steps:
    """Run one customer message again through the parent; a second level is refused."""
    if ctx.replay_depth >= MAX_REPLAY_DEPTH:
        engine.emit(
            "resume_intent_depth_limit",
            {
                "message": message.text,
                "resumeWith": resume_with,
                "depth": ctx.replay_depth + 1,
                "limit": MAX_REPLAY_DEPTH,
            },
            parent,
        )
        return NOTHING
    ctx.replay_depth += 1
    engine.emit(
        "resume_intent", {"message": message.text, "resumeWith": resume_with, "depth": ctx.replay_depth}, parent
    )
    return (Handle(parent, message, replay=True), EndReplay())


def end_replay(engine: Engine, item: EndReplay, ctx: TurnContext) -> Steps:
    ctx.replay_depth -= 1
    return NOTHING


def time_out(engine: Engine, message: Entry, ctx: TurnContext) -> Steps | None:
    """Stop waiting for a returnable child whose route's `TIMEOUT` has passed (checked when a
    message arrives); None when nothing timed out."""
    data = engine.data
    if not data.stack:
        return None
    frame = data.stack[-1]
    waited = engine.timeline.now_ms() - frame.started_ms
    if frame.timeout_ms is None or waited < frame.timeout_ms:
        return None
    data.stack.pop()
    parent = data.threads[frame.parent]
    late = data.active_thread
    late.status = COMPLETED
    del data.chain[frame.chain_length :]
    parent.status = ACTIVE
    data.active = parent.id
    engine.emit(
        "handoff_completed",
        {
            "to": data.threads[frame.child].agent,
            "outcome": "timeout",
            "durationMs": waited,
            "code": "timeout",
            "cause": f"no return within {frame.timeout_ms} ms",
        },
        parent,
    )
    action = frame.on_timeout.strip()
    if action.lower() == "continue":
        return (Handle(parent, message),)
    if action.lower().startswith("respond:"):
        engine.say(parent, engine.render(parent, action[len("respond:") :].strip()), ctx)
        return (Handle(parent, message),)
    escalate(engine, parent, f"no answer from {late.agent} within {frame.timeout_ms} ms", None, ctx, source="timeout")
    return NOTHING


# --- the built-in return -------------------------------------------------------------------------


def wants_parent(engine: Engine, child: Thread, message: Entry, ctx: TurnContext) -> bool:
    """Whether a reasoning child's customer asks for something the parent handles better.

    The parent's candidates are its `INTENTS` that route elsewhere and its natural-language
    `WHEN`s of routes to other agents. The best parent match must reach `minConfidence`, beat
    the child's own scope by `RETURN_MARGIN`, and (with `ignoreAmbiguous`) not be ambiguous.
    """
    data = engine.data
    parent = data.waiting_parent()
    if parent is None or data.active != child.id or message.thread != child.id:
        return False  # the message that brought the child in is never sent back
    child_agent = engine.agent(child.agent)
    if child_agent is None or child_agent.flow is not None or ctx.extracted.get(child.id):
        return False
    parent_plan = engine.plan(parent.agent)
    min_confidence, ignore_ambiguous = parent_return_settings(engine, parent_plan)
    elsewhere = [r for r in parent_plan.routes if r.target is not None and r.target.text != child.agent]
    if not elsewhere:
        return False
    context, earlier = engine.model_context(child, message)
    best = 0.0
    ambiguous = False
    wanted = _intents_routing_elsewhere(parent_plan, elsewhere, child.agent)
    if wanted:
        options = parent_plan.intent_options
        ok, decision = engine.consult(
            "intent", child, ctx, earlier, lambda: engine.model.classify_intent(message.text, options, context)
        )
        if ok and decision is not None and decision.name in wanted:
            best = decision.confidence
            ambiguous = decision.ambiguous
    for route in elsewhere:
        if route.when is None or not route.when.is_natural_language:
            continue
        text = route.when.parse.content
        ok, verdict = engine.consult(
            "condition", child, ctx, earlier, partial(engine.model.judge_condition, text, message.text, context)
        )
        if ok and verdict is not None and verdict.result and verdict.confidence > best:
            best = verdict.confidence
            ambiguous = False
    if best <= 0.0:
        return False
    if min_confidence is not None and best < min_confidence:
        return False
    if ignore_ambiguous and ambiguous:
        return False
    return best >= _own_scope_score(engine, child, message, ctx) + RETURN_MARGIN


def _own_scope_score(engine: Engine, child: Thread, message: Entry, ctx: TurnContext) -> float:
    """How well the message fits the child itself: its INTENTS, else its goal and prompts."""
    plan = engine.plan(child.agent)
    context, earlier = engine.model_context(child, message)
    if plan.intent_options:
        options = plan.intent_options
        ok, decision = engine.consult(
            "intent", child, ctx, earlier, lambda: engine.model.classify_intent(message.text, options, context)
        )
        return decision.ranked[0][1] if ok and decision is not None and decision.ranked else 0.0
    if not plan.scope_text:
        return 0.0
    scope = plan.scope_text
    ok, verdict = engine.consult(
        "condition", child, ctx, earlier, lambda: engine.model.judge_condition(scope, message.text, context)
    )
    if not ok or verdict is None:
        return 0.0
    return verdict.confidence if verdict.result else 1.0 - verdict.confidence


def parent_return_settings(engine: Engine, plan: AgentPlan) -> tuple[float | None, bool]:
    """`minConfidence` and `ignoreAmbiguous`: the supervisor's setting, else the project's."""
    project = engine.options.parent_return or {}
    min_confidence = _number(project.get("minConfidence"))
    project_flag = project.get("ignoreAmbiguous")
    ignore = project_flag if isinstance(project_flag, bool) else str(project_flag).strip().lower() == "true"
    own = plan.agent.parent_return
    if own is not None:
        if own.min_confidence is not None:
            value = _number(own.min_confidence.text)
            if value is not None:
                min_confidence = value
        flag = read_flag(own.ignore_ambiguous)
        if flag is not None:
            ignore = flag
    return min_confidence, bool(ignore)


def _intents_routing_elsewhere(plan: AgentPlan, elsewhere: list[HandoffRoute], child: str) -> frozenset[str]:
    """The parent's intents that lead to another agent than the returning child."""
    if not plan.intent_options:
        return frozenset()
    named: set[str] = set()
    for route in elsewhere:
        named.update(plan.route_intents.get(route.index, ()))
    back_to_child: set[str] = set()
    for route in plan.routes:
        if route.target is not None and route.target.text == child:
            back_to_child.update(plan.route_intents.get(route.index, ()))
    if not named:
        named = {o.name for o in plan.intent_options}
    return frozenset(named - back_to_child)


# --- internals -----------------------------------------------------------------------------------


def _in_flow(engine: Engine, thread: Thread) -> bool:
    agent = engine.agent(thread.agent)
    return agent is not None and agent.flow is not None and bool(thread.flow) and not thread.flow.get("done")


def _apply_effects(
    engine: Engine,
    parent: Thread,
    child: Thread,
    plan: AgentPlan,
    route: HandoffRoute | None,
    on_return: OnReturn | None,
    handler: ReturnHandler | None,
) -> tuple[list[str], list[str], list[str], str | None]:
    """MAP, SET, CLEAR and the handler's RESPOND, all or nothing."""
    maps = list(on_return.map if on_return is not None else ()) + list(route.legacy_map if route is not None else ())
    sets = list(on_return.set if on_return is not None else ())
    clears = [n.text for n in (on_return.clear if on_return is not None else ())]
    if handler is not None:
        clears.extend(n.text for n in handler.clear)
    targets = (
        [("MAP", m.parent.text) for m in maps]
        + [("SET", a.target.text) for a in sets]
        + [("CLEAR", name) for name in clears]
    )
    denied = [
        (source, target, refusal)
        for source, target in targets
        if (refusal := plan.write_access.refusal(target)) is not None
    ]
    if denied:
        for source, target, refusal in denied:
            engine.emit(
                "memory_error",
                {
                    "target": target,
                    "source": source,
                    "code": refusal.code,
                    "cause": _refusal_cause(refusal, target, parent.agent),
                    "from": child.agent,
                },
                parent,
            )
        return [], [], [], None
    mapped: list[str] = []
    set_fields: list[str] = []
    cleared: list[str] = []
    for entry in maps:
        value = _child_value(child, entry.child.text)
        if value is None:
            continue
        parent.set_value(entry.parent.text, value, gathered=True)
        if entry.parent.text not in mapped:
            mapped.append(entry.parent.text)
    for assignment in sets:
        value, _ = value_of(assignment.expr, parent.values, engine.env)
        parent.set_value(assignment.target.text, value)
        set_fields.append(assignment.target.text)
    for name in clears:
        parent.clear_value(name)
        if name not in cleared:
            cleared.append(name)
    emitted = None
    if handler is not None and handler.respond is not None and handler.respond.text.strip():
        emitted = engine.render(parent, handler.respond.text)
    return mapped, set_fields, cleared, emitted


def _join_conversation(engine: Engine, parent: Thread, child_id: str, mode: str, forwarded: Entry | None) -> None:
    """With `full` or `last_n` the child's replies join the parent's conversation (then a
    forwarded message); the parent's history stays in the order things were said."""
    known = {e.seq for e in parent.history}
    threads = [engine.data.threads[child_id], *engine.data.descendants(child_id)]
    said = (e for t in threads for e in t.history)
    joining = [e for e in replies_joining_parent(mode, said, {t.id for t in threads}) if e.seq not in known]
    if forwarded is not None and forwarded.seq not in known:
        joining.append(forwarded)
    if not joining:
        return
    merged = {e.seq: e for e in [*parent.history, *joining]}
    parent.history[:] = [merged[seq] for seq in sorted(merged)]


def _handler(engine: Engine, parent: Thread, plan: AgentPlan, on_return: OnReturn | None) -> ReturnHandler | None:
    name = on_return.handler_name if on_return is not None else None
    if name is None:
        return None
    handler = plan.handlers.get(name)
    if handler is None:
        engine.emit(
            "warning",
            {
                "code": "on_return_fallback",
                "message": f"ON_RETURN names the handler `{name}`, "
                "which RETURN_HANDLERS does not define; the parent continues",
            },
            parent,
        )
    return handler


def _action(
    engine: Engine, parent: Thread, on_return: OnReturn | None, handler: ReturnHandler | None, forwarded: bool
) -> tuple[str, str]:
    """(action, resume_with): what the model says is written, else the handler, else the default."""
    if on_return is None:
        if forwarded:
            return "resume_intent", "forwarded_return_message"
        return "continue", "original_handoff_utterance"
    if on_return.resume_with is not None and on_return.resume_message is None:
        engine.emit(
            "warning",
            {
                "code": "on_return_fallback",
                "message": f"resume_with `{on_return.resume_with.text}` "
                "is not known; the original handoff message is used",
            },
            parent,
        )
    if on_return.unknown_action is not None:
        engine.emit(
            "warning",
            {
                "code": "on_return_fallback",
                "message": f"ON_RETURN action `{on_return.unknown_action}` is not supported; the parent continues",
            },
            parent,
        )
    resume_with = on_return.resume_message or "original_handoff_utterance"
    action = on_return.effective_action
    if action is None:
        action = "resume_intent" if handler is not None and handler.resumes_intent else "continue"
    return action, resume_with


def _refusal_cause(refusal: WriteRefusal, target: str, parent: str) -> str:
    if refusal.code == RESERVED_TARGET:
        return f"`{target}` is reserved for the runtime; `{parent}` may not write it"
    declared = refusal.declaration
    if declared is not None:
        granted = "`ACCESS: read`" if declared.access_key == "ACCESS" else "listed under `READS:`"
        return f"`{target}` is a persistent path `{parent}` may only read ({granted})"
    return f"`{target}` is not declared in the MEMORY or GATHER of `{parent}`"


def _child_value(child: Thread, name: str) -> Any:
    if name in child.values:
        return child.values[name]
    current: Any = child.values
    for part in name.split("."):
        if isinstance(current, dict) and part in current:
            current = current[part]
        else:
            return None
    return current


def _pick_message(
    engine: Engine, resume_with: str, original: Entry, child_id: str, forwarded: Entry | None, ctx: TurnContext
) -> Entry:
    if resume_with == "latest_child_user_utterance":
        threads = [engine.data.threads[child_id], *engine.data.descendants(child_id)]
        ids = {t.id for t in threads}
        said = [e for t in threads for e in t.history if e.is_user and (e.thread in ids or e.seq >= original.seq)]
        if said:
            return max(said, key=lambda e: e.seq)
        return original
    if resume_with == "latest_session_user_utterance":
        return ctx.message
    if resume_with == "forwarded_return_message":
        return forwarded if forwarded is not None else ctx.message
    return original


def _number(value: Any) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
