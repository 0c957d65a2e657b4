"""One interface for every decision the runtime cannot make deterministically.

The engine asks a `Model` six kinds of question:

- `classify_intent`: which of the supervisor's `INTENTS` a message expresses (or none);
- `detect_intents`: every intent a message expresses, for `MULTI_INTENT`;
- `judge_condition`: whether a quoted natural-language `WHEN` holds for a message;
- `extract`: which `GATHER` values a message gives;
- `choose_tool`: which tool a reasoning agent calls next, with which arguments (or none);
- `reply`: a reasoning agent's free answer when no template applies.

The conversation handed with a question (`ModelContext.messages`, `ReplyRequest.messages`)
ends with the customer message being answered, so a provider always sees it.

Every provider also keeps a `ModelCallRecord` per question. The engine collects them with
`take_calls()` after each question and turns each one into a `model_call` trace event, so the
trace shows what was asked, of whom, and what came back:

    decision = model.classify_intent(message, intents, context)
    for record in model.take_calls():
        for secret in record.secrets:
            trace.protect(secret)  # before the event, so no view ever shows it
        trace.emit("model_call", record.trace_fields(), turn=turn, thread=thread_id, agent=agent)

A provider that fails raises `ModelError` and still leaves a record whose result is
`{"error": message}`, so the trace shows the failed call next to the `error` event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from abl.runtime.trace import REDACTED

Purpose = Literal["intent", "intents", "condition", "extract", "reply", "tool_choice"]
Role = Literal["system", "user", "assistant", "tool"]
_T = TypeVar("_T")


class ModelError(Exception):
    """A model could not answer (not configured, timed out, bad response, missing script).

    The message is written for the person running the conversation; the engine reports it
    as an `error` event and keeps the session.
    """


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message. A tool call is an assistant message whose `content` holds the arguments as
    JSON, with `tool` and `tool_call_id` set; its result is a `tool` message with the same id."""

    role: Role
    content: str
    tool: str | None = None
    tool_call_id: str | None = None


@dataclass(frozen=True, slots=True)
class ModelContext:
    """What the engine knows around a question: who asks, and the recent conversation."""

    agent: str = ""
    goal: str = ""
    messages: Sequence[ChatMessage] = ()


@dataclass(frozen=True, slots=True)
class IntentOption:
    """One entry of `INTENTS`: its name and the author's description (plus optional examples)."""

    name: str
    description: str = ""
    examples: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class IntentDecision:
    """The classifier's answer.

    `name` is None when no intent reaches the provider's threshold. `confidence` is the score of
    the best intent (0..1) even when it is below the threshold. `ranked` lists every intent with
    its score, best first. `ambiguous` is true when the runner-up is too close to call.
    """

    name: str | None
    confidence: float
    ranked: list[tuple[str, float]] = field(default_factory=list)
    ambiguous: bool = False


@dataclass(frozen=True, slots=True)
class ConditionDecision:
    result: bool
    confidence: float


FieldType = str
"""ABL gather types: string, text, free_text, number, integer, float, currency, boolean, date,
datetime, email, phone, enum, pattern, location. Unknown types behave like string."""


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """A `GATHER` field as extraction sees it.

    `pattern` is the field's `extraction_pattern` and `pattern_group` its `extraction_group`
    (None: group 1 when the pattern has a group, else the whole match). `asked` is true when
    the agent's last prompt asked for this field, which lets free-text fields take the whole
    reply and makes short answers such as "yes" or "85k" count.
    """

    name: str
    type: FieldType = "string"
    description: str = ""
    options: Sequence[str] = ()
    pattern: str | None = None
    pattern_group: int | None = None
    required: bool = True
    sensitive: bool = False
    asked: bool = False


@dataclass(frozen=True, slots=True)
class Extraction:
    """One extracted value, how sure the extractor is (0..1), and the text it came from."""

    value: Any
    confidence: float
    span: str


@dataclass(frozen=True, slots=True)
class DetectedIntent:
    """One intent found in a message, and the part of the message that expresses it."""

    name: str
    confidence: float
    text: str


@dataclass(frozen=True, slots=True)
class MultiIntentDecision:
    """Every intent a message expresses, in the order written, and how they relate:
    `independent`, `dependent` (one must come after the other) or `ambiguous`."""

    intents: list[DetectedIntent]
    relationship: str = "independent"


@dataclass(frozen=True, slots=True)
class ToolParamSpec:
    name: str
    type: str = "string"
    required: bool = True
    default: str | None = None


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as a reasoning agent sees it: its signature and what it is for."""

    name: str
    description: str = ""
    params: Sequence[ToolParamSpec] = ()


@dataclass(frozen=True, slots=True)
class ToolRequest:
    """What a reasoning agent's next tool choice is based on. `values` are the thread's values,
    which a provider may use to fill arguments; `called` lists the tools already called since
    the customer's last message."""

    agent: str
    goal: str
    tools: Sequence[ToolSpec]
    messages: Sequence[ChatMessage] = ()
    persona: str = ""
    values: Mapping[str, Any] = field(default_factory=dict)
    called: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class ToolChoice:
    name: str
    arguments: Mapping[str, Any]
    confidence: float


@dataclass(frozen=True, slots=True)
class ToolDecision:
    """A tool to call, or none. A provider that answered in words instead (a chat endpoint that
    chose no tool) gives that answer as `reply`, so it is not asked twice."""

    call: ToolChoice | None
    reply: str | None = None


@dataclass(frozen=True, slots=True)
class ReplyRequest:
    """What a reasoning agent's free reply is based on."""

    agent: str
    goal: str
    persona: str = ""
    messages: Sequence[ChatMessage] = ()


@dataclass(frozen=True, slots=True)
class ModelCallRecord:
    """One question put to a model, for the `model_call` trace event.

    `messages` are the chat messages the provider looked at (or sent); the trace shows their
    count at verbose level and the messages themselves only at debug level. `result` is
    already safe to print: sensitive extracted values are redacted. `secrets` holds those
    sensitive values so the engine can register them with the trace (`Trace.protect`).
    """

    purpose: Purpose
    provider: str
    messages: tuple[ChatMessage, ...]
    result: Any
    secrets: tuple[str, ...] = ()

    def trace_fields(self) -> dict[str, Any]:
        """Fields for `Trace.emit("model_call", ...)`."""
        return {
            "purpose": self.purpose,
            "provider": self.provider,
            "messages": {
                "count": len(self.messages),
                "items": [_message_data(m) for m in self.messages],
            },
            "result": self.result,
        }


@runtime_checkable
class Model(Protocol):
    """The decisions the engine delegates. Implementations raise `ModelError` on failure."""

    @property
    def provider(self) -> str:
        """Short provider name for traces: `embedded`, `scripted`, `openai`."""
        ...

    def classify_intent(
        self, message: str, intents: Sequence[IntentOption], context: ModelContext
    ) -> IntentDecision: ...

    def judge_condition(self, condition: str, message: str, context: ModelContext) -> ConditionDecision: ...

    def extract(self, fields: Sequence[FieldSpec], message: str, context: ModelContext) -> dict[str, Extraction]: ...

    def detect_intents(
        self, message: str, intents: Sequence[IntentOption], context: ModelContext
    ) -> MultiIntentDecision: ...

    def choose_tool(self, request: ToolRequest) -> ToolDecision: ...

    def reply(self, request: ReplyRequest) -> str: ...

    def take_calls(self) -> list[ModelCallRecord]:
        """The records of questions answered since the last call, oldest first."""
        ...


class CallLog:
    """Keeps `ModelCallRecord`s until the engine takes them; providers inherit it."""

    def __init__(self) -> None:
        self._calls: list[ModelCallRecord] = []

    @property
    def provider(self) -> str:
        raise NotImplementedError

    def take_calls(self) -> list[ModelCallRecord]:
        calls, self._calls = self._calls, []
        return calls

    def _log(self, record: ModelCallRecord) -> None:
        self._calls.append(record)

    def _guard(self, purpose: Purpose, messages: Sequence[ChatMessage], ask: Callable[[], _T]) -> _T:
        """Answer one question; when it fails and left no record, record the failure."""
        before = len(self._calls)
        try:
            return ask()
        except ModelError as err:
            if len(self._calls) == before:
                self._log(ModelCallRecord(purpose, self.provider, tuple(messages), {"error": str(err)}))
            raise


# --- Shared by providers ------------------------------------------------------------------------


def _message_data(message: ChatMessage) -> dict[str, Any]:
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool is not None:
        data["tool"] = message.tool
    return data


def intent_result(decision: IntentDecision) -> dict[str, Any]:
    """An intent decision as trace data."""
    return {
        "intent": decision.name,
        "confidence": decision.confidence,
        "ambiguous": decision.ambiguous,
        "ranked": [[name, score] for name, score in decision.ranked],
    }


def intents_result(decision: MultiIntentDecision) -> dict[str, Any]:
    return {
        "intents": [{"intent": d.name, "confidence": d.confidence, "text": d.text} for d in decision.intents],
        "relationship": decision.relationship,
    }


def tool_result(decision: ToolDecision) -> dict[str, Any]:
    if decision.call is None:
        return {"tool": None, "reply": decision.reply}
    call = decision.call
    return {"tool": call.name, "arguments": dict(call.arguments), "confidence": call.confidence}


def condition_result(condition: str, decision: ConditionDecision) -> dict[str, Any]:
    return {"condition": condition, "result": decision.result, "confidence": decision.confidence}


def extraction_result(
    fields: Sequence[FieldSpec], found: Mapping[str, Extraction]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """Extractions as trace data with sensitive values redacted, plus those values."""
    sensitive = {spec.name for spec in fields if spec.sensitive}
    data: dict[str, Any] = {}
    secrets: list[str] = []
    for name, extraction in found.items():
        if name in sensitive:
            secrets.extend(_secret_texts(extraction))
            data[name] = {"value": REDACTED, "confidence": extraction.confidence}
        else:
            data[name] = {"value": extraction.value, "confidence": extraction.confidence}
    return data, tuple(dict.fromkeys(secrets))


def _secret_texts(extraction: Extraction) -> list[str]:
    texts = []
    for item in (extraction.value, extraction.span):
        if item is None:
            continue
        text = str(int(item)) if isinstance(item, float) and item.is_integer() else str(item)
        if text.strip():
            texts.append(text)
    return texts


def ranked_decision(scores: Sequence[tuple[str, float]], threshold: float, margin: float) -> IntentDecision:
    """Turn per-intent scores (in declaration order) into a decision.

    Ties keep declaration order. The best intent wins when it reaches `threshold`; the answer
    is ambiguous when the runner-up also reaches it and trails by less than `margin`.
    """
    ranked = sorted(((name, round(score, 4)) for name, score in scores), key=lambda pair: -pair[1])
    if not ranked:
        return IntentDecision(name=None, confidence=0.0, ranked=[], ambiguous=False)
    best_name, best = ranked[0]
    if best < threshold:
        return IntentDecision(name=None, confidence=best, ranked=ranked, ambiguous=False)
    ambiguous = len(ranked) > 1 and ranked[1][1] >= threshold and best - ranked[1][1] < margin
    return IntentDecision(name=best_name, confidence=best, ranked=ranked, ambiguous=ambiguous)
