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

    def rebind(self, points: PausePoints) -> list[Breakpoint]:
        """Verify every breakpoint again against a (new) program; the ones whose answer changed."""
        changed = []
        with self._lock:
            for key, (path, asked) in self._asked.items():
                before = {b.id: (b.line, b.verified, b.message) for b in self._by_path.get(key, [])}
                made = self._make(path, asked, points, self._by_path.get(key, []))
                self._by_path[key] = made
                changed += [b for b in made if before.get(b.id) != (b.line, b.verified, b.message)]
        return changed

    def reset_hits(self) -> None:
        with self._lock:
            for made in self._by_path.values():
                for b in made:
                    b.hits = 0

    def at(self, point: Point) -> list[Breakpoint]:
        """The verified breakpoints that belong to `point`."""
        with self._lock:
            return [b for b in self._by_path.get(normal_path(point.path), []) if b.point == point]

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


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
