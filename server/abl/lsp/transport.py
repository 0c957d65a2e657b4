"""The pipes to the client: its messages read ahead, so the server knows when more are waiting,
and the pipe to it widened for large messages.

A thread reads standard input in large chunks into a buffer; the message loop takes lines and
bodies from that buffer without waiting when they are already there. Two things follow: a burst
of edits is handled back to back without giving way to analysis between them, and
`has_pending()` tells the scheduler that a newer message is on its way, so analysis starts only
once nothing newer is queued (no fixed debounce).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import BinaryIO

try:
    import fcntl
except ImportError:  # Windows: pipes keep their size
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("abl.lsp")

_CHUNK = 1 << 16

# How much of one message the pipe to the editor holds, when the system lets it be widened: the
# diagnostics of a large file are a megabyte, which a 64 KiB pipe passes in sixteen turns of
# the server writing and the editor reading.
PIPE_BYTES = 1 << 20


def widen_pipe(stream: BinaryIO) -> None:
    """Let the pipe on `stream` hold a whole large message (Linux; elsewhere, or when the output
    is no pipe, it stays as it is)."""
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if set_size is None:
        return
    try:
        fcntl.fcntl(stream.fileno(), set_size, PIPE_BYTES)
    except (OSError, ValueError) as error:  # not a pipe, or more than the system allows
        log.debug("the output pipe keeps its size: %s", error)


class ReadAheadReader:
    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._buffer = bytearray()
        self._eof = False
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready: asyncio.Event | None = None
        self._thread: threading.Thread | None = None

    def _start(self) -> None:
        if self._thread is not None:
            return
        self._loop = asyncio.get_running_loop()
        self._ready = asyncio.Event()
        self._thread = threading.Thread(target=self._pump, name="abl-lsp-stdin", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        fileno = _fileno(self._stream)
        while True:
            try:
                chunk = os.read(fileno, _CHUNK) if fileno is not None else self._stream.read1(_CHUNK)  # type: ignore[attr-defined]
            except (OSError, ValueError):
                chunk = b""
            with self._lock:
                if chunk:
                    self._buffer += chunk
                else:
                    self._eof = True
            assert self._loop is not None and self._ready is not None
            try:
                self._loop.call_soon_threadsafe(self._ready.set)
            except RuntimeError:  # the loop has closed: the server is gone
                return
            if not chunk:
                return

    def has_pending(self) -> bool:
        """Bytes of a newer message have arrived and are not handled yet."""
        with self._lock:
            return bool(self._buffer)

    async def _wait(self) -> None:
        assert self._ready is not None
        self._ready.clear()
        with self._lock:
            if self._buffer or self._eof:
                return
        await self._ready.wait()

    async def readline(self) -> bytes:
        self._start()
        while True:
            with self._lock:
                end = self._buffer.find(b"\n")
                if end != -1:
                    line = bytes(self._buffer[: end + 1])
                    del self._buffer[: end + 1]
                    return line
                if self._eof:
                    rest = bytes(self._buffer)
                    self._buffer.clear()
                    return rest
            await self._wait()

    async def readexactly(self, n: int) -> bytes:
        self._start()
        while True:
            with self._lock:
                if len(self._buffer) >= n or self._eof:
                    body = bytes(self._buffer[:n])
                    del self._buffer[:n]
                    return body
            await self._wait()


def _fileno(stream: BinaryIO) -> int | None:
    try:
        return stream.fileno()
    except (OSError, ValueError, AttributeError):
        return None
