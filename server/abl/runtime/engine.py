"""The engine's shared services: the project, the model, the trace, the timeline, per-agent plans.

Every other engine module works through an `Engine`: it emits trace events (only types that
`abl.runtime.events` describes), adds replies, asks the model (turning a `ModelError` into an
`error` event and a clear reply), and hands out an `AgentPlan`. Nothing here decides what
happens next; that is `turn`'s loop over the outcomes the other modules return.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from abl.expr import Environment
from abl.model.types import Agent, Condition
from abl.runtime.evaluation import check, fill
from abl.runtime.events import EVENTS
from abl.runtime.history import Entry
from abl.runtime.models import ChatMessage, IntentDecision, Model, ModelContext, ModelError
from abl.runtime.plan import AgentPlan, cached_plan
from abl.runtime.session_types import Reply, RuntimeOptions
from abl.runtime.state import SessionData, Thread
from abl.runtime.timeline import Timeline
from abl.runtime.trace import REDACTED, Clock, IdSource, Redactor, Trace, TraceEvent
from abl.workspace import Project

T = TypeVar("T")

CONTEXT_WINDOW = 40  # messages handed to a model with each question (the platform's window)
MAX_HANDOFF_DEPTH = 10  # nested handoffs: one per waiting parent, and this turn's one-way hops
MAX_STEPS_PER_TURN = 64  # agent activations in one turn; a guard against loops


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
    siblings: dict[int, int] = field(default_factory=dict)  # handoff attempt -> sibling intent time (ms)
    attempts: int = 0  # handoff attempts started this turn
    pending_siblings: tuple[tuple[str, str], ...] = ()  # a parallel plan's siblings, for the next handoff


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
        real_time: bool = False,
    ) -> None:
        self.project = project
        self.options = options
        self.data = data
        self.trace = trace
        self.clock = clock
        self.ids = ids
        self.model = model
        self.timeline = Timeline(data, real_time)
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
            plan = cached_plan(agent, self.project)
            self._plans[name] = plan
            # Only declared names: a computed one (`message = "Hi {{name}}"`) may share its name
            # with a trace field (`message`), and is protected by its value instead.
            for sensitive in sorted(plan.declared_sensitive):
                if sensitive not in self._protected_names:
                    self._protected_names.add(sensitive)
                    self.trace.protect_field(sensitive)
        return plan

    def render(self, thread: Thread, template: str) -> str:
        """A template of `thread`'s agent filled for the customer to read: sensitive values
        (and values computed from them) are masked per `sensitive_display`."""
        return fill(template, thread.values, self.env, self.plan(thread.agent).masks)

    def protect_sensitive_values(self) -> None:
        """Register the current values of every sensitive name as secrets (a value computed from
        a sensitive one by `SET` is caught wherever it is copied to)."""
        for thread in self.data.threads.values():
            sensitive = self.plan(thread.agent).sensitive
            for name in sensitive.intersection(thread.values):
                value = thread.values[name]
                if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                    self.protect_value(value)

    def announce(self, thread: Thread) -> None:
        """Say once per thread what its agent declares that the local runtime does not run."""
        not_run = self.plan(thread.agent).not_run
        if not_run and "not_run_locally" not in thread.warned:
            thread.warned.append("not_run_locally")
            self.emit(
                "warning",
                {
                    "code": "not_run_locally",
                    "constructs": [n.text for n in not_run],
                    "message": f"{thread.agent} declares what the local runtime does not run: "
                    + "; ".join(n.text for n in not_run),
                },
                thread,
            )

    def message_text(self, thread: Thread, key: str, default: str) -> str:
        """A runtime message in the agent's wording (`MESSAGES`), else the platform's."""
        agent = self.agent(thread.agent)
        written = agent.message(key) if agent is not None else None
        return written.text if written is not None and written.text.strip() else default

    # --- trace -------------------------------------------------------------------------------

    def emit(self, event_type: str, fields: dict[str, Any], thread: Thread | None = None) -> TraceEvent:
        if event_type not in EVENTS:
            raise ValueError(f"`{event_type}` is not an event type of abl.runtime.events")
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
        if key.strip() and key != REDACTED and key not in self._protected_values:
            self._protected_values.add(key)
            self.trace.protect(value)

    # --- conversation ------------------------------------------------------------------------

    def new_entry(
        self, role: str, text: str, thread: Thread, tool_call_id: str | None = None, tool: str | None = None
    ) -> Entry:
        return Entry(role, text, thread.agent, self.data.next_seq(), thread.id, tool_call_id, tool)

    def say(
        self, thread: Thread, text: str, ctx: TurnContext | None, choices: tuple[tuple[str, str], ...] = ()
    ) -> Reply:
        """The agent of `thread` says `text` to the customer (with buttons, when given)."""
        text = self.trace.redactor.text(text)
        entry = self.new_entry("assistant", text, thread)
        thread.history.append(entry)
        self.data.log.append(entry)
        reply = Reply(thread.agent, text, choices)
        if ctx is not None:
            ctx.replies.append(reply)
        return reply

    def relay(self, thread: Thread, speaker: str, text: str, ctx: TurnContext | None) -> None:
        """Another agent's one-shot answer, said to the customer in `thread`'s conversation."""
        text = self.trace.redactor.text(text)
        entry = Entry("assistant", text, speaker, self.data.next_seq(), thread.id)
        thread.history.append(entry)
        self.data.log.append(entry)
        if ctx is not None:
            ctx.replies.append(Reply(speaker, text))

    def notice(self, thread: Thread, text: str, ctx: TurnContext | None) -> None:
        """A runtime message the customer sees that is not part of any agent's conversation."""
        text = self.trace.redactor.text(text)
        entry = Entry("system", text, thread.agent, self.data.next_seq(), thread.id)
        self.data.log.append(entry)
        if ctx is not None:
            ctx.replies.append(Reply(thread.agent, text))

    # --- model -------------------------------------------------------------------------------

    def conversation(self, thread: Thread, current: Entry | None) -> tuple[tuple[ChatMessage, ...], int]:
        """The messages a model sees for `thread`, and how many earlier ones the thread has.

        The latest `CONTEXT_WINDOW` messages, with `current` (the customer message being
        answered) after every earlier one, followed only by the tool calls made for it; the
        handoff summary comes first when the thread has one.
        """
        history = thread.history
        if current is None:
            window = history[-CONTEXT_WINDOW:]
            earlier = len(history)
        elif history and history[-1].seq == current.seq:
            window = [*history[-CONTEXT_WINDOW - 1 : -1], current]
            earlier = len(history) - 1
        else:
            # A replayed message, or one followed by the tool calls made for it: it goes after
            # the conversation it answers, with this thread's tool calls behind it.
            recent = history[-2 * CONTEXT_WINDOW :]
            after = [e for e in recent if _answers(e, current, thread)]
            before = [e for e in recent if e.seq != current.seq and not _answers(e, current, thread)]
            window = [*before[-CONTEXT_WINDOW:], current, *after]
            earlier = sum(1 for e in history if e.seq != current.seq)
        # Earlier messages go out redacted; the one being answered as typed, since a value may
        # have to be read from it (its secrets are not known yet).
        redactor = self.trace.redactor
        messages = tuple(
            _chat(e) if current is not None and e.seq == current.seq else _chat(e, redactor) for e in window
        )
        summary = thread.values.get("_handoff_summary")
        if summary:
            messages = (ChatMessage("system", f"Handoff summary: {summary}"), *messages)
        return messages, earlier

    def model_context(self, thread: Thread, current: Entry | None) -> tuple[ModelContext, int]:
        messages, earlier = self.conversation(thread, current)
        agent = self.agent(thread.agent)
        goal = agent.goal.text if agent is not None and agent.goal is not None else ""
        return ModelContext(agent=thread.agent, goal=goal, messages=messages), earlier

    def consult(
        self, purpose: str, thread: Thread, ctx: TurnContext | None, earlier: int, ask: Callable[[], T]
    ) -> tuple[bool, T | None]:
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

    def holds(
        self,
        condition: Condition,
        thread: Thread,
        message: Entry,
        ctx: TurnContext,
        extras: dict[str, Any] | None = None,
    ) -> bool:
        """Whether a `WHEN` holds for `thread`: an expression is evaluated, plain English is put to
        the model (and does not hold when the model cannot answer)."""
        if not condition.is_natural_language:
            return check(condition.parse, thread.values, extras, self.env).result
        context, earlier = self.model_context(thread, message)
        text = condition.parse.content
        ok, verdict = self.consult(
            "condition", thread, ctx, earlier, lambda: self.model.judge_condition(text, message.text, context)
        )
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
        return digits[-max(length, 1) :]


def _answers(entry: Entry, current: Entry, thread: Thread) -> bool:
    """A tool call (or result) this thread made for `current`, which belongs after it."""
    return entry.tool is not None and entry.seq > current.seq and entry.thread == thread.id


def _chat(entry: Entry, redactor: Redactor | None = None) -> ChatMessage:
    text = redactor.text(entry.text) if redactor is not None else entry.text
    if entry.tool is not None and entry.role == "assistant":
        arguments = text[len(entry.tool) + 1 : -1] if text.startswith(entry.tool + "(") else text
        return ChatMessage("assistant", arguments, entry.tool, entry.tool_call_id)
    if entry.role == "tool":
        return ChatMessage("tool", text, entry.tool, entry.tool_call_id)
    role: Any = entry.role if entry.role in ("system", "user", "assistant") else "system"
    return ChatMessage(role, text)


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


def compact_json(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(value)
