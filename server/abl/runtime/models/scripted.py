"""A model whose decisions a test gives in advance.

Each purpose takes either a queue (a sequence, used up in order, one entry per question) or a
mapping (reusable, looked up by a key):

- intents: intent name, None (no match) or an `IntentDecision`; mapping key = the message. A
  list of names answers a multi-intent question (every intent the message expresses);
- conditions: bool or `ConditionDecision`; mapping key = the condition text, or a
  (condition, message) pair, which wins over the condition alone;
- extractions: a mapping of field name to value (or `Extraction`); mapping key = the message;
- replies: reply text; mapping key = the agent name;
- tool_calls: `{"tool": name, "arguments": {...}}`, or None for no tool; mapping key = the agent
  name. Without any `tool_calls` script, no tool is ever called.

A question with no scripted answer raises `ScriptExhausted`, unless a `fallback` model was
given, which then answers (and its call records are passed on). Answers that cannot be right
(an intent that was not offered, a field that was not asked) raise `ModelError` at once, so a
mistake in a test shows where it is made.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from abl.runtime.models.base import (
    CallLog,
    ChatMessage,
    ConditionDecision,
    DetectedIntent,
    Extraction,
    FieldSpec,
    IntentDecision,
    IntentOption,
    Model,
    ModelCallRecord,
    ModelContext,
    ModelError,
    MultiIntentDecision,
    Purpose,
    ReplyRequest,
    ToolChoice,
    ToolDecision,
    ToolRequest,
    condition_result,
    extraction_result,
    intent_result,
    intents_result,
    tool_result,
)

IntentAnswer = str | IntentDecision | None
ConditionAnswer = bool | ConditionDecision
ExtractionAnswer = Mapping[str, Any]
Script = Sequence[Any] | Mapping[Any, Any] | None
_T = TypeVar("_T")


class ScriptExhausted(ModelError):
    """The script has no answer for a question and there is no fallback."""


# The keys of a turn's `scripted` block, and the question each one answers.
_PURPOSE_OF_KEY: dict[str, Purpose] = {
    "intents": "intent",
    "conditions": "condition",
    "extractions": "extract",
    "replies": "reply",
    "tool_calls": "tool_choice",
}


class _Answers:
    """The scripted answers for one purpose: a queue, a mapping, or both."""

    def __init__(self, purpose: Purpose, script: Script) -> None:
        self.purpose = purpose
        self.queue: deque[Any] = deque()
        self.by_key: dict[Any, Any] = {}
        self.used = 0
        if script is None:
            return
        if isinstance(script, Mapping):
            self.by_key.update(script)
        elif isinstance(script, (str, bytes)):
            raise TypeError(f"scripted {purpose} answers must be a list or a mapping, not a string")
        else:
            self.queue.extend(script)

    def take(self, *keys: Any) -> tuple[bool, Any]:
        for key in keys:
            if key in self.by_key:
                self.used += 1
                return True, self.by_key[key]
        if self.queue:
            self.used += 1
            return True, self.queue.popleft()
        return False, None


class ScriptedModel(CallLog):
    """Answers from a script; see the module docstring for the script's shape."""

    def __init__(
        self,
        *,
        intents: Script = None,
        conditions: Script = None,
        extractions: Script = None,
        replies: Script = None,
        tool_calls: Script = None,
        fallback: Model | None = None,
    ) -> None:
        super().__init__()
        self._intents = _Answers("intent", intents)
        self._conditions = _Answers("condition", conditions)
        self._extractions = _Answers("extract", extractions)
        self._replies = _Answers("reply", replies)
        self._tools = _Answers("tool_choice", tool_calls)
        self._tools_scripted = tool_calls is not None
        self._turn: dict[Purpose, _Answers] = {}
        self.fallback = fallback

    @property
    def provider(self) -> str:
        return "scripted"

    # Adding answers while a conversation runs (one turn at a time).

    def queue_intent(self, answer: IntentAnswer) -> None:
        self._intents.queue.append(answer)

    def queue_condition(self, answer: ConditionAnswer) -> None:
        self._conditions.queue.append(answer)

    def queue_extraction(self, answer: ExtractionAnswer) -> None:
        self._extractions.queue.append(answer)

    def queue_reply(self, answer: str) -> None:
        self._replies.queue.append(answer)

    def queue_tool_call(self, answer: Any) -> None:
        self._tools.queue.append(answer)
        self._tools_scripted = True

    def begin_turn(self, answers: Mapping[str, Sequence[Any]] | None) -> None:
        """Answers that belong to the next customer message only: they are used first, while
        that message is handled, and are dropped when the next one arrives."""
        self._turn = {}
        for key, values in (answers or {}).items():
            purpose = _PURPOSE_OF_KEY.get(key)
            if purpose is None:
                raise ValueError(f"no scripted question is called `{key}`: use {', '.join(_PURPOSE_OF_KEY)}")
            self._turn[purpose] = _Answers(purpose, list(values))
            if purpose == "tool_choice":
                self._tools_scripted = True

    def unused(self) -> dict[str, int]:
        """Queued answers not used yet, per purpose (mapping answers never run out)."""
        answers = (self._intents, self._conditions, self._extractions, self._replies, self._tools, *self._turn.values())
        out: dict[str, int] = {}
        for a in answers:
            if a.queue:
                out[a.purpose] = out.get(a.purpose, 0) + len(a.queue)
        return out

    def _take(self, answers: _Answers, *keys: Any) -> tuple[bool, Any]:
        """This turn's own answers first, then the file's."""
        own = self._turn.get(answers.purpose)
        if own is not None:
            found, answer = own.take(*keys)
            if found:
                return True, answer
        return answers.take(*keys)

    # The four questions.

    def classify_intent(self, message: str, intents: Sequence[IntentOption], context: ModelContext) -> IntentDecision:
        asked = (ChatMessage("user", message),)
        return self._guard("intent", asked, lambda: self._classify_intent(message, intents, context))

    def _classify_intent(self, message: str, intents: Sequence[IntentOption], context: ModelContext) -> IntentDecision:
        found, answer = self._take(self._intents, message)
        if not found:
            return self._fall_back(
                "intent", f"message {message!r}", lambda m: m.classify_intent(message, intents, context)
            )
        if isinstance(answer, list):
            answer = answer[0] if answer else None  # a multi-intent answer asked as one intent
        decision = _intent_decision(answer, intents)
        self._log(ModelCallRecord("intent", self.provider, (ChatMessage("user", message),), intent_result(decision)))
        return decision

    def judge_condition(self, condition: str, message: str, context: ModelContext) -> ConditionDecision:
        asked = (ChatMessage("user", message),)
        return self._guard("condition", asked, lambda: self._judge_condition(condition, message, context))

    def _judge_condition(self, condition: str, message: str, context: ModelContext) -> ConditionDecision:
        found, answer = self._take(self._conditions, (condition, message), condition)
        if not found:
            where = f"condition {condition!r} and message {message!r}"
            return self._fall_back("condition", where, lambda m: m.judge_condition(condition, message, context))
        if isinstance(answer, ConditionDecision):
            decision = answer
        elif isinstance(answer, bool):
            decision = ConditionDecision(result=answer, confidence=1.0)
        else:
            raise ModelError(f"scripted condition answer for {condition!r} must be true or false, not {answer!r}")
        record = condition_result(condition, decision)
        self._log(ModelCallRecord("condition", self.provider, (ChatMessage("user", message),), record))
        return decision

    def extract(self, fields: Sequence[FieldSpec], message: str, context: ModelContext) -> dict[str, Extraction]:
        asked = (ChatMessage("user", message),)
        return self._guard("extract", asked, lambda: self._extract(fields, message, context))

    def _extract(self, fields: Sequence[FieldSpec], message: str, context: ModelContext) -> dict[str, Extraction]:
        found, answer = self._take(self._extractions, message)
        if not found:
            return self._fall_back("extract", f"message {message!r}", lambda m: m.extract(fields, message, context))
        if not isinstance(answer, Mapping):
            raise ModelError(f"scripted extraction for {message!r} must map field names to values, not {answer!r}")
        requested = [spec.name for spec in fields]
        stray = [name for name in answer if name not in requested]
        if stray:
            raise ModelError(
                f"scripted extraction for {message!r} names {', '.join(stray)}, which "
                f"{'was' if len(stray) == 1 else 'were'} not asked for (asked: {', '.join(requested) or 'nothing'})"
            )
        extractions = {
            name: value if isinstance(value, Extraction) else Extraction(value=value, confidence=1.0, span=str(value))
            for name, value in answer.items()
        }
        result, secrets = extraction_result(fields, extractions)
        self._log(ModelCallRecord("extract", self.provider, (ChatMessage("user", message),), result, secrets))
        return extractions

    def reply(self, request: ReplyRequest) -> str:
        return self._guard("reply", tuple(request.messages), lambda: self._reply(request))

    def _reply(self, request: ReplyRequest) -> str:
        found, answer = self._take(self._replies, request.agent)
        if not found:
            return self._fall_back("reply", f"agent {request.agent!r}", lambda m: m.reply(request))
        if not isinstance(answer, str):
            raise ModelError(f"scripted reply for {request.agent!r} must be text, not {answer!r}")
        self._log(ModelCallRecord("reply", self.provider, tuple(request.messages), {"text": answer}))
        return answer

    def detect_intents(
        self, message: str, intents: Sequence[IntentOption], context: ModelContext
    ) -> MultiIntentDecision:
        asked = (ChatMessage("user", message),)
        return self._guard("intents", asked, lambda: self._detect_intents(message, intents, context))

    def _detect_intents(
        self, message: str, intents: Sequence[IntentOption], context: ModelContext
    ) -> MultiIntentDecision:
        found, answer = self._take(self._intents, message)
        if not found:
            return self._fall_back(
                "intents", f"message {message!r}", lambda m: m.detect_intents(message, intents, context)
            )
        names = answer if isinstance(answer, list) else ([] if answer is None else [answer])
        detected = []
        for name in names:
            decision = _intent_decision(name, intents)
            if decision.name is not None:
                detected.append(DetectedIntent(decision.name, 1.0, message))
        result = MultiIntentDecision(detected, "independent")
        self._log(ModelCallRecord("intents", self.provider, (ChatMessage("user", message),), intents_result(result)))
        return result

    def choose_tool(self, request: ToolRequest) -> ToolDecision:
        return self._guard("tool_choice", tuple(request.messages), lambda: self._choose_tool(request))

    def _choose_tool(self, request: ToolRequest) -> ToolDecision:
        if not self._tools_scripted and self.fallback is None:
            decision = ToolDecision(None)  # a script that says nothing about tools calls none
        else:
            found, answer = self._take(self._tools, request.agent)
            if not found:
                return self._fall_back("tool_choice", f"agent {request.agent!r}", lambda m: m.choose_tool(request))
            decision = _tool_decision(answer, request)
        self._log(ModelCallRecord("tool_choice", self.provider, tuple(request.messages), tool_result(decision)))
        return decision

    def _fall_back(self, purpose: Purpose, where: str, ask: Callable[[Model], _T]) -> _T:
        """Let the fallback answer (keeping its call records in order), or fail clearly."""
        if self.fallback is not None:
            try:
                return ask(self.fallback)
            finally:
                for record in self.fallback.take_calls():
                    self._log(record)
        answers = {
            "intent": self._intents,
            "intents": self._intents,
            "condition": self._conditions,
            "extract": self._extractions,
            "reply": self._replies,
            "tool_choice": self._tools,
        }[purpose]
        raise ScriptExhausted(
            f"the scripted model has no {purpose} answer for {where} "
            f"({answers.used} scripted {purpose} answer{'s' if answers.used != 1 else ''} used so far)"
        )


def _tool_decision(answer: Any, request: ToolRequest) -> ToolDecision:
    if answer is None or answer == "none":
        return ToolDecision(None)
    if not isinstance(answer, Mapping) or not isinstance(answer.get("tool"), str):
        raise ModelError(f"scripted tool call must be {{tool: name, arguments: {{...}}}} or null, not {answer!r}")
    offered = [tool.name for tool in request.tools]
    if answer["tool"] not in offered:
        raise ModelError(
            f"scripted tool {answer['tool']!r} is not one of the tools {request.agent} may call: "
            f"{', '.join(offered) or 'none'}"
        )
    arguments = answer.get("arguments") or {}
    if not isinstance(arguments, Mapping):
        raise ModelError(f"scripted arguments for {answer['tool']!r} must be a mapping, not {arguments!r}")
    return ToolDecision(ToolChoice(answer["tool"], dict(arguments), 1.0))


def _intent_decision(answer: IntentAnswer, intents: Sequence[IntentOption]) -> IntentDecision:
    offered = [option.name for option in intents]
    if isinstance(answer, IntentDecision):
        if answer.name is not None and answer.name not in offered:
            raise ModelError(f"scripted intent {answer.name!r} is not one of the offered intents: {', '.join(offered)}")
        return answer
    if answer is None:
        return IntentDecision(name=None, confidence=0.0, ranked=[(name, 0.0) for name in offered], ambiguous=False)
    if not isinstance(answer, str):
        raise ModelError(f"scripted intent answer must be an intent name or None, not {answer!r}")
    if answer not in offered:
        raise ModelError(
            f"scripted intent {answer!r} is not one of the offered intents: {', '.join(offered) or 'none'}"
        )
    ranked = [(answer, 1.0)] + [(name, 0.0) for name in offered if name != answer]
    return IntentDecision(name=answer, confidence=1.0, ranked=ranked, ambiguous=False)
