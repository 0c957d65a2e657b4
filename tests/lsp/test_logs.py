"""What the server writes to its log, over raw stdio: a refusal is an ordinary error response
with its message, logged at info without a traceback; a cancel of a request already answered
is routine. Only a real failure is logged as an error, with its traceback."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from conftest import SUPERVISOR, write_workspace


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _replies(stdout: bytes) -> dict[int, dict]:
    bodies = re.split(rb"Content-Length: \d+\r\n(?:[^\r\n]+\r\n)*\r\n", stdout)
    messages = [json.loads(b) for b in bodies if b.strip()]
    return {m["id"]: m for m in messages if "id" in m and "method" not in m}


def _request(msg_id: int, method: str, params: dict) -> bytes:
    return _frame({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})


def test_refusals_and_late_cancels_are_not_errors(tmp_path: Path):
    root = tmp_path / "loan"
    write_workspace(root, {"supervisor.abl": SUPERVISOR})
    uri = (root / "supervisor.abl").as_uri()
    keyword = {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 2}}
    payload = (
        _request(1, "initialize", {"capabilities": {}, "processId": None, "rootUri": root.as_uri()})
        + _frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        + _frame(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {"textDocument": {"uri": uri, "languageId": "abl", "version": 1, "text": SUPERVISOR}},
            }
        )
        + _request(2, "textDocument/prepareRename", keyword)
        + _request(3, "textDocument/rename", {**keyword, "newName": "Other"})
        + _request(4, "workspace/executeCommand", {"command": "abl.runAgent", "arguments": [uri, "Nobody"]})
        + _frame({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 2}})
        + _request(5, "shutdown", {})
        + _frame({"jsonrpc": "2.0", "method": "exit"})
    )
    result = subprocess.run(
        [sys.executable, "-m", "abl", "lsp", "--log-level", "info"], input=payload, capture_output=True, timeout=120
    )
    log = result.stderr.decode("utf-8", errors="replace")
    assert result.returncode == 0, log
    replies = _replies(result.stdout)
    for msg_id in (2, 3, 4):
        error = replies[msg_id].get("error")
        assert error and error["message"], f"request {msg_id} got {replies[msg_id]}"
    assert "only names can be renamed" in replies[2]["error"]["message"]
    assert "Traceback" not in log, log
    assert not re.search(r" (ERROR|WARNING) ", log), log
    assert log.count(" INFO abl.lsp: request ") == 3, log
