"""Make a failing input small before it is kept: drop whole files, then chunks of lines, then
chunks of bytes, keeping each cut only while the input still fails the same way (a plain
delta-debugging pass, bounded in time).
"""

from __future__ import annotations

import time
from collections.abc import Callable

Files = dict[str, bytes]


def reduce_files(files: Files, fails: Callable[[Files], bool], seconds: float) -> Files:
    deadline = time.perf_counter() + seconds
    current = dict(files)
    for path in list(current):
        if len(current) > 1 and time.perf_counter() < deadline:
            fewer = {p: d for p, d in current.items() if p != path}
            if fails(fewer):
                current = fewer
    for path in list(current):
        for split in (_lines, _bytes):
            pieces = split(current[path])
            pieces = _cut(pieces, lambda kept, path=path: fails({**current, path: b"".join(kept)}), deadline)
            current[path] = b"".join(pieces)
    return current


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _bytes(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))] if len(data) <= 4_000 else [data]


def _cut(pieces: list[bytes], fails: Callable[[list[bytes]], bool], deadline: float) -> list[bytes]:
    """Remove chunks of `pieces`, halving the chunk size, while `fails` still holds."""
    size = max(1, len(pieces) // 2)
    while size >= 1 and time.perf_counter() < deadline:
        at = 0
        while at < len(pieces) and time.perf_counter() < deadline:
            trial = pieces[:at] + pieces[at + size :]
            if trial != pieces and fails(trial):
                pieces = trial
            else:
                at += size
        if size == 1:
            break
        size //= 2
    return pieces
