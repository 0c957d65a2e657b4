"""A running conversation of `abl run`, and what each turn must keep up to date.

Shared by the script mode (`abl.cli.run`) and the interactive chat (`abl.cli.chat`): the
session, the trace file (`--trace-out`), the saved session (`--session`) and the recorded test
(`--record`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abl.runtime import Session
from abl.runtime.testing.recorder import RecordedTurn, Recording
from abl.runtime.testing.recorder import write as write_recording
from abl.runtime.trace import to_json
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

    def wait(self, ms: int) -> None:
        self.session.wait(ms)
        self.waited_ms += ms
        self.persist()

    def send(self, text: str) -> tuple[Any, list[dict[str, Any]]]:
        """One user message; returns the turn and its events (all levels, as dicts)."""
        before = len(self.session.trace)
        turn = self.session.send(text)
        waited, self.waited_ms = self.waited_ms, 0
        events = [e.to_dict() for e in list(self.session.trace)[before:]]
        if self.recording is not None:
            self.recording.add(
                RecordedTurn(
                    user=text,
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
            session_file = self.session_file
            self._write(session_file, lambda: self.session.save(session_file))
        if self.trace_out is not None:
            trace_out = self.trace_out
            self._write(trace_out, lambda: _write_atomic(trace_out, jsonl(self.session.trace)))
        if self.recording is not None and self.record_path is not None:
            recording, record_path = self.recording, self.record_path
            self._write(record_path, lambda: write_recording(recording, record_path))

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


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
