"""Sensitive values and API keys never leave the engine in clear, on any output path.

One agent gathers a sensitive `code` and shows it, and values computed from it, in every way
that once leaked (`{{code}}`, `{{UPPER(code)}}`, `ID{{code}}`, `{{REPLACE(code,'-',' ')}}`, a
`SET` copy). Each path is checked: the reply shown (masked per `sensitive_display`), the trace,
the saved session and its journal, the recorded test, `Session.history` and `state()`, and the
prompts sent to an OpenAI-compatible endpoint. Then the API key: an endpoint whose error page
echoes the `Authorization` header.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from abl.cli.main import main
from abl.runtime import RuntimeOptions, Session, start_session
from abl.workspace import Project

CODE = "ab-12x9"
SHOUTED = CODE.upper()
DESK = """AGENT: Code_Desk
GOAL: "Take a voucher code and a phone number"

GATHER:
  code:
    PROMPT: "Your voucher code?"
    TYPE: string
    SENSITIVE: true
    SENSITIVE_DISPLAY: mask
    MASK_CONFIG:
      showFirst: 0
      showLast: 2
      char: "#"
    EXTRACTION_PATTERN: "([a-z]{2}-\\\\d{2}x\\\\d)"
  phone:
    PROMPT: "Your phone number?"
    TYPE: phone
    SENSITIVE: true
    SENSITIVE_DISPLAY: redact

COMPLETE:
  - WHEN: code IS SET AND phone IS SET
    SET:
      code_copy = UPPER(code)
      label = "ID{{code}}"
    RESPOND: "Code {{code}} / {{UPPER(code)}} / ID{{code}} / {{REPLACE(code,'-',' ')}} / {{code_copy}} / {{label}} / phone {{phone}}"
"""
PHONE = "+44 20 7946 0958"
PHONE_DIGITS = "442079460958"
MESSAGES = (f"my code is {CODE}", f"call me on {PHONE}")
# The forms a leak would take: the value itself, reshaped, or with other separators.
LEAKS = (CODE, SHOUTED, "ab 12x9", "AB 12X9", "IDab-12x9", PHONE, PHONE_DIGITS, "2079460958")


def project() -> Project:
    loaded = Project("<memory>")
    loaded.update("/mem/desk.agent.abl", DESK)
    return loaded


def assert_clean(text: str) -> None:
    folded = text.casefold()
    for leak in LEAKS:
        assert leak.casefold() not in folded, f"{leak!r} leaked"


def run(session: Session) -> list[str]:
    replies = []
    for message in MESSAGES:
        replies.extend(r.text for r in session.send(message).replies)
    return replies


def test_replies_show_sensitive_values_masked_per_their_display() -> None:
    replies = run(start_session(project(), "Code_Desk", RuntimeOptions()))
    # `mask` keeps the last two characters (`mask_config`), also of values computed from the
    # code; `redact` shows the marker.
    assert replies[-1] == "Code #####x9 / #####X9 / ID#####x9 / #####x9 / #####X9 / #######x9 / phone [redacted]"


def test_the_trace_the_session_and_the_api_views_hold_no_clear_value(tmp_path: Path) -> None:
    session = start_session(project(), "Code_Desk", RuntimeOptions(trace_level="debug"))
    journal = session.journal(tmp_path / "s.session")
    journal.write()
    for message in MESSAGES:
        session.send(message)
        journal.write()
    assert_clean(session.trace_log.to_jsonl())
    assert_clean(json.dumps(session.to_dict(), ensure_ascii=False))
    assert_clean((tmp_path / "s.session").read_text(encoding="utf-8"))
    assert_clean(json.dumps([m.text for m in session.history], ensure_ascii=False))
    state = session.state()
    assert state.values["code"] == state.values["code_copy"] == state.values["label"] == "[redacted]"
    assert_clean(json.dumps([t.values for t in state.threads], ensure_ascii=False))


def test_the_recorded_test_holds_no_clear_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "desk.agent.abl").write_text(DESK, encoding="utf-8")
    script = tmp_path / "script.txt"
    script.write_text("\n".join(MESSAGES) + "\n", encoding="utf-8")
    record = tmp_path / "recorded.abltest.yaml"
    trace = tmp_path / "trace.jsonl"
    code = main(["run", str(tmp_path), "--script", str(script), "--record", str(record), "--trace-out", str(trace)])
    out = capsys.readouterr().out
    assert code == 0
    for written in (out, record.read_text(encoding="utf-8"), trace.read_text(encoding="utf-8")):
        assert_clean(written)


# --- an OpenAI-compatible endpoint ----------------------------------------------------------------

Answer = Callable[[dict[str, Any], dict[str, str]], tuple[int, str]]


@contextmanager
def endpoint(answer: Answer) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    requests: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            requests.append(body)
            status, payload = answer(body, dict(self.headers))
            data = payload.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def completion(content: str) -> str:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})


def extracting(body: dict[str, Any], headers: dict[str, str]) -> tuple[int, str]:
    system = body["messages"][0]["content"]
    said = body["messages"][-1]["content"].rsplit("Message: ", 1)[-1]
    if "extract field values" in system:
        found = {}
        if CODE in said:
            found["code"] = {"value": CODE, "span": CODE}
        if PHONE in said:
            found["phone"] = {"value": PHONE, "span": PHONE}
        return 200, completion(json.dumps({"fields": found}))
    if "response_format" in body:
        return 200, completion(json.dumps({"intent": None, "result": False, "confidence": 0.0}))
    return 200, completion("noted")


def test_later_model_requests_do_not_resend_a_gathered_value() -> None:
    with endpoint(extracting) as (url, requests):
        options = RuntimeOptions(
            model="openai", model_options={"base_url": url, "model": "m", "api_key": "sk-test-0123456789"}
        )
        session = start_session(project(), "Code_Desk", options)
        session.send(MESSAGES[0])
        first_turn = len(requests)
        session.send(MESSAGES[1])
        session.send("thanks, that is all")
    assert first_turn >= 1 and len(requests) > first_turn
    assert CODE in json.dumps(requests[:first_turn])  # read from the message that gave it
    for later in requests[first_turn:]:
        assert CODE not in json.dumps(later), later


KEY = "sk-live-7f3a9c2e5b1d4a6f8e0c"


def echoing_the_key(body: dict[str, Any], headers: dict[str, str]) -> tuple[int, str]:
    return 401, json.dumps({"error": {"message": f"bad credentials: Authorization: {headers['Authorization']}"}})


def test_an_endpoint_that_echoes_the_api_key_never_gets_it_shown_or_stored(tmp_path: Path) -> None:
    with endpoint(echoing_the_key) as (url, _):
        options = RuntimeOptions(model="openai", model_options={"base_url": url, "model": "m", "api_key": KEY})
        session = start_session(project(), "Code_Desk", options)
        turn = session.send("hello")
        session.save(tmp_path / "s.session")
    shown = " ".join(r.text for r in turn.replies)
    assert "bad credentials: Authorization: Bearer [api key]" in shown
    for text in (shown, session.trace_log.to_jsonl(), (tmp_path / "s.session").read_text(encoding="utf-8")):
        assert KEY not in text


def test_abl_run_prints_no_api_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "desk.agent.abl").write_text(DESK, encoding="utf-8")
    script = tmp_path / "script.txt"
    script.write_text("hello\n", encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with endpoint(echoing_the_key) as (url, _):
        args = ["run", str(tmp_path), "--script", str(script), "--model", "openai", "--model-url", url]
        args += [
            "--model-name",
            "m",
            "--session",
            str(tmp_path / "s.session"),
            "--trace-out",
            str(tmp_path / "t.jsonl"),
        ]
        assert main(args) == 0
    out, err = capsys.readouterr()
    assert "[api key]" in out + err
    for text in (out, err, (tmp_path / "s.session").read_text("utf-8"), (tmp_path / "t.jsonl").read_text("utf-8")):
        assert KEY not in text
