"""`CORRECTIONS: true`: the customer changes an answer already given in the flow.

While a flow waits at a step, a message that reads like a correction ("actually 5 guests",
"sorry, the account number is 87654321") and gives a new valid value for a field that a step
with `CORRECTIONS: true` gathered, the waiting step or an earlier one, changes that field
(`correction`); the fields that depend on it (`DEPENDS_ON`) are cleared
(`correction_invalidation`) for the flow to ask again. A message that changes nothing is an
answer. The words after the field's name are read first, then the whole message, by the
field's type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from typing import Any

from abl.model.steps import FlowStep
from abl.model.types import Agent, GatherField
from abl.runtime.engine import Engine, TurnContext
from abl.runtime.gather import field_spec, is_unset, validate
from abl.runtime.history import Entry
from abl.runtime.models import FieldSpec
from abl.runtime.state import Thread
from abl.runtime.trace import REDACTED

_CORRECTION = re.compile(
    r"\b(?:actually|sorry|i meant|i mean|correction|change|make (?:it|that)|instead|"
    r"wrong|not\s+\S+\s*,?\s*but)\b",
    re.IGNORECASE,
)
_LEAD_WORDS = re.compile(r"^\s*(?:is|to|should be|=|:|of)?\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Correction:
    """What a correction changed, and the dependants it cleared (in the order they were cleared)."""

    changed: tuple[str, ...]
    cleared: tuple[str, ...]


def correct(
    engine: Engine, thread: Thread, agent: Agent, current: FlowStep, message: Entry, ctx: TurnContext
) -> Correction | None:
    """Apply the corrections the message makes; None when it is not a correction."""
    assert agent.flow is not None
    fields = [
        f for step in agent.flow.written if step.corrections for f in step.gather if not is_unset(thread, f.name.text)
    ]
    if not fields or not _CORRECTION.search(message.text):
        return None
    changed: list[str] = []
    cleared: list[str] = []
    for f, value in _new_values(engine, thread, agent, fields, message, ctx).items():
        previous = thread.values.get(f.name.text)
        checked, problem = validate(f, value)
        if problem is not None or checked == previous:
            continue
        thread.set_value(f.name.text, checked, gathered=True)
        shown_previous, shown_value = (REDACTED, REDACTED) if f.sensitive else (previous, checked)
        engine.emit(
            "correction",
            {"field": f.name.text, "previous": shown_previous, "value": shown_value, "step": current.name.text},
            thread,
        )
        changed.append(f.name.text)
        cleared += _invalidate(engine, thread, agent, f.name.text)
    return Correction(tuple(changed), tuple(cleared)) if changed else None


def _new_values(
    engine: Engine, thread: Thread, agent: Agent, fields: list[GatherField], message: Entry, ctx: TurnContext
) -> dict[GatherField, Any]:
    """The words after a field's name ("the account number is 87654321"), else what the message
    gives by type."""
    found: dict[GatherField, Any] = {}
    context, earlier = engine.model_context(thread, message)
    for f in fields:
        m = re.search(rf"\b{re.escape(f.name.text.replace('_', ' '))}\b(.*)$", message.text, re.IGNORECASE)
        rest = _LEAD_WORDS.sub("", m.group(1)).strip().rstrip(".!") if m is not None else ""
        if not rest:
            continue
        spec = FieldSpec(name=f.name.text, type=f.type_name, options=f.options, asked=True)
        ok, extracted = engine.consult(
            "extract", thread, ctx, earlier, partial(engine.model.extract, [spec], rest, context)
        )
        if ok and extracted and f.name.text in extracted:
            found[f] = extracted[f.name.text].value
    if found:
        return found
    specs = [field_spec(agent, f, thread) for f in fields]
    ok, extracted = engine.consult(
        "extract", thread, ctx, earlier, lambda: engine.model.extract(specs, message.text, context)
    )
    return {f: extracted[f.name.text].value for f in fields if ok and extracted and f.name.text in extracted}


def _invalidate(engine: Engine, thread: Thread, agent: Agent, changed: str) -> list[str]:
    cleared: list[str] = []
    for f in agent.all_gather_fields():
        if any(d.text == changed for d in f.depends_on) and not is_unset(thread, f.name.text):
            thread.clear_value(f.name.text)
            engine.emit("correction_invalidation", {"field": f.name.text, "because": changed}, thread)
            cleared.append(f.name.text)
    return cleared
