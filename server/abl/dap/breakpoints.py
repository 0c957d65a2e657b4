"""The breakpoints a client set: where each one is, and what it needs to stop.

A condition is written in ABL's condition language and read once, when the breakpoint is set
(one that cannot be read is refused, so that it is never silently ignored). A hit condition
counts the hits whose condition held: `3` or `== 3` stops on the third, `>= 3` from the third
on, `> 3`, `< 3`, `<= 3`, and `% 3` on every third. A log message is a `{{ }}` template: it is
written to the debug console and the engine goes on.
"""

from __future__ import annotations

import operator
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from abl.dap.points import PausePoints, Point, normal_path
from abl.expr import ConditionParse, parse_condition

_HIT = re.compile(r"^\s*(==|>=|<=|>|<|%)?\s*(\d+)\s*$")
_HIT_TESTS: Mapping[str, Callable[[int, int], bool]] = {
    "==": operator.eq,
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "%": lambda hits, n: hits % n == 0,
}


@dataclass(frozen=True, slots=True)
class HitCondition:
    test: str
    count: int

    def holds(self, hits: int) -> bool:
        return _HIT_TESTS[self.test](hits, self.count)


def read_hit_condition(text: str) -> HitCondition | str:
    """The hit condition, or why it cannot be read."""
    found = _HIT.match(text)
    if found is None:
        return f"the hit count `{text}` is not a number or a test on one (`3`, `>= 3`, `% 2`)"
    test, count = found.group(1) or "==", int(found.group(2))
    if test == "%" and count == 0:
        return "`% 0` never holds: use `% 1` for every hit"
    return HitCondition(test, count)


def read_condition(text: str) -> ConditionParse | str:
    """The parsed condition, or why it cannot be used."""
    parsed = parse_condition(text)
    if parsed.errors:
        return f"the condition cannot be read: {parsed.errors[0].message}"
    if parsed.natural_language or parsed.expr is None:
        return "a breakpoint condition is an expression (`annual_income > 50000`), not plain English"
    return parsed


@dataclass(slots=True)
class Breakpoint:
    id: int
    path: str  # as the client wrote it
    requested_line: int  # 0-based
    line: int  # where it went (0-based)
    point: Point | None
    message: str = ""
    condition: ConditionParse | None = None
    hit: HitCondition | None = None
    log: str | None = None
    hits: int = 0
    name: str = ""  # a function breakpoint's agent

    @property
    def verified(self) -> bool:
        return self.point is not None


@dataclass(slots=True)
class _Request:
    line: int
    condition: str | None
    hit: str | None
    log: str | None


@dataclass
class Breakpoints:
    """The breakpoints of every file, replaced file by file as `setBreakpoints` asks. Read by the
    engine's thread at each pause point while the client may be setting new ones: a lock keeps
    both sides whole."""

    _next_id: int = 1
    _by_path: dict[str, list[Breakpoint]] = field(default_factory=dict)
    _asked: dict[str, tuple[str, list[_Request]]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # Function breakpoints: a function is an agent, which stops when it takes control.
    _functions: list[Breakpoint] = field(default_factory=list)
    _functions_asked: list[Mapping[str, Any]] = field(default_factory=list)

    def set(self, path: str, requests: Sequence[Mapping[str, Any]], points: PausePoints | None) -> list[Breakpoint]:
        """Replace the breakpoints of `path` (`requests`: 0-based `line`, `condition`,
        `hitCondition`, `logMessage`)."""
        asked = [
            _Request(
                int(r["line"]), _text(r.get("condition")), _text(r.get("hitCondition")), _text(r.get("logMessage"))
            )
            for r in requests
        ]
        key = normal_path(path)
        with self._lock:
            self._asked[key] = (path, asked)
            made = self._make(path, asked, points, self._by_path.get(key, []))
            self._by_path[key] = made
            return list(made)

    def set_functions(self, requests: Sequence[Mapping[str, Any]], points: PausePoints | None) -> list[Breakpoint]:
        """Replace the function breakpoints (`name`: an agent, `condition`, `hitCondition`)."""
        with self._lock:
            self._functions_asked = [dict(r) for r in requests]
            self._functions = self._make_functions(points, self._functions)
            return list(self._functions)

    def _make_functions(self, points: PausePoints | None, old: list[Breakpoint]) -> list[Breakpoint]:
        kept = {b.name: b for b in old}
        made = []
        for request in self._functions_asked:
            name = _text(request.get("name")) or ""
            previous = kept.get(name)
            if previous is not None:
                ident, hits = previous.id, previous.hits
            else:
                ident, hits = self._next_id, 0
                self._next_id += 1
            asked = _Request(0, _text(request.get("condition")), _text(request.get("hitCondition")), None)
            point = points.agent_point(name) if points is not None else None
            if point is None:
                found = _breakpoint(ident, "", asked, None, hits)
                if points is not None:
                    known = ", ".join(points.agent_names())
                    found.message = f"no agent named {name!r}: a function breakpoint names an agent ({known})"
            else:
                found = _breakpoint(ident, point.path, replace_line(asked, point.first), points, hits)
            found.name = name
            made.append(found)
        return made

    def rebind(self, points: PausePoints) -> list[Breakpoint]:
        """Verify every breakpoint again against a (new) program; the ones whose answer changed."""
        changed = []
        with self._lock:
            before_functions = {b.id: (b.verified, b.message) for b in self._functions}
            self._functions = self._make_functions(points, self._functions)
            changed += [b for b in self._functions if before_functions.get(b.id) != (b.verified, b.message)]
            for key, (path, asked) in self._asked.items():
                before = {b.id: (b.line, b.verified, b.message) for b in self._by_path.get(key, [])}
                made = self._make(path, asked, points, self._by_path.get(key, []))
                self._by_path[key] = made
                changed += [b for b in made if before.get(b.id) != (b.line, b.verified, b.message)]
        return changed

    def reset_hits(self) -> None:
        with self._lock:
            for made in [*self._by_path.values(), self._functions]:
                for b in made:
                    b.hits = 0

    def at(self, point: Point) -> list[Breakpoint]:
        """The verified breakpoints that belong to `point`."""
        with self._lock:
            found = [b for b in self._by_path.get(normal_path(point.path), []) if b.point == point]
            if point.kind == "agent":
                found += [b for b in self._functions if b.point == point]
            return found

    def _make(
        self, path: str, asked: list[_Request], points: PausePoints | None, old: list[Breakpoint]
    ) -> list[Breakpoint]:
        # A breakpoint asked for again on the same line keeps its id and its hits.
        kept = {b.requested_line: b for b in old}
        made = []
        for request in asked:
            previous = kept.get(request.line)
            if previous is not None:
                ident, hits = previous.id, previous.hits
            else:
                ident, hits = self._next_id, 0
                self._next_id += 1
            made.append(_breakpoint(ident, path, request, points, hits))
        return made


def _breakpoint(ident: int, path: str, request: _Request, points: PausePoints | None, hits: int) -> Breakpoint:
    if points is None:
        return Breakpoint(ident, path, request.line, request.line, None, "the program is not launched yet")
    verdict = points.verify(path, request.line)
    made = Breakpoint(ident, path, request.line, verdict.line, verdict.point, verdict.message, hits=hits)
    problems = []
    if request.condition is not None:
        condition = read_condition(request.condition)
        if isinstance(condition, str):
            problems.append(condition)
        else:
            made.condition = condition
    if request.hit is not None:
        hit = read_hit_condition(request.hit)
        if isinstance(hit, str):
            problems.append(hit)
        else:
            made.hit = hit
    made.log = request.log
    if problems and made.point is not None:
        made.point = None
        made.message = "; ".join(problems)
    return made


def replace_line(request: _Request, line: int) -> _Request:
    return _Request(line, request.condition, request.hit, request.log)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
