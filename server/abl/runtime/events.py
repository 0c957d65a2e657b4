"""Every trace event the engine emits: its type, its verbosity level and its fields.

One `EventType` per event type is the single description of that event (its level, its fields
and the place in the project it comes from): the engine refuses to emit a type that is not
listed here, `docs/trace-events.schema.json` is `json_schema()` written out and the VS Code
extension's `src/run/traceLevels.ts` is read from that schema (`event_files.py`; tests keep
both equal, and `python -m abl.runtime.event_files --write ROOT` rewrites them), and the tests check that every
emitted event validates against that schema.

Levels are cumulative (`minimal` < `standard` < `verbose` < `debug`): outcomes a reader needs
even in the quietest view are minimal, the reasons behind decisions standard, every model
round-trip verbose.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class TraceLevel(enum.IntEnum):
    """Cumulative verbosity: a view at one level shows that level and every lower one."""

    MINIMAL = 0
    STANDARD = 1
    VERBOSE = 2
    DEBUG = 3

    @classmethod
    def parse(cls, text: str) -> TraceLevel:
        """Read `minimal|standard|verbose|debug` (any case); raise ValueError otherwise."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            names = ", ".join(level.name.lower() for level in cls)
            raise ValueError(f"unknown trace level {text!r}; expected one of {names}") from None


class Source(enum.Enum):
    """Where in the project an event comes from, for an editor to point at. Each names the
    fields it is found by; when they find nothing the event points at its agent's header,
    except `RETURN_HANDLER`, which points nowhere."""

    AGENT = "agent"  # the emitting agent's header
    ROUTE = "route"  # the emitting agent's route numbered `route`: its target
    ROUTE_CONDITION = "route_condition"  # that route's WHEN (its target when it has none)
    ROUTE_TO = "route_to"  # the emitting agent's route to `to` (a returnable one first)
    RESUMED_ROUTE = "resumed_route"  # the route to the child that last returned to the agent
    RETURN_HANDLER = "return_handler"  # the parent `to`'s handler `handler`, else its route's ON_RETURN
    GATHER_FIELD = "gather_field"  # the gather field `field`
    COMPLETE_RULE = "complete_rule"  # the COMPLETE rule numbered `rule.index`
    TOOL = "tool"  # the declaration of the tool `tool`, in any file of the project
    DELEGATE = "delegate"  # the agent's DELEGATE to `to`
    STEP = "step"  # the flow step `step`
    STEP_DIGRESSION = "step_digression"  # the step's digression for `intent` (a `scope: step` one)
    STEP_SUB_INTENT = "step_sub_intent"  # the step's sub-intent `intent`
    STEP_ACTION = "step_action"  # the step's ON_ACTION entry for `action`
    STEP_ERROR_HANDLER = "step_error_handler"  # the step's ON_ERROR handler `handler` (a `scope: step` one)
    ESCALATE_TRIGGER = "escalate_trigger"  # the agent's ESCALATE trigger numbered `trigger`


ENVELOPE_KEYS = ("type", "seq", "turn", "thread", "agent", "ts")

# The fields that hold an agent's name, by event type (the envelope's `agent` aside): what a
# rename of the agent rewrites in a conversation test's expected events.
AGENT_FIELDS: Mapping[str, tuple[str, ...]] = {
    "handoff_condition_check": ("target",),
    "handoff": ("from", "to"),
    "handoff_completed": ("to",),
    "return_to_parent": ("from", "to"),
    "handoff_return_handler": ("from", "to"),
    "memory_error": ("from",),
    "delegate_start": ("from", "to"),
    "delegate_complete": ("to",),
}

Schema = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class EventType:
    name: str
    level: TraceLevel
    doc: str
    fields: Mapping[str, Schema]  # field name -> JSON Schema of its value
    required: tuple[str, ...] = ()
    open: bool = False  # fields beyond those listed are allowed (a warning's or error's details)
    source: Source = Source.AGENT

    def schema(self) -> dict[str, Any]:
        properties: dict[str, Any] = {"type": {"const": self.name}}
        properties.update(self.fields)
        return {
            "description": self.doc,
            "x-level": self.level.name.lower(),
            "x-source": self.source.value,
            "type": "object",
            "required": [*ENVELOPE_KEYS, *self.required],
            "properties": {**_ENVELOPE, **properties},
            "additionalProperties": self.open,
        }


# --- schema shorthands ---------------------------------------------------------------------------

STR: Schema = {"type": "string"}
INT: Schema = {"type": "integer"}
NUM: Schema = {"type": "number"}
BOOL: Schema = {"type": "boolean"}
ANY: Schema = {}
STRS: Schema = {"type": "array", "items": STR}


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def one_of(*words: str) -> Schema:
    return {"enum": list(words)}


def obj(**properties: Schema) -> Schema:
    return {"type": "object", "properties": dict(properties)}


_ENVELOPE: dict[str, Any] = {
    "seq": {"type": "integer", "minimum": 1},
    "turn": {"type": "integer", "minimum": 0},
    "thread": STR,
    "agent": STR,
    "ts": STR,
}

M, S, V = TraceLevel.MINIMAL, TraceLevel.STANDARD, TraceLevel.VERBOSE

_HISTORY = {
    "type": "object",
    "required": ["mode", "count"],
    "properties": {"mode": one_of("full", "none", "summary_only", "last_n"), "count": nullable(INT)},
}
_OUTCOMES = one_of("success", "rejected", "blocked", "error", "timeout")
_INTENTS = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["intent", "confidence", "text"],
        "properties": {"intent": STR, "confidence": NUM, "text": STR},
    },
}


def _event(
    name: str,
    level: TraceLevel,
    doc: str,
    required: tuple[str, ...] = (),
    open: bool = False,
    where: Source = Source.AGENT,
    /,
    **fields: Schema,
) -> EventType:
    # Positional-only, so that an event may have fields called `level`, `required` or `source`.
    return EventType(name, level, doc, fields, required, open, where)


EVENT_TYPES: tuple[EventType, ...] = (
    # --- session ---
    _event(
        "session_start",
        S,
        "A session began on its entry agent (before ON_START).",
        ("givenValues", "clock"),
        givenValues=STRS,
        clock=one_of("deterministic", "system"),
    ),
    _event("session_reopened", S, "A message after the agent completed: it takes the message.", ("after",), after=STR),
    _event(
        "warning",
        M,
        "Something the runtime did differently from what is written, or could not do; "
        "`code` says what, the other fields give details.",
        ("code", "message"),
        True,
        code=STR,
        message=STR,
    ),
    _event(
        "error",
        M,
        "A failure the turn could not get past (a model that did not answer, a loop "
        "guard); `code` says what, the other fields give details.",
        ("code", "message"),
        True,
        code=STR,
        message=STR,
    ),
    # --- routing and handoffs ---
    _event(
        "handoff_condition_check",
        S,
        "One route's WHEN evaluated.",
        ("route", "target", "condition", "result", "evaluatedContext", "whenOutcome"),
        False,
        Source.ROUTE_CONDITION,
        route=INT,
        target=STR,
        condition=STR,
        result=BOOL,
        evaluatedContext={"type": "object"},
        whenOutcome=one_of(
            "deterministic_match", "deterministic_no_match", "semantic_match", "semantic_no_match", "unresolved"
        ),
        confidence=NUM,
        problems=STRS,
        intent=nullable(STR),
    ),
    _event(
        "handoff",
        M,
        "Control moves to another agent.",
        ("from", "to", "returnExpected", "reasonCode", "history", "historyMessages", "passed"),
        False,
        Source.ROUTE,
        **{"from": STR},
        to=STR,
        returnExpected=BOOL,
        reasonCode=one_of("handoff_return_expected", "handoff_permanent"),
        history=_HISTORY,
        historyMessages=INT,
        passed=STRS,
        route=INT,
        resumed=BOOL,
        handBack=BOOL,
        source=STR,
    ),
    _event(
        "handoff_completed",
        M,
        "How a handoff attempt ended; `durationMs` is measured on the session's timeline (see `session_start.clock`).",
        ("to", "outcome", "durationMs"),
        False,
        Source.ROUTE_TO,
        to=STR,
        outcome=_OUTCOMES,
        durationMs=INT,
        cause=STR,
        code=STR,
        siblingIntentMs=INT,
    ),
    _event(
        "thread_resume",
        S,
        "A waiting thread takes over again with its own history and data.",
        ("preservedHistoryLength", "preservedDataKeys", "reasonCode"),
        preservedHistoryLength=INT,
        preservedDataKeys=STRS,
        reasonCode=STR,
    ),
    _event(
        "return_to_parent",
        S,
        "A reasoning child gives the customer's message back to its parent.",
        ("from", "to", "forwardedMessage"),
        **{"from": STR},
        to=STR,
        forwardedMessage=STR,
    ),
    _event(
        "handoff_return_handler",
        S,
        "A returnable child returned: what came back and what the parent does.",
        (
            "from",
            "to",
            "handler",
            "action",
            "mappedFields",
            "setFields",
            "clearedFields",
            "emittedResponse",
            "cause",
            "reasonCode",
        ),
        False,
        Source.RETURN_HANDLER,
        **{"from": STR},
        to=STR,
        handler=nullable(STR),
        action=one_of("continue", "resume_intent"),
        mappedFields=STRS,
        setFields=STRS,
        clearedFields=STRS,
        emittedResponse=nullable(STR),
        cause=one_of("complete", "handback", "parent_return", "timeout"),
        reasonCode=one_of("handoff_return_continue", "handoff_return_resume_intent"),
    ),
    _event(
        "resume_intent",
        S,
        "A message replayed through the parent's routes.",
        ("message", "resumeWith", "depth"),
        False,
        Source.RESUMED_ROUTE,
        message=STR,
        resumeWith=STR,
        depth=INT,
    ),
    _event(
        "resume_intent_depth_limit",
        S,
        "A second-level replay refused.",
        ("message", "resumeWith", "depth", "limit"),
        False,
        Source.RESUMED_ROUTE,
        message=STR,
        resumeWith=STR,
        depth=INT,
        limit=INT,
    ),
    _event(
        "memory_error",
        S,
        "A return's effects refused: the parent may not write a target.",
        ("target", "source", "code", "cause", "from"),
        target=STR,
        source=one_of("MAP", "SET", "CLEAR"),
        code=STR,
        cause=STR,
        **{"from": STR},
    ),
    # --- multi-intent ---
    _event(
        "multi_intent_plan_built",
        S,
        "A message asked for several things; how they are handled.",
        ("intents", "strategy", "relationship"),
        intents=_INTENTS,
        strategy=one_of("primary_queue", "sequential", "parallel", "disambiguate"),
        relationship=one_of("independent", "dependent", "ambiguous"),
    ),
    _event("multi_intent_queued", S, "Intents kept for after the primary one.", ("intents",), intents=STRS),
    _event("multi_intent_queue_surfaced", S, "A queued intent offered to the customer.", ("intent",), intent=STR),
    _event("multi_intent_queue_accepted", S, "The customer took up the queued intent.", ("intent",), intent=STR),
    _event("multi_intent_queue_declined", S, "The customer let the queued intent go.", ("intent",), intent=STR),
    _event(
        "multi_intent_queue_expired",
        S,
        "A queued intent older than `queue_max_age_ms` was dropped.",
        ("intent", "ageMs"),
        intent=STR,
        ageMs=INT,
    ),
    _event(
        "multi_intent_sequential_task_start",
        S,
        "One intent of a sequential plan starts.",
        ("intent", "index"),
        intent=STR,
        index=INT,
    ),
    _event(
        "multi_intent_sequential_task_complete",
        S,
        "One intent of a sequential plan is done.",
        ("intent", "index"),
        intent=STR,
        index=INT,
    ),
    _event(
        "multi_intent_parallel_executed",
        S,
        "Sibling intents ran inside the primary's handoff attempt.",
        ("intents", "siblingIntentMs"),
        intents=STRS,
        siblingIntentMs=INT,
    ),
    _event(
        "multi_intent_disambiguate_requested",
        S,
        "The customer is asked which request comes first.",
        ("intents",),
        intents=STRS,
    ),
    _event(
        "multi_intent_disambiguate_choice",
        S,
        "The customer's choice among the offered intents.",
        ("intent",),
        intent=STR,
    ),
    # --- agents' own work ---
    _event(
        "gather",
        S,
        "A GATHER field read from a message (or an answer that gave nothing).",
        ("field", "value", "valid", "attempt"),
        False,
        Source.GATHER_FIELD,
        field=STR,
        value=ANY,
        valid=BOOL,
        attempt=INT,
        reason=STR,
        step=STR,
    ),
    _event(
        "complete",
        M,
        "A COMPLETE rule fired, or a flow reached `COMPLETE`.",
        ("terminal",),
        False,
        Source.COMPLETE_RULE,
        rule={"type": "object", "required": ["index", "condition"], "properties": {"index": INT, "condition": STR}},
        step=STR,
        terminal=BOOL,
    ),
    _event(
        "model_call",
        V,
        "One question put to the model; the messages themselves only at debug level.",
        ("purpose", "provider", "messages", "result", "contextMessages"),
        purpose=one_of("intent", "intents", "condition", "extract", "reply", "tool_choice"),
        provider=STR,
        messages={"type": "object", "required": ["count"], "properties": {"count": INT, "items": {"type": "array"}}},
        result=ANY,
        contextMessages=INT,
    ),
    _event(
        "tool_call",
        S,
        "A tool called (answered by a mock).",
        ("tool", "callId", "input"),
        False,
        Source.TOOL,
        tool=STR,
        callId=STR,
        input={"type": "object"},
        step=STR,
        confidence=NUM,
    ),
    _event(
        "tool_result",
        S,
        "A tool's result, or why the call failed.",
        ("tool", "callId", "success", "mocked"),
        False,
        Source.TOOL,
        tool=STR,
        callId=STR,
        success=BOOL,
        mocked=BOOL,
        output=ANY,
        error=STR,
        errorType=STR,
        subtype=STR,
    ),
    _event(
        "tool_call_retry",
        S,
        "A failed call tried again (the delay is reported, not waited).",
        ("tool", "attempt", "delayMs"),
        False,
        Source.TOOL,
        tool=STR,
        attempt=INT,
        delayMs=INT,
    ),
    _event(
        "error_handler_resolved",
        S,
        "The ON_ERROR handler chosen for a failure.",
        ("errorType", "scope", "handler", "then"),
        False,
        Source.STEP_ERROR_HANDLER,
        errorType=STR,
        subtype=nullable(STR),
        scope=one_of("step", "agent", "default"),
        handler=STR,
        then=STR,
    ),
    _event(
        "delegate_start",
        S,
        "A DELEGATE call begins.",
        ("from", "to", "purpose", "input"),
        False,
        Source.DELEGATE,
        **{"from": STR},
        to=STR,
        purpose=STR,
        input=STRS,
    ),
    _event(
        "delegate_complete",
        S,
        "A DELEGATE call ended.",
        ("to", "success", "returned"),
        False,
        Source.DELEGATE,
        to=STR,
        success=BOOL,
        returned=STRS,
        error=STR,
        result=STR,
    ),
    _event(
        "escalate",
        M,
        "A human takes over; the session ends here.",
        ("reason", "priority", "source"),
        False,
        Source.ESCALATE_TRIGGER,
        reason=STR,
        priority=STR,
        source=one_of("trigger", "on_failure", "flow", "on_error", "timeout"),
        trigger=INT,
    ),
    # --- FLOW ---
    _event(
        "flow_step",
        S,
        "A flow step entered, waiting, skipped, left, or out of attempts.",
        ("step", "action"),
        False,
        Source.STEP,
        step=STR,
        action=one_of("enter", "wait", "transition", "skip", "end", "exhausted", "resume"),
        to=STR,
    ),
    _event(
        "digression",
        S,
        "A side topic raised at a flow step.",
        ("intent", "step", "detectionMode", "confidence", "resume", "scope"),
        False,
        Source.STEP_DIGRESSION,
        intent=STR,
        step=STR,
        detectionMode=one_of("keyword", "model"),
        confidence=NUM,
        resume=BOOL,
        scope=one_of("step", "global"),
    ),
    _event(
        "sub_intent",
        S,
        "A request handled inside a flow step.",
        ("intent", "step", "detectionMode", "confidence", "resume"),
        False,
        Source.STEP_SUB_INTENT,
        intent=STR,
        step=STR,
        detectionMode=one_of("keyword", "model"),
        confidence=NUM,
        resume=BOOL,
    ),
    _event(
        "correction",
        S,
        "An earlier answer changed by the customer mid-flow.",
        ("field", "previous", "value", "step"),
        False,
        Source.STEP,
        field=STR,
        previous=ANY,
        value=ANY,
        step=STR,
    ),
    _event(
        "correction_invalidation",
        V,
        "A field cleared because a field it depends on was corrected.",
        ("field", "because"),
        field=STR,
        because=STR,
    ),
    _event(
        "action_handler_executed",
        S,
        "A step's ON_ACTION entry ran for the action the customer chose.",
        ("step", "action"),
        False,
        Source.STEP_ACTION,
        step=STR,
        action=STR,
    ),
    _event(
        "transform",
        S,
        "A TRANSFORM reshaped a list.",
        ("step", "into", "count"),
        False,
        Source.STEP,
        step=STR,
        into=STR,
        count=INT,
    ),
    _event(
        "log",
        S,
        "A flow `LOG` line (trace only).",
        ("step", "level", "message"),
        False,
        Source.STEP,
        step=STR,
        level=STR,
        message=STR,
    ),
)

EVENTS: Mapping[str, EventType] = {event.name: event for event in EVENT_TYPES}

# Field paths (tuples of keys) shown only at debug level, per event type.
DEBUG_ONLY_FIELDS: Mapping[str, tuple[tuple[str, ...], ...]] = {
    "model_call": (("messages", "items"),),
}

EVENT_LEVELS: Mapping[str, TraceLevel] = {event.name: event.level for event in EVENT_TYPES}


def event_level(event_type: str) -> TraceLevel:
    """The level at which events of this type become visible (unlisted types: standard)."""
    return EVENT_LEVELS.get(event_type, TraceLevel.STANDARD)


def json_schema() -> dict[str, Any]:
    """One JSON Schema for a trace event (a `--trace-out` line): one branch per event type."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://abl-tools/trace-events.schema.json",
        "title": "ABL runtime trace event",
        "description": "One line of `abl run --trace-out`: the envelope (type, seq, turn, thread, agent, ts) "
        "and the fields of its type. `x-level` is the verbosity at which the type is shown "
        "(minimal < standard < verbose < debug).",
        "oneOf": [{"$ref": f"#/$defs/{event.name}"} for event in EVENT_TYPES],
        "$defs": {event.name: event.schema() for event in EVENT_TYPES},
    }


def schema_text() -> str:
    """The schema as it is committed in `docs/trace-events.schema.json`."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"
