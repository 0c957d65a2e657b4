"""Pause points: the constructs of a project the engine evaluates or performs, by line.

A point has a `span` (the lines a breakpoint binds to it) and a `key` naming the construct.
A trace event is turned into a point through its source location (`abl.ide.event_sources`):
the innermost point whose span holds the event's line. A breakpoint on a line belongs to the
innermost point whose span holds that line, so a breakpoint on any line of a route (its `TO`,
`WHEN`, `PASS`, ...) stops where that route is considered, and one on a `MAP` entry where the
child's values come back.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from abl.model import Agent, Document
from abl.text import Position, Range
from abl.workspace import Project

# What a user reads in a stop's description and a breakpoint's message, by point kind.
KIND_NAMES = {
    "agent": "the agent taking control",
    "route": "a HANDOFF route",
    "on_return": "an ON_RETURN",
    "return_handler": "a RETURN_HANDLERS entry",
    "gather": "a GATHER field",
    "complete": "a COMPLETE rule",
    "escalate": "an ESCALATE trigger",
    "delegate": "a DELEGATE",
    "tool": "a tool",
    "step": "a FLOW step",
    "step_part": "a part of a FLOW step",
}


@dataclass(frozen=True, slots=True)
class Point:
    kind: str
    agent: str  # the agent that declares it ("" for a library tool)
    path: str
    first: int  # the span, 0-based lines, inclusive
    last: int
    key: tuple[str, ...]

    @property
    def size(self) -> int:
        return self.last - self.first

    def holds(self, line: int) -> bool:
        return self.first <= line <= self.last


@dataclass(frozen=True, slots=True)
class Verdict:
    """Where a breakpoint asked for on a line goes: its line, its point, or why it cannot be."""

    line: int
    point: Point | None
    message: str = ""


def normal_path(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


class PausePoints:
    """Every pause point of a project, found by file and line."""

    def __init__(self, project: Project) -> None:
        self._by_path: dict[str, list[Point]] = {}
        self._texts: dict[str, list[str]] = {}
        self._paths: dict[str, str] = {}  # normalised path -> the project's own spelling
        for document in project.documents.values():
            key = normal_path(document.path)
            self._paths[key] = document.path
            self._texts[key] = document.source.text.splitlines()
            points = list(_document_points(document))
            # Innermost first, so the first point that holds a line is the one it belongs to.
            points.sort(key=lambda p: (p.size, p.first))
            self._by_path[key] = points

    def agent_point(self, name: str) -> Point | None:
        """Where the agent `name` takes control: its header."""
        for points in self._by_path.values():
            for point in points:
                if point.kind == "agent" and point.agent == name:
                    return point
        return None

    def agent_names(self) -> list[str]:
        return sorted(p.agent for points in self._by_path.values() for p in points if p.kind == "agent")

    def knows(self, path: str) -> bool:
        return normal_path(path) in self._by_path

    def project_path(self, path: str) -> str | None:
        return self._paths.get(normal_path(path))

    def at(self, path: str, line: int) -> Point | None:
        """The innermost point whose span holds `line` (0-based)."""
        for point in self._by_path.get(normal_path(path), ()):
            if point.holds(line):
                return point
        return None

    def line_range(self, path: str, line: int) -> Range:
        """The written part of a line (its indentation left out)."""
        texts = self._texts.get(normal_path(path), [])
        text = texts[line] if 0 <= line < len(texts) else ""
        start = len(text) - len(text.lstrip())
        return Range(Position(line, start), Position(line, len(text.rstrip())))

    def lines(self, path: str, first: int, last: int) -> list[int]:
        """The lines from `first` to `last` where a breakpoint stays where it is put."""
        return [line for line in range(first, last + 1) if self.verify(path, line).line == line and self.at(path, line)]

    def verify(self, path: str, line: int) -> Verdict:
        """Where a breakpoint on `line` (0-based) of `path` goes."""
        key = normal_path(path)
        texts = self._texts.get(key)
        if texts is None:
            return Verdict(line, None, "this file is not part of the program being debugged")
        if line >= len(texts):
            return Verdict(line, None, f"the file has {len(texts)} lines")
        if _is_quiet(texts[line]):
            target = line
            while target < len(texts) and _is_quiet(texts[target]):
                target += 1
            point = self.at(path, target) if target < len(texts) else None
            if point is None:
                return Verdict(line, None, "a blank line or a comment does not run, and nothing runs right after it")
            what = "blank line" if not texts[line].strip() else "comment"
            return Verdict(target, point, f"moved to line {target + 1}: a {what} does not run")
        point = self.at(path, line)
        if point is None:
            word = texts[line].strip().split(":", 1)[0].strip() or "this line"
            return Verdict(
                line, None, f"nothing pauses on `{word}`: breakpoints go on routes, fields, rules, steps and tools"
            )
        return Verdict(line, point)


def _is_quiet(text: str) -> bool:
    stripped = text.strip()
    return not stripped or stripped.startswith("#")


def _last_line(span: Range) -> int:
    end = span.end
    return end.line - 1 if end.character == 0 and end.line > span.start.line else end.line


def _point(kind: str, agent: str, path: str, span: Range, *key: str) -> Point:
    return Point(kind, agent, path, span.start.line, max(span.start.line, _last_line(span)), (kind, agent, *key))


def _document_points(document: Document) -> Iterator[Point]:
    path = document.path
    for tool in document.library_tools:
        yield _point("tool", "", path, tool.range, tool.name.text)
    for agent in document.agents:
        yield from _agent_points(agent, path)


def _agent_points(agent: Agent, path: str) -> Iterator[Point]:
    name = agent.name.text
    head = agent.header.head_range
    yield Point("agent", name, path, head.start.line, head.start.line, ("agent", name))
    for route in agent.handoffs:
        yield _point("route", name, path, route.range, str(route.index))
        on_return = route.on_return
        if on_return is not None:
            ends = [on_return.key_range]
            ends += [e.range for e in on_return.map] + [a.range for a in on_return.set]
            ends += [c.range for c in on_return.clear]
            last = max(_last_line(r) for r in ends)
            start = on_return.key_range.start.line
            yield Point("on_return", name, path, start, max(start, last), ("on_return", name, str(route.index)))
    for handler in agent.return_handlers:
        yield _point("return_handler", name, path, handler.range, handler.name.text)
    for field in agent.all_gather_fields():
        yield _point("gather", name, path, field.range, field.name.text)
    for index, rule in enumerate(agent.complete):
        yield _point("complete", name, path, rule.range, str(index))
    for index, trigger in enumerate(agent.escalations):
        yield _point("escalate", name, path, trigger.range, str(index))
    for index, delegate in enumerate(agent.delegates):
        yield _point("delegate", name, path, delegate.range, str(index))
    for tool in agent.tools:
        yield _point("tool", name, path, tool.range, tool.name.text)
    if agent.flow is not None:
        for step in agent.flow.written:
            step_name = step.name.text
            yield _point("step", name, path, step.range, step_name)
            spans = [d.range for d in step.digressions] + [s.range for s in step.sub_intents]
            spans += [a.range for a in step.on_action] + [e.range for e in step.on_error]
            for index, span in enumerate(spans):
                yield _point("step_part", name, path, span, step_name, str(index))
