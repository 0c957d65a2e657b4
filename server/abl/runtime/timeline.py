"""Session time: what durations (`durationMs`) and timeouts are measured on.

Event timestamps come from the injected clock, whose deterministic default steps one second
per reading, so they say in what order things happened, not how long they took. Durations and
timeouts use this timeline instead: time a conversation declares (`Session.wait`, a test turn's
`after:`, a target's `handoff_delays`) plus, only when the clock says it tells real time
(`real_time = True`, see `trace.Clock`), the real time that passed. With the default clock an attempt that ran in
process therefore takes 0 ms, which is what it took. Time stops at `MAX_MS` (about 300 years, the
most a saved session holds): a later deadline is never reached.
"""

from __future__ import annotations

import time

from abl.runtime.session_file import MAX_MS
from abl.runtime.state import SessionData


class Timeline:
    def __init__(self, data: SessionData, real_time: bool) -> None:
        self._data = data
        self._origin = time.monotonic() if real_time else None

    @property
    def real_time(self) -> bool:
        return self._origin is not None

    def now_ms(self) -> int:
        """Milliseconds since the session started."""
        real = int((time.monotonic() - self._origin) * 1000) if self._origin is not None else 0
        return self._data.declared_ms + real

    def advance(self, ms: int) -> None:
        """Time that passes without the engine doing anything (saved with the session)."""
        if ms > 0:
            self._data.declared_ms = min(self._data.declared_ms + ms, MAX_MS)

    def settle(self) -> None:
        """Fold the real time passed so far into the saved part (before a session is saved, so
        that a resumed session goes on from the same instant)."""
        if self._origin is not None:
            now = time.monotonic()
            self._data.declared_ms = min(self._data.declared_ms + int((now - self._origin) * 1000), MAX_MS)
            self._origin = now
