"""Where a run's trace event comes from in the source, read from its type's description.

Each event type names its source in `abl.runtime.events` (`Source`); this module has one
locator per source and nothing per event type, so a new event type is located the day it is
described. A locator that finds nothing leaves the event at its agent's header.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from abl.ide.navigation import Location
from abl.model import Agent
from abl.model.steps import FlowStep
from abl.model.types import HandoffRoute
from abl.runtime.events import EVENTS, Source
from abl.runtime.trace import TraceEvent
from abl.text import Range
from abl.workspace import Project


@dataclass(frozen=True, slots=True)
class LocatedEvent:
    event: dict[str, Any]  # the same fields as a `--trace-out` line
    location: Location | None


class EventLocator:
    """Finds the source of trace events of one run (in its private project)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._returned_from: dict[str, str] = {}  # parent agent → the child that last returned to it

    def locate(self, event: TraceEvent) -> LocatedEvent:
        return LocatedEvent(event.to_dict(), self._where(event))

    def _where(self, event: TraceEvent) -> Location | None:
        described = EVENTS.get(event.type)
        source = described.source if described is not None else Source.AGENT
        if source is Source.RETURN_HANDLER:
            return self._return_handler(event)
        agent = self.project.agent(event.agent) if event.agent else None
        if agent is None:
            return None
        if source is Source.TOOL:  # a tool may be declared in another file
            tool = self._tool(event)
            if tool is not None:
                return tool
        locate = _IN_AGENT.get(source)
        found = locate(self, agent, event) if locate is not None else None
        return Location(agent.path, found if found is not None else agent.header.head_range)

    def last_returned_to(self, agent: Agent) -> str:
        """The child that last returned to `agent` in this run ("" when none has)."""
        return self._returned_from.get(agent.name.text, "")

    def _return_handler(self, event: TraceEvent) -> Location | None:
        parent = self.project.agent(str(event.get("to") or ""))
        if parent is None:
            return None
        child = str(event.get("from") or "")
        self._returned_from[parent.name.text] = child
        handler = event.get("handler")
        found = next((h for h in parent.return_handlers if h.name.text == handler), None)
        if found is not None:
            return Location(parent.path, found.name.range)
        route = _route_to(parent, child)
        if route is not None and route.on_return is not None:
            return Location(parent.path, route.on_return.key_range)
        return None

    def _tool(self, event: TraceEvent) -> Location | None:
        name = str(event.get("tool") or "")
        for doc in self.project.documents.values():
            for tool in doc.library_tools:
                if tool.name.text == name:
                    return Location(doc.path, tool.name.range)
            for owner in doc.agents:
                for tool in owner.tools:
                    if tool.name.text == name:
                        return Location(doc.path, tool.name.range)
        return None


# --- one locator per source: the range in the emitting agent's file, or None -------------------

Locate = Callable[[EventLocator, Agent, TraceEvent], Range | None]


def _route_target(route: HandoffRoute | None) -> Range | None:
    if route is None:
        return None
    return route.target.range if route.target is not None else route.dash_range


def _route(_: EventLocator, agent: Agent, event: TraceEvent) -> Range | None:
    index = event.get("route")
    if not isinstance(index, int):
        return None
    return _route_target(next((r for r in agent.handoffs if r.index == index), None))


def _route_condition(locator: EventLocator, agent: Agent, event: TraceEvent) -> Range | None:
    index = event.get("route")
    route = next((r for r in agent.handoffs if r.index == index), None) if isinstance(index, int) else None
    if route is not None and route.when is not None:
        return route.when.range
    return _route(locator, agent, event)


def _route_named(_: EventLocator, agent: Agent, event: TraceEvent) -> Range | None:
    return _route_target(_route_to(agent, str(event.get("to") or "")))


def _resumed_route(locator: EventLocator, agent: Agent, _event: TraceEvent) -> Range | None:
    return _route_target(_route_to(agent, locator.last_returned_to(agent)))


def _gather_field(_: EventLocator, agent: Agent, event: TraceEvent) -> Range | None:
    name = event.get("field")
    found = next((f for f in agent.all_gather_fields() if f.name.text == name), None)
    return found.name.range if found is not None else None


def _complete_rule(_: EventLocator, agent: Agent, event: TraceEvent) -> Range | None:
    rule = event.get("rule")
    index = rule.get("index") if isinstance(rule, dict) else None
    if isinstance(index, int) and 0 <= index < len(agent.complete):
        return agent.complete[index].range
    return None


def _escalate_trigger(_: EventLocator, agent: Agent, event: TraceEvent) -> Range | None:
    index = event.get("trigger")
    if isinstance(index, int) and 0 <= index < len(agent.escalations):
        return agent.escalations[index].range
    return None


def _delegate(_: EventLocator, agent: Agent, event: TraceEvent) -> Range | None:
    target = event.get("to")
    found = next((d for d in agent.delegates if d.target is not None and d.target.text == target), None)
    return found.range if found is not None else None


def _step_of(agent: Agent, event: TraceEvent) -> FlowStep | None:
    return agent.flow.step(str(event.get("step") or "")) if agent.flow is not None else None


def _step_part(part: Callable[[FlowStep, TraceEvent], Range | None]) -> Locate:
    """A locator for a part of the event's step, falling back to the step's name."""

    def locate(_: EventLocator, agent: Agent, event: TraceEvent) -> Range | None:
        step = _step_of(agent, event)
        if step is None:
            return None
        found = part(step, event)
        return found if found is not None else step.name.range

    return locate


def _digression(step: FlowStep, event: TraceEvent) -> Range | None:
    if event.get("scope") != "step":
        return None
    found = next((d for d in step.digressions if d.intent == event.get("intent")), None)
    return found.range if found is not None else None


def _sub_intent(step: FlowStep, event: TraceEvent) -> Range | None:
    found = next((s for s in step.sub_intents if s.intent == event.get("intent")), None)
    return found.range if found is not None else None


def _action(step: FlowStep, event: TraceEvent) -> Range | None:
    found = next((h for h in step.on_action if h.action == event.get("action")), None)
    return found.range if found is not None else None


def _error_handler(step: FlowStep, event: TraceEvent) -> Range | None:
    if event.get("scope") != "step":
        return None
    found = next((h for h in step.on_error if h.type == event.get("handler")), None)
    return found.range if found is not None else None


def _route_to(agent: Agent, target: str) -> HandoffRoute | None:
    routes = [r for r in agent.handoffs if r.target is not None and r.target.text == target]
    returnable = [r for r in routes if r.is_returnable]
    return next(iter(returnable or routes), None)


_IN_AGENT: dict[Source, Locate] = {
    Source.ROUTE: _route,
    Source.ROUTE_CONDITION: _route_condition,
    Source.ROUTE_TO: _route_named,
    Source.RESUMED_ROUTE: _resumed_route,
    Source.GATHER_FIELD: _gather_field,
    Source.COMPLETE_RULE: _complete_rule,
    Source.DELEGATE: _delegate,
    Source.ESCALATE_TRIGGER: _escalate_trigger,
    Source.STEP: _step_part(lambda _step, _event: None),
    Source.STEP_DIGRESSION: _step_part(_digression),
    Source.STEP_SUB_INTENT: _step_part(_sub_intent),
    Source.STEP_ACTION: _step_part(_action),
    Source.STEP_ERROR_HANDLER: _step_part(_error_handler),
}
