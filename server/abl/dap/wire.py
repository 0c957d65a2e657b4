"""The Debug Adapter Protocol's framing: `Content-Length: N` headers, a blank line, N bytes
of UTF-8 JSON. Reading is done by one thread; writing may come from two (the requests' thread
and the engine's), so writes are serialised."""

from __future__ import annotations

import json
import threading
from typing import IO, Any

MAX_MESSAGE_BYTES = 64 * 1024 * 1024


class FramingError(Exception):
    """The byte stream is not a sequence of DAP messages: nothing after it can be read."""


class BadMessage(Exception):
    """One message that is not a JSON object; the stream goes on after it."""


def read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream."""
    length = None
    headers = 0
    while True:
        line = stream.readline()
        if not line:
            return None
        text = line.decode("ascii", "replace").strip()
        if not text:
            if headers == 0:
                continue  # stray blank lines between messages
            if length is None:
                raise FramingError("a message's headers have no Content-Length")
            break
        headers += 1
        name, _, value = text.partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise FramingError(f"bad Content-Length header: {text!r}") from None
    if length < 0 or length > MAX_MESSAGE_BYTES:
        raise FramingError(f"Content-Length {length} is out of range")
    body = stream.read(length)
    if len(body) < length:
        return None
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BadMessage(f"a message is not JSON ({err}); it is skipped") from None
    if not isinstance(message, dict):
        raise BadMessage("a message is not a JSON object; it is skipped")
    return message


class Writer:
    """Writes messages with their `seq`, one at a time."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._seq = 0
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        with self._lock:
            if self.closed:
                return
            self._seq += 1
            body = json.dumps({"seq": self._seq, **message}, ensure_ascii=False).encode("utf-8")
            try:
                self._stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                self.closed = True  # the client went away; nothing is left to tell it

    def event(self, name: str, body: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"type": "event", "event": name}
        if body is not None:
            message["body"] = body
        self.send(message)
