"""A language server process driven over raw stdio, for sending what no well-behaved client
would: broken frames, wrong types, storms of requests and cancellations, huge documents.

A reader thread collects every message the server writes, so a test can send without waiting
and then look for the answers it needs.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

SERVER = Path(__file__).resolve().parents[2] / "server"


def frame(message: dict[str, Any] | list[Any] | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


class WireServer:
    def __init__(self, root: Path | None = None) -> None:
        env = {**os.environ, "PYTHONPATH": str(SERVER)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "abl", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._stderr: list[bytes] = []
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self.next_id = 1000
        params = {"capabilities": {}, "processId": None, "rootUri": root.as_uri() if root else None}
        self.request("initialize", params)
        self.notify("initialized", {})

    # --- sending ----------------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send_raw(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    def send_request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.send_raw(frame({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}))
        return self.next_id

    def request(self, method: str, params: Any, timeout: float = 60.0) -> dict[str, Any]:
        return self.reply(self.send_request(method, params), timeout)

    # --- receiving --------------------------------------------------------------------------

    def reply(self, request_id: int | str, timeout: float = 60.0) -> dict[str, Any]:
        return self.wait_for(lambda m: m.get("id") == request_id and "method" not in m, timeout)

    def wait_for(self, wanted, timeout: float = 60.0) -> dict[str, Any]:
        for message in self.seen:
            if wanted(message):
                return message
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = self.messages.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if wanted(message):
                return message
        raise TimeoutError(f"no such message within {timeout} s; stderr: {self.stderr()[-2000:]}")

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                elif line in (b"\r\n", b"\n"):
                    break
            message = json.loads(stream.read(length))
            self.seen.append(message)
            self.messages.put(message)

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._stderr.append(line)

    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    # --- the process ------------------------------------------------------------------------

    def alive(self) -> bool:
        return self.process.poll() is None

    def memory_mb(self) -> float:
        """The server's resident memory now (Linux), in megabytes."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
        return int(line.split()[1]) / 1024

    def shutdown(self) -> int:
        try:
            self.request("shutdown", None, timeout=60)
            self.notify("exit", None)
            return self.process.wait(timeout=60)
        finally:
            if self.process.poll() is None:
                self.process.kill()
