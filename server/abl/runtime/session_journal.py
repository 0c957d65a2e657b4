"""`SessionJournal`: keeps a saved-session file up to date after every turn, in time linear in the
length of the conversation.

The first write puts the whole session in the file as one snapshot line (atomically: a
temporary file, synced, then renamed over the target). Each later write appends one delta line
(`abl.runtime.session_file` describes both) with only what the turn changed, and flushes it. The
file is written whole again only when what was already written would be wrong: the session was
reset, the file was changed or removed by someone else, or a new secret became known (its
earlier appearances must be scrubbed from the lines already written). An append is flushed but
not synced: a machine that loses power may lose the last turns, never the earlier ones, since a
cut-off last line is dropped when the file is read.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abl.runtime.history import Entry
from abl.runtime.redaction import saved_entry, saved_small_state, saved_thread
from abl.runtime.trace import to_json_data

if TYPE_CHECKING:
    from abl.runtime.engine import Engine
    from abl.runtime.session import Session


@dataclass(slots=True)
class _WrittenThread:
    fields: str  # the thread's saved fields (all but its history), as written
    messages: int  # history entries written
    last: Entry | None  # the last of them, to tell an append from a rewrite of the history


class SessionJournal:
    """Writes `session` to `path`: a snapshot first, then one delta per `write`."""

    def __init__(self, session: Session, path: Path) -> None:
        self._session = session
        self._path = path
        self._engine: Engine | None = None
        self._version = -1
        self._size = -1
        self._events = 0
        self._log = 0
        self._last_log: Entry | None = None
        self._small = ""
        self._counters = ""
        self._threads: dict[str, _WrittenThread] = {}

    def write(self) -> None:
        """Bring the file up to date with the session. Raises OSError when it cannot be written."""
        engine = self._session.engine
        if (
            engine is not self._engine
            or engine.trace.redactor.version != self._version
            or not self._file_unchanged()
            or not self._log_appended(engine)
        ):
            self._rewrite(engine)
        else:
            self._append(engine)

    # --- internals -------------------------------------------------------------------------

    def _file_unchanged(self) -> bool:
        try:
            return self._path.stat().st_size == self._size
        except OSError:
            return False

    def _log_appended(self, engine: Engine) -> bool:
        log = engine.data.log
        return len(log) >= self._log and (self._log == 0 or log[self._log - 1] is self._last_log)

    def _rewrite(self, engine: Engine) -> None:
        text = encode_line(self._session.to_dict())
        write_atomic(self._path, text)
        self._size = len(text.encode("utf-8"))
        self._engine = engine
        self._version = engine.trace.redactor.version
        self._events = len(engine.trace)
        self._remember_log(engine)
        self._small = encode(saved_small_state(engine))
        self._counters = encode(self._session.counters)
        self._threads = {
            thread.id: _WrittenThread(
                encode(saved_thread(engine, thread, with_history=False)), len(thread.history), _last(thread.history)
            )
            for thread in engine.data.threads.values()
        }

    def _append(self, engine: Engine) -> None:
        engine.timeline.settle()
        redactor = engine.trace.redactor
        delta: dict[str, Any] = {"delta": engine.data.turn}
        small = saved_small_state(engine)
        small_text = encode(small)
        if small_text != self._small:
            delta["state"] = small
        changed = []
        written: dict[str, _WrittenThread] = {}
        for thread in engine.data.threads.values():
            fields = saved_thread(engine, thread, with_history=False)
            fields_text = encode(fields)
            history = thread.history
            known = self._threads.get(thread.id)
            written[thread.id] = _WrittenThread(fields_text, len(history), _last(history))
            if known is None:
                fields["history"] = [saved_entry(redactor, entry.to_data()) for entry in history]
                changed.append(fields)
                continue
            change: dict[str, Any] = fields if fields_text != known.fields else {"id": thread.id}
            count = known.messages
            if len(history) >= count and (count == 0 or history[count - 1] is known.last):
                if len(history) > count:
                    change["history_added"] = [saved_entry(redactor, entry.to_data()) for entry in history[count:]]
            else:  # messages were put between earlier ones (a return joins the child's replies)
                change["history"] = [saved_entry(redactor, entry.to_data()) for entry in history]
            if len(change) > 1:
                changed.append(change)
        if changed:
            delta["threads"] = changed
        if len(engine.data.log) > self._log:
            delta["log"] = [saved_entry(redactor, entry.to_data()) for entry in engine.data.log[self._log :]]
        events = engine.trace.events_since(self._events)
        if events:
            delta["trace"] = [redactor.apply_event(event).to_dict() for event in events]
        ticks, ids = self._session.counters
        counters_text = encode((ticks, ids))
        if counters_text != self._counters:
            delta["clock_ticks"] = ticks
            delta["ids"] = ids
        line = encode_line(delta)
        with open(self._path, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
        self._size += len(line.encode("utf-8"))
        self._small = small_text
        self._counters = counters_text
        self._threads = written
        self._events += len(events)
        self._remember_log(engine)

    def _remember_log(self, engine: Engine) -> None:
        self._log = len(engine.data.log)
        self._last_log = _last(engine.data.log)


def _last(entries: list[Entry]) -> Entry | None:
    return entries[-1] if entries else None


def encode(data: Any) -> str:
    """Compact JSON with sorted keys. A number JSON cannot hold (an int too long to print,
    infinity) is written the way the trace writes it (`to_json_data`), never an exception."""
    try:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)
    except ValueError:
        return json.dumps(to_json_data(data), ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def encode_line(data: Any) -> str:
    """One line of a session file."""
    return encode(data) + "\n"


def write_atomic(target: Path, text: str) -> None:
    """Replace `target` with `text`: a temporary file beside it, synced, then renamed over it."""
    directory = target.parent if str(target.parent) else Path(".")
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
