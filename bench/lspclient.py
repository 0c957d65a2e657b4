"""A minimal raw JSON-RPC client for language servers over stdio, for benchmarks.

It frames messages with `Content-Length`, and a reader thread takes a `time.perf_counter()`
timestamp as soon as a message's body has been read, before it is decoded, so a measured
latency contains the server's work and the pipe, not this client's JSON parsing. Requests from
the server are answered at once from the reader thread (as an editor would), through a
callback that knows the settings. Every wait is bounded and raises `LspTimeout` with a message
that says what was awaited.

Each server runs in a session of its own, so that `close()` can end the server and anything it
started, and nothing else.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Every client not yet closed, so that an interrupted run can still end its servers.
LIVE: list[LspClient] = []


class LspTimeout(RuntimeError):
    """A bounded wait ran out."""


class ServerGone(RuntimeError):
    """The server closed its output (crashed or exited)."""


@dataclass(frozen=True, slots=True)
class Published:
    """One `textDocument/publishDiagnostics`, with the time its body was read."""

    at: float
    uri: str
    version: int | None
    diagnostics: list[dict]


def file_uri(path: Path | str) -> str:
    return Path(path).resolve().as_uri()


class LspClient:
    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        cwd: Path,
        configuration: Callable[[str | None], Any],
        stderr_path: Path,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self._configuration = configuration
        # The server writes to its own copy of the handle, so this one closes once it has started.
        # A new session: the server and its children form one process group we can end.
        with open(stderr_path, "wb") as stderr:
            self.proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                start_new_session=True,
            )
        LIVE.append(self)
        self._write_lock = threading.Lock()
        self._cond = threading.Condition()
        self._next_id = 0
        self._responses: dict[int, tuple[float, dict]] = {}
        self.published: list[Published] = []
        self.server_requests: list[tuple[float, str]] = []  # (time, method) of requests answered
        self.messages: list[str] = []  # window/showMessage texts, to explain surprises
        self._gone = False
        self._reader = threading.Thread(target=self._read_loop, name=f"{name}-reader", daemon=True)
        self._reader.start()

    # --- wire ---------------------------------------------------------------------------

    def _send(self, message: dict) -> float:
        body = json.dumps(message, separators=(",", ":")).encode("utf-8")
        data = b"Content-Length: %d\r\n\r\n" % len(body) + body
        assert self.proc.stdin is not None
        with self._write_lock:
            sent = time.perf_counter()
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError) as err:
                raise ServerGone(f"{self.name}: cannot write to the server ({err})") from err
        return sent

    def _read_loop(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        try:
            while True:
                length = None
                while True:
                    line = stream.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    key, _, value = line.partition(b":")
                    if key.strip().lower() == b"content-length":
                        length = int(value.strip())
                if length is None:
                    continue
                body = stream.read(length)
                at = time.perf_counter()  # before decoding: the message is here now
                if len(body) < length:
                    return
                self._dispatch(at, json.loads(body))
        finally:
            with self._cond:
                self._gone = True
                self._cond.notify_all()

    def _dispatch(self, at: float, msg: dict) -> None:
        method = msg.get("method")
        if method is None:  # a response to one of our requests
            with self._cond:
                self._responses[msg.get("id")] = (at, msg)
                self._cond.notify_all()
            return
        if "id" in msg:  # a request from the server: answer it now, as an editor would
            result: Any = None  # registerCapability, workDoneProgress/create and the rest
            if method == "workspace/configuration":
                items = (msg.get("params") or {}).get("items") or []
                result = [self._configuration(item.get("section")) for item in items]
            self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
            with self._cond:
                self.server_requests.append((at, method))
                self._cond.notify_all()
            return
        params = msg.get("params") or {}
        if method == "textDocument/publishDiagnostics":
            with self._cond:
                self.published.append(
                    Published(at, params["uri"], params.get("version"), params.get("diagnostics") or [])
                )
                self._cond.notify_all()
        elif method == "window/showMessage":
            self.messages.append(str(params.get("message")))

    # --- requests and notifications -----------------------------------------------------

    def notify(self, method: str, params: Any) -> float:
        """Send a notification; returns the time it was written."""
        return self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def send_request(self, method: str, params: Any) -> tuple[int, float]:
        with self._cond:
            self._next_id += 1
            rid = self._next_id
        return rid, self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})

    def response(self, rid: int, timeout: float, what: str) -> tuple[float, Any]:
        """Wait for the answer to request `rid`: (time read, result)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while rid not in self._responses:
                self._check_alive(what)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LspTimeout(f"{self.name}: no answer to {what} within {timeout:.0f} s")
                self._cond.wait(left)
            at, msg = self._responses.pop(rid)
        if "error" in msg:
            raise RuntimeError(f"{self.name}: {what} failed: {msg['error']}")
        return at, msg.get("result")

    def request(self, method: str, params: Any, timeout: float = 30.0) -> tuple[float, Any]:
        """Send a request and wait for its answer: (round-trip seconds, result)."""
        rid, sent = self.send_request(method, params)
        at, result = self.response(rid, timeout, method)
        return at - sent, result

    # --- diagnostics --------------------------------------------------------------------

    def mark(self) -> int:
        """A cursor into the diagnostics received so far, for `wait_published`."""
        with self._cond:
            return len(self.published)

    def wait_published(
        self, since: int, accept: Callable[[Published], bool], timeout: float, what: str
    ) -> tuple[Published, int]:
        """The first publishDiagnostics at or after cursor `since` that `accept`s, and the
        cursor just after it."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for i in range(since, len(self.published)):
                    if accept(self.published[i]):
                        return self.published[i], i + 1
                since = len(self.published)
                self._check_alive(what)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LspTimeout(f"{self.name}: no publishDiagnostics for {what} within {timeout:.0f} s")
                self._cond.wait(left)

    def wait_server_request(self, method: str, since: int, timeout: float) -> bool:
        """Wait until the server has sent (and we have answered) a `method` request, counting
        from cursor `since` into `server_requests`. False when none came in time."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not any(m == method for _, m in self.server_requests[since:]):
                self._check_alive(method)
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def wait_quiet(self, quiet: float, timeout: float) -> None:
        """Wait until no diagnostics have arrived for `quiet` seconds (at most `timeout`)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            seen = len(self.published)
            last = time.monotonic()
            while time.monotonic() < deadline:
                self._cond.wait(min(quiet, max(0.0, deadline - time.monotonic())))
                if len(self.published) != seen:
                    seen, last = len(self.published), time.monotonic()
                elif time.monotonic() - last >= quiet:
                    return
                self._check_alive("quiet")

    def _check_alive(self, what: str) -> None:
        if self._gone:
            try:
                code = self.proc.wait(timeout=1.0)  # its output closed: it is exiting
            except subprocess.TimeoutExpired:
                code = None
            raise ServerGone(f"{self.name}: the server closed its output (exit code {code}) while waiting for {what}")

    # --- process --------------------------------------------------------------------------

    def rss_kib(self) -> dict[str, int]:
        """VmRSS and VmHWM (peak) of the server process, in KiB, from /proc."""
        found: dict[str, int] = {}
        with open(f"/proc/{self.proc.pid}/status", encoding="ascii") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    found[key] = int(value.split()[0])
        return found

    def close(self) -> None:
        """Shut down politely, then end the process group if it lingers. Safe to call twice."""
        if self in LIVE:
            LIVE.remove(self)
        try:
            if self.proc.poll() is None and not self._gone:
                try:
                    self.request("shutdown", None, timeout=3.0)
                    self.notify("exit", None)
                except (LspTimeout, ServerGone, RuntimeError, OSError) as err:
                    self.messages.append(f"shutdown: {err}")
                try:
                    self.proc.wait(timeout=3.0)
                except subprocess.TimeoutExpired:
                    self.messages.append("the server did not exit after `exit`; ending it")
        finally:
            self.kill()

    def kill(self) -> None:
        """End the server's process group (only processes this client started)."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.proc.poll() is not None:
                break
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=3.0)
            except subprocess.TimeoutExpired:
                continue
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError as err:  # a broken pipe on close is expected from a dead server
                    self.messages.append(f"closing a pipe: {err}")


def close_all() -> None:
    """End every server still running (used on error and on interrupt)."""
    for client in LIVE:
        try:
            client.close()
        except Exception as err:  # keep ending the others
            print(f"warning: ending {client.name} failed: {err}")
            client.kill()
