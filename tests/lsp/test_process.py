"""The server process as a whole: exit codes and malformed input, over raw stdio."""

from __future__ import annotations

import json
import subprocess
import sys


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _run_server(payload: bytes) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "abl", "lsp"], input=payload, capture_output=True, timeout=60
    )


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "processId": None, "rootUri": None}}


def test_exit_after_shutdown_is_code_0():
    payload = _frame(INITIALIZE) + _frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}) + _frame({"jsonrpc": "2.0", "method": "exit"})
    assert _run_server(payload).returncode == 0


def test_exit_without_shutdown_is_code_1():
    payload = _frame(INITIALIZE) + _frame({"jsonrpc": "2.0", "method": "exit"})
    assert _run_server(payload).returncode == 1


def test_broken_messages_do_not_stop_the_server():
    garbage = b"Content-Length: 12\r\n\r\n{not json!!}" + _frame({"jsonrpc": "2.0", "id": 7, "method": "no/such/method", "params": {}})
    hover = {"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover", "params": {"textDocument": {"uri": "file:///x.abl"}, "position": {"line": -4, "character": -1}}}
    payload = (
        _frame(INITIALIZE)
        + garbage
        + _frame(hover)
        + _frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        + _frame({"jsonrpc": "2.0", "method": "exit"})
    )
    result = _run_server(payload)
    assert result.returncode == 0, result.stderr.decode()
    replies = result.stdout.decode("utf-8", errors="replace")
    assert '"id": 7' in replies or '"id":7' in replies  # an error answer for the unknown method
    assert '"id": 2' in replies or '"id":2' in replies  # and the shutdown still answered
