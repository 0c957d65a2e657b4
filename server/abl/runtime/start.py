"""The start of a session: the entry agent's thread and its `ON_START` (once per session).

`MEMORY` initial values come first, then the values the caller gives (a returning customer),
then `ON_START`: its `SET` assignments and tool `CALL`s in the order written (calls answered by
mocks), its `RESPOND`, and the first of its `BRANCHES` whose `IF` holds (or its `ELSE`). What it
says becomes the session's greeting.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from abl.runtime.actions import do_action, run_actions
from abl.runtime.engine import Engine
from abl.runtime.evaluation import check
from abl.runtime.state import Thread
from abl.runtime.values import initial_values


def begin(engine: Engine, given: Mapping[str, Any]) -> None:
    data = engine.data
    agent = engine.agent(data.entry_agent)
    assert agent is not None
    thread = Thread(id=engine.ids.next_id("thread"), agent=data.entry_agent, values=initial_values(agent, engine.env))
    plan = engine.plan(thread.agent)
    for name, value in given.items():
        thread.set_value(name, value, gathered=True)
        if name in plan.sensitive:
            engine.protect(name, value)
    data.threads[thread.id] = thread
    data.active = thread.id
    data.chain = [thread.agent]
    engine.emit(
        "session_start",
        {"givenValues": sorted(given), "clock": "system" if engine.timeline.real_time else "deterministic"},
        thread,
    )
    engine.announce(thread)
    on_start = agent.on_start
    if on_start is None:
        return
    before = len(thread.history)
    for action in on_start.actions:
        do_action(engine, thread, action, None)
    if on_start.respond is not None and on_start.respond.text.strip():
        engine.say(thread, engine.render(thread, on_start.respond.text), None)
    chosen = next(
        (
            b
            for b in on_start.branches
            if b.condition is None or check(b.condition.parse, thread.values, None, engine.env).result
        ),
        None,
    )
    if chosen is not None:
        run_actions(engine, thread, chosen.reaction.actions, None)
    for entry in thread.history[before:]:
        if entry.role == "assistant" and entry.tool is None:
            data.greeting.append((entry.agent, entry.text))
