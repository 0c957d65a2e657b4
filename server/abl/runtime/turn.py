"""One turn: a customer message through the active agent (and whoever it hands off to).

For the agent that holds the message, in order:

1. the message joins the agent's conversation;
2. `ESCALATE` triggers (a match hands the session to a human);
3. `GATHER`: extract what the message gives for unset fields;
4. `COMPLETE`: the first rule that holds completes the agent (a returnable child returns);
5. `HANDOFF`: the first route that holds runs; the target answers the same message at once;
6. `DELEGATE`s that hold run, then `COMPLETE` is checked again;
7. the built-in return of a reasoning child whose customer asks for the parent's business;
8. otherwise the agent answers: its next `GATHER` prompt, or the model's free reply.

A turn never loops forever: agent activations per turn are counted, handoff chains are
bounded, and replays are one level deep.
"""

from __future__ import annotations

from abl.model.types import Agent
from abl.runtime.api import Turn
from abl.runtime.engine import MAX_STEPS_PER_TURN, Engine, TurnContext
from abl.runtime.evaluation import check, fill, value_of
from abl.runtime.history import Entry
from abl.runtime.models import ReplyRequest
from abl.runtime.state import ACTIVE, COMPLETED, Thread
from abl.runtime.trace import TraceEvent, TraceLevel


def run_turn(engine: Engine, text: str, level: TraceLevel) -> Turn:
    text = valid_text(text)
    data = engine.data
    data.turn += 1
    thread = data.active_thread
    engine.start_recording()
    entry = engine.new_entry("user", text, thread)
    data.log.append(entry)
    ctx = TurnContext(data.turn, entry)
    if data.ended and data.end_reason == "complete":
        # The agent finished its job, but the customer is still talking (seed 000 asks the
        # order status agent a question after it completed): it takes the message, and the
        # rules it already fired do not fire again.
        data.ended = False
        data.end_reason = None
        thread.status = ACTIVE
        engine.emit("session_reopened", {"after": "complete"}, thread)
    if data.ended:
        engine.emit("warning", {"code": "session_ended", "reason": data.end_reason,
                                "message": "the session has ended; reset it or start a new one"}, thread)
        engine.notice(thread, f"[session ended] the conversation is over ({data.end_reason or 'stopped'})", ctx)
    else:
        process(engine, thread, entry, ctx)
    return Turn(
        index=data.turn,
        user=text,
        replies=list(ctx.replies),
        events=visible(engine.recorded(), level),
        active_agent=data.active_thread.agent,
        ended=data.ended,
    )


def valid_text(text: str) -> str:
    """The message as valid Unicode text: lone surrogates (undecodable input bytes read with
    `surrogateescape`, half of a broken pair) become U+FFFD, so the message can always be
    saved, exported and printed; valid surrogate pairs are joined into their character."""
    if not isinstance(text, str):
        text = str(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def visible(events: list[TraceEvent], level: TraceLevel) -> list[TraceEvent]:
    shown = []
    for event in events:
        view = event.at_level(level)
        if view is not None:
            shown.append(view)
    return shown


def process(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext, *, replay: bool = False) -> None:
    """Let the agent of `thread` handle `message` (steps 1 to 8 of the module docstring)."""
    if ctx.stopped:
        return
    ctx.steps += 1
    if ctx.steps > MAX_STEPS_PER_TURN:
        ctx.stopped = True
        engine.emit("error", {"code": "turn_step_limit", "limit": MAX_STEPS_PER_TURN,
                              "message": f"more than {MAX_STEPS_PER_TURN} agent activations in one turn; "
                                         "the turn is stopped"}, thread)
        return
    agent = engine.agent(thread.agent)
    if agent is None:
        engine.emit("error", {"code": "missing_agent", "message": f"no agent named `{thread.agent}`"}, thread)
        return
    if not replay and not (thread.history and thread.history[-1].seq == message.seq):
        thread.history.append(message)
    runs_flow = agent.flow is not None and flow_runs(engine, thread, agent)

    from abl.runtime import delegate, escalate, flow, gather, handoff, returns, routing

    if escalate.check_triggers(engine, thread, message, ctx):
        return
    if runs_flow:
        flow.run(engine, thread, agent, message, ctx)
        return
    if agent.gather:
        gather.extract(engine, thread, message, ctx)
    if run_complete(engine, thread, message, ctx):
        return
    route = routing.choose_route(engine, thread, message, ctx)
    if route is not None and handoff.perform(engine, thread, route, message, ctx):
        return
    if delegate.run_delegates(engine, thread, message, ctx) and run_complete(engine, thread, message, ctx):
        return
    if not replay and returns.wants_parent(engine, thread, message, ctx):
        parent = engine.data.waiting_parent()
        assert parent is not None
        engine.emit("return_to_parent", {"from": thread.agent, "to": parent.agent,
                                         "forwardedMessage": message.text}, thread)
        returns.return_to_parent(engine, thread, message, ctx, forwarded=message, cause="parent_return")
        return
    answer(engine, thread, message, ctx)


def flow_runs(engine: Engine, thread: Thread, agent: Agent) -> bool:
    """Whether the agent's FLOW drives this message. A flow using constructs the embedded
    runtime does not run is not run at all (said once per thread, naming them); a finished
    flow leaves the agent answering from its GOAL, GATHER and COMPLETE."""
    from abl.runtime.flow import is_finished, unsupported

    assert agent.flow is not None
    blocking, ignored = unsupported(agent.flow)
    if blocking:
        if "flow_not_executed" not in thread.warned:
            thread.warned.append("flow_not_executed")
            engine.emit("warning", {"code": "flow_not_executed", "constructs": blocking,
                                    "message": f"{agent.name.text} has a FLOW using {', '.join(blocking)}, which "
                                               "the embedded runtime does not run; it answers from its GOAL, "
                                               "GATHER and COMPLETE instead"}, thread)
        return False
    if ignored and "flow_constructs_ignored" not in thread.warned:
        thread.warned.append("flow_constructs_ignored")
        engine.emit("warning", {"code": "flow_constructs_ignored", "constructs": ignored,
                                "message": f"the embedded runtime runs {agent.name.text}'s FLOW without "
                                           f"{', '.join(ignored)}"}, thread)
    return not is_finished(thread)


def run_complete(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext) -> bool:
    """Fire the first `COMPLETE` rule that holds; True when one did."""
    agent = engine.agent(thread.agent)
    if agent is None or not agent.complete:
        return False
    for rule in agent.complete:
        when = rule.when
        if when is None:
            continue
        if rule.index in thread.fired:
            continue  # a rule completes its agent once per thread
        if when.is_natural_language:
            key = f"complete_natural_language:{rule.index}"
            if key not in thread.warned:
                thread.warned.append(key)
                engine.emit("warning", {"code": "PLAIN_ENGLISH_COMPLETE_WHEN", "condition": when.text,
                                        "message": "a COMPLETE condition must be deterministic; this rule "
                                                   "never fires"}, thread)
            continue
        if not check(when.parse, thread.values, None, engine.env).result:
            continue
        for assignment in rule.set:
            value, _ = value_of(assignment.expr, thread.values, engine.env)
            thread.set_value(assignment.target.text, value)
        engine.emit("complete", {"rule": {"index": rule.index, "condition": when.text},
                                 "terminal": rule.is_terminal}, thread)
        if rule.respond is not None and rule.respond.text.strip():
            engine.say(thread, fill(rule.respond.text, thread.values, engine.env), ctx)
        thread.fired.append(rule.index)
        if not rule.is_terminal:
            # The agent goes on: a field it still needs is asked now, or the customer would
            # not know what to say next (and their answer would not count as one).
            from abl.runtime.gather import prompt

            question = prompt(engine, thread)
            if question is not None:
                engine.say(thread, question, ctx)
            return True
        finish(engine, thread, message, ctx)
        return True
    return False


def finish(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext) -> None:
    """A terminal completion: a returnable child returns; anything else completes the session
    (a later message reopens it with the same agent)."""
    data = engine.data
    if data.stack and data.active == thread.id:
        from abl.runtime.returns import return_to_parent

        return_to_parent(engine, thread, message, ctx, forwarded=None, cause="complete")
        return
    thread.status = COMPLETED
    data.ended = True
    data.end_reason = "complete"


def answer(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext) -> None:
    """The agent answers from its own goal: the next GATHER prompt, else the model's reply."""
    from abl.runtime.gather import prompt

    question = prompt(engine, thread)
    if question is not None:
        engine.say(thread, question, ctx)
        return
    agent = engine.agent(thread.agent)
    if agent is None:
        return
    context, earlier = engine.model_context(thread, message)
    request = ReplyRequest(
        agent=thread.agent,
        goal=agent.goal.text if agent.goal is not None else "",
        persona=agent.persona.text if agent.persona is not None else "",
        messages=context.messages,
    )
    ok, text = engine.consult("reply", thread, ctx, earlier, lambda: engine.model.reply(request))
    if ok and text:
        engine.say(thread, text, ctx)
