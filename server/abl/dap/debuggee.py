"""One debug run: the session on its own thread, held at pause points while the user looks.

The engine tells the debuggee of every trace event as it is emitted (`RuntimeOptions.observer`)
and knows nothing else of debugging. Each event is placed at its source (`abl.ide.event_sources`)
and so at a pause point (`abl.dap.points`); there the debuggee decides whether to stop: a pause
asked for, an exception filter, the entry, a step that is complete, or a breakpoint whose
condition and hit count hold (a logpoint writes and goes on). A stop keeps the engine's thread
waiting until the client resumes it; every question about values is answered meanwhile from the
session's data, which nothing changes while it waits.

The engine's thread holds `lock` whenever it runs the engine, and gives it up only while it
waits (held at a stop, or for the customer's next message), so the requests' thread reads the
session's data only when it is still.
"""

from __future__ import annotations

import enum
import os
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from abl.dap.breakpoints import Breakpoint, Breakpoints
from abl.dap.points import PausePoints, Point
from abl.dap.program import Program
from abl.expr import Environment
from abl.ide.event_sources import EventLocator
from abl.ide.navigation import Location
from abl.runtime import Session, SessionError, start_session
from abl.runtime.evaluation import check, fill
from abl.runtime.events import EVENTS, Source
from abl.runtime.state import COMPLETED, SessionData, Thread
from abl.runtime.trace import DEFAULT_START, TraceEvent

# Exception filters: id -> (label, what it stops on, on by default).
EXCEPTION_FILTERS = {
    "refused_handoff": ("Refused handoffs", "A handoff the target rejected or a guard blocked", False),
    "failed_handoff": ("Failed handoffs", "A handoff that ended in an error or a timeout", False),
    "memory_error": ("Memory errors", "A return whose effects were refused (memory_error)", True),
    "validation": ("Validation failures", "A GATHER value that failed its validation", False),
    "error": ("Runtime errors", "A failure the turn could not get past (error events)", True),
}


# Events that replay the customer's message: they belong to the ON_RETURN that asked for it,
# not to the route they are located at.
_REPLAYS = frozenset({"resume_intent", "resume_intent_depth_limit"})


# Events that only say how the work an earlier event started ended.
_CONCLUDING = frozenset({"tool_result", "handoff_completed", "delegate_complete"})


class Abandoned(BaseException):
    """Raised inside the engine to end a run that was restarted, terminated or disconnected.
    Not an `Exception`, so that no handler inside the engine mistakes it for a failure."""


class Step(enum.Enum):
    NEXT = "next"
    IN = "in"
    OUT = "out"


@dataclass(frozen=True, slots=True)
class Stop:
    reason: str  # entry | breakpoint | step | pause | exception
    thread: str  # the ABL thread held there
    event: TraceEvent | None  # None: paused between turns
    location: Location | None
    point: Point | None
    description: str
    breakpoints: tuple[int, ...] = ()
    exception: tuple[str, str] | None = None  # (id, description)


@dataclass(frozen=True, slots=True)
class _Stepping:
    mode: Step
    thread: str
    seq: int  # the event the step started from
    point: Point | None


Send = Callable[[str, dict[str, Any] | None], None]  # (event name, body)


class Debuggee:
    def __init__(self, program: Program, breakpoints: Breakpoints, send: Send) -> None:
        self.program = program
        self.points = PausePoints(program.project)
        self.breakpoints = breakpoints
        self._send = send
        self.lock = threading.Condition(threading.RLock())
        self.env = Environment(now=lambda: DEFAULT_START, make_id=lambda n: "0" * max(n, 1))
        self.data: SessionData | None = None
        self.session: Session | None = None
        self.stop: Stop | None = None
        self.exception_filters: set[str] = set()
        self.thread_numbers: dict[str, int] = {}  # ABL thread id -> DAP thread id
        self.last_location: dict[str, tuple[Location, Point | None]] = {}
        self.ended = False
        self._locator = EventLocator(program.project)
        self._inbox: deque[str] = deque(program.messages or ())
        self._scripted = program.messages is not None
        self._stepping: _Stepping | None = None
        self._pause_asked = False
        self._abandoned = False
        self._idle = False
        self._last_thread = ""
        self._in_control = ""  # the thread that last took control
        self._last_point: dict[str, Point | None] = {}  # per thread: the point it was last at
        self._said = 0  # entries of the conversation already written to the console
        self._worker = threading.Thread(target=self._run, name="abl-session", daemon=True)

    # --- the client's side ---------------------------------------------------------------------

    def start(self) -> None:
        self._worker.start()

    def resume(self, step: Step | None = None) -> None:
        """Go on from the current stop, stepping as asked."""
        with self.lock:
            stop = self.stop
            if stop is None:
                return
            if step is not None:
                seq = stop.event.seq if stop.event is not None else 0
                self._stepping = _Stepping(step, stop.thread, seq, stop.point)
            self.stop = None
            self.lock.notify_all()

    def pause(self) -> None:
        """Stop at the next event; between turns, at once."""
        self._pause_asked = True
        if self.lock.acquire(timeout=0.2):  # the engine is running when it cannot be had
            try:
                if self._idle and self.stop is None:
                    self._stop_between_turns()
            finally:
                self.lock.release()

    def say(self, text: str) -> None:
        """The customer's next message."""
        with self.lock:
            self._inbox.append(text)
            self.lock.notify_all()

    def abandon(self, wait: float = 2.0) -> None:
        """End the run: the engine's thread leaves the session wherever it is."""
        self._abandoned = True
        with self.lock:
            self.lock.notify_all()
        if self._worker.is_alive() and threading.current_thread() is not self._worker:
            self._worker.join(wait)

    def thread(self, ident: str) -> Thread | None:
        return self.data.threads.get(ident) if self.data is not None else None

    def thread_id(self, ident: str) -> int:
        number = self.thread_numbers.get(ident)
        if number is None:
            number = len(self.thread_numbers) + 1
            self.thread_numbers[ident] = number
        return number

    def abl_thread(self, number: int) -> str | None:
        return next((ident for ident, n in self.thread_numbers.items() if n == number), None)

    @property
    def waiting_for_customer(self) -> bool:
        return self._idle and not self._scripted

    # --- the engine's side ---------------------------------------------------------------------

    def _run(self) -> None:
        program = self.program
        options = replace(program.options, observer=self._observe)
        with self.lock:
            for line in program.ignored:
                self._output(line + "\n", "console")
            try:
                self.session = start_session(program.project, program.agent, options)
                self._tell_threads()
                self._write_conversation()
                while not self._finished():
                    message = self._next_message()
                    if message is None:
                        break
                    self._output(f"> {message}\n", "console")
                    self.session.send(message)
                    self._tell_threads()
                    self._write_conversation()
                    self._last_point.clear()  # a new turn may stop again where the last one did
            except Abandoned:
                return
            except SessionError as err:
                self._output(
                    f"cannot start {program.agent}: {err}\n" + "".join(f"  {p}\n" for p in err.problems), "stderr"
                )
            except Exception as err:  # an engine failure ends the run with what happened, not the adapter
                self._output(f"the run stopped on an internal error: {type(err).__name__}: {err}\n", "stderr")
            self._finish()

    def _finished(self) -> bool:
        data = self.data
        return data is not None and data.ended and data.end_reason != "complete"

    def _next_message(self) -> str | None:
        self._idle = True
        try:
            while not self._abandoned:
                if self._pause_asked and self.stop is None:
                    self._stop_between_turns()
                if self.stop is None and self._inbox:
                    return self._inbox.popleft()
                if self.stop is None and self._scripted:
                    return None  # every message of the script was sent
                self.lock.wait()
            raise Abandoned
        finally:
            self._idle = False

    def _finish(self) -> None:
        self.ended = True
        if self.data is not None and self.data.ended:
            self._output(f"the session ended ({self.data.end_reason})\n", "console")
        for number in self.thread_numbers.values():
            self._send("thread", {"reason": "exited", "threadId": number})
        self._send("exited", {"exitCode": 0})
        self._send("terminated", None)

    def _observe(self, event: TraceEvent, data: SessionData) -> None:
        if self._abandoned:
            raise Abandoned
        try:
            self._look(event, data)
        except Exception as err:  # a fault of the debugger must not end the agent's run (Abandoned passes)
            self._output(
                f"abl dap: cannot pause at {event.type} (seq {event.seq}): {type(err).__name__}: {err}\n", "stderr"
            )

    def _look(self, event: TraceEvent, data: SessionData) -> None:
        self.data = data
        self._tell_threads()
        self._write_conversation()
        located = self._locator.locate(event).location
        described = EVENTS.get(event.type)
        point = None
        if located is not None and (
            described is None or described.source is not Source.AGENT or event.type == "session_start"
        ):
            point = self.points.at(located.path, located.range.start.line)
            if point is not None and point.kind == "route" and event.type in _REPLAYS:
                point = self._on_return_of(point)
        if located is not None and event.thread:
            self.last_location[event.thread] = (located, point)
        switched = bool(event.thread) and event.thread != self._last_thread
        if event.thread:
            self._last_thread = event.thread
        # An agent takes control at the first event of its thread once that thread is the
        # active one (a parent's bookkeeping while its child runs does not count).
        took_control = bool(event.thread) and event.thread == data.active and event.thread != self._in_control
        if event.thread == data.active:
            self._in_control = event.thread
        if not self.program.no_debug:
            stop = self._decide(event, data, located, point, switched, took_control)
            if stop is not None:
                self._hold(stop)
        if point is not None and event.thread:
            self._last_point[event.thread] = point

    def _decide(
        self,
        event: TraceEvent,
        data: SessionData,
        located: Location | None,
        point: Point | None,
        switched: bool,
        took_control: bool,
    ) -> Stop | None:
        where = located if located is not None else self._header(event.agent)
        at = point if point is not None else self._header_point(event.agent)
        if self._pause_asked:
            return Stop("pause", event.thread, event, where, at, "Paused")
        exception = self._exception(event)
        if exception is not None:
            return Stop("exception", event.thread, event, where, at, exception[1], exception=exception)
        if event.type == "session_start" and self.program.stop_on_entry:
            return Stop("entry", event.thread, event, where, at, f"{event.agent} starts")
        if self._step_done(event, data, point, switched):
            return Stop("step", event.thread, event, where, at, _describe(event, point))
        candidates = []  # the event's own construct first: the stop is shown there
        if point is not None and _arrives(event) and self._last_point.get(event.thread) != point:
            candidates.append(point)
        if took_control and event.agent:
            header = self._header_point(event.agent)
            if header is not None and header != point:
                candidates.append(header)
        hit = self._breakpoints_hit(candidates, event, data)
        if hit:
            # The editor shows the stop on the line the breakpoint is on (any line of the construct).
            first = hit[0]
            path = first.point.path if first.point is not None else where.path if where is not None else ""
            on_line = Location(path, self.points.line_range(path, first.line)) if path else where
            return Stop(
                "breakpoint", event.thread, event, on_line, at, _describe(event, point), tuple(b.id for b in hit)
            )
        return None

    def _step_done(self, event: TraceEvent, data: SessionData, point: Point | None, switched: bool) -> bool:
        step = self._stepping
        if step is None or event.seq <= step.seq or not event.thread:
            return False
        other = event.thread != step.thread
        if step.mode is Step.NEXT:
            return point is not None and (not other or not _alive(data, step.thread))
        if step.mode is Step.IN:
            if other:
                return point is not None or switched
            return point is not None and point != step.point
        # OUT: once the thread gave control back to the one that started it, or ended.
        started = data.threads.get(step.thread)
        back = (
            started is None
            or started.status == COMPLETED
            or (started.origin is not None and data.active == started.origin)
        )
        return other and back and (point is not None or switched)

    def _breakpoints_hit(self, candidates: Sequence[Point], event: TraceEvent, data: SessionData) -> list[Breakpoint]:
        thread = data.threads.get(event.thread)
        values = thread.values if thread is not None else {}
        stopping = []
        for point in candidates:
            for found in self.breakpoints.at(point):
                if found.condition is not None and not check(found.condition, values, None, self.env).result:
                    continue
                found.hits += 1
                if found.hit is not None and not found.hit.holds(found.hits):
                    continue
                if found.log is not None:
                    text = fill(found.log, values, self.env)
                    self._output(text + "\n", "console", point)
                    continue
                stopping.append(found)
        return stopping

    def _exception(self, event: TraceEvent) -> tuple[str, str] | None:
        filters = self.exception_filters
        if not filters:
            return None
        kind = event.type
        if kind == "handoff_completed":
            outcome = event.get("outcome")
            cause = event.get("cause") or event.get("code") or outcome
            if outcome in ("rejected", "blocked") and "refused_handoff" in filters:
                return "refused_handoff", f"The handoff to {event.get('to')} was {outcome}: {cause}"
            if outcome in ("error", "timeout") and "failed_handoff" in filters:
                return "failed_handoff", f"The handoff to {event.get('to')} failed ({outcome}): {cause}"
        if kind == "resume_intent_depth_limit" and "refused_handoff" in filters:
            return "refused_handoff", "A second-level replay of the customer's message was refused"
        if kind == "memory_error" and "memory_error" in filters:
            return "memory_error", str(event.get("message") or "A return's effects were refused")
        if kind == "gather" and event.get("valid") is False and "validation" in filters:
            reason = event.get("reason") or "the value failed its validation"
            return "validation", f"{event.get('field')}: {reason}"
        if kind == "error" and "error" in filters:
            return "error", f"{event.get('code')}: {event.get('message')}"
        return None

    def _hold(self, stop: Stop) -> None:
        self.stop = stop
        self._stepping = None
        self._pause_asked = False
        body: dict[str, Any] = {
            "reason": stop.reason,
            "threadId": self.thread_id(stop.thread) if stop.thread else 1,
            "allThreadsStopped": True,
            "description": stop.description,
        }
        if stop.breakpoints:
            body["hitBreakpointIds"] = list(stop.breakpoints)
        if stop.exception is not None:
            body["text"] = stop.exception[1]
        self._send("stopped", body)
        while self.stop is stop and not self._abandoned:
            self.lock.wait()
        if self._abandoned:
            raise Abandoned

    def _stop_between_turns(self) -> None:
        data = self.data
        self._pause_asked = False
        if data is None:
            return
        active = data.threads.get(data.active)
        if active is None:
            return
        where, point = self.last_location.get(active.id, (self._header(active.agent), self._header_point(active.agent)))
        self.stop = Stop("pause", active.id, None, where, point, "Waiting for the customer's next message")
        self._send(
            "stopped",
            {
                "reason": "pause",
                "threadId": self.thread_id(active.id),
                "allThreadsStopped": True,
                "description": self.stop.description,
            },
        )

    # --- helpers -------------------------------------------------------------------------------

    def _on_return_of(self, route: Point) -> Point | None:
        """A replay of the customer's message is what the route's ON_RETURN asked for."""
        agent = self.program.project.agent(route.agent)
        found = next((r for r in agent.handoffs if str(r.index) == route.key[2]), None) if agent is not None else None
        if found is None or found.on_return is None:
            return route
        return self.points.at(route.path, found.on_return.key_range.start.line)

    def _header(self, agent: str) -> Location | None:
        found = self.program.project.agent(agent) if agent else None
        return Location(found.path, found.header.head_range) if found is not None else None

    def _header_point(self, agent: str) -> Point | None:
        where = self._header(agent)
        return self.points.at(where.path, where.range.start.line) if where is not None else None

    def _tell_threads(self) -> None:
        data = self.data if self.data is not None else (self.session.engine.data if self.session is not None else None)
        if data is None:
            return
        self.data = data
        for ident in data.threads:
            if ident not in self.thread_numbers:
                self._send("thread", {"reason": "started", "threadId": self.thread_id(ident)})

    def _write_conversation(self) -> None:
        data = self.data
        if data is None:
            return
        for entry in data.log[self._said :]:
            if entry.role == "user":
                continue  # the console already shows what the customer said
            self._output(f"[{entry.agent}] {entry.text}\n", "stdout")
        self._said = len(data.log)

    def _output(self, text: str, category: str, point: Point | None = None) -> None:
        body: dict[str, Any] = {"category": category, "output": text}
        if point is not None:
            body["source"] = {"name": os.path.basename(point.path), "path": os.path.abspath(point.path)}
            body["line"] = point.first + 1
        self._send("output", body)


def _arrives(event: TraceEvent) -> bool:
    """Whether an event starts work at its construct: a breakpoint stops there, and not again on
    the events that only say how that work ended (stepping stops on both)."""
    if event.type in _CONCLUDING:
        return False
    return event.type != "flow_step" or event.get("action") not in ("wait", "transition", "end")


def _alive(data: SessionData, ident: str) -> bool:
    thread = data.threads.get(ident)
    return thread is not None and thread.status != COMPLETED


def _describe(event: TraceEvent, point: Point | None) -> str:
    if point is None or point.kind == "agent":
        return f"{event.agent} takes control"
    return f"{event.agent}: {event_detail(event.type, event.fields)}"


def event_detail(kind: str, fields: Mapping[str, Any]) -> str:
    if kind == "handoff_condition_check":
        route = fields.get("route")
        number = route + 1 if isinstance(route, int) else "?"
        return f"route {number} to {fields.get('target')}: WHEN {fields.get('condition')}"
    if kind == "handoff":
        return f"hands off to {fields.get('to')}"
    if kind == "gather":
        return f"GATHER {fields.get('field')}"
    if kind == "handoff_return_handler":
        return f"{fields.get('from')} returned ({fields.get('action')})"
    if kind == "flow_step":
        return f"step {fields.get('step')} ({fields.get('action')})"
    if kind in ("tool_call", "tool_result"):
        return f"{kind.replace('_', ' ')} {fields.get('tool')}"
    if kind in ("delegate_start", "delegate_complete"):
        return f"{kind.replace('_', ' ')} {fields.get('to')}"
    return kind.replace("_", " ")
