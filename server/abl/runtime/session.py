"""`Session`: one conversation with an agent of a project, and its saved form.

A session is built from plain data (`SessionData`), a trace, a clock, an id source and a
model. `to_dict` captures all of it as JSON-ready data (the trace too, and how far the default
clock and id counters have run), so `from_dict` resumes with identical behaviour: the next turn
gives the same replies and the same trace events as if the session had never stopped.
Sensitive values are not written in clear: they are saved as `[redacted]` (`abl.runtime.redaction`).

`save` writes the whole session at once; `journal` keeps a file up to date turn after turn by
appending what each turn added (`abl.runtime.session_journal`). `load` reads either, through the
one loader of saved sessions (`abl.runtime.session_file.read_session`), which checks the file
against its schema before anything is built.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from abl.runtime.engine import Engine
from abl.runtime.models import Model, ModelError, create_model
from abl.runtime.redaction import saved_state, shown_values
from abl.runtime.session_file import (
    FORMAT,
    FORMAT_VERSION,
    MAX_SESSION_BYTES,
    SessionFileError,
    read_session,
    validate_session,
)
from abl.runtime.session_journal import SessionJournal, encode_line, write_atomic
from abl.runtime.session_types import Message, Reply, RuntimeOptions, SessionError, SessionState, ThreadView, Turn
from abl.runtime.start import begin
from abl.runtime.state import SessionData
from abl.runtime.trace import (
    DEFAULT_START,
    Clock,
    CounterIds,
    FixedClock,
    IdSource,
    Trace,
    TraceEvent,
    TraceLevel,
)
from abl.runtime.turn import run_turn
from abl.workspace import Project


class _CountingClock:
    """Counts readings of the injected clock, so a default clock can be wound forward on load."""

    def __init__(self, inner: Clock, ticks: int = 0) -> None:
        self.inner = inner
        self.ticks = ticks

    def now(self) -> datetime:
        self.ticks += 1
        return self.inner.now()


class _CountingIds:
    """Counts ids handed out per prefix, so default counters can be restored on load."""

    def __init__(self, inner: IdSource, counts: dict[str, int] | None = None) -> None:
        self.inner = inner
        self.counts: dict[str, int] = dict(counts or {})

    def next_id(self, prefix: str) -> str:
        self.counts[prefix] = self.counts.get(prefix, 0) + 1
        return self.inner.next_id(prefix)


class Session:
    """A running conversation. Build one with `abl.runtime.start_session`."""

    def __init__(
        self, project: Project, options: RuntimeOptions, engine: Engine, clock: _CountingClock, ids: _CountingIds
    ) -> None:
        self.project = project
        self.options = options
        self._engine = engine
        self._clock = clock
        self._ids = ids
        self._level = TraceLevel.parse(options.trace_level)

    # --- starting ----------------------------------------------------------------------------

    @classmethod
    def start(cls, project: Project, agent: str, options: RuntimeOptions) -> Session:
        """A new conversation. Whether the project may run at all (its errors) is the loader's
        question (`abl.launch`); here only the agent must exist."""
        if project.agent(agent) is None:
            known = ", ".join(project.agent_names()) or "none"
            raise SessionError(f"unknown agent `{agent}` (agents in the project: {known})")
        session = cls._build(project, options, SessionData(entry_agent=agent), [], 0, {})
        session._begin()
        return session

    @classmethod
    def _build(
        cls,
        project: Project,
        options: RuntimeOptions,
        data: SessionData,
        events: list[TraceEvent],
        ticks: int,
        id_counts: dict[str, int],
    ) -> Session:
        try:
            TraceLevel.parse(options.trace_level)
        except ValueError as problem:
            raise SessionError(str(problem)) from None
        if options.clock is not None:
            clock = _CountingClock(options.clock, ticks)
        else:
            clock = _CountingClock(FixedClock(DEFAULT_START + timedelta(seconds=ticks)), ticks)
        if options.ids is not None:
            ids = _CountingIds(options.ids, id_counts)
        else:
            ids = _CountingIds(CounterIds(id_counts), id_counts)
        trace = Trace(clock)
        trace.restore(events)
        model = _make_model(options, clock)
        for secret in getattr(model, "secrets", ()):  # an endpoint's API key
            trace.protect(secret)
        real_time = bool(getattr(options.clock, "real_time", False))
        engine = Engine(project, options, data, trace, clock, ids, model, real_time)
        observer = options.observer
        if observer is not None:
            trace.subscribe(lambda event: observer(event, data))
        return cls(project, options, engine, clock, ids)

    def _begin(self) -> None:
        """Create the entry thread and run its `ON_START` (once per session)."""
        begin(self._engine, dict(self.options.initial_values))

    # --- the API -----------------------------------------------------------------------------

    def send(self, text: str) -> Turn:
        """One customer message: the replies and trace events of the turn."""
        return run_turn(self._engine, text, self._level)

    def wait(self, ms: int) -> None:
        """Time passes before the next message (a customer who takes a while to answer): it
        counts for handoff timeouts and queued intents' age, and is saved with the session."""
        self._engine.timeline.advance(int(ms))

    def state(self) -> SessionState:
        data = self._engine.data
        active = data.active_thread
        return SessionState(
            active_agent=active.agent,
            values=shown_values(self._engine, active),
            threads=[
                ThreadView(t.id, t.agent, t.status, shown_values(self._engine, t), len(t.history))
                for t in data.threads.values()
            ],
            stack=[data.threads[f.parent].agent for f in data.stack],
            ended=data.ended and data.end_reason != "complete",
            completed=data.ended and data.end_reason == "complete",
        )

    def reset(self) -> None:
        """Start over: a fresh session on the same entry agent and options."""
        fresh = Session._build(
            self.project, self.options, SessionData(entry_agent=self._engine.data.entry_agent), [], 0, {}
        )
        fresh._begin()
        self._engine, self._clock, self._ids = fresh._engine, fresh._clock, fresh._ids

    def stop(self) -> None:
        data = self._engine.data
        if not data.ended:
            data.ended = True
            data.end_reason = "stopped"

    @property
    def trace(self) -> list[TraceEvent]:
        return list(self._engine.trace.events)

    @property
    def trace_length(self) -> int:
        """How many events the trace holds (without copying them)."""
        return len(self._engine.trace)

    def trace_since(self, count: int) -> list[TraceEvent]:
        """The events after the first `count`: what a writer or a view has not seen yet."""
        return self._engine.trace.events_since(count)

    @property
    def trace_log(self) -> Trace:
        """The trace object itself (JSONL export, levels, live listeners)."""
        return self._engine.trace

    @property
    def history(self) -> list[Message]:
        """The conversation as shown outside the engine: secrets scrubbed from every message."""
        scrub = self._engine.trace.redactor.text
        return [Message(e.role, scrub(e.text), e.agent, e.tool_call_id) for e in self._engine.data.log]

    @property
    def engine(self) -> Engine:
        """The engine (for writers in this package, such as the journal)."""
        return self._engine

    @property
    def counters(self) -> tuple[int, dict[str, int]]:
        """How far the clock and the id counters have run (saved, so a resume continues them)."""
        return self._clock.ticks, dict(self._ids.counts)

    @property
    def greeting(self) -> list[Reply]:
        return [Reply(agent, text) for agent, text in self._engine.data.greeting]

    @property
    def active_agent(self) -> str:
        return self._engine.data.active_thread.agent

    @property
    def ended(self) -> bool:
        return self._engine.data.ended

    # --- saving --------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The whole session as JSON-ready data (one snapshot), sensitive values redacted."""
        engine = self._engine
        engine.timeline.settle()
        redactor = engine.trace.redactor
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "state": saved_state(engine),
            "trace": [redactor.apply_event(e).to_dict() for e in engine.trace.events],
            "clock_ticks": self._clock.ticks,
            "ids": dict(self._ids.counts),
            "trace_level": self.options.trace_level,
        }

    @classmethod
    def from_dict(cls, project: Project, data: Mapping[str, Any], options: RuntimeOptions | None = None) -> Session:
        """A session from saved data; the data is checked against the session schema first
        (SessionFileError, a SessionError, says what is wrong and where)."""
        options = options or RuntimeOptions()
        checked = validate_session(data)
        state = SessionData.from_data(checked["state"])
        events = [_event(e) for e in checked["trace"]]
        missing = sorted({t.agent for t in state.threads.values() if project.agent(t.agent) is None})
        if missing:
            raise SessionError(
                "the saved session names agents the project no longer has",
                [f"unknown agent `{name}`" for name in missing],
            )
        session = cls._build(project, options, state, events, checked["clock_ticks"], dict(checked["ids"]))
        for thread in state.threads.values():
            session._engine.plan(thread.agent)  # registers the agent's sensitive names for redaction
        return session

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the whole session as one snapshot line, atomically (a temporary file, then a rename)."""
        write_atomic(Path(path), encode_line(self.to_dict()))

    def journal(self, path: str | os.PathLike[str]) -> SessionJournal:
        """A writer that keeps `path` up to date after each turn by appending what it added."""
        return SessionJournal(self, Path(path))

    @classmethod
    def load(cls, project: Project, path: str | os.PathLike[str], options: RuntimeOptions | None = None) -> Session:
        """A saved session (`save` or `journal`); SessionError when it cannot be read or loaded."""
        return cls.from_dict(project, read_session_file(path), options)

    # --- internals -----------------------------------------------------------------------------


def _make_model(options: RuntimeOptions, clock: Clock) -> Model:
    if not isinstance(options.model, str):
        return options.model
    settings = dict(options.model_options)
    name = options.model.strip().lower()
    if name == "embedded":
        settings.setdefault("clock", clock)
        if options.intent_threshold is not None:
            settings.setdefault("threshold", options.intent_threshold)
    try:
        return create_model(options.model, **settings)
    except ModelError as problem:
        raise SessionError(f"the model cannot be set up: {problem}") from None
    except TypeError as problem:
        raise SessionError(f"the model options do not fit the `{options.model}` provider: {problem}") from None


def read_session_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A saved session file's data (checked), or SessionError saying why it cannot be read."""
    target = Path(path)
    try:
        size = target.stat().st_size
        if size > MAX_SESSION_BYTES:
            raise SessionFileError(
                f"the session is {size:,} bytes; sessions over {MAX_SESSION_BYTES:,} bytes are not loaded",
                source=str(path),
            )
        content = target.read_bytes()
    except OSError as problem:
        raise SessionError(f"cannot read the session file {path}: {problem.strerror or problem}") from None
    try:
        return read_session(content)
    except SessionFileError as problem:
        raise problem.from_file(str(path)) from None


def _event(data: Mapping[str, Any]) -> TraceEvent:
    fields = {k: v for k, v in data.items() if k not in ("type", "seq", "turn", "thread", "agent", "ts")}
    return TraceEvent(data["type"], data["seq"], data["turn"], data["thread"], data["agent"], data["ts"], fields)


__all__ = ["Session"]
