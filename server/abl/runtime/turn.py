"""One turn: a customer message through the active agent (and whoever it hands off to).

For the agent that holds the message (`process`), in order:

1. the message joins the agent's conversation;
2. extraction: a `FLOW` that has not finished reads the message at its waiting step (a
   correction, a side request, or the answer and the values it gives; before it starts, the
   fields of the step it reaches first, past entry guards that are false), else `GATHER`
   extracts what the message gives for unset fields;
3. `ESCALATE` triggers (a match hands the session to a human);
4. an open multi-intent question (a queued request offered, "which first?") is answered;
5. the `FLOW` goes on from what it read: its steps answer, and end in its own transitions;
6. `MULTI_INTENT`: a message asking for several things gets a plan;
7. `HANDOFF`: the first route that holds runs; the target answers the same message at once;
8. `DELEGATE`s that hold run;
9. `COMPLETE`: the first rule that holds completes the agent (a returnable child returns);
10. the built-in return of a reasoning child whose customer asks for the parent's business;
11. otherwise the agent answers: its next `GATHER` prompt, its tools, or the model's reply.

Steps 3, 7, 8 and 9 are the platform's order on one turn (ESCALATE, HANDOFF by priority,
DELEGATE, COMPLETE), and each reads the state step 2 left: an answer that makes a trigger true
escalates on that turn, and a route that becomes true with a `COMPLETE` rule hands off. The rest
sit where what they decide is needed. An open multi-intent question was asked by this agent, so
its answer is taken before anything routes (a yes routes the queued request), but after the
triggers, which come first on every turn. A running `FLOW` is its agent's own answer (what
step 11 is to other agents) and owns the conversation until it finishes: it says its next
question and moves by its own `THEN`s (`HANDOFF`, `COMPLETE`, `ESCALATE`), so the agent's
routes, delegates and rules do not cut into its questions and take over once it has finished;
its extraction still comes before the triggers, like any other. The multi-intent plan picks
the intent the routes read, so it comes just before them. The built-in return is a child's way
out when nothing of its own took the message, so it comes after `COMPLETE`.

Each part returns the steps that follow it (`abl.runtime.agenda`) and `drive` carries them out,
depth first; no part calls back into this module. Before the message is handled, a returnable
child whose route's `TIMEOUT` has passed stops being waited for. A turn never loops forever:
agent activations per turn are counted, handoff chains are bounded, and replays are one level
deep.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from abl.runtime.agenda import (
    NOTHING,
    Answer,
    AnswerIfSilent,
    EndReplay,
    Finish,
    GiveBack,
    Handle,
    NextTask,
    ResumeFlow,
    RunSiblings,
    Settle,
    Steps,
    SurfaceQueue,
)
from abl.runtime.complete import finish, run_complete
from abl.runtime.delegate import run_delegates
from abl.runtime.engine import MAX_STEPS_PER_TURN, Engine, TurnContext
from abl.runtime.escalate import check_triggers
from abl.runtime.flow import read as read_flow
from abl.runtime.flow import resume as resume_flow
from abl.runtime.flow import runs as flow_runs
from abl.runtime.gather import extract
from abl.runtime.handoff import perform, settle
from abl.runtime.history import add_in_order
from abl.runtime.multi_intent import next_task, open_question, plan_intents, run_siblings, surface, take_siblings
from abl.runtime.reasoning import answer, answer_if_silent
from abl.runtime.returns import end_replay, return_to_parent, time_out, wants_parent
from abl.runtime.routing import choose_route
from abl.runtime.session_types import Turn
from abl.runtime.state import ACTIVE
from abl.runtime.trace import TraceEvent, TraceLevel

MAX_MESSAGE_CHARS = 100_000  # longer messages are refused; the first this many characters are kept in the log


def run_turn(engine: Engine, text: str, level: TraceLevel) -> Turn:
    text = valid_text(text)
    too_long = len(text) > MAX_MESSAGE_CHARS
    if too_long:
        length, text = len(text), text[:MAX_MESSAGE_CHARS]
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
        engine.emit(
            "warning",
            {
                "code": "session_ended",
                "reason": data.end_reason,
                "message": "the session has ended; reset it or start a new one",
            },
            thread,
        )
        engine.notice(thread, f"[session ended] the conversation is over ({data.end_reason or 'stopped'})", ctx)
    elif too_long:
        limit = f"messages are limited to {MAX_MESSAGE_CHARS:,} characters"
        engine.emit(
            "error",
            {
                "code": "message_too_long",
                "length": length,
                "limit": MAX_MESSAGE_CHARS,
                "message": f"the message is {length:,} characters long; {limit}",
            },
            thread,
        )
        engine.notice(thread, f"[error] the message was not read: it is {length:,} characters long; {limit}", ctx)
    else:
        timed_out = time_out(engine, entry, ctx)
        drive(engine, timed_out if timed_out is not None else (Handle(thread, entry),), ctx)
    engine.protect_sensitive_values()
    return Turn(
        index=data.turn,
        user=engine.trace.redactor.text(text),
        replies=list(ctx.replies),
        events=visible(engine.recorded(), level),
        active_agent=data.active_thread.agent,
        ended=data.ended,
    )


def drive(engine: Engine, steps: Steps, ctx: TurnContext) -> None:
    """Carry out `steps` in order, each one's own consequences before the next."""
    pending = list(reversed(steps))
    while pending:
        step = pending.pop()
        if ctx.stopped and not isinstance(step, EndReplay):
            continue
        pending.extend(reversed(_RUNNERS[type(step)](engine, step, ctx)))


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


def process(engine: Engine, item: Handle, ctx: TurnContext) -> Steps:
    """Let the agent of `thread` handle `message` (steps 1 to 11 of the module docstring)."""
    thread, message, replay = item.thread, item.message, item.replay
    ctx.steps += 1
    if ctx.steps > MAX_STEPS_PER_TURN:
        ctx.stopped = True
        engine.emit(
            "error",
            {
                "code": "turn_step_limit",
                "limit": MAX_STEPS_PER_TURN,
                "message": f"more than {MAX_STEPS_PER_TURN} agent activations in one turn; the turn is stopped",
            },
            thread,
        )
        return NOTHING
    agent = engine.agent(thread.agent)
    if agent is None:
        engine.emit("error", {"code": "missing_agent", "message": f"no agent named `{thread.agent}`"}, thread)
        return NOTHING
    if not replay:
        add_in_order(thread.history, message)

    flow = read_flow(engine, thread, agent, message, ctx) if agent.flow is not None and flow_runs(thread) else None
    if flow is None and agent.gather:
        extract(engine, thread, message, ctx)
    if check_triggers(engine, thread, message, ctx):
        return NOTHING
    answered = open_question(engine, thread, message, ctx)
    if answered is not None:
        return answered
    if flow is not None:
        return flow.advance()
    if not replay:
        planned = plan_intents(engine, thread, message, ctx)
        if planned is not None:
            return planned
    route = choose_route(engine, thread, message, ctx)
    if route is not None:
        handed = perform(engine, thread, route, message, ctx, siblings=take_siblings(ctx))
        if handed is not None:
            return handed
    run_delegates(engine, thread, message, ctx)
    done = run_complete(engine, thread, message, ctx)
    if done is not None:
        return done
    if not replay and wants_parent(engine, thread, message, ctx):
        parent = engine.data.waiting_parent()
        assert parent is not None
        engine.emit(
            "return_to_parent", {"from": thread.agent, "to": parent.agent, "forwardedMessage": message.text}, thread
        )
        return (GiveBack(thread, message, message, "parent_return"),)
    return (Answer(thread, message), SurfaceQueue(thread))


# Each runner takes the step of its key's type.
_RUNNERS: dict[type, Callable[[Engine, Any, TurnContext], Steps]] = {
    Handle: process,
    Answer: answer,
    AnswerIfSilent: answer_if_silent,
    Finish: finish,
    GiveBack: return_to_parent,
    Settle: settle,
    EndReplay: end_replay,
    ResumeFlow: resume_flow,
    SurfaceQueue: surface,
    NextTask: next_task,
    RunSiblings: run_siblings,
}
