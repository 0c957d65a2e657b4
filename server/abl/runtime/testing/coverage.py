"""Which parts of a project a set of conversations exercised, read from their trace events.

For every agent: each `HANDOFF` route (taken at least once), each route's `WHEN` (seen true and
seen false), each `COMPLETE` rule (fired) and each `GATHER` field (a value collected). The
trace is the only source, so coverage reflects what the runtime actually did, not what a test
claimed.

A trace event names its route by target and condition text; when two routes of one agent share
both, each of them counts as exercised.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from abl.model import Agent
from abl.model.types import AgentKind, HandoffRoute
from abl.workspace import Project

Kind = Literal["route", "condition", "complete", "gather"]
KINDS: tuple[Kind, ...] = ("route", "condition", "complete", "gather")
KIND_TITLES = {"route": "routes", "condition": "WHEN outcomes", "complete": "COMPLETE rules", "gather": "GATHER fields"}


@dataclass(frozen=True)
class CoverageItem:
    agent: str
    kind: Kind
    label: str  # what it is, e.g. `Loan_Supervisor → Offer_Agent (route 2)`
    covered: bool
    note: str = ""  # what was never seen, for partial items


@dataclass(frozen=True)
class Coverage:
    project: str
    items: tuple[CoverageItem, ...]

    def totals(self, kind: Kind) -> tuple[int, int]:
        mine = [i for i in self.items if i.kind == kind]
        return sum(i.covered for i in mine), len(mine)

    @property
    def uncovered(self) -> list[CoverageItem]:
        return [i for i in self.items if not i.covered]

    def uncovered_by_agent(self) -> dict[str, list[CoverageItem]]:
        out: dict[str, list[CoverageItem]] = {}
        for item in self.uncovered:
            out.setdefault(item.agent, []).append(item)
        return out


def compute_coverage(project: Project, events: Iterable[Mapping[str, Any]]) -> Coverage:
    """Coverage of every agent and supervisor in `project` by the given trace events."""
    seen = _Seen(project)
    for event in events:
        seen.add(event)
    items: list[CoverageItem] = []
    for name in project.agent_names():
        agent = project.agent(name)
        if agent is None or agent.kind is AgentKind.BEHAVIOR_PROFILE:
            continue
        items.extend(_agent_items(agent, seen))
    return Coverage(project.root, tuple(items))


def _agent_items(agent: Agent, seen: _Seen) -> list[CoverageItem]:
    name = agent.name.text
    items: list[CoverageItem] = []
    for route in agent.handoffs:
        label = route_label(name, route)
        items.append(CoverageItem(name, "route", label, (name, route.index) in seen.taken))
        if route.when is not None:
            outcomes = seen.outcomes.get((name, route.index), set())
            for outcome in (True, False):
                word = "true" if outcome else "false"
                items.append(
                    CoverageItem(
                        name,
                        "condition",
                        f"{label} WHEN {route.when.text} is {word}",
                        outcome in outcomes,
                        f"never {word}",
                    )
                )
    for rule in agent.complete:
        condition = f" WHEN {rule.when.text}" if rule.when is not None else ""
        items.append(
            CoverageItem(
                name,
                "complete",
                f"{name} COMPLETE rule {rule.index + 1}{condition}",
                (name, rule.index) in seen.completed,
            )
        )
    for gather_field in agent.all_gather_fields():
        field_name = gather_field.name.text
        items.append(CoverageItem(name, "gather", f"{name} GATHER {field_name}", (name, field_name) in seen.gathered))
    return items


def route_label(agent: str, route: HandoffRoute) -> str:
    target = route.target.text if route.target is not None else "?"
    return f"{agent} → {target} (route {route.index + 1})"


def _norm(text: Any) -> str:
    """Condition text compared loosely: outer quotes, comments and spacing do not matter."""
    s = str(text).strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        s = s[1:-1]
    return re.sub(r"\s+", " ", s).strip().lower()


class _Seen:
    """What the events show, keyed by (agent, route index), (agent, rule index), (agent, field)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.taken: set[tuple[str, int]] = set()
        self.outcomes: dict[tuple[str, int], set[bool]] = {}
        self.completed: set[tuple[str, int]] = set()
        self.gathered: set[tuple[str, str]] = set()
        # The routes whose condition last came out true, per (agent, target), for the next handoff.
        self._last_true: dict[tuple[str, str], list[int]] = {}

    def add(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if kind == "handoff_condition_check":
            self._condition(event)
        elif kind == "handoff":
            self._handoff(event)
        elif kind == "complete":
            self._complete(event)
        elif kind == "gather":
            self._gather(event)

    def _routes(self, agent: str) -> list[HandoffRoute]:
        found = self.project.agent(agent)
        return found.handoffs if found is not None else []

    def _candidates(self, agent: str, target: Any, event: Mapping[str, Any], condition: Any = None) -> list[int]:
        routes = self._routes(agent)
        explicit = _route_index(event)
        if explicit is not None and any(r.index == explicit for r in routes):
            return [explicit]
        found = [r for r in routes if r.target is not None and r.target.text == target]
        if condition is not None:
            same = [r for r in found if r.when is not None and _norm(r.when.text) == _norm(condition)]
            if same:
                found = same
        return [r.index for r in found]

    def _condition(self, event: Mapping[str, Any]) -> None:
        agent = str(event.get("agent", ""))
        target = event.get("target")
        result = _outcome(event)
        indexes = self._candidates(agent, target, event, event.get("condition"))
        for index in indexes:
            if result is not None:
                self.outcomes.setdefault((agent, index), set()).add(result)
        if result:
            self._last_true[(agent, str(target))] = indexes

    def _handoff(self, event: Mapping[str, Any]) -> None:
        agent = str(event.get("from") or event.get("agent", ""))
        target = event.get("to")
        indexes = self._last_true.pop((agent, str(target)), None)
        if indexes is None:
            indexes = self._candidates(agent, target, event)
        for index in indexes:
            self.taken.add((agent, index))

    def _complete(self, event: Mapping[str, Any]) -> None:
        agent = str(event.get("agent", ""))
        found = self.project.agent(agent)
        if found is None:
            return
        rule = event.get("rule")
        index = rule.get("index") if isinstance(rule, Mapping) else rule
        condition = rule.get("condition") if isinstance(rule, Mapping) else None
        if condition is not None:
            same = [r.index for r in found.complete if r.when is not None and _norm(r.when.text) == _norm(condition)]
            if len(same) == 1:
                self.completed.add((agent, same[0]))
                return
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(found.complete):
            self.completed.add((agent, index))

    def _gather(self, event: Mapping[str, Any]) -> None:
        if event.get("valid") is False:
            return
        name = event.get("field")
        if isinstance(name, str):
            self.gathered.add((str(event.get("agent", "")), name))


def _route_index(event: Mapping[str, Any]) -> int | None:
    for key in ("routeIndex", "route"):
        value = event.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _outcome(event: Mapping[str, Any]) -> bool | None:
    result = event.get("result")
    if isinstance(result, bool):
        return result
    outcome = str(event.get("whenOutcome", ""))
    if outcome.endswith("_no_match"):
        return False
    if outcome.endswith("_match"):
        return True
    return None
