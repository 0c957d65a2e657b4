"""Choosing a `HANDOFF` route: conditions in order, first match wins.

Deterministic conditions are evaluated by the expression engine; quoted natural-language
conditions are judged by the model; `intent.category` comes from classifying the message
against the agent's `INTENTS` (once per message and agent). Every evaluated route emits
`handoff_condition_check` with the authored condition, the verdict, the values it read and how
it was decided (`whenOutcome`).
"""

from __future__ import annotations

from typing import Any

from abl.model.types import HandoffRoute
from abl.runtime.engine import Engine, TurnContext, intent_scope
from abl.runtime.evaluation import check, unset_variables
from abl.runtime.history import Entry
from abl.runtime.models import IntentDecision
from abl.runtime.state import Thread


def classify(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext) -> IntentDecision | None:
    """The intent of `message` among the agent's INTENTS (None when it has none or the model failed).
    A multi-intent plan may have decided it already (`pin`)."""
    key = (thread.agent, message.seq)
    if key in ctx.intents:
        return ctx.intents[key]
    plan = engine.plan(thread.agent)
    decision: IntentDecision | None = None
    if plan.intent_options:
        context, earlier = engine.model_context(thread, message)
        ok, answer = engine.consult(
            "intent",
            thread,
            ctx,
            earlier,
            lambda: engine.model.classify_intent(message.text, plan.intent_options, context),
        )
        decision = answer if ok else None
    ctx.intents[key] = decision
    return decision


def pin(ctx: TurnContext, thread: Thread, message: Entry, intent: str, confidence: float) -> None:
    """Decide the intent of `message` for `thread`'s agent without asking the model again."""
    ctx.intents[(thread.agent, message.seq)] = IntentDecision(intent, confidence, [(intent, confidence)])


def choose_route(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext) -> HandoffRoute | None:
    """The first route of the thread's agent whose condition holds, or None."""
    plan = engine.plan(thread.agent)
    if not plan.routes:
        return None
    extras: dict[str, Any] | None = None
    if plan.routes_read_intent:
        extras = intent_scope(classify(engine, thread, message, ctx))
    parent = engine.data.waiting_parent()
    forwarded = message.thread != thread.id
    for route in plan.routes:
        if forwarded and parent is not None and route.target is not None and route.target.text == parent.agent:
            # The message that brought this child in is not handed straight back to its parent.
            continue
        if evaluate_route(engine, thread, route, message, ctx, extras):
            return route
    return None


def evaluate_route(
    engine: Engine,
    thread: Thread,
    route: HandoffRoute,
    message: Entry,
    ctx: TurnContext,
    extras: dict[str, Any] | None,
) -> bool:
    target = route.target.text if route.target is not None else ""
    fields: dict[str, Any] = {"route": route.index, "target": target}
    when = route.when
    if when is None:
        fields.update(
            condition="",
            result=False,
            evaluatedContext={},
            whenOutcome="unresolved",
            problems=["the route has no WHEN"],
        )
        engine.emit("handoff_condition_check", fields, thread)
        return False
    fields["condition"] = when.text
    parse = when.parse
    if parse.natural_language:
        context, earlier = engine.model_context(thread, message)
        ok, decision = engine.consult(
            "condition",
            thread,
            ctx,
            earlier,
            lambda: engine.model.judge_condition(parse.content, message.text, context),
        )
        if not ok or decision is None:
            fields.update(
                result=False,
                evaluatedContext={"message": message.text},
                whenOutcome="unresolved",
                problems=["the model could not judge the condition"],
            )
            engine.emit("handoff_condition_check", fields, thread)
            return False
        fields.update(
            result=decision.result,
            evaluatedContext={"message": message.text},
            whenOutcome="semantic_match" if decision.result else "semantic_no_match",
            confidence=decision.confidence,
        )
        engine.emit("handoff_condition_check", fields, thread)
        return decision.result
    outcome = check(parse, thread.values, extras, engine.env)
    readable = parse.expr is not None and not parse.errors
    # A false condition on a variable nothing has set is not a verdict (PLATFORM-RUNTIME.md 2.2).
    unset = [] if outcome.result or not readable else unset_variables(parse, thread.values, extras)
    if outcome.result:
        verdict = "deterministic_match"
    elif readable and not unset:
        verdict = "deterministic_no_match"
    else:
        verdict = "unresolved"
    fields.update(result=outcome.result, evaluatedContext=outcome.context, whenOutcome=verdict)
    problems = [*outcome.problems, *(f"`{name}` is not set in any scope" for name in unset)]
    if problems:
        fields["problems"] = problems
    engine.emit("handoff_condition_check", fields, thread)
    return outcome.result
