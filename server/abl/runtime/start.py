"""The start of a session: the entry agent's thread and its `ON_START` (once per session).

`MEMORY` initial values come first, then the values the caller gives (a returning customer),
then `ON_START`: its `SET` assignments, its tool `CALL`s (answered by mocks), and its `RESPOND`,
which becomes the session's greeting.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from abl.runtime.engine import Engine
from abl.runtime.evaluation import fill, value_of
from abl.runtime.handoff import initial_values
from abl.runtime.state import Thread
from abl.runtime.tools import call_tool


def begin(engine: Engine, given: Mapping[str, Any]) -> None:
    data = engine.data
    agent = engine.agent(data.entry_agent)
    assert agent is not None
    thread = Thread(id=engine.ids.next_id("thread"), agent=data.entry_agent, values=initial_values(engine, agent))
    plan = engine.plan(thread.agent)
    for name, value in given.items():
        thread.set_value(name, value, gathered=True)
        if name in plan.sensitive:
            engine.protect(name, value)
    data.threads[thread.id] = thread
    data.active = thread.id
    data.chain = [thread.agent]
    engine.emit("session_start", {"givenValues": sorted(given)}, thread)
    on_start = agent.on_start
    if on_start is None:
        return
    for assignment in on_start.set:
        value, problems = value_of(assignment.expr, thread.values, engine.env)
        thread.set_value(assignment.target.text, value)
        if problems:
            engine.emit("warning", {"code": "on_start_set", "target": assignment.target.text,
                                    "message": "; ".join(problems)}, thread)
    for call in on_start.calls:
        call_tool(engine, thread, call.text, {}, None)
    if on_start.respond is not None and on_start.respond.text.strip():
        text = fill(on_start.respond.text, thread.values, engine.env)
        reply = engine.say(thread, text, None)
        data.greeting.append((reply.agent, reply.text))
