"""Any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, llama.cpp, vLLM, LM Studio).

Configuration comes from the options or the environment:
- base URL: `base_url`, else `ABL_OPENAI_BASE_URL`, else `OPENAI_BASE_URL`, else OpenAI's;
- model: `model`, else `ABL_OPENAI_MODEL` (required: nothing is sent without one);
- API key: `api_key`, else `ABL_OPENAI_API_KEY`, else `OPENAI_API_KEY` (optional; local
  servers need none).

Classification, condition judging and extraction ask for a JSON object (JSON mode, which can be
switched off for servers that do not support it) and check its shape. Every failure (timeout,
HTTP error, unreachable server, malformed answer) becomes a `ModelError` with a message that
names the endpoint and what went wrong; the engine reports it and keeps the session.

An endpoint is not trusted: `timeout` bounds the whole exchange (an answer that trickles in byte
by byte stops there too), a body larger than `MAX_RESPONSE_BYTES` is not read, nesting too deep
to decode is a malformed answer, and the API key is scrubbed from everything the endpoint sends
back (an error page that echoes the `Authorization` header) before it is shown or stored.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, NoReturn
from urllib.parse import urlsplit, urlunsplit

import httpx

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
    ModelError,
    MultiIntentDecision,
    Purpose,
    ReplyRequest,
    ToolChoice,
    ToolDecision,
    ToolRequest,
    ToolSpec,
    condition_result,
    extraction_result,
    intent_result,
    intents_result,
    tool_result,
)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
BASE_URL_VARIABLES = ("ABL_OPENAI_BASE_URL", "OPENAI_BASE_URL")
MODEL_VARIABLES = ("ABL_OPENAI_MODEL",)
API_KEY_VARIABLES = ("ABL_OPENAI_API_KEY", "OPENAI_API_KEY")
DEFAULT_TIMEOUT_SECONDS = 30.0  # for the whole exchange: connecting, sending, and the last byte of the answer
MAX_RESPONSE_BYTES = 8 * 2**20  # a chat completion is a few kilobytes; anything near this is not one
KEY_SHOWN_AS = "[api key]"
# A key shorter than this is a placeholder (local servers want any non-empty key), and scrubbing
# it would mangle ordinary words of the answers.
MIN_SECRET_KEY_LENGTH = 8
AMBIGUITY_MARGIN = 0.1

_INTENT_INSTRUCTIONS = (
    "You route a customer's message to one of the listed intents. Answer with one JSON object and "
    'nothing else: {"intent": <intent name, or null when none fits>, "confidence": <0..1>, '
    '"ranked": [{"intent": <name>, "score": <0..1>}, ...]}.'
)
_CONDITION_INSTRUCTIONS = (
    "You decide whether a condition holds for the customer's latest message, given the conversation. "
    'Answer with one JSON object and nothing else: {"result": true or false, "confidence": <0..1>}.'
)
_INTENTS_INSTRUCTIONS = (
    "A customer's message may ask for several things. List every listed intent it expresses, in the "
    "order written, with the words that express it. Answer with one JSON object and nothing else: "
    '{"intents": [{"intent": <name>, "confidence": <0..1>, "text": <the words>}], '
    '"relationship": "independent" | "dependent" | "ambiguous"}.'
)
_JSON_TYPES = {
    "string": "string",
    "number": "number",
    "integer": "integer",
    "float": "number",
    "boolean": "boolean",
    "object": "object",
    "date": "string",
    "datetime": "string",
}
_EXTRACT_INSTRUCTIONS = (
    "You extract field values from the customer's latest message. Answer with one JSON object and "
    'nothing else: {"fields": {<field name>: {"value": <value>, "span": <the exact text it came from>, '
    '"confidence": <0..1>}}}. Leave out fields the message does not give. Write numbers as numbers, '
    "dates as YYYY-MM-DD, yes/no as true/false, and enum fields as one of their options."
)


class OpenAICompatModel(CallLog):
    """Chat-completions client. Use as a context manager, or call `close()`, to free the connection."""

    def __init__(
        self,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        json_mode: bool = True,
        temperature: float = 0.0,
        context_messages: int = 6,
        environ: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__()
        env = os.environ if environ is None else environ
        resolved_model = model or _first_set(env, MODEL_VARIABLES)
        if not resolved_model:
            raise ModelError("the openai model provider needs a model name: pass model=... or set ABL_OPENAI_MODEL")
        self.model = resolved_model
        self.base_url = (base_url or _first_set(env, BASE_URL_VARIABLES) or DEFAULT_BASE_URL).rstrip("/")
        self.timeout = timeout
        self.json_mode = json_mode
        self.temperature = temperature
        self.context_messages = context_messages
        key = api_key or _first_set(env, API_KEY_VARIABLES)
        self._key = key if key and len(key) >= MIN_SECRET_KEY_LENGTH else ""
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx.Client(timeout=timeout, headers=headers, transport=transport)

    @property
    def provider(self) -> str:
        return "openai"

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/chat/completions"

    @property
    def secrets(self) -> tuple[str, ...]:
        """What must never be shown or stored: the API key (the engine registers it for redaction)."""
        return (self._key,) if self._key else ()

    def scrub(self, text: str) -> str:
        """`text` without the API key (an endpoint may echo it back in an error page)."""
        return text.replace(self._key, KEY_SHOWN_AS) if self._key and self._key in text else text

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAICompatModel:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # The four questions.

    def classify_intent(self, message: str, intents: Sequence[IntentOption], context: ModelContext) -> IntentDecision:
        listing = "\n".join(_intent_line(option) for option in intents)
        prompt = f"Intents:\n{listing}\n\n{self._conversation(context, message)}Message: {message}"
        messages = (ChatMessage("system", _INTENT_INSTRUCTIONS), ChatMessage("user", prompt))
        data = self._ask_json("intent", messages)
        decision = _read_intent(data, [option.name for option in intents])
        self._log(ModelCallRecord("intent", self.provider, messages, intent_result(decision)))
        return decision

    def judge_condition(self, condition: str, message: str, context: ModelContext) -> ConditionDecision:
        prompt = f"Condition: {condition}\n\n{self._conversation(context, message)}Message: {message}"
        messages = (ChatMessage("system", _CONDITION_INSTRUCTIONS), ChatMessage("user", prompt))
        data = self._ask_json("condition", messages)
        result = data.get("result")
        if not isinstance(result, bool):
            self._fail("condition", messages, f"the answer's `result` is {result!r}, not true or false")
        decision = ConditionDecision(result=result, confidence=_confidence(data.get("confidence"), 1.0))
        self._log(ModelCallRecord("condition", self.provider, messages, condition_result(condition, decision)))
        return decision

    def extract(self, fields: Sequence[FieldSpec], message: str, context: ModelContext) -> dict[str, Extraction]:
        listing = "\n".join(_field_line(spec) for spec in fields)
        prompt = f"Fields:\n{listing}\n\n{self._conversation(context, message)}Message: {message}"
        messages = (ChatMessage("system", _EXTRACT_INSTRUCTIONS), ChatMessage("user", prompt))
        data = self._ask_json("extract", messages)
        raw = data.get("fields", {})
        if not isinstance(raw, Mapping):
            self._fail("extract", messages, "the answer's `fields` is not an object")
        found: dict[str, Extraction] = {}
        for spec in fields:
            item = raw.get(spec.name)
            if isinstance(item, Mapping):
                value = item.get("value")
                span = item.get("span")
                confidence = _confidence(item.get("confidence"), 0.8)
            else:
                value, span, confidence = item, None, 0.8
            if value is None or value == "":
                continue
            found[spec.name] = Extraction(value=value, confidence=confidence, span=str(span if span else value))
        result, secrets = extraction_result(fields, found)
        self._log(ModelCallRecord("extract", self.provider, messages, result, secrets))
        return found

    def detect_intents(
        self, message: str, intents: Sequence[IntentOption], context: ModelContext
    ) -> MultiIntentDecision:
        listing = "\n".join(_intent_line(option) for option in intents)
        prompt = f"Intents:\n{listing}\n\n{self._conversation(context, message)}Message: {message}"
        messages = (ChatMessage("system", _INTENTS_INSTRUCTIONS), ChatMessage("user", prompt))
        data = self._ask_json("intents", messages)
        offered = {option.name for option in intents}
        found: list[DetectedIntent] = []
        raw = data.get("intents")
        for item in raw if isinstance(raw, list) else []:
            if isinstance(item, Mapping) and item.get("intent") in offered:
                if any(d.name == item["intent"] for d in found):
                    continue
                said = item.get("text")
                text = said if isinstance(said, str) else message
                found.append(DetectedIntent(item["intent"], _confidence(item.get("confidence"), 1.0), text))
        relationship = data.get("relationship")
        if relationship not in ("independent", "dependent", "ambiguous"):
            relationship = "independent"
        result = MultiIntentDecision(found, relationship)
        self._log(ModelCallRecord("intents", self.provider, messages, intents_result(result)))
        return result

    def choose_tool(self, request: ToolRequest) -> ToolDecision:
        system = f"You are {request.agent}, talking with a customer. Your goal: {request.goal}"
        if request.persona:
            system += f"\n{request.persona}"
        messages = (ChatMessage("system", system), *request.messages)
        body_messages = _tool_conversation(messages)
        tools = [_tool_schema(tool) for tool in request.tools]
        payload = self._post(
            "tool_choice", messages, {"messages": body_messages, "tools": tools, "tool_choice": "auto"}
        )
        message = payload["message"]
        calls = message.get("tool_calls")
        decision: ToolDecision
        if isinstance(calls, list) and calls:
            function = calls[0].get("function") if isinstance(calls[0], Mapping) else None
            name = function.get("name") if isinstance(function, Mapping) else None
            if not isinstance(function, Mapping) or name not in {tool.name for tool in request.tools}:
                self._fail("tool_choice", messages, f"the answer calls an unknown tool {name!r}")
            raw_arguments = function.get("arguments") or "{}"
            try:
                arguments = json.loads(raw_arguments) if isinstance(raw_arguments, str) else dict(raw_arguments)
            except (ValueError, TypeError):
                self._fail(
                    "tool_choice", messages, f"the arguments of {name} are not JSON: {_clip(str(raw_arguments))}"
                )
            if not isinstance(arguments, dict):
                self._fail("tool_choice", messages, f"the arguments of {name} are not an object")
            decision = ToolDecision(ToolChoice(name, arguments, 1.0))
        else:
            content = message.get("content")
            text = content.strip() if isinstance(content, str) else ""
            decision = ToolDecision(None, text or None)
        self._log(ModelCallRecord("tool_choice", self.provider, messages, tool_result(decision)))
        return decision

    def reply(self, request: ReplyRequest) -> str:
        system = f"You are {request.agent}, talking with a customer. Your goal: {request.goal}"
        if request.persona:
            system += f"\n{request.persona}"
        history = [_chat_role(m) for m in request.messages]
        messages = (ChatMessage("system", system), *history)
        text = self._complete("reply", messages, json_answer=False).strip()
        if not text:
            self._fail("reply", messages, "the answer is empty")
        self._log(ModelCallRecord("reply", self.provider, messages, {"text": text}))
        return text

    # Transport.

    def _conversation(self, context: ModelContext, message: str) -> str:
        earlier = list(context.messages)
        if earlier and earlier[-1].role == "user" and earlier[-1].content == message:
            earlier.pop()  # the message itself follows as `Message:`
        recent = earlier[-self.context_messages :] if self.context_messages > 0 else []
        if not recent:
            return ""
        lines = "\n".join(f"({m.role}) {m.content}" for m in recent)
        return f"Recent conversation:\n{lines}\n\n"

    def _ask_json(self, purpose: Purpose, messages: tuple[ChatMessage, ...]) -> dict[str, Any]:
        content = self._complete(purpose, messages, json_answer=True)
        data = _parse_json_object(content)
        if data is None:
            self._fail(purpose, messages, f"the answer is not a JSON object: {_clip(content)}")
        return data

    def _complete(self, purpose: Purpose, messages: tuple[ChatMessage, ...], *, json_answer: bool) -> str:
        extra: dict[str, Any] = {"messages": [{"role": m.role, "content": m.content} for m in messages]}
        if json_answer and self.json_mode:
            extra["response_format"] = {"type": "json_object"}
        content = self._post(purpose, messages, extra)["message"].get("content")
        if not isinstance(content, str):
            self._fail(purpose, messages, "choices[0].message.content is not text")
        return content

    def _post(self, purpose: Purpose, messages: tuple[ChatMessage, ...], extra: Mapping[str, Any]) -> Mapping[str, Any]:
        """Send one chat-completions request; the first choice of the answer."""
        body: dict[str, Any] = {"model": self.model, "temperature": self.temperature, **extra}
        try:
            status, reason, raw = self._exchange(body)
        except (httpx.TimeoutException, _DeadlinePassed):
            self._fail(purpose, messages, f"no answer within {self.timeout:g} s (timeout)")
        except _TooLarge as err:
            self._fail(
                purpose,
                messages,
                f"the answer is larger than {MAX_RESPONSE_BYTES // 2**20} MiB ({err}); it was not read",
            )
        except httpx.RequestError as err:
            self._fail(purpose, messages, f"could not connect ({type(err).__name__}: {err})")
        text = self.scrub(raw.decode("utf-8", "replace"))
        if not 200 <= status < 300:
            self._fail(purpose, messages, f"HTTP {status} {reason}: {_error_detail(text)}")
        wanted = "choices[0].message" if purpose == "tool_choice" else "choices[0].message.content"
        try:
            choice = _decode_json(text)["choices"][0]
            if not isinstance(choice, Mapping) or not isinstance(choice["message"], Mapping):
                raise TypeError(wanted)
        except (ValueError, KeyError, IndexError, TypeError):
            self._fail(purpose, messages, f"the response has no {wanted}: {_clip(text)}")
        return choice

    def _exchange(self, body: dict[str, Any]) -> tuple[int, str, bytes]:
        """POST `body`; (status, reason, the body's bytes), all within `timeout` seconds.

        The request runs on a worker thread so that the deadline holds even while one read is
        blocked; the worker itself stops at its next chunk after the deadline, or at the read
        timeout, and its late answer is dropped.
        """
        deadline = time.monotonic() + self.timeout
        outcome: list[tuple[int, str, bytes] | BaseException] = []
        finished = threading.Event()

        def work() -> None:
            try:
                outcome.append(self._read_capped(body, deadline))
            except BaseException as err:  # handed over to the caller's thread, which raises it
                outcome.append(err)
            finally:
                finished.set()

        threading.Thread(target=work, name="abl-model-request", daemon=True).start()
        if not finished.wait(self.timeout):
            raise _DeadlinePassed()
        result = outcome[0]
        if isinstance(result, BaseException):
            raise result
        return result

    def _read_capped(self, body: dict[str, Any], deadline: float) -> tuple[int, str, bytes]:
        with self._client.stream("POST", self.endpoint, json=body) as response:
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and len(declared) < 20 and int(declared) > MAX_RESPONSE_BYTES:
                raise _TooLarge(f"{int(declared):,} bytes announced")
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    raise _TooLarge(f"more than {MAX_RESPONSE_BYTES:,} bytes")
                if time.monotonic() > deadline:
                    raise _DeadlinePassed()
                chunks.append(chunk)
            return response.status_code, response.reason_phrase, b"".join(chunks)

    def _fail(self, purpose: Purpose, messages: tuple[ChatMessage, ...], problem: str) -> NoReturn:
        endpoint = _without_password(self.endpoint)
        asked = _REQUEST_NAMES.get(purpose, f"a {purpose}")
        text = self.scrub(f"model endpoint {endpoint} ({self.model}) failed to answer {asked} request: {problem}")
        self._log(ModelCallRecord(purpose, self.provider, messages, {"error": text}))
        raise ModelError(text)


class _DeadlinePassed(Exception):
    """The whole exchange took longer than the model's `timeout`."""


class _TooLarge(Exception):
    """The answer is larger than `MAX_RESPONSE_BYTES`."""


def _decode_json(text: str) -> Any:
    """`json.loads`, with nesting too deep for the decoder reported as a ValueError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None


def _without_password(url: str) -> str:
    """`url` as shown in messages: a password written into it (`https://user:secret@host`) is hidden."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host += f":{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:{KEY_SHOWN_AS}@{host}"))


def _first_set(env: Mapping[str, str], names: Sequence[str]) -> str | None:
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value
    return None


def _intent_line(option: IntentOption) -> str:
    line = f"- {option.name}: {option.description}".rstrip(": ")
    if option.examples:
        line += " (examples: " + "; ".join(option.examples) + ")"
    return line


def _field_line(spec: FieldSpec) -> str:
    parts = [f"- {spec.name} ({spec.type})"]
    if spec.description:
        parts.append(f": {spec.description}")
    if spec.options:
        parts.append(f" options: {', '.join(str(o) for o in spec.options)}")
    if spec.asked:
        parts.append(" [the agent just asked for this]")
    return "".join(parts)


def _chat_role(message: ChatMessage) -> ChatMessage:
    # A plain reply request declares no tools, so calls and results go as context instead.
    if message.role == "tool":
        return ChatMessage("system", f"Tool result: {message.content}")
    if message.tool is not None:
        return ChatMessage("system", f"Tool call: {message.tool}({message.content})")
    return message


def _tool_conversation(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """Messages in the chat API's tool-calling form: each call an assistant message with
    `tool_calls`, each result a `tool` message with its call's id; a result whose call fell out of
    the window is dropped, since the API refuses it."""
    out: list[dict[str, Any]] = []
    open_calls: set[str] = set()
    for m in messages:
        if m.tool is not None and m.role == "assistant" and m.tool_call_id is not None:
            out.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": m.tool_call_id, "type": "function", "function": {"name": m.tool, "arguments": m.content}}
                    ],
                }
            )
            open_calls.add(m.tool_call_id)
        elif m.role == "tool":
            if m.tool_call_id in open_calls:
                out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
        else:
            out.append({"role": m.role, "content": m.content})
    return out


def _tool_schema(tool: ToolSpec) -> dict[str, Any]:
    properties = {
        p.name: {
            "type": "array" if p.type.strip().endswith("[]") else _JSON_TYPES.get(p.type.strip().lower(), "string")
        }
        for p in tool.params
    }
    required = [p.name for p in tool.params if p.required]
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description or tool.name.replace("_", " "),
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


def _read_intent(data: Mapping[str, Any], offered: Sequence[str]) -> IntentDecision:
    name = data.get("intent")
    if name is not None and (not isinstance(name, str) or name not in offered):
        name = None  # An answer outside the offered set is no answer.
    scores: dict[str, float] = {option: 0.0 for option in offered}
    ranked_raw = data.get("ranked", [])
    if isinstance(ranked_raw, list):
        for entry in ranked_raw:
            if isinstance(entry, Mapping):
                key, score = entry.get("intent"), entry.get("score")
            elif isinstance(entry, (list, tuple)) and len(entry) == 2:
                key, score = entry
            else:
                continue
            if isinstance(key, str) and key in scores:
                scores[key] = _confidence(score, 0.0)
    confidence = _confidence(data.get("confidence"), 1.0 if name else 0.0)
    if name is not None:
        scores[name] = max(scores[name], confidence)
    ranked = sorted(((key, round(value, 4)) for key, value in scores.items()), key=lambda pair: -pair[1])
    ambiguous = bool(data.get("ambiguous")) or (
        name is not None and len(ranked) > 1 and ranked[0][1] - ranked[1][1] < AMBIGUITY_MARGIN
    )
    return IntentDecision(name=name, confidence=round(confidence, 4), ranked=ranked, ambiguous=ambiguous)


def _confidence(value: Any, default: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return min(1.0, max(0.0, float(value)))


def _parse_json_object(content: str) -> dict[str, Any] | None:
    """The JSON object in `content`; models without JSON mode often wrap it in prose or fences,
    so the text from the first `{` to the last `}` is tried too (found in one pass, not by a
    pattern that would rescan the text from every brace)."""
    candidates = [content]
    first, last = content.find("{"), content.rfind("}")
    if 0 <= first < last and (first, last) != (0, len(content) - 1):
        candidates.append(content[first : last + 1])
    for candidate in candidates:
        try:
            data = _decode_json(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return None


def _error_detail(text: str) -> str:
    try:
        payload = _decode_json(text)
    except ValueError:
        return _clip(text) or "(no details)"
    if isinstance(payload, Mapping):
        error = payload.get("error")
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            return _clip(error["message"], 1000)
        if isinstance(error, str):
            return _clip(error, 1000)
    return _clip(text)


def _clip(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# What each kind of request is called in an error message.
_REQUEST_NAMES: dict[str, str] = {
    "intent": "an intent",
    "intents": "a multi-intent",
    "condition": "a condition",
    "extract": "an extraction",
    "reply": "a reply",
    "tool_choice": "a tool choice",
}
