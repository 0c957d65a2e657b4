"""A running conversation of `abl run`, and what each turn must keep up to date.

Shared by the script mode (`abl.cli.run`) and the interactive chat (`abl.cli.chat`): the
session, the trace file (`--trace-out`), the saved session (`--session`) and the recorded test
(`--record`). The trace file, the saved session and the recorded test grow by what each turn
added (appended lines), so a long conversation costs time in proportion to its length, not to
its square; each is written whole again only when lines already written must change (a reset,
or for the trace and the session, a secret that became known and must be scrubbed from them).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from abl.runtime import Session
from abl.runtime.session_journal import SessionJournal
from abl.runtime.testing.recorder import RecordedTurn, Recording, RecordingFile
from abl.runtime.trace import Trace, to_json
from abl.workspace import Project

TRACE_LEVELS = ("minimal", "standard", "verbose", "debug")


@dataclass
class Driver:
    """A session plus what each turn must update: the trace file, the saved session, the recording."""

    session: Session
    project: Project
    agent: str
    resumed: bool = False
    trace_out: Path | None = None
    session_file: Path | None = None
    recording: Recording | None = None
    record_path: Path | None = None
    problems: list[str] = field(default_factory=list)  # files that could not be written
    waited_ms: int = 0  # time declared to pass before the next message
    _journal: SessionJournal | None = None
    _trace_file: TraceFile | None = None
    _record_file: RecordingFile | None = None

    def wait(self, ms: int) -> None:
        self.session.wait(ms)
        self.waited_ms += ms
        self.persist()

    def send(self, text: str) -> tuple[Any, list[dict[str, Any]]]:
        """One user message; returns the turn and its events (all levels, as dicts)."""
        before = self.session.trace_length
        turn = self.session.send(text)
        waited, self.waited_ms = self.waited_ms, 0
        events = [e.to_dict() for e in self.session.trace_since(before)]
        if self.recording is not None:
            self.recording.add(
                RecordedTurn(
                    user=turn.user,  # a sensitive value in it is redacted
                    replies=tuple((r.agent, r.text) for r in turn.replies),
                    active_agent=turn.active_agent,
                    events=tuple(events),
                    ended=bool(turn.ended),
                    after_ms=waited,
                )
            )
        self.persist()
        return turn, events

    def reset(self) -> None:
        self.session.reset()
        self.waited_ms = 0
        if self.recording is not None:
            self.recording.turns.clear()
            self.recording.greeting = tuple((r.agent, r.text) for r in self.session.greeting)
            self.recording.start_events = tuple(e.to_dict() for e in self.session.trace)
        self.persist()

    def persist(self) -> None:
        """Bring every output file up to date. A write failure is reported once, the chat goes on."""
        if self.session_file is not None:
            if self._journal is None:
                self._journal = self.session.journal(self.session_file)
            self._write(self.session_file, self._journal.write)
        if self.trace_out is not None:
            if self._trace_file is None:
                self._trace_file = TraceFile(self.session, self.trace_out)
            self._write(self.trace_out, self._trace_file.write)
        if self.recording is not None and self.record_path is not None:
            if self._record_file is None:
                self._record_file = RecordingFile(self.recording, self.record_path)
            self._write(self.record_path, self._record_file.write)

    def finish(self, err: TextIO) -> None:
        """Say what the run leaves unwritten: a recording with nothing to check is no test."""
        if self.record_path is not None and self.recording is not None and not self.recording.checkable:
            print(
                f"abl run: no test written to {self.record_path}: no message was sent and the agent "
                "said nothing at the start, so there is nothing to check",
                file=err,
            )

    def _write(self, path: Path, action: Callable[[], None]) -> None:
        try:
            action()
        except OSError as err:
            message = f"cannot write {path}: {reason(err)}"
            if message not in self.problems:
                self.problems.append(message)
                print(f"abl run: warning: {message}", file=sys.stderr)


def jsonl(events: Iterable[Any]) -> str:
    """Trace events as JSON lines, in the trace module's stable key order."""
    return "".join(to_json(e) + "\n" for e in events)


def reason(err: BaseException) -> str:
    if isinstance(err, OSError):
        return err.strerror or str(err)
    return str(err)


class TraceFile:
    """`--trace-out`: every event of the session as JSON lines, appended turn by turn; written
    whole again when the session was reset or a newly known secret must be scrubbed from lines
    already written (or the file was changed by someone else)."""

    def __init__(self, session: Session, path: Path) -> None:
        self._session = session
        self._path = path
        self._trace: Trace | None = None
        self._version = -1
        self._written = 0
        self._size = -1

    def write(self) -> None:
        trace = self._session.trace_log
        redactor = trace.redactor
        if trace is not self._trace or redactor.version != self._version or not self._unchanged():
            text = jsonl(redactor.apply_event(e) for e in trace.events)
            temporary = self._path.with_name(self._path.name + ".tmp")
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, self._path)
            self._trace, self._version, self._written = trace, redactor.version, len(trace)
            self._size = len(text.encode("utf-8"))
            return
        new = trace.events_since(self._written)
        if not new:
            return
        text = jsonl(redactor.apply_event(e) for e in new)
        with open(self._path, "a", encoding="utf-8") as handle:
            handle.write(text)
        self._written += len(new)
        self._size += len(text.encode("utf-8"))

    def _unchanged(self) -> bool:
        try:
            return self._path.stat().st_size == self._size
        except OSError:
            return False
