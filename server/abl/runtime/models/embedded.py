"""The default model: offline, deterministic, no downloads.

- Intents: lexical similarity between the message and each intent's name, description and
  examples (`lexical.LexicalIndex`), with a threshold (default 0.35) below which no intent
  matches, and an ambiguity margin (default 0.1) between the two best.
- Natural-language conditions: the same similarity between the message and the condition's
  topic (framing words such as "the customer asks about" are ignored). A condition of the form
  "... other than X" / "anything but X" holds when the message has a topic and it is not X.
- Several intents in one message: the message is cut into clauses at "and", "also", "then",
  commas and the like, and each clause is classified; clauses joined by "then" or "after that"
  are dependent (one after the other).
- Extraction: typed extractors (`extraction.extract_fields`); relative dates use the clock.
- Tool choice: what the customer asked since the agent last used a tool (their last two
  messages) against each tool's name and description, with the same similarity and threshold;
  arguments come from the conversation's values of the same name, else from those messages by
  the parameter's type. At most one tool per customer message.
- Free replies: a fixed stand-in naming the agent and its goal (and the results of the tools it
  just called), so a run without a language model still shows who answered and why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from abl.runtime.models.base import (
    CallLog,
    ChatMessage,
    ConditionDecision,
    DetectedIntent,
    Extraction,
    FieldSpec,
    IntentDecision,
    IntentOption,
    ModelCallRecord,
    ModelContext,
    MultiIntentDecision,
    ReplyRequest,
    ToolChoice,
    ToolDecision,
    ToolRequest,
    ToolSpec,
    condition_result,
    extraction_result,
    intent_result,
    intents_result,
    ranked_decision,
    tool_result,
)
from abl.runtime.models.dates import DateOrder
from abl.runtime.models.extraction import extract_fields
from abl.runtime.models.lexical import CONDITION_FRAME_WORDS, LexicalIndex, concepts
from abl.runtime.trace import Clock, FixedClock

DEFAULT_THRESHOLD = 0.35
DEFAULT_MARGIN = 0.1

_NEGATION_RE = re.compile(
    r"\b(?:other than|anything but|anything except|something except|except for|except|apart from|besides|"
    r"not about|not related to|unrelated to|nothing to do with)\b",
    re.IGNORECASE,
)
# Where one request ends and the next begins in a message that asks for several things.
_CLAUSE_BREAK_RE = re.compile(
    r"\s*(?:[;,.!?]\s*(?:and\s+)?(?:then\s+|also\s+|after that\s+)?|\band then\b|\bthen\b|"
    r"\bafter that\b|\band also\b|\balso\b|\bplus\b|\bas well as\b|\band\b)\s*",
    re.IGNORECASE,
)
_SEQUENCE_RE = re.compile(r"\b(?:then|after that|afterwards|once that is done|before)\b", re.IGNORECASE)
_IDENTIFIER_RE = re.compile(r"\b[A-Za-z]{0,6}[-_]?\d[\w-]*\b")


class EmbeddedModel(CallLog):
    """Lexical intent matching, typed extraction and template replies."""

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        margin: float = DEFAULT_MARGIN,
        date_order: DateOrder = "MDY",
    ) -> None:
        super().__init__()
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {threshold}")
        if date_order not in ("MDY", "DMY"):
            raise ValueError(f"date_order must be MDY or DMY, got {date_order!r}")
        self.clock: Clock = clock if clock is not None else FixedClock()
        self.threshold = threshold
        self.margin = margin
        self.date_order: DateOrder = date_order

    @property
    def provider(self) -> str:
        return "embedded"

    def classify_intent(self, message: str, intents: Sequence[IntentOption], context: ModelContext) -> IntentDecision:
        scores = self._index(intents).score(message) if intents else []
        decision = ranked_decision(scores, self.threshold, self.margin)
        self._log(ModelCallRecord("intent", self.provider, (ChatMessage("user", message),), intent_result(decision)))
        return decision

    def judge_condition(self, condition: str, message: str, context: ModelContext) -> ConditionDecision:
        decision = self._judge(condition, message)
        self._log(
            ModelCallRecord(
                "condition", self.provider, (ChatMessage("user", message),), condition_result(condition, decision)
            )
        )
        return decision

    def extract(self, fields: Sequence[FieldSpec], message: str, context: ModelContext) -> dict[str, Extraction]:
        messages = (ChatMessage("user", message),)
        today = self.clock.now().date()
        found = self._guard("extract", messages, lambda: extract_fields(fields, message, today, self.date_order))
        result, secrets = extraction_result(fields, found)
        self._log(ModelCallRecord("extract", self.provider, messages, result, secrets))
        return found

    def detect_intents(
        self, message: str, intents: Sequence[IntentOption], context: ModelContext
    ) -> MultiIntentDecision:
        found: list[DetectedIntent] = []
        ambiguous = False
        if intents:
            index = self._index(intents)
            for clause in clauses(message):
                decision = ranked_decision(index.score(clause), self.threshold, self.margin)
                if decision.name is None or any(d.name == decision.name for d in found):
                    continue
                ambiguous = ambiguous or decision.ambiguous
                found.append(DetectedIntent(decision.name, decision.confidence, clause))
        relationship = "ambiguous" if ambiguous else ("dependent" if _SEQUENCE_RE.search(message) else "independent")
        result = MultiIntentDecision(found, relationship if len(found) > 1 else "independent")
        self._log(ModelCallRecord("intents", self.provider, (ChatMessage("user", message),), intents_result(result)))
        return result

    def choose_tool(self, request: ToolRequest) -> ToolDecision:
        decision = self._choose(request)
        self._log(ModelCallRecord("tool_choice", self.provider, tuple(request.messages), tool_result(decision)))
        return decision

    def reply(self, request: ReplyRequest) -> str:
        results = _latest_tool_results(request.messages)
        if results:
            text = f"({request.agent}) " + "; ".join(f"{tool}: {content}" for tool, content in results)
        else:
            text = stand_in_reply(request.agent, request.goal)
        self._log(ModelCallRecord("reply", self.provider, tuple(request.messages), {"text": text}))
        return text

    def _choose(self, request: ToolRequest) -> ToolDecision:
        if request.called or not request.tools:
            return ToolDecision(None)  # one tool per customer message: then the agent answers
        message = _open_request(request.messages)
        entries = [(tool.name, tool.description, ()) for tool in request.tools]
        scores = LexicalIndex.from_texts(entries).score(message)
        best = ranked_decision(scores, self.threshold, self.margin)
        if best.name is None:
            return ToolDecision(None)
        tool = next(t for t in request.tools if t.name == best.name)
        arguments, missing = self._arguments(tool, request.values, message)
        if missing:
            wanted = ", ".join(missing)
            return ToolDecision(None, f"({request.agent}) To use {tool.name} I need: {wanted}.")
        return ToolDecision(ToolChoice(tool.name, arguments, best.confidence))

    def _arguments(self, tool: ToolSpec, values: Mapping[str, Any], message: str) -> tuple[dict[str, Any], list[str]]:
        arguments: dict[str, Any] = {}
        missing: list[str] = []
        today = self.clock.now().date()
        for param in tool.params:
            if values.get(param.name) is not None:
                arguments[param.name] = values[param.name]
                continue
            spec = FieldSpec(name=param.name, type=param.type, description=param.name.replace("_", " "))
            found = extract_fields([spec], message, today, self.date_order).get(param.name)
            if found is None and spec.type.lower() in ("string", "text", ""):
                token = _IDENTIFIER_RE.search(message)
                found = Extraction(token.group(0), 0.6, token.group(0)) if token is not None else None
            if found is not None:
                arguments[param.name] = found.value
            elif param.required:
                missing.append(param.name)
        return arguments, missing

    def _index(self, intents: Sequence[IntentOption]) -> LexicalIndex:
        return _intent_index(tuple((i.name, i.description, tuple(i.examples)) for i in intents))

    def _judge(self, condition: str, message: str) -> ConditionDecision:
        negation = _NEGATION_RE.search(condition)
        topic = condition[negation.end() :] if negation else condition
        index = LexicalIndex.from_texts([("condition", topic, ())], CONDITION_FRAME_WORDS, names_are_text=False)
        query = concepts(message, CONDITION_FRAME_WORDS)
        if not query:
            # Nothing to judge: "ok" neither matches a topic nor raises a different one.
            return ConditionDecision(result=False, confidence=0.6 if negation else 1.0)
        score = round(index.score_concepts(query)[0][1], 4)
        matches = score >= self.threshold
        if negation:
            return ConditionDecision(result=not matches, confidence=score if matches else round(1 - score, 4))
        return ConditionDecision(result=matches, confidence=score if matches else round(1 - score, 4))


@lru_cache(maxsize=512)
def _intent_index(entries: tuple[tuple[str, str, tuple[str, ...]], ...]) -> LexicalIndex:
    """One index per set of intents, shared by every session (an index is never changed)."""
    return LexicalIndex.from_texts(entries)


def clauses(message: str) -> list[str]:
    """The parts of a message that may each ask for something."""
    parts = [part.strip() for part in _CLAUSE_BREAK_RE.split(message)]
    return [part for part in parts if part] or [message]


def _open_request(messages: Sequence[ChatMessage]) -> str:
    """What the customer asked since the agent last used a tool: their last two messages (a
    question, then the detail the agent asked for)."""
    said: list[str] = []
    for m in reversed(messages):
        if m.role == "tool" or len(said) == 2:
            break
        if m.role == "user":
            said.append(m.content)
    return " ".join(reversed(said))


def _latest_tool_results(messages: Sequence[ChatMessage]) -> list[tuple[str, str]]:
    """The tool results that came after the customer's latest message."""
    results: list[tuple[str, str]] = []
    for m in reversed(messages):
        if m.role == "user":
            break
        if m.role == "tool":
            results.append((m.tool or "tool", m.content))
    return list(reversed(results))


def stand_in_reply(agent: str, goal: str) -> str:
    """`(Agent_Name) I can help with: <goal>.`, the reply used when no model writes one."""
    goal_text = goal.strip().rstrip(".")
    if not goal_text:
        return f"({agent}) How can I help?"
    return f"({agent}) I can help with: {goal_text}."
