"""The OpenAI-compatible provider against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from abl.runtime.models import (
    ChatMessage,
    FieldSpec,
    IntentOption,
    ModelContext,
    ModelError,
    ReplyRequest,
    create_model,
)
from abl.runtime.models.openai_compat import MAX_RESPONSE_BYTES, OpenAICompatModel
from abl.runtime.trace import REDACTED

INTENTS = [
    IntentOption("order_status", "Where an order is, or when it arrives."),
    IntentOption("return_item", "Returns, exchanges, or refunds."),
]
CONTEXT = ModelContext(agent="Retail_Hub", messages=(ChatMessage("assistant", "How can I help?"),))


@dataclass
class Reply:
    """What the fake server does for one request."""

    status: int = 200
    content: str | None = None  # choices[0].message.content
    body: str | None = None  # a raw body instead of a chat completion
    delay: float = 0.0


@dataclass
class FakeServer:
    url: str
    replies: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)


@pytest.fixture
def server() -> Iterator[FakeServer]:
    state = FakeServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            state.requests.append({"path": self.path, **json.loads(self.rfile.read(length))})
            state.headers.append(dict(self.headers))
            reply = state.replies.pop(0) if state.replies else Reply(status=404, body="no reply scripted")
            if reply.delay:
                time.sleep(reply.delay)
            if reply.body is not None:
                payload = reply.body.encode()
            else:
                completion = {"choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content}}]}
                payload = json.dumps(completion).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # The client gave up (the timeout test); nothing left to answer.

        def log_message(self, format: str, *args: Any) -> None:
            return  # Keep test output clean.

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def make_model(server: FakeServer, **options: Any) -> OpenAICompatModel:
    settings: dict[str, Any] = {"base_url": server.url, "model": "test-model", "api_key": "sk-test", "timeout": 2.0}
    settings.update(options)
    return OpenAICompatModel(environ={}, **settings)


def test_classify_intent_success(server: FakeServer) -> None:
    server.replies.append(
        Reply(
            content=json.dumps(
                {
                    "intent": "return_item",
                    "confidence": 0.92,
                    "ranked": [{"intent": "return_item", "score": 0.92}, {"intent": "order_status", "score": 0.1}],
                }
            )
        )
    )
    with make_model(server) as model:
        decision = model.classify_intent("I want to return these shoes", INTENTS, CONTEXT)
        records = model.take_calls()
    assert decision.name == "return_item"
    assert decision.confidence == 0.92
    assert decision.ranked == [("return_item", 0.92), ("order_status", 0.1)]
    assert not decision.ambiguous
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["model"] == "test-model"
    assert request["temperature"] == 0.0
    assert request["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    prompt = request["messages"][1]["content"]
    assert "- return_item: Returns, exchanges, or refunds." in prompt
    assert "(assistant) How can I help?" in prompt
    assert prompt.endswith("Message: I want to return these shoes")
    assert server.headers[0]["Authorization"] == "Bearer sk-test"
    (record,) = records
    assert (record.purpose, record.provider, len(record.messages)) == ("intent", "openai", 2)


def test_unknown_intent_in_the_answer_means_no_match(server: FakeServer) -> None:
    server.replies.append(Reply(content='{"intent": "weather", "confidence": 0.8}'))
    with make_model(server) as model:
        assert model.classify_intent("is it sunny", INTENTS, CONTEXT).name is None


def test_judge_condition_and_answers_wrapped_in_prose(server: FakeServer) -> None:
    server.replies.append(Reply(content='Sure! ```json\n{"result": true, "confidence": 0.7}\n```'))
    with make_model(server, json_mode=False) as model:
        decision = model.judge_condition("the customer wants a refund", "money back please", CONTEXT)
    assert (decision.result, decision.confidence) == (True, 0.7)
    assert "response_format" not in server.requests[0]


def test_extract_keeps_asked_fields_and_redacts_sensitive_ones(server: FakeServer) -> None:
    answer = {
        "fields": {
            "annual_income": {"value": 85000, "span": "85k", "confidence": 0.9},
            "pin": {"value": "4921"},
            "unasked": {"value": 1},
            "order_id": None,
        }
    }
    server.replies.append(Reply(content=json.dumps(answer)))
    fields = [FieldSpec("annual_income", "number", asked=True), FieldSpec("pin", sensitive=True), FieldSpec("order_id")]
    with make_model(server) as model:
        found = model.extract(fields, "85k, pin 4921", CONTEXT)
        (record,) = model.take_calls()
    assert {name: (e.value, e.span, e.confidence) for name, e in found.items()} == {
        "annual_income": (85000, "85k", 0.9),
        "pin": ("4921", "4921", 0.8),
    }
    assert record.result["pin"]["value"] == REDACTED and record.secrets == ("4921",)
    assert "- annual_income (number) [the agent just asked for this]" in server.requests[0]["messages"][1]["content"]


def test_reply_sends_the_conversation(server: FakeServer) -> None:
    server.replies.append(Reply(content="  Here are two offers.  "))
    request = ReplyRequest(
        "Offer_Agent",
        "Explain loan offers",
        "Friendly.",
        (ChatMessage("user", "what can I get?"), ChatMessage("tool", '{"rate": 5}')),
    )
    with make_model(server) as model:
        assert model.reply(request) == "Here are two offers."
    sent = server.requests[0]
    assert "response_format" not in sent
    assert sent["messages"][0]["content"].startswith("You are Offer_Agent")
    assert [m["role"] for m in sent["messages"]] == ["system", "user", "system"]


def test_timeout_becomes_a_clear_model_error(server: FakeServer) -> None:
    server.replies.append(Reply(content='{"result": true}', delay=1.5))
    with make_model(server, timeout=0.3) as model:
        with pytest.raises(ModelError) as caught:
            model.judge_condition("c", "m", CONTEXT)
        (record,) = model.take_calls()
    message = str(caught.value)
    assert f"model endpoint {server.url}/chat/completions (test-model)" in message
    assert "failed to answer a condition request: no answer within 0.3 s (timeout)" in message
    assert record.result == {"error": message}


def test_http_500_becomes_a_clear_model_error(server: FakeServer) -> None:
    server.replies.append(Reply(status=500, body=json.dumps({"error": {"message": "the model crashed"}})))
    with (
        make_model(server) as model,
        pytest.raises(
            ModelError, match=r"failed to answer an intent request: HTTP 500 Internal Server Error: the model crashed"
        ),
    ):
        model.classify_intent("x", INTENTS, CONTEXT)


def test_http_error_with_a_plain_body(server: FakeServer) -> None:
    server.replies.append(Reply(status=503, body="overloaded, try later"))
    with (
        make_model(server) as model,
        pytest.raises(ModelError, match="HTTP 503 Service Unavailable: overloaded, try later"),
    ):
        model.reply(ReplyRequest("A", "g"))


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (Reply(body="not json at all"), "the response has no choices[0].message.content: not json at all"),
        (Reply(body='{"choices": []}'), "the response has no choices[0].message.content"),
        (Reply(content="I think it is order_status"), "the answer is not a JSON object: I think it is order_status"),
        (Reply(content='{"result": "maybe"}'), "the answer's `result` is 'maybe', not true or false"),
    ],
)
def test_malformed_answers_are_model_errors(server: FakeServer, reply: Reply, problem: str) -> None:
    server.replies.append(reply)
    with make_model(server) as model, pytest.raises(ModelError) as caught:
        model.judge_condition("c", "m", CONTEXT)
    assert problem in str(caught.value)


def test_unreachable_endpoint() -> None:
    # Port 9 on localhost: nothing listens there in the test environment.
    model = OpenAICompatModel(base_url="http://127.0.0.1:9/v1", model="m", environ={}, timeout=1.0)
    with model, pytest.raises(ModelError, match="could not connect"):
        model.judge_condition("c", "m", CONTEXT)


def test_configuration_from_the_environment(server: FakeServer) -> None:
    server.replies.append(Reply(content='{"result": false, "confidence": 0.6}'))
    environ = {"ABL_OPENAI_BASE_URL": server.url, "ABL_OPENAI_MODEL": "env-model", "OPENAI_API_KEY": "sk-env"}
    model = create_model("openai", environ=environ, timeout=2.0)
    assert isinstance(model, OpenAICompatModel)
    with model:
        assert model.judge_condition("c", "m", CONTEXT).result is False
    assert server.requests[0]["model"] == "env-model"
    assert server.headers[0]["Authorization"] == "Bearer sk-env"


def test_without_a_key_no_authorization_header_is_sent(server: FakeServer) -> None:
    server.replies.append(Reply(content='{"result": true}'))
    environ = {"OPENAI_BASE_URL": server.url, "ABL_OPENAI_MODEL": "local"}
    with OpenAICompatModel(environ=environ) as model:
        model.judge_condition("c", "m", CONTEXT)
    assert "Authorization" not in server.headers[0]


# --- an endpoint that is not to be trusted ----------------------------------------------------------


def test_a_deeply_nested_answer_is_a_malformed_answer(server: FakeServer) -> None:
    server.replies.append(Reply(body="[" * 200_000 + "]" * 200_000))
    with make_model(server) as model, pytest.raises(ModelError, match="the response has no choices"):
        model.judge_condition("c", "m", CONTEXT)
    server.replies.append(Reply(content='{"result": ' + "[" * 200_000 + "]" * 200_000 + "}"))
    with make_model(server) as model, pytest.raises(ModelError, match="the answer is not a JSON object"):
        model.judge_condition("c", "m", CONTEXT)


def test_prose_full_of_braces_is_read_in_one_pass(server: FakeServer) -> None:
    # `\{.*\}` rescanned the text from every brace: quadratic in the answer's length.
    server.replies.append(Reply(content="{" * 200_000 + ' then {"result": true} and {' * 3))
    with make_model(server) as model, pytest.raises(ModelError, match="the answer is not a JSON object"):
        model.judge_condition("c", "m", CONTEXT)
    server.replies.append(Reply(content='Sure! ```json\n{"result": true, "confidence": 0.7}\n``` hope it helps'))
    with make_model(server) as model:
        assert model.judge_condition("c", "m", CONTEXT).result is True


def test_a_body_over_the_cap_is_not_read(server: FakeServer) -> None:
    server.replies.append(Reply(body=" " * (MAX_RESPONSE_BYTES + 1)))
    with make_model(server) as model, pytest.raises(ModelError, match="the answer is larger than 8 MiB"):
        model.judge_condition("c", "m", CONTEXT)


@pytest.fixture
def dripping() -> Iterator[str]:
    """An endpoint that answers one byte at a time, each one in time for a per-read timeout."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            try:
                for _ in range(100_000):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.1)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, format: str, *args: Any) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_an_answer_that_trickles_in_stops_at_the_deadline(dripping: str) -> None:
    # Each byte arrives well within a read timeout, so only a deadline for the whole exchange stops it.
    model = OpenAICompatModel(base_url=dripping, model="m", environ={}, timeout=0.5)
    with model, pytest.raises(ModelError, match=r"no answer within 0.5 s \(timeout\)"):
        model.judge_condition("c", "m", CONTEXT)


def test_the_api_key_is_scrubbed_from_what_the_endpoint_sends_back(server: FakeServer) -> None:
    key = "sk-live-0123456789abcdef"
    server.replies.append(Reply(status=401, body=json.dumps({"error": {"message": f"invalid key Bearer {key}"}})))
    with make_model(server, api_key=key) as model, pytest.raises(ModelError) as caught:
        model.judge_condition("c", "m", CONTEXT)
    assert key not in str(caught.value) and "invalid key Bearer [api key]" in str(caught.value)
    assert model.secrets == (key,)


def test_a_password_in_the_base_url_is_not_shown() -> None:
    model = OpenAICompatModel(base_url="http://user:hunter2-secret@127.0.0.1:9/v1", model="m", environ={}, timeout=1.0)
    with model, pytest.raises(ModelError) as caught:
        model.judge_condition("c", "m", CONTEXT)
    assert "hunter2" not in str(caught.value) and "user:[api key]@127.0.0.1:9" in str(caught.value)
