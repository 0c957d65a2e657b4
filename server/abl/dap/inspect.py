"""What a stopped run shows: its threads, the stack of waiting parents, scopes and values.

Frame ids and variable references are handed out per stop and forgotten when the run goes on
(the protocol allows a client to use them only while the run is stopped). Values are shown as
ABL writes them: text in quotes, `true`/`false`, `null`; a list or object opens up. Names
declared sensitive show `[redacted]`, as everywhere else a value leaves the engine.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from abl.dap.debuggee import Debuggee, Stop, event_detail
from abl.dap.points import Point
from abl.expr import parse_condition
from abl.ide.navigation import Location
from abl.model import Agent
from abl.model.types import HandoffRoute
from abl.runtime.evaluation import fill, referenced_paths, value_of
from abl.runtime.plan import cached_plan
from abl.runtime.state import Thread
from abl.runtime.trace import REDACTED

# Names every condition may read besides an agent's own.
_ALWAYS_KNOWN = frozenset({"intent", "user", "session", "now", "true", "false", "null"})


_OPERATORS = ("AND", "OR", "NOT", "IS SET", "IS NOT SET", "CONTAINS", "IN")


class EvaluationProblem(Exception):
    """An expression that cannot be evaluated here; the message says why."""


@dataclass(frozen=True, slots=True)
class FrameView:
    id: int
    thread: str
    name: str
    location: Location | None
    point: Point | None
    top: bool  # the frame the run stopped in (the current event's)


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    value: Any
    settable: bool = False  # a thread value that `setVariable` may change
    known: bool = True  # False: declared but not set


Children = Callable[[], list[Variable]]


class Inspector:
    def __init__(self, debuggee: Debuggee, line_base: int = 1, column_base: int = 1) -> None:
        self.debuggee = debuggee
        self.line_base = line_base
        self.column_base = column_base
        self._frames: dict[int, FrameView] = {}
        self._children: dict[int, tuple[Children, str | None]] = {}  # ref -> (list, thread it may set)
        self._next = 1

    def forget(self) -> None:
        self._frames.clear()
        self._children.clear()

    # --- threads and frames --------------------------------------------------------------------

    def threads(self) -> list[dict[str, Any]]:
        data = self.debuggee.data
        if data is None:
            return []
        out = []
        for ident, thread in data.threads.items():
            label = f"{thread.agent} ({thread.status})"
            out.append({"id": self.debuggee.thread_id(ident), "name": label})
        return out

    def stack(self, number: int) -> list[dict[str, Any]]:
        debuggee, stop = self.debuggee, self.debuggee.stop
        ident = debuggee.abl_thread(number)
        thread = debuggee.thread(ident) if ident is not None else None
        if thread is None:
            return []
        frames = []
        if stop is not None and stop.thread == thread.id:
            frames.append(self._frame(thread.id, self._stop_name(stop), stop.location, stop.point, True))
        else:
            where, point = debuggee.last_location.get(thread.id, (None, None))
            if where is None:
                agent = debuggee.program.project.agent(thread.agent)
                where = Location(agent.path, agent.header.head_range) if agent is not None else None
            frames.append(self._frame(thread.id, f"{thread.agent} ({thread.status})", where, point, False))
        seen = {thread.id}
        child = thread
        while child.origin is not None and child.origin not in seen:
            parent = debuggee.thread(child.origin)
            if parent is None:
                break
            seen.add(parent.id)
            agent = debuggee.program.project.agent(parent.agent)
            route = _route_to(agent, child.agent) if agent is not None else None
            if agent is not None and route is not None:
                span = route.target.range if route.target is not None else route.dash_range
                where = Location(agent.path, span)
                point = debuggee.points.at(agent.path, span.start.line)
                name = f"{parent.agent}: waiting on {child.agent} ({parent.status})"
            else:
                where = Location(agent.path, agent.header.head_range) if agent is not None else None
                point = None
                name = f"{parent.agent}: handed to {child.agent} ({parent.status})"
            frames.append(self._frame(parent.id, name, where, point, False))
            child = parent
        return [self._frame_body(f) for f in frames]

    def frame(self, ident: int) -> FrameView | None:
        return self._frames.get(ident)

    def _frame(self, thread: str, name: str, where: Location | None, point: Point | None, top: bool) -> FrameView:
        view = FrameView(self._take(), thread, name, where, point, top)
        self._frames[view.id] = view
        return view

    def _frame_body(self, frame: FrameView) -> dict[str, Any]:
        body: dict[str, Any] = {"id": frame.id, "name": frame.name, "line": 0, "column": 0}
        if frame.location is not None:
            span = frame.location.range
            body.update(
                source=source_of(frame.location.path),
                line=span.start.line + self.line_base,
                column=span.start.character + self.column_base,
                endLine=span.end.line + self.line_base,
                endColumn=span.end.character + self.column_base,
            )
        return body

    def _stop_name(self, stop: Stop) -> str:
        event = stop.event
        if event is None:
            thread = self.debuggee.thread(stop.thread)
            return f"{thread.agent if thread is not None else 'the session'}: waiting for the customer"
        if stop.point is not None and stop.point.kind == "agent" and stop.reason != "entry":
            return f"{event.agent}: takes control"
        return f"{event.agent}: {event_detail(event.type, event.fields)}"

    # --- scopes and variables ------------------------------------------------------------------

    def scopes(self, frame_id: int) -> list[dict[str, Any]]:
        frame = self._frames.get(frame_id)
        if frame is None:
            return []
        thread = self.debuggee.thread(frame.thread)
        if thread is None:
            return []
        scopes = [self._scope("Values", lambda: self._values(thread), thread.id)]
        route = self._route_of(frame, thread)
        if route is not None:
            scopes.append(self._scope("Route", lambda: self._route_values(frame, thread, route)))
        stop = self.debuggee.stop
        if frame.top and stop is not None and stop.event is not None:
            event = stop.event
            scopes.append(self._scope("Event", lambda: [Variable("type", event.type), *_plain(event.fields)]))
        scopes.append(self._scope("Session", lambda: self._session_values(thread), expensive=True))
        return scopes

    def variables(self, reference: int) -> list[dict[str, Any]]:
        found = self._children.get(reference)
        if found is None:
            return []
        make, settable_in = found
        return [self._variable(v, settable_in if v.settable else None) for v in make()]

    def set_variable(self, reference: int, name: str, text: str) -> dict[str, Any]:
        found = self._children.get(reference)
        if found is None:
            raise EvaluationProblem("that scope is gone: the run went on since it was shown")
        thread = self.debuggee.thread(found[1]) if found[1] is not None else None
        if thread is None:
            raise EvaluationProblem("only a thread's own values can be changed (the Values scope)")
        value, problems = value_of(text, thread.values, self.debuggee.env)
        if problems:
            raise EvaluationProblem(f"`{text}` cannot be read as a value: {problems[0]}")
        thread.set_value(name, value)
        shown = self._variable(Variable(name, value, True), thread.id)
        return {k: shown[k] for k in ("value", "type", "variablesReference") if k in shown}

    def _scope(
        self, name: str, make: Children, settable_in: str | None = None, expensive: bool = False
    ) -> dict[str, Any]:
        reference = self._take()
        self._children[reference] = (make, settable_in)
        return {"name": name, "variablesReference": reference, "expensive": expensive}

    def _variable(self, variable: Variable, settable_in: str | None) -> dict[str, Any]:
        value = variable.value
        body: dict[str, Any] = {"name": variable.name, "value": show(value), "variablesReference": 0}
        if not variable.known:
            body.update(value="not set", type="unset")
        else:
            body["type"] = type_name(value)
        if settable_in is not None:
            body["evaluateName"] = variable.name
        if isinstance(value, dict) and value:
            body["variablesReference"] = self._open(lambda: _plain(value))
            body["namedVariables"] = len(value)
        elif isinstance(value, list) and value:
            body["variablesReference"] = self._open(lambda: [Variable(f"[{i}]", v) for i, v in enumerate(value)])
            body["indexedVariables"] = len(value)
        if settable_in is None:
            body["presentationHint"] = {"attributes": ["readOnly"]}
        return body

    def _open(self, make: Children) -> int:
        reference = self._take()
        self._children[reference] = (make, None)
        return reference

    def _values(self, thread: Thread) -> list[Variable]:
        hidden = self._sensitive(thread)
        shown = [
            Variable(name, REDACTED if name in hidden else value, True)
            for name, value in thread.values.items()
            if not name.startswith("_")
        ]
        agent = self.debuggee.program.project.agent(thread.agent)
        if agent is not None:
            declared = [f.name.text for f in agent.all_gather_fields()] + [v.name.text for v in agent.memory]
            shown += [Variable(n, None, True, known=False) for n in dict.fromkeys(declared) if n not in thread.values]
        return shown

    def _sensitive(self, thread: Thread) -> frozenset[str]:
        agent = self.debuggee.program.project.agent(thread.agent)
        return cached_plan(agent, self.debuggee.program.project).sensitive if agent is not None else frozenset()

    def _route_of(self, frame: FrameView, thread: Thread) -> HandoffRoute | None:
        point = frame.point
        if point is None or point.kind not in ("route", "on_return"):
            return None
        agent = self.debuggee.program.project.agent(point.agent)
        index = int(point.key[2]) if len(point.key) > 2 and point.key[2].lstrip("-").isdigit() else None
        return next((r for r in agent.handoffs if r.index == index), None) if agent is not None else None

    def _route_values(self, frame: FrameView, thread: Thread, route: HandoffRoute) -> list[Variable]:
        env = self.debuggee.env
        out = [Variable("to", route.target.text if route.target is not None else None)]
        if route.when is not None:
            out.append(Variable("when", route.when.text))
        hidden = self._sensitive(thread)
        passed = {n.text: (REDACTED if n.text in hidden else thread.values.get(n.text)) for n in route.passes}
        out.append(Variable("pass", passed))
        if route.summary is not None:
            out.append(Variable("summary", fill(route.summary.text, thread.values, env)))
        out.append(Variable("history", {"mode": route.history_mode, "count": _history_count(route)}))
        out.append(Variable("return", route.is_returnable))
        stop = self.debuggee.stop
        event = stop.event if frame.top and stop is not None else None
        if event is not None and event.type == "handoff":
            data = self.debuggee.data
            child = data.threads.get(data.active) if data is not None else None
            if child is not None and child.id != thread.id:
                messages = [{"role": e.role, "agent": e.agent, "text": e.text} for e in child.history]
                out.append(Variable("history messages", messages))
        if event is not None and event.type == "handoff_condition_check":
            out.append(Variable("result", event.get("result")))
        return out

    def _session_values(self, thread: Thread) -> list[Variable]:
        data = self.debuggee.data
        if data is None:
            return []
        waiting = [{"parent": f.parent, "child": f.child, "route": f.route} for f in data.stack]
        return [
            Variable("turn", data.turn),
            Variable("entry agent", data.entry_agent),
            Variable("active thread", data.active),
            Variable("handoff chain", list(data.chain)),
            Variable("waiting parents", waiting),
            Variable("ended", data.ended),
            Variable("thread status", thread.status),
            Variable("thread history", len(thread.history)),
        ]

    # --- evaluate ------------------------------------------------------------------------------

    def evaluate(self, expression: str, frame_id: int | None, context: str) -> dict[str, Any] | None:
        """The value of an ABL expression or `{{ }}` template in the frame's thread; None when a
        console line is not an expression (it is the customer's next message)."""
        thread = self._thread_for(frame_id)
        text = expression.strip()
        if context == "repl" and not self.is_expression(text, thread):
            return None
        if thread is None:
            raise EvaluationProblem("no thread is running yet")
        if "{{" in text:
            template = text[1:-1] if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'" else text
            value: Any = fill(template, thread.values, self.debuggee.env, self._masks(thread))
        else:
            parsed = parse_condition(text)
            if parsed.errors or parsed.expr is None or parsed.natural_language:
                reason = parsed.errors[0].message if parsed.errors else "it is not an expression"
                raise EvaluationProblem(f"`{text}` cannot be evaluated: {reason}")
            value, problems = value_of(text, thread.values, self.debuggee.env)
            if problems:
                raise EvaluationProblem(f"`{text}`: {problems[0]}")
            roots = {p.split(".", 1)[0] for p in referenced_paths(parsed)}
            if roots & self._sensitive(thread):
                value = REDACTED
        shown = self._variable(Variable(text, value), None)
        return {"result": shown["value"], "type": shown.get("type"), "variablesReference": shown["variablesReference"]}

    def is_expression(self, text: str, thread: Thread | None) -> bool:
        """Whether a console line is an expression to evaluate: it reads, and reads only names
        the thread knows. A plain sentence, a number or a word the agent does not know is what
        the customer says next."""
        if not text:
            return False
        if "{{" in text:
            return True
        parsed = parse_condition(text)
        if parsed.errors or parsed.expr is None or parsed.natural_language:
            return False
        roots = {p.split(".", 1)[0] for p in referenced_paths(parsed)}
        return bool(roots) and roots <= self._known_names(thread)

    def completions(self, text: str, column: int, frame_id: int | None) -> list[dict[str, Any]]:
        """Names and operators for the console: the word before `column` (0-based) completed."""
        before = text[:column]
        start = len(before)
        while start > 0 and (before[start - 1].isalnum() or before[start - 1] in "_."):
            start -= 1
        word = before[start:]
        thread = self._thread_for(frame_id)
        names = sorted(self._known_names(thread) - {"true", "false", "null"})
        found: list[dict[str, Any]] = [{"label": n, "type": "variable"} for n in names if n.startswith(word)]
        found += [{"label": k, "type": "keyword"} for k in _OPERATORS if k.startswith(word.upper()) and word]
        for item in found:
            item["start"], item["length"] = start, len(word)
        return found

    def _known_names(self, thread: Thread | None) -> set[str]:
        if thread is None:
            return set()
        known = set(thread.values) | _ALWAYS_KNOWN
        agent = self.debuggee.program.project.agent(thread.agent)
        if agent is not None:
            known |= {f.name.text for f in agent.all_gather_fields()}
            known |= {v.name.text.split(".", 1)[0] for v in agent.memory}
        return known

    def _masks(self, thread: Thread) -> Mapping[str, Any]:
        agent = self.debuggee.program.project.agent(thread.agent)
        return cached_plan(agent, self.debuggee.program.project).masks if agent is not None else {}

    def _thread_for(self, frame_id: int | None) -> Thread | None:
        debuggee = self.debuggee
        frame = self._frames.get(frame_id) if frame_id is not None else None
        if frame is not None:
            return debuggee.thread(frame.thread)
        if debuggee.stop is not None:
            return debuggee.thread(debuggee.stop.thread)
        data = debuggee.data
        return data.threads.get(data.active) if data is not None else None

    def _take(self) -> int:
        ident = self._next
        self._next += 1
        return ident


def source_of(path: str) -> dict[str, Any]:
    return {"name": os.path.basename(path), "path": os.path.abspath(path)}


def show(value: Any) -> str:
    """A value as ABL writes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _plain(values: Mapping[str, Any]) -> list[Variable]:
    return [Variable(str(name), value) for name, value in values.items()]


def _history_count(route: HandoffRoute) -> int | None:
    return route.history.resolved_count if route.history is not None else None


def _route_to(agent: Agent, target: str) -> HandoffRoute | None:
    routes = [r for r in agent.handoffs if r.target is not None and r.target.text == target]
    return next(iter([r for r in routes if r.is_returnable] or routes), None)
