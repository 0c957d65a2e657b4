"""An agent answering from its own goal: its next GATHER question, its tools, or a free reply.

A reasoning agent (and a `REASONING: true` flow step) with tools works in a loop, as on the
platform: the model chooses a tool and its arguments (`Model.choose_tool`), the call is answered
by its mock and joins the conversation, and the model chooses again, until it answers in words
or `EXECUTION.max_reasoning_iterations` (10) calls were made for one message. A step's
`EXIT_WHEN` is checked after every call. A failed call goes to the agent's (or step's) `ON_ERROR`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from abl.model.steps import FlowStep, Move
from abl.model.types import Condition
from abl.runtime.agenda import NOTHING, Answer, AnswerIfSilent, Finish, GiveBack, Steps
from abl.runtime.engine import Engine, TurnContext
from abl.runtime.errors import recover
from abl.runtime.escalate import escalate
from abl.runtime.evaluation import check
from abl.runtime.gather import prompt
from abl.runtime.handoff import flow_route, perform
from abl.runtime.history import Entry
from abl.runtime.models import ReplyRequest, ToolRequest, ToolSpec
from abl.runtime.state import Thread
from abl.runtime.tools import call_tool


@dataclass(frozen=True, slots=True)
class Reasoned:
    """How a reasoning run ended: it answered, its `EXIT_WHEN` came true, or an error handler
    moved the conversation elsewhere (`steps`)."""

    exited: bool = False
    steps: Steps | None = None


def answer(engine: Engine, item: Answer, ctx: TurnContext) -> Steps:
    thread, message = item.thread, item.message
    question = prompt(engine, thread)
    if question is not None:
        engine.say(thread, question, ctx)
        return NOTHING
    agent = engine.agent(thread.agent)
    if agent is None:
        return NOTHING
    plan = engine.plan(thread.agent)
    goal = agent.goal.text if agent.goal is not None else ""
    if plan.tools:
        done = think(engine, thread, message, ctx, goal=goal, tools=plan.tools, limit=plan.max_iterations)
        return done.steps or NOTHING
    if free_reply(engine, thread, message, ctx, goal) and completes_implicitly(engine, thread):
        return (GiveBack(thread, message, None, "complete"),)
    return NOTHING


def completes_implicitly(engine: Engine, thread: Thread) -> bool:
    """Whether the active returnable child is done once it has answered in text: with no
    tools, no FLOW and no COMPLETE it has no other way to say so (PLATFORM-RUNTIME.md 1.3)."""
    data = engine.data
    agent = engine.agent(thread.agent)
    if agent is None or not data.stack or data.active != thread.id:
        return False
    return not engine.plan(thread.agent).tools and agent.flow is None and not agent.complete


def answer_if_silent(engine: Engine, item: AnswerIfSilent, ctx: TurnContext) -> Steps:
    if ctx.replies or engine.data.active != item.thread.id or ctx.stopped or engine.data.ended:
        return NOTHING
    return (Answer(item.thread, item.message),)


def think(
    engine: Engine,
    thread: Thread,
    message: Entry,
    ctx: TurnContext,
    *,
    goal: str,
    tools: Sequence[ToolSpec],
    limit: int,
    exit_when: Condition | None = None,
    step: FlowStep | None = None,
) -> Reasoned:
    """The tool loop for one customer message (see the module docstring)."""
    agent = engine.agent(thread.agent)
    persona = agent.persona.text if agent is not None and agent.persona is not None else ""
    called: list[str] = []
    step_name = step.name.text if step is not None else None
    for _ in range(limit):
        messages, earlier = engine.conversation(thread, message)
        request = ToolRequest(
            agent=thread.agent,
            goal=goal,
            tools=tuple(tools),
            messages=messages,
            persona=persona,
            values=dict(thread.values),
            called=tuple(called),
        )
        ok, decision = engine.consult("tool_choice", thread, ctx, earlier, partial(engine.model.choose_tool, request))
        if not ok or decision is None:
            return Reasoned()
        if decision.call is None:
            if decision.reply:
                engine.say(thread, decision.reply, ctx)
            else:
                free_reply(engine, thread, message, ctx, goal)
            return Reasoned()
        choice = decision.call
        if choice.name not in {t.name for t in tools}:
            engine.emit(
                "warning",
                {
                    "code": "tool_not_available",
                    "tool": choice.name,
                    "message": f"the model chose `{choice.name}`, which {thread.agent} may not call "
                    "here; the call is not made",
                },
                thread,
            )
            free_reply(engine, thread, message, ctx, goal)
            return Reasoned()
        result = call_tool(
            engine, thread, choice.name, choice.arguments, ctx, step=step_name, confidence=choice.confidence
        )
        called.append(choice.name)
        if not result.ok:
            recovery = recover(
                engine,
                thread,
                step,
                result,
                choice.name,
                partial(call_tool, engine, thread, choice.name, choice.arguments, ctx, step=step_name),
                ctx,
            )
            if recovery.then is not None and recovery.then.move is not Move.CONTINUE:
                return Reasoned(steps=follow(engine, thread, message, recovery.then, ctx))
        if exit_when is not None and check(exit_when.parse, thread.values, None, engine.env).result:
            return Reasoned(exited=True)
    engine.emit(
        "warning",
        {
            "code": "reasoning_iteration_limit",
            "limit": limit,
            "message": f"{thread.agent} made {limit} tool calls for one message; it answers now",
        },
        thread,
    )
    free_reply(engine, thread, message, ctx, goal)
    return Reasoned()


def follow(engine: Engine, thread: Thread, message: Entry, then, ctx: TurnContext) -> Steps:
    """Carry out an error handler's `THEN` outside a flow: complete, escalate or hand off."""
    if then.move is Move.COMPLETE:
        return (Finish(thread, message),)
    if then.move is Move.ESCALATE:
        escalate(engine, thread, then.reason or "an error handler escalated", None, ctx, source="on_error")
        return NOTHING
    if then.move is Move.HANDOFF and then.target is not None:
        return perform(engine, thread, flow_route(then.target, False), message, ctx, source="on_error") or NOTHING
    return NOTHING


def free_reply(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext, goal: str) -> bool:
    """The model's reply to `message`, said; whether there was one."""
    agent = engine.agent(thread.agent)
    messages, earlier = engine.conversation(thread, message)
    request = ReplyRequest(
        agent=thread.agent,
        goal=goal,
        persona=agent.persona.text if agent is not None and agent.persona is not None else "",
        messages=messages,
    )
    ok, text = engine.consult("reply", thread, ctx, earlier, lambda: engine.model.reply(request))
    if ok and text:
        engine.say(thread, text, ctx)
        return True
    return False
