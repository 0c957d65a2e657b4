"""A fake OpenAI-compatible chat endpoint on 127.0.0.1 that records every request it receives.

`serve(answer)` starts it; `answer(body)` returns the assistant message for one request (its
`content`, or `tool_calls`). The bodies are kept in order, so a test can read what the model was
sent, message by message.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class Endpoint:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        """The requests of one kind: `reply` (plain text), `json` (a decision), `tools`."""
        return [r for r in self.requests if request_kind(r) == kind]


def request_kind(body: dict[str, Any]) -> str:
    if "tools" in body:
        return "tools"
    return "json" if "response_format" in body else "reply"


@contextmanager
def serve(answer: Answer) -> Iterator[Endpoint]:
    endpoint = Endpoint(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            endpoint.requests.append(body)
            message = {"role": "assistant", **answer(body)}
            payload = json.dumps({"choices": [{"index": 0, "message": message}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    endpoint.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield endpoint
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def decisions(fields: dict[str, Any] | None = None) -> Answer:
    """An endpoint that finds no intent, judges every condition false, extracts `fields` (when the
    request asks for them), calls no tool, and replies `reply <n>` to the n-th reply request."""
    replies = iter(range(1, 10_000))
    wanted = fields or {}

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        kind = request_kind(body)
        if kind == "reply":
            return {"content": f"reply {next(replies)}"}
        if kind == "tools":
            return {"content": f"reply {next(replies)}"}
        system = body["messages"][0]["content"]
        if "extract field values" in system:
            prompt = body["messages"][-1]["content"]
            said = prompt.rsplit("Message: ", 1)[-1]
            found = {
                name: {"value": value, "span": str(value)}
                for name, value in wanted.items()
                if f"- {name} " in prompt and str(value) in said
            }
            return {"content": json.dumps({"fields": found})}
        if "decide whether a condition holds" in system:
            return {"content": json.dumps({"result": False, "confidence": 0.9})}
        if "several things" in system:
            return {"content": json.dumps({"intents": [], "relationship": "independent"})}
        return {"content": json.dumps({"intent": None, "confidence": 0.0})}

    return answer
