"""`GATHER`: typed extraction through the model, validation, and asking for what is missing.

Fields are extracted from every customer message while any is unset (not only when asked).
A value is checked against the field's `OPTIONS` and `VALIDATE` rules before it is stored;
an answer that gives nothing usable, or an invalid value, makes the next prompt the field's
`RETRY_PROMPT` when it has one. Sensitive values are registered with the trace before any
event shows them, so they appear as `[redacted]` everywhere.
"""

from __future__ import annotations

import re
from typing import Any

from abl.expr import patterns
from abl.expr.values import is_number
from abl.model.types import Agent, GatherField
from abl.runtime.engine import Engine, TurnContext
from abl.runtime.history import Entry
from abl.runtime.models import FieldSpec
from abl.runtime.state import Thread
from abl.runtime.trace import REDACTED, to_json_data

_RULE = re.compile(r"([A-Za-z_]+)\s*\(([^()]*)\)")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[A-Za-z]{2,}")
_FREE_TEXT_TYPES = frozenset({"string", "text", "free_text"})
_NUMERIC_TYPES = frozenset({"number", "integer", "int", "float", "decimal", "currency", "amount", "money"})


def is_unset(thread: Thread, name: str) -> bool:
    return thread.values.get(name) is None


def pending(agent: Agent, thread: Thread) -> list[GatherField]:
    return [f for f in agent.gather if is_unset(thread, f.name.text)]


def next_required(agent: Agent, thread: Thread) -> GatherField | None:
    """The first required field still unset whose `DEPENDS_ON` fields are all set."""
    for f in agent.gather:
        if not f.is_required or not is_unset(thread, f.name.text):
            continue
        if any(is_unset(thread, d.text) for d in f.depends_on):
            continue
        return f
    return None


def field_spec(agent: Agent, f: GatherField, thread: Thread) -> FieldSpec:
    description = f.description.text if f.description is not None else ""
    if not description:
        var = agent.memory_var(f.name.text)
        if var is not None and var.description is not None:
            description = var.description.text
    group: int | None = None
    if f.extraction_group is not None:
        try:
            group = int(f.extraction_group.text)
        except ValueError:
            group = None
    return FieldSpec(
        name=f.name.text,
        type=f.type_name,
        description=description,
        options=f.options,
        pattern=f.extraction_pattern.text if f.extraction_pattern is not None else None,
        pattern_group=group,
        required=f.is_required,
        sensitive=f.sensitive,
        asked=thread.asked == f.name.text,
    )


def extract(engine: Engine, thread: Thread, message: Entry, ctx: TurnContext) -> list[str]:
    """Fill what `message` gives for the agent's unset fields; returns the names filled."""
    agent = engine.agent(thread.agent)
    if agent is None:
        return []
    open_fields = pending(agent, thread)
    if not open_fields:
        return []
    specs = [field_spec(agent, f, thread) for f in open_fields]
    context, earlier = engine.model_context(thread, message)
    ok, found = engine.consult(
        "extract", thread, ctx, earlier, lambda: engine.model.extract(specs, message.text, context)
    )
    if not ok or found is None:
        return []
    filled: list[str] = []
    claims = ctx.claimed.setdefault(message.seq, [])
    for f in open_fields:
        name = f.name.text
        extraction = found.get(name)
        if extraction is not None and _taken_elsewhere(message.text, extraction.span, name, thread.id, claims):
            extraction = None
        asked = thread.asked == name
        if extraction is None:
            if asked:
                attempt = _count_attempt(thread, name)
                engine.emit(
                    "gather",
                    {
                        "field": name,
                        "value": None,
                        "valid": False,
                        "attempt": attempt,
                        "reason": "the answer gave no value",
                    },
                    thread,
                )
                _warn_exhausted(engine, thread, f, attempt)
            continue
        attempt = _count_attempt(thread, name)
        value, problem = validate(f, extraction.value)
        if f.sensitive:
            thread.sensitive = True
            engine.protect(name, extraction.value)
            if extraction.span:
                engine.protect_value(extraction.span)
        fields: dict[str, Any] = {
            "field": name,
            "value": REDACTED if f.sensitive else value,
            "valid": problem is None,
            "attempt": attempt,
        }
        if problem is not None:
            fields["reason"] = problem
        if problem is None:  # stored before it is told, so an observer sees the field filled
            thread.set_value(name, _plain(value), gathered=True)
        engine.emit("gather", fields, thread)
        if problem is None:
            filled.append(name)
            if not _whole_reply(f, message.text, extraction.span):
                _claim(message.text, extraction.span, name, thread.id, claims)
        else:
            _warn_exhausted(engine, thread, f, attempt)
    if thread.asked is not None and thread.asked in filled:
        thread.asked = None
    if filled:
        ctx.extracted.setdefault(thread.id, []).extend(filled)
    return filled


# --- one answer, one field ---------------------------------------------------------------------
#
# A handoff forwards the customer's message to the target, which extracts from it too. The part
# of the message the caller already took as a value (the "85000" that answered "What is your
# income?") is not offered to a different field of another agent: an answer fills one field.
# The same field name may take it again (an order number the hub saw and the desk needs too).


def _occurrences(text: str, span: str) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    if not span:
        return found
    start = text.find(span)
    while start >= 0:
        found.append((start, start + len(span)))
        start = text.find(span, start + 1)
    return found


def _overlaps(where: tuple[int, int], claims: list[tuple[int, int, str, str]], field: str, thread: str) -> bool:
    start, end = where
    return any(
        start < c_end and c_start < end and c_field != field and c_thread != thread
        for c_start, c_end, c_field, c_thread in claims
    )


def _taken_elsewhere(text: str, span: str, field: str, thread: str, claims: list[tuple[int, int, str, str]]) -> bool:
    """Whether every place `span` occurs in the message was taken by another agent's other field."""
    if not claims:
        return False
    places = _occurrences(text, span)
    return bool(places) and all(_overlaps(place, claims, field, thread) for place in places)


def _whole_reply(f: GatherField, text: str, span: str) -> bool:
    """A free-text field that took the whole reply read nothing typed out of it; the next agent
    may still find its own values there ("Acme, and I earn 85000")."""
    return f.extraction_pattern is None and f.type_name in _FREE_TEXT_TYPES and span.strip() == text.strip()


def _claim(text: str, span: str, field: str, thread: str, claims: list[tuple[int, int, str, str]]) -> None:
    places = _occurrences(text, span)
    if not places:
        return
    free = [p for p in places if not _overlaps(p, claims, field, thread)]
    start, end = (free or places)[0]
    claims.append((start, end, field, thread))


def prompt(engine: Engine, thread: Thread) -> str | None:
    """The question for the next missing required field (its retry prompt after a failed answer)."""
    agent = engine.agent(thread.agent)
    if agent is None:
        return None
    f = next_required(agent, thread)
    if f is None:
        return None
    name = f.name.text
    text: str
    if thread.attempts.get(name, 0) > 0 and f.retry_prompt is not None and f.retry_prompt.text.strip():
        text = f.retry_prompt.text
    elif f.prompt is not None and f.prompt.text.strip():
        text = f.prompt.text
    else:
        text = f"Please provide: {name}"
    thread.asked = name
    if f.sensitive:
        thread.sensitive = True
    return engine.render(thread, text)


def _plain(value: Any) -> Any:
    """Values are kept as JSON data so a session can always be saved."""
    try:
        return to_json_data(value)
    except TypeError:
        return str(value)


def _count_attempt(thread: Thread, name: str) -> int:
    attempt = thread.attempts.get(name, 0) + 1
    thread.attempts[name] = attempt
    return attempt


def _warn_exhausted(engine: Engine, thread: Thread, f: GatherField, attempt: int) -> None:
    if f.max_retries is None:
        return
    try:
        limit = int(f.max_retries.text.strip())
    except ValueError:
        return
    key = f"max_retries:{f.name.text}"
    if attempt > limit and key not in thread.warned:
        thread.warned.append(key)
        engine.emit(
            "warning",
            {
                "code": "validation_max_retries",
                "field": f.name.text,
                "attempt": attempt,
                "message": f"`{f.name.text}` is still missing after {limit} retries; the agent keeps asking",
            },
            thread,
        )


# --- validation ----------------------------------------------------------------------------------


def validate(f: GatherField, value: Any) -> tuple[Any, str | None]:
    """The value to store (options normalised to their spelling) or why it is not accepted."""
    if f.options:
        text = str(value).strip().lower()
        for option in f.options:
            if option.strip().lower() == text:
                value = option
                break
        else:
            return value, f"`{value}` is not one of the options: {', '.join(f.options)}"
    if f.type_name in _NUMERIC_TYPES and not is_number(value):
        return value, f"`{value}` is not a number"
    if f.validate is not None:
        problem = _check_rules(f.validate.text, value)
        if problem is not None:
            return value, problem
    return value, None


def _check_rules(rules: str, value: Any) -> str | None:
    """`min(n)`, `max(n)`, `enum(a, b)`, `email()`, `pattern(re)`; free text is left to a model."""
    for m in _RULE.finditer(rules):
        name, arg = m.group(1).lower(), m.group(2).strip()
        if name in ("min", "max"):
            try:
                bound = float(arg)
            except ValueError:
                continue
            number = value if is_number(value) else (len(value) if isinstance(value, str) else None)
            if number is None:
                continue
            if name == "min" and number < bound:
                return f"`{value}` is below the minimum {arg}"
            if name == "max" and number > bound:
                return f"`{value}` is above the maximum {arg}"
        elif name == "enum":
            allowed = [a.strip().strip("\"'") for a in arg.split(",") if a.strip()]
            if allowed and str(value).strip().lower() not in {a.lower() for a in allowed}:
                return f"`{value}` is not one of: {', '.join(allowed)}"
        elif name == "email":
            if not _EMAIL.fullmatch(str(value).strip()):
                return f"`{value}` is not an email address"
        elif name == "pattern":
            pattern = arg.strip("\"'/")
            try:
                matched = patterns.fullmatch(patterns.compile_pattern(pattern), str(value))
            except patterns.PatternError:
                continue  # not a pattern: `abl check` reports it, the value is not held to it
            except patterns.PatternTimeout:
                return f"the value could not be checked against the pattern {pattern} in time"
            if not matched:
                return f"`{value}` does not match the pattern {pattern}"
    return None
