"""Running agents from the editor: several conversations at once, each tied to the source.

A run starts from the project as it is at that moment and keeps a private copy of it, so later
edits never change a conversation under way (start a new run to pick them up). Whether the copy
may run is the one loader's answer (`abl.launch`), the same as for `abl run` and `abl test`: a
project with errors is refused with the errors listed. Every trace event of a run is
given the place in the source that caused it (`locate_event`): the route for a handoff and its
condition check, the return handler or the route's `ON_RETURN` for a return, the gather field,
the `COMPLETE` rule, the tool, the flow step; otherwise the agent's header line. A caller that
passes `on_event` is given each shown event the moment the engine stores it, so an editor can
draw the trace while the turn is still running.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abl.diagnostics import Diagnostic
from abl.ide.event_sources import EventLocator, LocatedEvent
from abl.ide.navigation import Location
from abl.launch import PROJECT_MEANING, LaunchRefused, launch
from abl.launch import entry_agent as launch_entry_agent
from abl.launch import project_errors as launch_errors
from abl.runtime import RuntimeOptions, Session, SessionError, start_session
from abl.runtime.local_limits import NotEnforced, reachable_not_enforced
from abl.runtime.testing.recorder import RecordedTurn, Recording
from abl.runtime.testing.recorder import write as write_test
from abl.runtime.trace import TraceEvent, TraceLevel
from abl.workspace import Project

MODELS = ("embedded", "scripted", "openai")


class RunError(ValueError):
    """A run cannot start or go on; `problems` lists what stands in the way, one per line, and
    `errors` the project's errors that do (file and diagnostic), for a client to link to."""

    def __init__(
        self, message: str, problems: list[str] | None = None, errors: list[tuple[str, Diagnostic]] | None = None
    ) -> None:
        super().__init__(message)
        self.problems = list(problems or [])
        self.errors = list(errors or [])


@dataclass(frozen=True, slots=True)
class TurnResult:
    replies: list[tuple[str, str]]  # (agent, text)
    active_agent: str
    events: list[LocatedEvent]
    ended: bool


EventListener = Callable[[LocatedEvent], None]


@dataclass
class Run:
    id: str
    project: Project
    agent: str
    session: Session
    level: TraceLevel
    recording: Recording
    locator: EventLocator
    greeting_events: list[LocatedEvent] = field(default_factory=list)
    # What the agents this run may reach declare that the local runtime does not enforce.
    not_enforced: tuple[NotEnforced, ...] = ()
    loaded_from: str | None = None  # the saved session this conversation continues, until a reset


def private_copy(project: Project) -> Project:
    """The project as it is now, read afresh, sharing nothing with the editor's project."""
    copy = Project(project.root)
    copy.default_history = project.default_history
    for path, text in project.texts.items():
        copy.update(path, text, tuple(project.read_diagnostics.get(path, ())))
    return copy


def project_errors(project: Project) -> list[str]:
    """Every error of the project as `path:line:col: error[CODE] message` (the one loader's)."""
    return launch_errors(project)


def entry_agent(project: Project, wanted: str | None) -> str:
    """The agent to start: the one asked for, else the project's only supervisor (or only agent)."""
    try:
        return launch_entry_agent(project, wanted)
    except LaunchRefused as refused:
        raise RunError(refused.message, refused.problems) from None


class RunManager:
    """Every run of one editor session, by id."""

    def __init__(self) -> None:
        self._runs: dict[str, Run] = {}
        self._ids = itertools.count(1)

    def start(
        self,
        project: Project,
        agent: str | None = None,
        model: str = "embedded",
        model_options: Mapping[str, Any] | None = None,
        mocks: Mapping[str, Any] | None = None,
        trace_level: str = "standard",
    ) -> Run:
        if model not in MODELS:
            raise RunError(f"unknown model `{model}`; use one of {', '.join(MODELS)}")
        copy = private_copy(project)
        try:
            name = launch(copy, agent).agent
        except LaunchRefused as refused:
            # The error may be in an agent other than the one asked for: say why it counts.
            message = f"{refused.message}. {PROJECT_MEANING}" if refused.errors else refused.message
            raise RunError(message, refused.problems, refused.errors) from None
        options = RuntimeOptions(
            model=model, model_options=dict(model_options or {}), mocks=dict(mocks or {}), trace_level="debug"
        )
        try:
            session = start_session(copy, name, options)
        except SessionError as err:
            raise RunError(str(err), err.problems) from None
        run_id = f"run-{next(self._ids)}"
        locator = EventLocator(copy)
        recording = Recording(
            project=Path(copy.root),
            agent=name,
            model=model,
            mocks=dict(mocks or {}),
            greeting=tuple((r.agent, r.text) for r in session.greeting),
            start_events=tuple(e.to_dict() for e in session.trace),
        )
        run = Run(run_id, copy, name, session, TraceLevel.parse(trace_level), recording, locator)
        run.not_enforced = tuple(reachable_not_enforced(copy, name))
        run.greeting_events = [locator.locate(e) for e in session.trace if e.at_level(run.level) is not None]
        self._runs[run_id] = run
        return run

    def get(self, run_id: str) -> Run:
        run = self._runs.get(run_id)
        if run is None:
            raise RunError(f"no run `{run_id}` (it ended, or the server restarted)")
        return run

    def send(self, run_id: str, text: str, on_event: EventListener | None = None) -> TurnResult:
        """One message; `on_event` gets each event shown at the run's level as it happens."""
        run = self.get(run_id)
        before = len(run.session.trace)
        # Located as they are stored: the locator follows the conversation (which child last
        # returned), so every event is located once, in order.
        where: dict[int, Location | None] = {}

        def shown(event: TraceEvent) -> None:
            if event.at_level(run.level) is None:
                return
            located = run.locator.locate(event)
            where[event.seq] = located.location
            if on_event is not None:
                on_event(located)

        stop_listening = run.session.trace_log.subscribe(shown)
        try:
            turn = run.session.send(text)
        finally:
            stop_listening()
        new = list(run.session.trace)[before:]
        run.recording.add(
            RecordedTurn(
                user=text,
                replies=tuple((r.agent, r.text) for r in turn.replies),
                active_agent=turn.active_agent,
                events=tuple(e.to_dict() for e in new),
                ended=bool(turn.ended),
            )
        )
        # The stored events, as they are after the whole turn (a secret registered late is
        # redacted here too), at the places found while they happened.
        events = [LocatedEvent(e.to_dict(), where[e.seq]) for e in new if e.seq in where]
        return TurnResult([(r.agent, r.text) for r in turn.replies], turn.active_agent, events, bool(turn.ended))

    def state(self, run_id: str) -> dict[str, Any]:
        """Variables (sensitive values redacted), the thread stack, and each thread's history."""
        run = self.get(run_id)
        state = run.session.state()
        history = run.session.history
        return {
            "activeAgent": state.active_agent,
            "values": state.values,
            "stack": state.stack,
            "ended": state.ended,
            "completed": state.completed,
            "threads": [
                {
                    "id": t.id,
                    "agent": t.agent,
                    "status": t.status,
                    "values": t.values,
                    "historyLength": t.history_length,
                }
                for t in state.threads
            ],
            "history": [{"role": m.role, "text": m.text, "agent": m.agent} for m in history],
        }

    def reset(self, run_id: str) -> tuple[list[tuple[str, str]], list[LocatedEvent]]:
        """Start the conversation again: the new greeting and the events of its `ON_START`."""
        run = self.get(run_id)
        run.session.reset()
        run.loaded_from = None
        run.recording.turns.clear()
        run.recording.greeting = tuple((r.agent, r.text) for r in run.session.greeting)
        run.recording.start_events = tuple(e.to_dict() for e in run.session.trace)
        run.locator = EventLocator(run.project)
        run.greeting_events = [run.locator.locate(e) for e in run.session.trace if e.at_level(run.level) is not None]
        return [(r.agent, r.text) for r in run.session.greeting], run.greeting_events

    def stop(self, run_id: str) -> None:
        run = self._runs.pop(run_id, None)
        if run is not None:
            run.session.stop()

    def stop_all(self) -> None:
        for run_id in list(self._runs):
            self.stop(run_id)

    def save(self, run_id: str, path: str) -> None:
        self.get(run_id).session.save(path)

    def load(self, run_id: str, path: str) -> list[LocatedEvent]:
        """Replace the run's conversation with a saved session; returns its trace events shown
        at the run's level, located in order (the locator follows the conversation as it went)."""
        run = self.get(run_id)
        try:
            run.session = Session.load(run.project, path, run.session.options)
        except (SessionError, OSError, ValueError) as err:
            raise RunError(f"cannot load the session: {err}") from None
        run.recording.turns.clear()
        run.loaded_from = path
        run.locator = EventLocator(run.project)
        return [run.locator.locate(e) for e in run.session.trace if e.at_level(run.level) is not None]

    def save_test(self, run_id: str, path: str) -> None:
        """Write the conversation so far as a conversation test (`abl test` runs it)."""
        run = self.get(run_id)
        if run.loaded_from is not None:
            raise RunError(
                f"this conversation continues the saved session {run.loaded_from}, and a test starts a new "
                "one: reset the run, then save the test"
            )
        if not run.recording.checkable:
            raise RunError("there is nothing to check yet: send a message first, then save the conversation as a test")
        try:
            write_test(run.recording, Path(path))
        except OSError as err:
            raise RunError(f"cannot write {path}: {err.strerror or err}") from None

    def __len__(self) -> int:
        return len(self._runs)
