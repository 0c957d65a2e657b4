"""The start of a session: the entry agent's thread and its `ON_START` (once per session).

`MEMORY` initial values come first, then the values the caller gives (a returning customer),
then `ON_START`: its `SET` assignments, its tool `CALL`s (answered by mocks), and its `RESPOND`,
which becomes the session's greeting.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from abl.runtime.engine import Engine
from abl.runtime.evaluation import fill, value_of
from abl.runtime.handoff import initial_values
from abl.runtime.state import Thread
from abl.runtime.tools import call_tool
from abl.syntax.cst import Node
from abl.syntax.values import split_top_level

_CALL = re.compile(r"\s*([A-Za-z_][\w.]*)\s*(?:\((.*)\))?\s*$", re.S)


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
    section = agent.section("ON_START")
    for name, arguments, store_as in on_start_calls(section) if section is not None else []:
        values = {}
        for key, expression in arguments:
            value, _ = value_of(expression, thread.values, engine.env)
            values[key] = value
        ok, result = call_tool(engine, thread, name, values, None)
        if ok and store_as:
            thread.set_value(store_as, result)
    if on_start.respond is not None and on_start.respond.text.strip():
        text = fill(on_start.respond.text, thread.values, engine.env)
        reply = engine.say(thread, text, None)
        data.greeting.append((reply.agent, reply.text))


def on_start_calls(section: Node) -> list[tuple[str, list[tuple[str, str]], str | None]]:
    """`CALL: tool(a = x)` or `CALL: tool` followed by `WITH:` pairs and `AS: name`, in order."""
    calls: list[tuple[str, list[tuple[str, str]], str | None]] = []
    for entry in section.children:
        if not entry.is_entry:
            continue
        key = entry.key.upper()
        if key == "CALL" and entry.has_value:
            m = _CALL.match(entry.value)
            if m is None:
                continue
            calls.append((m.group(1), _arguments(m.group(2) or ""), None))
        elif key == "WITH" and calls:
            name, arguments, store = calls[-1]
            pairs = [(c.key, c.value) for c in entry.children if c.is_entry]
            calls[-1] = (name, arguments + pairs, store)
        elif key == "AS" and calls and entry.has_value:
            name, arguments, _ = calls[-1]
            calls[-1] = (name, arguments, entry.value.strip())
    return calls


def _arguments(text: str) -> list[tuple[str, str]]:
    """`a = x, b: "y"` as (name, expression) pairs; commas inside brackets or quotes are kept."""
    out = []
    for part in split_top_level(text):
        m = re.match(r"\s*([A-Za-z_]\w*)\s*[=:](?!=)\s*(.*)$", part, re.S)
        if m is not None:
            out.append((m.group(1), m.group(2).strip()))
    return out
