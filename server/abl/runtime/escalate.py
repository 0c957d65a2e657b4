"""`ESCALATE`: hand the conversation to a human.

Triggers are checked first on every turn, right after the message's extraction, so they read
the values it gave. When one holds, the runtime emits `escalate`, tells the customer (the
agent's `MESSAGES.escalation_format`, else the platform's wording), and the session ends: it
now waits for a human, which the local runtime does not simulate.
"""

from __future__ import annotations

from typing import Any

from abl.runtime.engine import Engine, TurnContext
from abl.runtime.evaluation import fill
from abl.runtime.history import Entry
from abl.runtime.state import Thread

ESCALATION_FORMAT = "Escalating to human agent. Reason: {{reason}}"


def check_triggers(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext) -> bool:
    """Escalate when a trigger of the thread's agent holds; True when it did."""
    agent = engine.agent(thread.agent)
    if agent is None or not agent.escalations:
        return False
    for index, trigger in enumerate(agent.escalations):
        when = trigger.when
        if when is not None and engine.holds(when, thread, message, ctx):
            reason = engine.render(thread, trigger.reason.text) if trigger.reason is not None else when.text
            priority = trigger.priority.text if trigger.priority is not None else "medium"
            escalate(engine, thread, reason, priority, ctx, source="trigger", trigger=index)
            return True
    return False


def escalate(
    engine: Engine,
    thread: Thread,
    reason: str,
    priority: str | None,
    ctx: TurnContext | None,
    *,
    source: str,
    trigger: int | None = None,
) -> None:
    fields: dict[str, Any] = {"reason": reason, "priority": priority or "medium", "source": source}
    if trigger is not None:
        fields["trigger"] = trigger
    engine.emit("escalate", fields, thread)
    wording = engine.message_text(thread, "escalation_format", ESCALATION_FORMAT)
    engine.say(thread, fill(wording, {"reason": reason}, engine.env), ctx)
    engine.data.ended = True
    engine.data.end_reason = "escalated"
