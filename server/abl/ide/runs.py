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
from abl.launch import PROJECT_MEANING, LaunchRefused, launch
from abl.launch import entry_agent as launch_entry_agent
from abl.launch import project_errors as launch_errors
from abl.model import Agent
from abl.model.steps import FlowStep
from abl.model.types import HandoffRoute
from abl.runtime import RuntimeOptions, Session, SessionError, start_session
from abl.runtime.local_limits import NotEnforced, reachable_not_enforced
from abl.runtime.testing.recorder import RecordedTurn, Recording
from abl.runtime.testing.recorder import write as write_test
from abl.runtime.trace import TraceEvent, TraceLevel
from abl.text import Range
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
class Location:
    path: str
    range: Range


@dataclass(frozen=True, slots=True)
class LocatedEvent:
    event: dict[str, Any]  # the same fields as a `--trace-out` line
    location: Location | None


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


# --- where an event comes from --------------------------------------------------------------------


class EventLocator:
    """Finds the source of trace events of one run (in its private project)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._returned_from: dict[str, str] = {}  # parent agent → the child that last returned to it

    def locate(self, event: TraceEvent) -> LocatedEvent:
        data = event.to_dict()
        return LocatedEvent(data, self._where(event))

    def _where(self, event: TraceEvent) -> Location | None:
        agent = self.project.agent(event.agent) if event.agent else None
        kind = event.type
        if kind == "handoff_return_handler":
            parent = self.project.agent(str(event.get("to") or ""))
            child = str(event.get("from") or "")
            if parent is not None:
                self._returned_from[parent.name.text] = child
                handler = event.get("handler")
                found = next((h for h in parent.return_handlers if h.name.text == handler), None)
                if found is not None:
                    return Location(parent.path, found.name.range)
                route = _route_to(parent, child)
                if route is not None and route.on_return is not None:
                    return Location(parent.path, route.on_return.key_range)
            return None
        if agent is None:
            return None
        if kind in ("handoff", "handoff_condition_check") and isinstance(event.get("route"), int):
            route = _route_at(agent, event.get("route"))
            if route is not None:
                if kind == "handoff_condition_check" and route.when is not None:
                    return Location(agent.path, route.when.range)
                where = route.target.range if route.target is not None else route.dash_range
                return Location(agent.path, where)
        if kind == "handoff_completed":
            route = _route_to(agent, str(event.get("to") or ""))
            if route is not None:
                return Location(agent.path, route.target.range if route.target is not None else route.dash_range)
        if kind in ("resume_intent", "resume_intent_depth_limit"):
            child = self._returned_from.get(agent.name.text, "")
            route = _route_to(agent, child)
            if route is not None:
                where = route.target.range if route.target is not None else route.dash_range
                return Location(agent.path, where)
        if kind == "gather":
            name = event.get("field")
            field = next((f for f in agent.all_gather_fields() if f.name.text == name), None)
            if field is not None:
                return Location(agent.path, field.name.range)
        if kind == "complete":
            rule = event.get("rule")
            index = rule.get("index") if isinstance(rule, dict) else None
            if isinstance(index, int) and 0 <= index < len(agent.complete):
                return Location(agent.path, agent.complete[index].range)
        if kind in ("tool_call", "tool_result", "tool_call_retry"):
            tool = _tool(self.project, str(event.get("tool") or ""))
            if tool is not None:
                return tool
        if kind in ("delegate_start", "delegate_complete"):
            target = event.get("to")
            found_delegate = next(
                (d for d in agent.delegates if d.target is not None and d.target.text == target), None
            )
            if found_delegate is not None:
                return Location(agent.path, found_delegate.range)
        if kind in _STEP_EVENTS and agent.flow is not None:
            found_step = agent.flow.step(str(event.get("step") or ""))
            if found_step is not None:
                return Location(agent.path, _step_part(found_step, event))
        return Location(agent.path, agent.header.head_range)


# Events about a flow step: located at the step, or at the part of it that fired.
_STEP_EVENTS = frozenset(
    {
        "flow_step",
        "digression",
        "sub_intent",
        "correction",
        "action_handler_executed",
        "transform",
        "log",
        "error_handler_resolved",
    }
)


def _step_part(step: FlowStep, event: TraceEvent) -> Range:
    kind = event.type
    if kind == "digression" and event.get("scope") == "step":
        found = next((d for d in step.digressions if d.intent == event.get("intent")), None)
        return found.range if found is not None else step.name.range
    if kind == "sub_intent":
        sub = next((s for s in step.sub_intents if s.intent == event.get("intent")), None)
        return sub.range if sub is not None else step.name.range
    if kind == "action_handler_executed":
        handler = next((h for h in step.on_action if h.action == event.get("action")), None)
        return handler.range if handler is not None else step.name.range
    if kind == "error_handler_resolved" and event.get("scope") == "step":
        found_handler = next((h for h in step.on_error if h.type == event.get("handler")), None)
        return found_handler.range if found_handler is not None else step.name.range
    return step.name.range


def _route_at(agent: Agent, index: Any) -> HandoffRoute | None:
    return next((r for r in agent.handoffs if r.index == index), None)


def _route_to(agent: Agent, target: str) -> HandoffRoute | None:
    routes = [r for r in agent.handoffs if r.target is not None and r.target.text == target]
    returnable = [r for r in routes if r.is_returnable]
    return next(iter(returnable or routes), None)


def _tool(project: Project, name: str) -> Location | None:
    for doc in project.documents.values():
        for tool in doc.library_tools:
            if tool.name.text == name:
                return Location(doc.path, tool.name.range)
        for agent in doc.agents:
            for tool in agent.tools:
                if tool.name.text == name:
                    return Location(doc.path, tool.name.range)
    return None
