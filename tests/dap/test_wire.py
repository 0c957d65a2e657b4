"""Bad input on the adapter's standard input: a clear line on standard error, never a traceback;
a message that cannot be read is skipped and the adapter goes on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _run(stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "abl", "dap"], input=stdin, capture_output=True, cwd=ROOT, timeout=60)


@pytest.mark.parametrize(
    ("stdin", "said"),
    [
        (b"garbage\r\n\r\n{}", "no Content-Length"),
        (b"Content-Length: many\r\n\r\n{}", "bad Content-Length"),
        (b"Content-Length: 999999999999\r\n\r\n", "out of range"),
    ],
)
def test_a_broken_stream_ends_the_adapter_with_a_message(stdin: bytes, said: str) -> None:
    done = _run(stdin)
    assert done.returncode == 1
    assert said in done.stderr.decode()
    assert b"Traceback" not in done.stderr


def test_a_message_that_is_not_json_is_skipped_and_the_next_one_answered() -> None:
    initialize = _frame({"seq": 2, "type": "request", "command": "initialize", "arguments": {"adapterID": "abl"}})
    done = _run(b"Content-Length: 5\r\n\r\n\xff\xfe{[x" + initialize + b"\x00\x01binary")
    assert "not JSON" in done.stderr.decode()
    assert b'"command": "initialize"' in done.stdout and b'"success": true' in done.stdout
    assert b"Traceback" not in done.stderr


def test_the_end_of_input_ends_the_adapter_quietly() -> None:
    done = _run(b"")
    assert done.returncode == 0 and not done.stderr
