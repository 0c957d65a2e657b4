"""The server process as a whole: exit codes and malformed input, over raw stdio."""

from __future__ import annotations

import json
import subprocess
import sys
import time


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _run_server(payload: bytes) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "abl", "lsp"], input=payload, capture_output=True, timeout=60)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"capabilities": {}, "processId": None, "rootUri": None},
}


def test_exit_after_shutdown_is_code_0():
    payload = (
        _frame(INITIALIZE)
        + _frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        + _frame({"jsonrpc": "2.0", "method": "exit"})
    )
    assert _run_server(payload).returncode == 0


def test_exit_without_shutdown_is_code_1():
    payload = _frame(INITIALIZE) + _frame({"jsonrpc": "2.0", "method": "exit"})
    assert _run_server(payload).returncode == 1


def test_broken_messages_do_not_stop_the_server():
    garbage = b"Content-Length: 12\r\n\r\n{not json!!}" + _frame(
        {"jsonrpc": "2.0", "id": 7, "method": "no/such/method", "params": {}}
    )
    hover = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "textDocument/hover",
        "params": {"textDocument": {"uri": "file:///x.abl"}, "position": {"line": -4, "character": -1}},
    }
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


def _did_change(uri: str, version: int, text: str) -> dict:
    return {
        "jsonrpc": "2.0",
        "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
    }


def test_ten_thousand_rapid_edits_are_coalesced_and_the_last_one_wins(tmp_path):
    """Edits sent back to back, without waiting: the server keeps up, publishes diagnostics for
    the last version, and stays responsive."""
    uri = (tmp_path / "burst.abl").as_uri()
    text = 'SUPERVISOR: Loan\nGOAL: "x"\nHANDOFF:\n  - TO: Loan_{}\n    HISTORY: recent\n'
    burst = [_frame(INITIALIZE), _frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})]
    burst.append(
        _frame(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "abl", "version": 1, "text": text.format(0)}},
            }
        )
    )
    burst.extend(_frame(_did_change(uri, version, text.format(version))) for version in range(2, 10_002))
    hover = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "textDocument/hover",
        "params": {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 10}},
    }
    burst.append(_frame(hover))
    server = subprocess.Popen(
        [sys.executable, "-m", "abl", "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(b"".join(burst))
        server.stdin.flush()
        replies = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            reply = _read_message(server.stdout)
            replies.append(reply)
            params = reply.get("params") or {}
            if reply.get("method") == "textDocument/publishDiagnostics" and params.get("version") == 10_001:
                break
        server.stdin.write(
            _frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}) + _frame({"jsonrpc": "2.0", "method": "exit"})
        )
        server.stdin.flush()
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
    answer = next(r for r in replies if r.get("id") == 9)
    assert "Loan_10001" in answer["result"]["contents"]["value"], "the hover sees the last edit"
    published = [
        r["params"]
        for r in replies
        if r.get("method") == "textDocument/publishDiagnostics" and r["params"]["uri"] == uri
    ]
    assert published and published[-1]["version"] == 10_001
    assert any(d["code"] == "HISTORY_FALLS_BACK_TO_FULL" for d in published[-1]["diagnostics"])
    assert len(published) < 1_000, "edits that arrived together were analysed together"


def _read_message(stream) -> dict:
    length = 0
    while True:
        line = stream.readline()
        if not line:
            raise EOFError("the server closed its output")
        if line.startswith(b"Content-Length:"):
            length = int(line.split(b":")[1])
        elif line in (b"\r\n", b"\n") and length:
            return json.loads(stream.read(length))
