"""`MULTI_INTENT`: a message that asks for several things at once.

An agent with `MULTI_INTENT` (not `enabled: false`) and `INTENTS` asks the model for every intent
a new customer message expresses. Intents below `confidence_threshold` are dropped and at most
`max_intents` are kept; with two or more, a plan is built (`multi_intent_plan_built`) and the
strategy decides, as the platform does:

- `primary_queue` (the default): the first intent is routed now; the others are queued and offered
  one at a time ("Would you also like help with ...?") when control is back with this agent. A
  yes takes the queued request up, a no drops it, anything else drops the queue and is handled
  as a new message. Queued intents older than `queue_max_age_ms` are dropped when offered.
- `sequential`: each intent is routed in turn within the turn, as long as this agent keeps
  control; when a target keeps the conversation, the rest are queued.
- `parallel`: the first intent is routed; the others run inside that handoff attempt as one-shot
  tasks of their targets (the way a `DELEGATE` runs: no questions to the customer), whose
  `COMPLETE` replies are said; their time is the attempt's `siblingIntentMs`, not in its
  `durationMs`. A sibling whose target needs the customer's input is queued instead. Parallel is
  for supervisors; elsewhere it runs as `sequential`.
- `disambiguate`: the customer is asked which request comes first; the others are queued.
- `auto`: independent intents run `parallel` on a supervisor and `sequential` elsewhere,
  dependent ones `sequential`, ambiguous ones `disambiguate`.

The queue and any open question are plain data on the thread (`Thread.intents`).
"""

from __future__ import annotations

import re
from typing import Any

from abl.model.types import MultiIntent
from abl.runtime.agenda import NOTHING, Handle, NextTask, RunSiblings, Steps, SurfaceQueue
from abl.runtime.delegate import run_one_shot
from abl.runtime.engine import Engine, TurnContext
from abl.runtime.evaluation import fill
from abl.runtime.history import Entry
from abl.runtime.models import DetectedIntent, FieldSpec
from abl.runtime.routing import pin
from abl.runtime.state import Thread

FOLLOW_UP = "Would you also like help with {{next_intent}}?"
DISAMBIGUATE = "I can help with several things: {{options}}. Which would you like first?"
STRATEGIES = ("primary_queue", "sequential", "parallel", "disambiguate", "auto")
_CHOICE_NUMBER = re.compile(r"\b([1-9])\b")
# How a request often starts; left out when the request is offered back to the customer.
_LEAD_IN = re.compile(
    r"^(?:and\s+)?(?:i\s+(?:would like|'d like|want|need)\s+(?:you\s+)?to\s+|please\s+|"
    r"can you\s+|could you\s+)",
    re.IGNORECASE,
)


def settings(engine: Engine, thread: Thread) -> MultiIntent | None:
    agent = engine.agent(thread.agent)
    if agent is None or agent.multi_intent is None or not agent.multi_intent.enabled:
        return None
    return agent.multi_intent if engine.plan(thread.agent).intent_options else None


def open_question(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext) -> Steps | None:
    """The customer's answer to an offered queued intent, or to "which first?"; None when this
    agent asked nothing (or the answer is a new request, which is then handled as one)."""
    offer = thread.intents.pop("offer", None)
    if offer is None:
        return None
    if offer["kind"] == "choose":
        return _choose(engine, thread, message, ctx, offer["intents"])
    intent, text = offer["intent"], offer["text"]
    accepted = _yes_or_no(engine, thread, message, ctx)
    if accepted is True:
        engine.emit("multi_intent_queue_accepted", {"intent": intent}, thread)
        return _route_now(engine, thread, intent, text, ctx)
    if accepted is False:
        engine.emit("multi_intent_queue_declined", {"intent": intent}, thread)
        return (SurfaceQueue(thread),)
    thread.intents.pop("queue", None)
    return None


def plan_intents(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext) -> Steps | None:
    """Detect several intents in a new message and start the plan; None for a single request
    (or when it is the primary of a queue, which then routes as usual)."""
    config = settings(engine, thread)
    if config is None or message.thread != thread.id:
        return None
    options = engine.plan(thread.agent).intent_options
    context, earlier = engine.model_context(thread, message)
    ok, decision = engine.consult(
        "intents", thread, ctx, earlier, lambda: engine.model.detect_intents(message.text, options, context)
    )
    if not ok or decision is None:
        return None
    kept = [d for d in decision.intents if d.confidence >= config.confidence_threshold][: max(config.max_intents, 1)]
    if len(kept) < 2:
        return None
    strategy = _strategy(engine, thread, config, decision.relationship)
    engine.emit(
        "multi_intent_plan_built",
        {
            "intents": [{"intent": d.name, "confidence": d.confidence, "text": d.text} for d in kept],
            "strategy": strategy,
            "relationship": decision.relationship,
        },
        thread,
    )
    primary, rest = kept[0], kept[1:]
    if strategy == "disambiguate":
        return _ask_which(engine, thread, kept, ctx)
    if strategy == "sequential":
        tasks = tuple((d.name, d.text) for d in kept)
        return (NextTask(thread, tasks, 0),)
    pin(ctx, thread, message, primary.name, primary.confidence)
    if strategy == "parallel":
        ctx.pending_siblings = tuple((d.name, d.text) for d in rest)
        return None
    _queue(engine, thread, rest)
    return None


def take_siblings(ctx: TurnContext) -> tuple[tuple[str, str], ...]:
    """Siblings a parallel plan hands to the primary's handoff attempt (once)."""
    siblings, ctx.pending_siblings = ctx.pending_siblings, ()
    return siblings


def next_task(engine: Engine, item: NextTask, ctx: TurnContext) -> Steps:
    """One intent of a sequential plan; the rest wait in the queue if the agent lost control."""
    thread, tasks, index = item.thread, item.tasks, item.index
    in_control = engine.data.active == thread.id
    if index > 0 and in_control:
        engine.emit(
            "multi_intent_sequential_task_complete", {"intent": tasks[index - 1][0], "index": index - 1}, thread
        )
    if index >= len(tasks):
        return NOTHING
    if not in_control:
        _queue(engine, thread, [DetectedIntent(name, 1.0, text) for name, text in tasks[index:]])
        return NOTHING
    intent, text = tasks[index]
    engine.emit("multi_intent_sequential_task_start", {"intent": intent, "index": index}, thread)
    return (*_route_now(engine, thread, intent, text, ctx), NextTask(thread, tasks, index + 1))


def run_siblings(engine: Engine, item: RunSiblings, ctx: TurnContext) -> Steps:
    """Sibling intents inside the primary's handoff attempt: each target runs once, on its own
    words, without asking the customer anything."""
    caller = item.caller
    plan = engine.plan(caller.agent)
    started = engine.timeline.now_ms()
    ran: list[str] = []
    queued: list[DetectedIntent] = []
    for intent, text in item.siblings:
        route = next((r for r in plan.routes if intent in plan.route_intents.get(r.index, ())), None)
        target = engine.agent(route.target.text) if route is not None and route.target is not None else None
        if route is None or target is None:
            queued.append(DetectedIntent(intent, 1.0, text))
            continue
        engine.timeline.advance(int(engine.options.handoff_delays.get(target.name.text, 0)))
        inputs = {n.text: caller.values[n.text] for n in route.passes if caller.values.get(n.text) is not None}
        inputs.update(_fields_in(engine, caller, target.name.text, text, ctx))
        shot = run_one_shot(engine, caller, target, inputs)
        if not shot.completed:
            queued.append(DetectedIntent(intent, 1.0, text))
            continue
        ran.append(intent)
        if shot.reply:
            engine.relay(caller, target.name.text, shot.reply, ctx)
    spent = engine.timeline.now_ms() - started
    ctx.siblings[item.attempt] = ctx.siblings.get(item.attempt, 0) + spent
    if ran:
        engine.emit("multi_intent_parallel_executed", {"intents": ran, "siblingIntentMs": spent}, caller)
    if queued:
        _queue(engine, caller, queued)
        return (SurfaceQueue(caller),)
    return NOTHING


def surface(engine: Engine, item: SurfaceQueue, ctx: TurnContext) -> Steps:
    """Offer the next queued intent, when this agent has control and asked nothing else."""
    thread = item.thread
    queue: list[dict[str, Any]] = thread.intents.get("queue", [])
    if not queue or engine.data.active != thread.id or "offer" in thread.intents or engine.data.ended:
        return NOTHING
    config = settings(engine, thread)
    max_age = config.queue_max_age_ms if config is not None else 600_000
    now = engine.timeline.now_ms()
    while queue:
        head = queue.pop(0)
        age = now - int(head["at"])
        if age > max_age:
            engine.emit("multi_intent_queue_expired", {"intent": head["intent"], "ageMs": age}, thread)
            continue
        thread.intents["offer"] = {"kind": "queue", "intent": head["intent"], "text": head["text"]}
        engine.emit("multi_intent_queue_surfaced", {"intent": head["intent"]}, thread)
        wording = engine.message_text(thread, "multi_intent_queued_follow_up", FOLLOW_UP)
        engine.say(thread, fill(wording, {"next_intent": _request(head["text"])}, engine.env), ctx)
        break
    if not queue:
        thread.intents.pop("queue", None)
    return NOTHING


# --- internals -----------------------------------------------------------------------------------


def _strategy(engine: Engine, thread: Thread, config: MultiIntent, relationship: str) -> str:
    agent = engine.agent(thread.agent)
    supervisor = agent is not None and agent.is_supervisor
    strategy = config.strategy if config.strategy in STRATEGIES else "primary_queue"
    if strategy == "auto":
        if relationship == "ambiguous":
            return "disambiguate"
        if relationship == "dependent":
            return "sequential"
        strategy = "parallel" if relationship == "independent" else config.unknown_relationship_strategy
    if strategy == "parallel":
        if relationship == "ambiguous":
            return "disambiguate"
        if relationship == "dependent" or not supervisor:
            return "sequential"
    return strategy if strategy in STRATEGIES else "primary_queue"


def _queue(engine: Engine, thread: Thread, intents: list[DetectedIntent]) -> None:
    if not intents:
        return
    queue = thread.intents.setdefault("queue", [])
    now = engine.timeline.now_ms()
    queue.extend({"intent": d.name, "text": d.text, "at": now} for d in intents)
    engine.emit("multi_intent_queued", {"intents": [d.name for d in intents]}, thread)


def _route_now(engine: Engine, thread: Thread, intent: str, text: str, ctx: TurnContext) -> Steps:
    """Handle the words of one intent as the customer's request, its intent already known."""
    request = engine.new_entry("user", text, thread)
    pin(ctx, thread, request, intent, 1.0)
    return (Handle(thread, request),)


def _ask_which(engine: Engine, thread: Thread, intents: list[DetectedIntent], ctx: TurnContext) -> Steps:
    offered = [{"intent": d.name, "text": d.text} for d in intents]
    thread.intents["offer"] = {"kind": "choose", "intents": offered}
    engine.emit("multi_intent_disambiguate_requested", {"intents": [d.name for d in intents]}, thread)
    listing = "; ".join(f"{i}. {_request(d.text)}" for i, d in enumerate(intents, start=1))
    wording = engine.message_text(thread, "multi_intent_disambiguate_header", DISAMBIGUATE)
    engine.say(thread, fill(wording, {"options": listing}, engine.env), ctx)
    return NOTHING


def _choose(
    engine: Engine, thread: Thread, message: Entry, ctx: TurnContext, offered: list[dict[str, Any]]
) -> Steps | None:
    """The customer picks one of the offered requests by number or in words."""
    chosen = None
    number = _CHOICE_NUMBER.search(message.text)
    if number is not None and 1 <= int(number.group(1)) <= len(offered):
        chosen = offered[int(number.group(1)) - 1]
    else:
        options = engine.plan(thread.agent).intent_options
        names = {o["intent"] for o in offered}
        context, earlier = engine.model_context(thread, message)
        ok, decision = engine.consult(
            "intent", thread, ctx, earlier, lambda: engine.model.classify_intent(message.text, options, context)
        )
        if ok and decision is not None and decision.name in names:
            chosen = next(o for o in offered if o["intent"] == decision.name)
    if chosen is None:
        return None  # not a choice: a new request
    engine.emit("multi_intent_disambiguate_choice", {"intent": chosen["intent"]}, thread)
    rest = [DetectedIntent(o["intent"], 1.0, o["text"]) for o in offered if o is not chosen]
    _queue(engine, thread, rest)
    return _route_now(engine, thread, chosen["intent"], chosen["text"], ctx)


def _request(text: str) -> str:
    """The words of a request as they read after "help with": `check my balance`."""
    return _LEAD_IN.sub("", text.strip()).rstrip(" .?!") or text


def _yes_or_no(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext) -> bool | None:
    spec = FieldSpec(name="accept", type="boolean", asked=True)
    context, earlier = engine.model_context(thread, message)
    ok, found = engine.consult(
        "extract", thread, ctx, earlier, lambda: engine.model.extract([spec], message.text, context)
    )
    answer = found.get("accept") if ok and found else None
    return answer.value if answer is not None and isinstance(answer.value, bool) else None


def _fields_in(engine: Engine, caller: Thread, agent: str, text: str, ctx: TurnContext) -> dict[str, Any]:
    """The target's GATHER values its request's words give."""
    target = engine.agent(agent)
    if target is None or not target.gather:
        return {}
    specs = [
        FieldSpec(name=f.name.text, type=f.type_name, options=f.options, required=f.is_required) for f in target.gather
    ]
    context, earlier = engine.model_context(caller, None)
    ok, found = engine.consult("extract", caller, ctx, earlier, lambda: engine.model.extract(specs, text, context))
    return {name: extraction.value for name, extraction in (found or {}).items()} if ok else {}
