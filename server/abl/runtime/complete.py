"""`COMPLETE`: the first rule that holds completes the agent.

A rule fires once per thread. Its `SET` runs, then its `RESPOND` is said. A terminal rule (the
default) ends the agent: a returnable child returns, anything else completes the session (a
later message reopens it with the same agent). `TERMINAL: false` only shows the reply, and the
agent goes on by asking what it still needs.
"""

from __future__ import annotations

from abl.runtime.agenda import NOTHING, Finish, GiveBack, Steps
from abl.runtime.engine import Engine, TurnContext
from abl.runtime.evaluation import check, value_of
from abl.runtime.gather import prompt
from abl.runtime.history import Entry
from abl.runtime.state import COMPLETED, Thread


def run_complete(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext) -> Steps | None:
    """The steps after the first rule that holds; None when none does."""
    agent = engine.agent(thread.agent)
    if agent is None or not agent.complete:
        return None
    for rule in agent.complete:
        when = rule.when
        if when is None or rule.index in thread.fired:
            continue  # a rule completes its agent once per thread
        if when.is_natural_language:
            key = f"complete_natural_language:{rule.index}"
            if key not in thread.warned:
                thread.warned.append(key)
                engine.emit(
                    "warning",
                    {
                        "code": "PLAIN_ENGLISH_COMPLETE_WHEN",
                        "condition": when.text,
                        "message": "a COMPLETE condition must be deterministic; this rule never fires",
                    },
                    thread,
                )
            continue
        if not check(when.parse, thread.values, None, engine.env).result:
            continue
        for assignment in rule.set:
            value, _ = value_of(assignment.expr, thread.values, engine.env)
            thread.set_value(assignment.target.text, value)
        engine.emit(
            "complete", {"rule": {"index": rule.index, "condition": when.text}, "terminal": rule.is_terminal}, thread
        )
        if rule.respond is not None and rule.respond.text.strip():
            engine.say(thread, engine.render(thread, rule.respond.text), ctx)
        thread.fired.append(rule.index)
        if not rule.is_terminal:
            # The agent goes on: a field it still needs is asked now, or the customer would
            # not know what to say next (and their answer would not count as one).
            question = prompt(engine, thread)
            if question is not None:
                engine.say(thread, question, ctx)
            return NOTHING
        return (Finish(thread, message),)
    return None


def finish(engine: Engine, item: Finish, ctx: TurnContext) -> Steps:
    """A terminal completion: a returnable child returns; anything else completes the session."""
    data = engine.data
    thread = item.thread
    if data.stack and data.active == thread.id:
        return (GiveBack(thread, item.message, None, "complete"),)
    thread.status = COMPLETED
    data.ended = True
    data.end_reason = "complete"
    return NOTHING
