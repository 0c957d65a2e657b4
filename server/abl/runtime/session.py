"""`Session`: one conversation with an agent of a project, and its saved form.

A session is built from plain data (`SessionData`), a trace, a clock, an id source and a
model. `to_dict` captures all of it as JSON-ready data (the trace too, and how far the default
clock and id counters have run), so `from_dict` resumes with identical behaviour: the next turn
gives the same replies and the same trace events as if the session had never stopped.
Sensitive values are not written in clear: they are saved as `[redacted]`.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from abl.runtime.engine import Engine
from abl.runtime.models import Model, ModelError, create_model
from abl.runtime.session_types import Message, Reply, RuntimeOptions, SessionError, SessionState, ThreadView, Turn
from abl.runtime.start import begin
from abl.runtime.state import SessionData, Thread
from abl.runtime.trace import (
    DEFAULT_START,
    REDACTED,
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

FORMAT = "abl-session"
FORMAT_VERSION = 1


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
            counter = CounterIds()
            for prefix, count in id_counts.items():
                for _ in range(count):
                    counter.next_id(prefix)
            ids = _CountingIds(counter, id_counts)
        trace = Trace(clock)
        trace.restore(events)
        model = _make_model(options, clock)
        real_time = bool(getattr(options.clock, "real_time", False))
        engine = Engine(project, options, data, trace, clock, ids, model, real_time)
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
            values=self._shown_values(active),
            threads=[
                ThreadView(t.id, t.agent, t.status, self._shown_values(t), len(t.history))
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
    def trace_log(self) -> Trace:
        """The trace object itself (JSONL export, levels, live listeners)."""
        return self._engine.trace

    @property
    def history(self) -> list[Message]:
        return [Message(e.role, e.text, e.agent, e.tool_call_id) for e in self._engine.data.log]

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
        engine = self._engine
        engine.timeline.settle()
        redactor = engine.trace.redactor
        state = _redact_state(engine, engine.data.to_data())
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "state": state,
            "trace": [redactor.apply(e.to_dict()) for e in engine.trace.events],
            "clock_ticks": self._clock.ticks,
            "ids": dict(self._ids.counts),
            "trace_level": self.options.trace_level,
        }

    @classmethod
    def from_dict(cls, project: Project, data: Mapping[str, Any], options: RuntimeOptions | None = None) -> Session:
        options = options or RuntimeOptions()
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            raise SessionError("this is not a saved session (no `format: abl-session`)")
        if data.get("version") != FORMAT_VERSION:
            raise SessionError(
                f"saved session version {data.get('version')!r} is not supported (expected {FORMAT_VERSION})"
            )
        try:
            state = SessionData.from_data(data["state"])
            events = [_event(e) for e in data["trace"]]
            ticks = int(data["clock_ticks"])
            counts = {str(k): int(v) for k, v in data["ids"].items()}
        except (KeyError, TypeError, ValueError) as problem:
            raise SessionError(f"the saved session is incomplete or damaged: {problem}") from None
        missing = sorted({t.agent for t in state.threads.values() if project.agent(t.agent) is None})
        if missing:
            raise SessionError(
                "the saved session names agents the project no longer has",
                [f"unknown agent `{name}`" for name in missing],
            )
        session = cls._build(project, options, state, events, ticks, counts)
        for thread in state.threads.values():
            plan = session._engine.plan(thread.agent)
            for name in plan.sensitive:
                session._engine.trace.protect_field(name)
        return session

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the session as JSON, atomically (a temporary file, then a rename)."""
        target = Path(path)
        text = json.dumps(self.to_dict(), ensure_ascii=False, indent=1, sort_keys=True)
        directory = target.parent if str(target.parent) else Path(".")
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, target)
        except BaseException:
            if os.path.exists(temp):
                os.unlink(temp)
            raise

    @classmethod
    def load(cls, project: Project, path: str | os.PathLike[str], options: RuntimeOptions | None = None) -> Session:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as problem:
            raise SessionError(f"cannot read the session file {path}: {problem.strerror or problem}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as problem:
            raise SessionError(f"the session file {path} is not valid JSON: {problem}") from None
        return cls.from_dict(project, data, options)

    # --- internals -----------------------------------------------------------------------------

    def _shown_values(self, thread: Thread) -> dict[str, Any]:
        sensitive = self._engine.plan(thread.agent).sensitive
        return {k: (REDACTED if k in sensitive and v is not None else v) for k, v in thread.values.items()}


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


def _redact_state(engine: Engine, state: dict[str, Any]) -> dict[str, Any]:
    """Sensitive values are saved as `[redacted]` (the key stays, so `IS SET` still holds), and
    secrets the trace knows are scrubbed from message texts."""
    redactor = engine.trace.redactor
    if redactor.is_empty:
        return state

    def scrub(entry: dict[str, Any]) -> None:
        entry["text"] = redactor.apply(entry["text"])

    for thread in state["threads"]:
        sensitive = engine.plan(thread["agent"]).sensitive
        thread["values"] = {
            k: (REDACTED if k in sensitive and v is not None else redactor.apply(v))
            for k, v in thread["values"].items()
        }
        for entry in thread["history"]:
            scrub(entry)
    for entry in state["log"]:
        scrub(entry)
    for frame in state["stack"]:
        scrub(frame["utterance"])
    state["greeting"] = [[agent, redactor.apply(text)] for agent, text in state["greeting"]]
    return state


def _event(data: Mapping[str, Any]) -> TraceEvent:
    fields = {k: v for k, v in data.items() if k not in ("type", "seq", "turn", "thread", "agent", "ts")}
    return TraceEvent(data["type"], data["seq"], data["turn"], data["thread"], data["agent"], data["ts"], fields)


__all__ = ["Session"]
