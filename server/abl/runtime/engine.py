"""The engine's shared services: the project, the model, the trace, and per-agent plans.

Every other engine module works through an `Engine`: it emits trace events, adds replies,
asks the model (turning a `ModelError` into an `error` event and a clear reply), and hands out
an `AgentPlan`, the per-agent facts computed once (route order, what routes read, which names
the agent may write) so the per-turn path never re-derives them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from abl.expr import Environment
from abl.model.types import Agent, Condition, HandoffRoute, ReturnHandler
from abl.runtime.api import Reply, RuntimeOptions
from abl.runtime.evaluation import check, referenced_paths
from abl.runtime.history import Entry
from abl.runtime.models import ChatMessage, IntentDecision, IntentOption, Model, ModelContext, ModelError
from abl.runtime.state import SessionData, Thread
from abl.runtime.trace import Clock, IdSource, Trace, TraceEvent
from abl.workspace import Project

T = TypeVar("T")

CONTEXT_WINDOW = 40  # messages handed to a model with each question (the platform's window)
MAX_HANDOFF_DEPTH = 10  # nested agents: waiting parents, the active agent, and this turn's one-way hops
MAX_STEPS_PER_TURN = 64  # agent activations in one turn; a guard against loops

_INTENT_LITERAL = re.compile(r"""intent\.category\s*(?:==|IN)\s*\[?\s*((?:["'][^"']*["']\s*,?\s*)+)""", re.I)
_QUOTED = re.compile(r"""["']([^"']*)["']""")


@dataclass(slots=True)
class AgentPlan:
    """Facts about one agent that the engine needs on every turn, computed once."""

    agent: Agent
    routes: tuple[HandoffRoute, ...]  # evaluation order: PRIORITY, then position; `WHEN: true` last
    routes_read_intent: bool
    intent_options: tuple[IntentOption, ...]
    writable: frozenset[str]
    sensitive: frozenset[str]
    handlers: dict[str, ReturnHandler]
    route_intents: dict[int, tuple[str, ...]]  # route index -> intent names its WHEN compares with
    scope_text: str  # what the agent is about, for the built-in return to the parent

    @property
    def name(self) -> str:
        return self.agent.name.text


def build_plan(agent: Agent) -> AgentPlan:
    def order(route: HandoffRoute) -> tuple[int, int, int]:
        fallback = route.when is not None and route.when.parse.content.strip().lower() == "true"
        # An unreadable PRIORITY (reported by the checker) keeps the authored position.
        written = route.priority.text.strip() if route.priority is not None else ""
        priority = int(written) if re.fullmatch(r"[+-]?\d+", written) else route.index + 1
        return (1 if fallback else 0, priority, route.index)

    routes = tuple(sorted((r for r in agent.handoffs if r.target is not None), key=order))
    reads_intent = False
    route_intents: dict[int, tuple[str, ...]] = {}
    for route in routes:
        if route.when is None or route.when.parse.expr is None:
            continue
        paths = referenced_paths(route.when.parse)
        if any(p == "intent" or p.startswith("intent.") for p in paths):
            reads_intent = True
            found: list[str] = []
            for m in _INTENT_LITERAL.finditer(route.when.parse.content):
                found.extend(_QUOTED.findall(m.group(1)))
            route_intents[route.index] = tuple(found)
    writable = {v.name.text for v in agent.memory} | {f.name.text for f in agent.all_gather_fields()}
    sensitive = {f.name.text for f in agent.all_gather_fields() if f.sensitive}
    sensitive |= {v.name.text for v in agent.memory if v.sensitive}
    scope_parts = [agent.goal.text if agent.goal else "", agent.description.text if agent.description else ""]
    for f in agent.gather:
        scope_parts.append(f.prompt.text if f.prompt else f.name.text.replace("_", " "))
        if f.description:
            scope_parts.append(f.description.text)
    return AgentPlan(
        agent=agent,
        routes=routes,
        routes_read_intent=reads_intent,
        intent_options=tuple(IntentOption(i.name.text, i.description) for i in agent.intents),
        writable=frozenset(writable),
        sensitive=frozenset(sensitive),
        handlers={h.name.text: h for h in agent.return_handlers},
        route_intents=route_intents,
        scope_text=" ".join(p for p in scope_parts if p),
    )


@dataclass(slots=True)
class TurnContext:
    """What one turn has done so far."""

    index: int
    message: Entry
    replies: list[Reply] = field(default_factory=list)
    steps: int = 0
    replay_depth: int = 0
    one_way_hops: int = 0  # permanent handoffs made this turn (a chain of them is bounded too)
    intents: dict[tuple[str, int], IntentDecision | None] = field(default_factory=dict)
    extracted: dict[str, list[str]] = field(default_factory=dict)  # thread id -> fields filled
    # message seq -> parts of its text already taken as a field's value: (start, end, field, thread)
    claimed: dict[int, list[tuple[int, int, str, str]]] = field(default_factory=dict)
    error_reported: bool = False
    stopped: bool = False  # a loop guard fired; nothing more runs this turn


class Engine:
    """Services shared by the engine's modules for one session."""

    def __init__(
        self,
        project: Project,
        options: RuntimeOptions,
        data: SessionData,
        trace: Trace,
        clock: Clock,
        ids: IdSource,
        model: Model,
    ) -> None:
        self.project = project
        self.options = options
        self.data = data
        self.trace = trace
        self.clock = clock
        self.ids = ids
        self.model = model
        self.env = Environment(now=clock.now, make_id=self._unique_id)
        self._plans: dict[str, AgentPlan] = {}
        self._recent: list[TraceEvent] = []
        self._protected_names: set[str] = set()
        self._protected_values: set[str] = set()
        trace.subscribe(self._recent.append)

    # --- project -----------------------------------------------------------------------------

    def agent(self, name: str) -> Agent | None:
        return self.project.agent(name)

    def plan(self, name: str) -> AgentPlan:
        plan = self._plans.get(name)
        if plan is None:
            agent = self.project.agent(name)
            if agent is None:
                raise KeyError(name)
            plan = build_plan(agent)
            self._plans[name] = plan
        return plan

    # --- trace -------------------------------------------------------------------------------

    def emit(self, event_type: str, fields: dict[str, Any], thread: Thread | None = None) -> TraceEvent:
        where = thread if thread is not None else self.data.threads.get(self.data.active)
        return self.trace.emit(
            event_type,
            fields,
            turn=self.data.turn,
            thread=where.id if where is not None else "",
            agent=where.agent if where is not None else "",
        )

    def start_recording(self) -> None:
        """Forget the events collected so far; `recorded` then returns only newer ones."""
        self._recent.clear()

    def recorded(self) -> list[TraceEvent]:
        """Events emitted since `start_recording`, with every secret known by now redacted."""
        redactor = self.trace.redactor
        if redactor.is_empty:
            return list(self._recent)
        out = []
        for event in self._recent:
            clean = redactor.apply(event.fields)
            out.append(event if clean == event.fields else dataclasses.replace(event, fields=clean))
        return out

    def protect(self, name: str, value: Any) -> None:
        """Keep a sensitive value (and the field's name) out of every event and export."""
        if name not in self._protected_names:
            self._protected_names.add(name)
            self.trace.protect_field(name)
        if value is not None:
            self.protect_value(value)

    def protect_value(self, value: Any) -> None:
        """Register a secret once (each registration re-scrubs the stored trace)."""
        key = str(value)
        if key.strip() and key not in self._protected_values:
            self._protected_values.add(key)
            self.trace.protect(value)

    # --- conversation ------------------------------------------------------------------------

    def new_entry(self, role: str, text: str, thread: Thread, tool_call_id: str | None = None) -> Entry:
        return Entry(role, text, thread.agent, self.data.next_seq(), thread.id, tool_call_id)

    def say(self, thread: Thread, text: str, ctx: TurnContext | None) -> Reply:
        """The agent of `thread` says `text` to the customer."""
        entry = self.new_entry("assistant", text, thread)
        thread.history.append(entry)
        self.data.log.append(entry)
        reply = Reply(thread.agent, text)
        if ctx is not None:
            ctx.replies.append(reply)
        return reply

    def notice(self, thread: Thread, text: str, ctx: TurnContext | None) -> None:
        """A runtime message the customer sees that is not part of any agent's conversation."""
        entry = Entry("system", text, thread.agent, self.data.next_seq(), thread.id)
        self.data.log.append(entry)
        if ctx is not None:
            ctx.replies.append(Reply(thread.agent, text))

    # --- model -------------------------------------------------------------------------------

    def model_context(self, thread: Thread, current: Entry | None) -> tuple[ModelContext, int]:
        """The conversation a model sees for `thread`, and how many earlier messages it has.

        The messages are the latest `CONTEXT_WINDOW` ones before `current`, after the handoff
        summary when the thread has one; the count is of all earlier conversation messages.
        """
        history = thread.history
        end = len(history)
        if current is not None and end and history[-1].seq == current.seq:
            end -= 1
        start = max(0, end - CONTEXT_WINDOW)
        messages = tuple(ChatMessage(_chat_role(e.role), e.text) for e in history[start:end])
        summary = thread.values.get("_handoff_summary")
        if summary:
            messages = (ChatMessage("system", f"Handoff summary: {summary}"), *messages)
        agent = self.agent(thread.agent)
        goal = agent.goal.text if agent is not None and agent.goal is not None else ""
        return ModelContext(agent=thread.agent, goal=goal, messages=messages), end

    def consult(self, purpose: str, thread: Thread, ctx: TurnContext | None, earlier: int,
                ask: Callable[[], T]) -> tuple[bool, T | None]:
        """Ask the model; `(False, None)` when it failed (an `error` event and reply were given)."""
        try:
            answer = ask()
        except ModelError as problem:
            self._record_calls(thread, earlier)
            self.emit("error", {"code": "model_error", "purpose": purpose, "message": str(problem)}, thread)
            if ctx is None or not ctx.error_reported:
                if ctx is not None:
                    ctx.error_reported = True
                self.notice(thread, f"[error] the model endpoint did not answer: {problem}", ctx)
            return False, None
        self._record_calls(thread, earlier)
        return True, answer

    def holds(self, condition: Condition, thread: Thread, message: Entry, ctx: TurnContext) -> bool:
        """Whether a `WHEN` holds for `thread`: an expression is evaluated, plain English is put to
        the model (and does not hold when the model cannot answer)."""
        if not condition.is_natural_language:
            return check(condition.parse, thread.values, None, self.env).result
        context, earlier = self.model_context(thread, message)
        text = condition.parse.content
        ok, verdict = self.consult("condition", thread, ctx, earlier,
                                   lambda: self.model.judge_condition(text, message.text, context))
        return bool(ok and verdict is not None and verdict.result)

    def _record_calls(self, thread: Thread, earlier: int) -> None:
        for record in self.model.take_calls():
            for secret in record.secrets:
                self.protect_value(secret)
            fields = record.trace_fields()
            fields["contextMessages"] = earlier
            self.emit("model_call", fields, thread)

    # --- ids ---------------------------------------------------------------------------------

    def _unique_id(self, length: int) -> str:
        self.data.unique_ids += 1
        digits = f"{self.data.unique_ids:0{max(length, 1)}d}"
        return digits[-max(length, 1):]


def _chat_role(role: str) -> Any:
    return role if role in ("system", "user", "assistant", "tool") else "system"


def intent_scope(decision: IntentDecision | None) -> dict[str, Any]:
    """`intent.*` as conditions read it."""
    if decision is None:
        return {"intent": {"category": None, "confidence": 0.0, "unclear": True}}
    return {
        "intent": {
            "category": decision.name,
            "confidence": decision.confidence,
            "unclear": decision.name is None or decision.ambiguous,
        }
    }
