"""The default model: offline, deterministic, no downloads.

- Intents: lexical similarity between the message and each intent's name, description and
  examples (`lexical.LexicalIndex`), with a threshold (default 0.35) below which no intent
  matches, and an ambiguity margin (default 0.1) between the two best.
- Natural-language conditions: the same similarity between the message and the condition's
  topic (framing words such as "the customer asks about" are ignored). A condition of the form
  "... other than X" / "anything but X" holds when the message has a topic and it is not X.
- Extraction: typed extractors (`extraction.extract_fields`); relative dates use the clock.
- Free replies: a fixed stand-in naming the agent and its goal, so a run without a language
  model still shows who answered and why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from abl.runtime.models.base import (
    CallLog,
    ChatMessage,
    ConditionDecision,
    Extraction,
    FieldSpec,
    IntentDecision,
    IntentOption,
    ModelCallRecord,
    ModelContext,
    ReplyRequest,
    condition_result,
    extraction_result,
    intent_result,
    ranked_decision,
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
        self._indexes: dict[tuple[tuple[str, str, tuple[str, ...]], ...], LexicalIndex] = {}

    @property
    def provider(self) -> str:
        return "embedded"

    def classify_intent(
        self, message: str, intents: Sequence[IntentOption], context: ModelContext
    ) -> IntentDecision:
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

    def reply(self, request: ReplyRequest) -> str:
        text = stand_in_reply(request.agent, request.goal)
        self._log(ModelCallRecord("reply", self.provider, tuple(request.messages), {"text": text}))
        return text

    def _index(self, intents: Sequence[IntentOption]) -> LexicalIndex:
        key = tuple((i.name, i.description, tuple(i.examples)) for i in intents)
        index = self._indexes.get(key)
        if index is None:
            index = LexicalIndex.from_texts(key)
            self._indexes[key] = index
        return index

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


def stand_in_reply(agent: str, goal: str) -> str:
    """`(Agent_Name) I can help with: <goal>.`, the reply used when no model writes one."""
    goal_text = goal.strip().rstrip(".")
    if not goal_text:
        return f"({agent}) How can I help?"
    return f"({agent}) I can help with: {goal_text}."
