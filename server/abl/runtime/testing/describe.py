"""One readable line per trace event, for the live trace in `abl run` and for failure excerpts.

The JSONL export is the complete record; these lines are for a person scanning a turn. Events
with a dedicated layout (handoffs, returns, gathers, completes, model calls, errors) say what
happened in words; any other event shows its fields as `key=value`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from abl.runtime.testing.matcher import show
from abl.wording import count

Event = Mapping[str, Any]

ENVELOPE = ("type", "seq", "turn", "thread", "agent", "ts")


def describe_event(event: Event) -> str:
    """`#12 handoff Loan_Supervisor → Income_Capture_Agent (returnable, history summary_only: 0 messages)`."""
    kind = str(event.get("type", "?"))
    layout = _LAYOUTS.get(kind)
    body = layout(event) if layout is not None else _generic(event)
    return f"#{event.get('seq', '?')} {kind} {body}".rstrip()


def _fields(event: Event) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ENVELOPE}


def _generic(event: Event) -> str:
    parts = [f"[{event.get('agent', '')}]"] if event.get("agent") else []
    parts.extend(f"{k}={show(v, 80)}" for k, v in _fields(event).items())
    return " ".join(parts)


def _handoff(event: Event) -> str:
    kind = "returnable" if event.get("returnExpected") else "permanent"
    history = event.get("history")
    mode = history.get("mode") if isinstance(history, Mapping) else history
    extra = [kind]
    if mode is not None:
        sent = event.get("historyMessages")
        extra.append(f"history {mode}: {count(sent, 'message') if isinstance(sent, int) else '? messages'}")
    passed = event.get("passed")
    if passed:
        extra.append(f"passed {show(passed)}")
    return f"{event.get('from', event.get('agent', '?'))} → {event.get('to', '?')} ({', '.join(extra)})"


def _handoff_completed(event: Event) -> str:
    text = f"→ {event.get('to', '?')}: {event.get('outcome', '?')}"
    if event.get("code"):
        text += f" [{event['code']}]"
    if event.get("cause"):
        text += f" {event['cause']}"
    return text


def _condition_check(event: Event) -> str:
    outcome = event.get("whenOutcome", "")
    confidence = event.get("confidence")
    score = f", confidence {show(confidence)}" if confidence is not None else ""
    return (
        f"[{event.get('agent', '')}] → {event.get('target', '?')} WHEN {event.get('condition', '?')}: "
        f"{show(event.get('result'))} ({outcome}{score})"
    )


def _return_handler(event: Event) -> str:
    text = f"{event.get('from', '?')} → {event.get('to', '?')} action={event.get('action', '?')}"
    for key in ("mappedFields", "setFields", "clearedFields"):
        if event.get(key):
            text += f" {key}={show(event[key])}"
    if event.get("handler"):
        text += f" handler={event['handler']}"
    return text


def _gather(event: Event) -> str:
    valid = event.get("valid")
    state = "" if valid is None else (" (valid)" if valid else " (invalid)")
    return f"[{event.get('agent', '')}] {event.get('field', '?')} = {show(event.get('value'), 60)}{state}"


def _complete(event: Event) -> str:
    rule = event.get("rule")
    if rule is None and event.get("step") is not None:
        rule_text = f"flow step {event.get('step')}"
    elif isinstance(rule, Mapping):
        index = rule.get("index")
        # Rules are counted from 1 here, as in coverage; the event keeps the 0-based index.
        rule_text = (
            f"rule {index + 1}" if isinstance(index, int) and not isinstance(index, bool) else f"rule {show(index)}"
        )
        if rule.get("condition"):
            rule_text += f" WHEN {rule['condition']}"
    else:
        rule_text = f"rule {show(rule)}"
    terminal = "" if event.get("terminal") is None else (" terminal" if event.get("terminal") else " not terminal")
    return f"[{event.get('agent', '')}] {rule_text}{terminal}"


def _model_call(event: Event) -> str:
    messages = event.get("messages")
    asked = messages.get("count") if isinstance(messages, Mapping) else None
    text = f"[{event.get('agent', '')}] {event.get('purpose', '?')} via {event.get('provider', '?')}"
    if isinstance(asked, int):
        text += f" ({count(asked, 'message')})"
    return text + f" → {show(event.get('result'), 80)}"


def _resume_intent(event: Event) -> str:
    return f"replay {show(event.get('message'), 60)} ({event.get('resumeWith', '?')}, depth {show(event.get('depth'))})"


def _error(event: Event) -> str:
    fields = _fields(event)
    message = fields.pop("message", None)
    rest = " ".join(f"{k}={show(v, 60)}" for k, v in fields.items())
    return f"[{event.get('agent', '')}] {message if message is not None else ''} {rest}".strip()


_LAYOUTS: dict[str, Callable[[Event], str]] = {
    "handoff": _handoff,
    "handoff_completed": _handoff_completed,
    "handoff_condition_check": _condition_check,
    "handoff_return_handler": _return_handler,
    "gather": _gather,
    "complete": _complete,
    "model_call": _model_call,
    "resume_intent": _resume_intent,
    "error": _error,
}
