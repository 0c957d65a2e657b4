"""A Debug Adapter Protocol client for the tests: `abl dap` started as a real process over stdio.

Every message either side sends is checked against the protocol's own JSON Schema when it is
at `../shared/reference/dap/` (what a request, its response or an event may hold).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import jsonschema

SCHEMA_PATH = Path(__file__).resolve().parents[3] / "shared" / "reference" / "dap" / "debugAdapterProtocol.json"
WAIT = 20.0  # seconds a test waits for one message before it fails


class ProtocolViolation(AssertionError):
    pass


class Schema:
    def __init__(self, path: Path) -> None:
        self.document = json.loads(path.read_text(encoding="utf-8"))
        self._validators: dict[str, jsonschema.Draft4Validator] = {}

    def check(self, message: dict[str, Any]) -> None:
        name = _definition(message)
        if name not in self.document["definitions"]:
            if message.get("type") == "request" or message.get("type") == "response":
                name = "Request" if message["type"] == "request" else "Response"  # a custom request
            else:
                name = "Event"
        validator = self._validators.get(name)
        if validator is None:
            schema = {"$ref": f"#/definitions/{name}", "definitions": self.document["definitions"]}
            validator = jsonschema.Draft4Validator(schema)
            self._validators[name] = validator
        errors = sorted(validator.iter_errors(message), key=lambda e: list(e.path))
        if errors:
            raise ProtocolViolation(f"{name}: {errors[0].message} at {list(errors[0].path)} in {message}")


def _definition(message: dict[str, Any]) -> str:
    kind = message.get("type")
    if kind == "event":
        return _upper(str(message.get("event"))) + "Event"
    if kind == "response" and not message.get("success"):
        return "ErrorResponse"
    suffix = "Request" if kind == "request" else "Response"
    return _upper(str(message.get("command"))) + suffix


def _upper(name: str) -> str:
    return name[:1].upper() + name[1:]


SCHEMA = Schema(SCHEMA_PATH) if SCHEMA_PATH.is_file() else None


class DapClient:
    def __init__(self, cwd: Path | None = None) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "abl", "dap"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
        )
        self._seq = 0
        self._responses: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self.events: list[dict[str, Any]] = []  # every event seen, in order
        self.violations: list[str] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # --- sending -----------------------------------------------------------------------------

    def request(self, command: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send a request and wait for its response."""
        seq = self.send(command, arguments)
        try:
            return self._responses[seq].get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError(f"no response to {command} within {WAIT} s; stderr: {self.stderr()}") from None

    def ok(self, command: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        response = self.request(command, arguments)
        assert response["success"], f"{command} failed: {response.get('message')}"
        return response.get("body") or {}

    def send(self, command: str, arguments: dict[str, Any] | None = None) -> int:
        with self._lock:
            self._seq += 1
            seq = self._seq
            self._responses[seq] = queue.Queue()
        message: dict[str, Any] = {"seq": seq, "type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        if SCHEMA is not None:
            SCHEMA.check(message)
        body = json.dumps(message).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return seq

    # --- receiving ---------------------------------------------------------------------------

    def wait_for(self, event: str, timeout: float = WAIT) -> dict[str, Any]:
        """The next event named `event` (events before it are kept in `events`)."""
        while True:
            try:
                found = self._events.get(timeout=timeout)
            except queue.Empty:
                seen = [e["event"] for e in self.events]
                raise AssertionError(
                    f"no `{event}` event within {timeout} s; seen: {seen}; stderr: {self.stderr()}"
                ) from None
            if found["event"] == event:
                return found

    def wait_for_any(self, *names: str, timeout: float = WAIT) -> dict[str, Any]:
        """The next event named one of `names`."""
        while True:
            try:
                found = self._events.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"none of {names} within {timeout} s; stderr: {self.stderr()}") from None
            if found["event"] in names:
                return found

    def output(self) -> str:
        return "".join(e["body"]["output"] for e in self.events if e["event"] == "output")

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if not line.strip():
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                self.violations.append("a message without Content-Length")
                return
            message = json.loads(stream.read(length).decode("utf-8"))
            if SCHEMA is not None:
                try:
                    SCHEMA.check(message)
                except ProtocolViolation as violation:
                    self.violations.append(str(violation))
            if message.get("type") == "response":
                self._responses[message["request_seq"]].put(message)
            elif message.get("type") == "event":
                self.events.append(message)
                self._events.put(message)

    def stderr(self) -> str:
        if self.process.poll() is None:
            return "(running)"
        assert self.process.stderr is not None
        return self.process.stderr.read().decode("utf-8", "replace")[-2000:]

    # --- a whole session ---------------------------------------------------------------------

    def start(
        self, launch: dict[str, Any], breakpoints: dict[str, list[dict[str, Any]]] | None = None
    ) -> dict[str, Any]:
        """initialize, launch, breakpoints, configurationDone; the breakpoints' answers by path."""
        self.capabilities = self.ok("initialize", {"adapterID": "abl", "linesStartAt1": True, "columnsStartAt1": True})
        self.ok("launch", launch)
        self.wait_for("initialized")
        answers = {}
        for path, wanted in (breakpoints or {}).items():
            answers[path] = self.ok("setBreakpoints", {"source": {"path": path}, "breakpoints": wanted})["breakpoints"]
        self.ok("setExceptionBreakpoints", {"filters": []})
        self.ok("configurationDone")
        return answers

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.request("disconnect", {"terminateDebuggee": True})
            except (AssertionError, BrokenPipeError, OSError):
                self.process.kill()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        assert not self.violations, "\n".join(self.violations)

    def top_frame(self, thread_id: int) -> dict[str, Any]:
        return self.ok("stackTrace", {"threadId": thread_id})["stackFrames"][0]

    def values(self, frame_id: int, scope: str = "Values") -> dict[str, str]:
        scopes = self.ok("scopes", {"frameId": frame_id})["scopes"]
        found = next(s for s in scopes if s["name"] == scope)
        variables = self.ok("variables", {"variablesReference": found["variablesReference"]})["variables"]
        return {v["name"]: v["value"] for v in variables}
