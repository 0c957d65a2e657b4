"""`FLOW`: steps run one after another, pausing when they need the customer.

A thread's place in its flow is plain data (`Thread.flow`): the current step, what it waits for
(`gather`, `input`, `choice`, `reasoning`, `retry`), reasoning turns used, how often each step
was entered, and the steps entered so far. The steps themselves are the model's `FlowStep`s.

Entering a step: `MAX_ATTEMPTS` (more entries go to `ON_EXHAUSTED`), the `WHEN` guard (false
skips to `THEN`), then for a deterministic step, in order: `RESPOND`/`SAY`/`PRESENT` (with the
step's `ACTIONS` as buttons), `GATHER` (until `COMPLETE_WHEN` or every required field is set),
`SET`/`CALL`/`TRANSFORM`/`CLEAR`/`LOG` as written (a failed call goes to `ON_ERROR`, then
`ON_FAIL`; a successful one to `ON_SUCCESS`), `CHECK` (false: `ON_FAIL`, or the step halts
until the next message), `ON_RESULT`, then it waits for a choice (`ACTIONS`/`ON_ACTION`) or an
answer (`ON_INPUT`), and finally `THEN`. A branch that moves stops the step. A reasoning step
answers through the model and its tools until `EXIT_WHEN` or `MAX_TURNS`.

A message reaches a waiting step in two parts, as the turn orders them (`abl.runtime.turn`).
`read` is the message's extraction: it is first read for a correction of an answer already given
(steps with `CORRECTIONS: true`, this one or an earlier one), then for one of the step's
`SUB_INTENTS`, then for a `DIGRESSIONS` entry of the step or of the flow (`global_digressions`);
a message that is none of these is an answer, and the step's fields (or the fields being asked
again) are read from it. A flow's first message is read the same way at the step it reaches first;
a side request made there runs once that step is entered, and then the step starts. `advance` then acts on what was read: the side request runs, or the
step goes on. A field cleared by a correction's `DEPENDS_ON` invalidation or by a sub-intent's
`CLEAR` is asked again before the step's own question, whichever step gathered it
(`Thread.flow["recollect"]`), so the flow never goes on with it empty. Step entries per turn are
bounded, so a loop never hangs a turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from abl.model.steps import (
    Branch,
    CallSpec,
    Choice,
    Digression,
    Flow,
    FlowStep,
    Move,
    Reaction,
    SubIntent,
    Transition,
)
from abl.model.types import Agent, Condition, GatherField, Name
from abl.runtime.actions import call, do_action
from abl.runtime.agenda import NOTHING, Finish, ResumeFlow, Steps
from abl.runtime.corrections import correct
from abl.runtime.engine import Engine, TurnContext
from abl.runtime.errors import recover
from abl.runtime.escalate import escalate
from abl.runtime.evaluation import check, fill
from abl.runtime.gather import field_spec, is_unset, validate
from abl.runtime.handoff import flow_route, perform
from abl.runtime.history import Entry
from abl.runtime.models import IntentOption
from abl.runtime.reasoning import think
from abl.runtime.state import Thread
from abl.runtime.tools import CallResult
from abl.runtime.trace import REDACTED

MAX_STEP_ENTRIES_PER_TURN = 100
DEFAULT_MAX_TURNS = 10
TRAIL_LENGTH = 50  # steps remembered for BACKTRACK
# What a waiting step does with the next message (a halted step, `retry`, is entered again).
PHASES = {"gather": "gather", "input": "input", "choice": "choice", "reasoning": "reasoning"}
CHOOSE_AGAIN = "Please choose one of: {{options}}."


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a step ended: `goto` a step, `wait` for a message, `stay` (waiting, nothing more to
    do), `complete`, `escalate`, `handoff`, `continue` (no move), `steps` (the engine takes over)
    or `end`."""

    kind: str
    target: str = ""
    agent: Name | None = None
    returns: bool = False
    steps: Steps = ()


WAIT = Outcome("wait")
STAY = Outcome("stay")
END = Outcome("end")
CONTINUE = Outcome("continue")


def runs(thread: Thread) -> bool:
    """Whether the thread's flow still drives its messages."""
    return not thread.flow.get("done")


def read(engine: Engine, thread: Thread, agent: Agent, message: Entry, ctx: TurnContext) -> FlowRun:
    """The flow's extraction of `message`; the returned run's `advance` acts on it."""
    flow_run = FlowRun(engine, thread, agent, message, ctx)
    flow_run.read()
    return flow_run


def resume(engine: Engine, item: ResumeFlow, ctx: TurnContext) -> Steps:
    """Control came back in the middle of the flow: the open question is asked again."""
    agent = engine.agent(item.thread.agent)
    if agent is None or agent.flow is None or not runs(item.thread):
        return NOTHING
    FlowRun(engine, item.thread, agent, item.message, ctx).ask_again()
    return NOTHING


class FlowRun:
    """One message through a thread's flow."""

    def __init__(self, engine: Engine, thread: Thread, agent: Agent, message: Entry, ctx: TurnContext) -> None:
        assert agent.flow is not None
        self.engine = engine
        self.thread = thread
        self.agent = agent
        self.flow: Flow = agent.flow
        self.steps = engine.plan(agent.name.text).steps
        self.message = message
        self.fresh = True  # the message has not yet been read by a GATHER, an answer or a reasoning step
        self.ctx = ctx
        self.entries = 0
        self.reaction: Callable[[], Outcome] | None = None  # what `read` found the message to be, if not an answer
        self.guards: dict[str, bool] = {}  # entry guards `first_reader` decided, by step
        self.first_step: str | None = None  # the step a first message that is a side request was made at

    @property
    def state(self) -> dict[str, Any]:
        return self.thread.flow

    def event(self, step: str, action: str, to: str | None = None) -> None:
        fields: dict[str, Any] = {"step": step, "action": action}
        if to is not None:
            fields["to"] = to
        self.engine.emit("flow_step", fields, self.thread)

    def say(self, text: str, choices: tuple[tuple[str, str], ...] = ()) -> None:
        if text.strip():
            self.engine.say(self.thread, self.engine.render(self.thread, text), self.ctx, choices)

    def holds(self, condition: Condition | None, extras: dict[str, Any] | None = None) -> bool:
        if condition is None:
            return False
        return check(condition.parse, self.thread.values, extras, self.engine.env).result

    # --- the loop ----------------------------------------------------------------------------

    def read(self) -> None:
        """What the message is to the waiting step, and the values it gives (nothing is said and
        no step moves yet). A flow that has not started gives its first message to the step it
        reaches first (`first_reader`) as a waiting step would take it: a side request, else the
        step's fields, gathered before anything of it can move; a halted step reads the message
        when it is entered again."""
        name = self.state.get("step")
        if name is None:
            first = self.first_reader()
            if first is None:
                return
            self.reaction = self.interpret(first)
            if self.reaction is not None:
                self.first_step = first.name.text
            elif first.gather and not first.is_reasoning:
                self.fresh = False
                self.read_step_fields(first, first.name.text)
            return
        phase = PHASES.get(self.state.get("waiting") or "", "start")
        step = self.steps.get(name)
        if step is None or phase == "start":
            return
        self.reaction = self.interpret(step)
        if self.reaction is None and self.recollecting():
            self.fresh = False
            self.read_recollected()
            self.reaction = partial(self.after_recollection, step)
        elif self.reaction is None and phase == "gather":
            self.fresh = False
            self.read_step_fields(step)

    def first_reader(self) -> FlowStep | None:
        """The step a flow that has not started gives its first message to: the entry step, or,
        past entry guards false now, the step they skip to (None: a guard moves elsewhere). The
        guards decide which step reads the message, so they read the state before it; the walk
        keeps what they decided (`guards`) rather than asking them again after the reading."""
        step = self.steps.get(self.flow.entry or "")
        while step is not None and step.when is not None and step.name.text not in self.guards:
            holds = self.holds(step.when)
            self.guards[step.name.text] = holds
            if holds:
                break
            then = step.then
            if then is None or then.move is not Move.STEP or then.target is None:
                return None
            step = self.steps.get(then.target.text)
        if step is None or self.guards.get(step.name.text) is False:
            return None
        return step

    def guard_holds(self, step: FlowStep) -> bool:
        """The step's `WHEN` on entry: as `first_reader` decided it on this turn, else now."""
        decided = self.guards.pop(step.name.text, None)
        return decided if decided is not None else self.holds(step.when)

    def advance(self) -> Steps:
        """Act on what `read` found: a side request runs, or the flow goes on from its step."""
        name = self.state.get("step")
        if name is None:
            name = self.flow.entry
            if name is None:
                self.state.update({"done": True})
                return NOTHING
            return self.walk(name, "start")
        if self.reaction is not None:
            return self.carry_out(name, self.reaction())
        return self.walk(name, PHASES.get(self.state.get("waiting") or "", "start"))

    def walk(self, name: str, phase: str) -> Steps:
        while True:
            step = self.steps.get(name)
            if step is None:
                self.engine.emit(
                    "error",
                    {"code": "flow_unknown_step", "step": name, "message": f"the flow has no step named `{name}`"},
                    self.thread,
                )
                self.state.update({"step": None, "waiting": None, "done": True})
                return NOTHING
            if phase == "start":
                entered = self.enter(step)
                if entered is not None:
                    outcome = entered
                elif name == self.first_step:
                    outcome = self.side_request_first(step)
                else:
                    outcome = self.run_step(step, phase)
            else:
                outcome = self.run_step(step, phase)
            if outcome.kind == "goto":
                self.event(name, "transition", outcome.target)
                name, phase = outcome.target, "start"
                continue
            return self.carry_out(name, outcome)

    def side_request_first(self, step: FlowStep) -> Outcome:
        """The flow's first message is a side request at the step it reached: it runs as at a
        waiting step. That step has said nothing yet, so staying in it (or resuming it) starts it."""
        reaction, self.reaction, self.first_step = self.reaction, None, None
        assert reaction is not None
        outcome = reaction()
        if outcome.kind != "stay":
            return outcome
        if step.is_reasoning:  # it starts by answering a message: the next one
            self.state["waiting"] = "reasoning"
            return WAIT
        return self.run_step(step, "start")

    def enter(self, step: FlowStep) -> Outcome | None:
        """Count the entry; an outcome when the step cannot be entered (loop bound, attempts)."""
        name = step.name.text
        self.entries += 1
        if self.entries > MAX_STEP_ENTRIES_PER_TURN:
            self.engine.emit(
                "error",
                {
                    "code": "flow_step_limit",
                    "step": name,
                    "limit": MAX_STEP_ENTRIES_PER_TURN,
                    "message": f"more than {MAX_STEP_ENTRIES_PER_TURN} flow steps in one "
                    "turn; the flow stops here until the next message",
                },
                self.thread,
            )
            self.state.update({"step": name, "waiting": "retry"})
            return STAY
        attempts: dict[str, int] = self.state.setdefault("attempts", {})
        attempts[name] = attempts.get(name, 0) + 1
        if step.max_attempts is not None and attempts[name] > step.max_attempts:
            attempts[name] = 0
            self.event(name, "exhausted")
            if step.on_exhausted is None:
                self.engine.emit(
                    "warning",
                    {
                        "code": "flow_attempts_exhausted",
                        "step": name,
                        "message": f"step `{name}` was entered more than {step.max_attempts} "
                        "times and has no ON_EXHAUSTED; the flow ends",
                    },
                    self.thread,
                )
                return END
            return self.transition(step.on_exhausted, step)
        self.state.update({"step": name, "waiting": None, "turns": 0})
        self.state.pop("recollect", None)  # asking again belongs to the step that was left
        trail: list[str] = self.state.setdefault("trail", [])
        trail.append(name)
        del trail[:-TRAIL_LENGTH]
        self.event(name, "enter")
        self.revisit(step)
        return None

    def carry_out(self, name: str, outcome: Outcome) -> Steps:
        """Act on a step's outcome other than moving to another step."""
        if outcome.kind == "goto":
            self.event(name, "transition", outcome.target)
            return self.walk(outcome.target, "start")
        if outcome.kind == "wait":
            self.event(name, "wait")
            return NOTHING
        if outcome.kind == "stay":
            return NOTHING
        if outcome.kind == "steps":
            return outcome.steps
        if outcome.kind == "handoff" and outcome.returns and outcome.agent is not None:
            # A digression's returnable handoff: the step waits for the child to come back.
            self.event(name, "transition", outcome.agent.text)
            steps = perform(
                self.engine, self.thread, flow_route(outcome.agent, True), self.message, self.ctx, source="flow"
            )
            return steps or NOTHING
        self.state.update({"step": None, "waiting": None, "done": True})
        if outcome.kind == "complete":
            self.event(name, "transition", "COMPLETE")
            self.engine.emit("complete", {"step": name, "terminal": True}, self.thread)
            return (Finish(self.thread, self.message),)
        if outcome.kind == "escalate":
            self.event(name, "transition", "ESCALATE")
            escalate(self.engine, self.thread, outcome.target, None, self.ctx, source="flow")
            return NOTHING
        if outcome.kind == "handoff" and outcome.agent is not None:
            self.event(name, "transition", outcome.agent.text)
            steps = perform(
                self.engine, self.thread, flow_route(outcome.agent, False), self.message, self.ctx, source="flow"
            )
            return steps or NOTHING
        self.event(name, "end")
        return NOTHING

    def revisit(self, step: FlowStep) -> None:
        """Coming back to a GATHER step (a failed check, an invalid amount) asks its fields again."""
        if not step.gather:
            return
        visited: list[str] = self.state.setdefault("visited", [])
        if step.name.text not in visited:
            visited.append(step.name.text)
            return
        for f in step.gather:
            self.thread.clear_value(f.name.text)
            self.thread.attempts.pop(f.name.text, None)

    # --- one step ----------------------------------------------------------------------------

    def run_step(self, step: FlowStep, phase: str) -> Outcome:
        if phase == "start":
            if step.when is not None and not self.guard_holds(step):
                self.event(step.name.text, "skip")
                return self.then(step)
            if step.is_reasoning:
                return self.reasoning(step)
            self.present(step)
        if phase == "reasoning":
            return self.reasoning(step)
        if phase in ("start", "gather"):
            if step.gather and not self.gather(step):
                self.state["waiting"] = "gather"
                return WAIT
            outcome = self.actions(step)
            if outcome is not None and outcome.kind != "continue":
                return outcome
            if step.choices or step.on_action:
                self.state["waiting"] = "choice"
                return WAIT
            if step.on_input:
                self.state["waiting"] = "input"
                return WAIT
        else:  # the customer answered the step's question or chose an action
            self.fresh = False
            outcome = self.answer(step)
            if outcome is not None:
                return outcome
        return self.then(step)

    def present(self, step: FlowStep, again: bool = False) -> None:
        """The step's texts; its buttons go with the last one."""
        choices = tuple((c.id, c.label) for c in step.choices)
        for i, say in enumerate(step.messages):
            last = i == len(step.messages) - 1
            self.say(say.text.text, choices if last else ())
        if again and not step.messages and choices:
            self.say(
                fill(CHOOSE_AGAIN, {"options": ", ".join(c.label for c in step.choices)}, self.engine.env), choices
            )

    def actions(self, step: FlowStep) -> Outcome | None:
        """The step's own actions in written order, then `CHECK` and `ON_RESULT`."""
        name = step.name.text
        for action in step.actions:
            result = do_action(self.engine, self.thread, action, self.ctx, name)
            if result is None:
                continue
            if not result.ok:
                spec = action.call  # type: ignore[union-attr]
                result, moved = self.failed_call(step, spec, result)
                if moved is not None:
                    return moved
                if not result.ok:
                    continue
            if result.ok and step.on_success:
                moved = self.branches(step.on_success)
                if moved is not None:
                    return moved
        if step.check is not None and not self.holds(step.check):
            if not step.on_fail:
                self.state["waiting"] = "retry"
                return WAIT  # the step halts; the next message tries it again
            return self.branches(step.on_fail) or WAIT
        if step.on_result:
            return self.branches(step.on_result)
        return None

    def failed_call(self, step: FlowStep, spec: CallSpec, failure: CallResult) -> tuple[CallResult, Outcome | None]:
        """A failed call: the step's `ON_ERROR`, then its `ON_FAIL`/`ON_FAILURE`, then the
        agent's `ON_ERROR`. The call's last result, and where the step goes (None: on)."""
        name = step.name.text

        def again() -> CallResult:
            return call(self.engine, self.thread, spec, self.ctx, name)

        for scopes in (("step",), ("agent",)):
            recovery = recover(self.engine, self.thread, step, failure, spec.tool.text, again, self.ctx, scopes)
            if recovery.result.ok:
                return recovery.result, None
            if recovery.then is not None:
                moved = self.transition(recovery.then, step)
                return recovery.result, (None if moved.kind == "continue" else moved)
            if scopes == ("step",) and step.on_fail:
                return failure, self.branches(step.on_fail) or WAIT
        return failure, None

    def then(self, step: FlowStep) -> Outcome:
        return self.transition(step.then, step) if step.then is not None else END

    def transition(self, then: Transition, step: FlowStep) -> Outcome:
        move = then.move
        if move is Move.STEP and then.target is not None:
            return Outcome("goto", then.target.text)
        if move is Move.COMPLETE:
            return Outcome("complete")
        if move is Move.ESCALATE:
            reason = self.engine.render(self.thread, then.reason) if then.reason else "the flow escalated"
            return Outcome("escalate", reason)
        if move is Move.HANDOFF and then.target is not None:
            return Outcome("handoff", agent=then.target)
        if move is Move.CONTINUE:
            return CONTINUE
        if move is Move.RETRY_STEP:
            return Outcome("goto", step.name.text)
        if move is Move.BACKTRACK:
            return Outcome("goto", self.previous(step))
        if move is Move.RESUME:
            self.ask_again()
            return STAY
        if move is Move.END:
            return END
        self.engine.emit(
            "warning",
            {
                "code": "flow_transition_not_run",
                "step": step.name.text,
                "message": f"`{then.value.raw}` is not a transition the runtime runs; the flow ends here",
            },
            self.thread,
        )
        return END

    def previous(self, step: FlowStep) -> str:
        handler_target = next((h.backtrack_to.text for h in step.on_error if h.backtrack_to is not None), None)
        if handler_target is not None:
            return handler_target
        trail: list[str] = self.state.get("trail", [])
        earlier = [s for s in trail[:-1] if s != step.name.text]
        return earlier[-1] if earlier else step.name.text

    def branches(self, branches: tuple[Branch, ...], extras: dict[str, Any] | None = None) -> Outcome | None:
        """The first `- IF:` that holds (or `- ELSE:`) runs. Conditions are all judged on the
        values as they were before any branch ran."""
        chosen = next((b for b in branches if b.condition is None or self.holds(b.condition, extras)), None)
        if chosen is None:
            return None
        return self.react(chosen.reaction, None)

    def react(self, reaction: Reaction, step: FlowStep | None) -> Outcome | None:
        for action in reaction.actions:
            do_action(self.engine, self.thread, action, self.ctx, self.state.get("step"))
        if reaction.gather:
            self.read_fields(list(reaction.gather))
        if reaction.then is None:
            return None
        current = step or self.steps.get(self.state.get("step") or "")
        if current is None:
            return None
        moved = self.transition(reaction.then, current)
        return None if moved.kind == "continue" else moved

    def answer(self, step: FlowStep) -> Outcome | None:
        """The customer's message at a step waiting for a choice or an answer."""
        text = self.message.text.strip()
        if step.choices or step.on_action:
            chosen = _match_choice(step.choices, text) or _match_handler_id(step, text)
            if chosen is not None:
                self.engine.emit("action_handler_executed", {"step": step.name.text, "action": chosen}, self.thread)
                handler = next(
                    (
                        h
                        for h in step.on_action
                        if h.action == chosen and (h.condition is None or self.holds(h.condition, {"input": text}))
                    ),
                    None,
                )
                if handler is None:
                    return None
                return self.react(handler.reaction, step) or self.then(step)
            if not step.on_input:
                self.present(step, again=True)
                self.state["waiting"] = "choice"
                return STAY
        if step.on_input:
            return self.branches(step.on_input, {"input": text})
        return None

    # --- GATHER --------------------------------------------------------------------------------

    def gather(self, step: FlowStep) -> bool:
        """Read the step's fields from a message not yet read; True when every required one is set
        (or `COMPLETE_WHEN` holds), else the first missing one is asked for."""
        fields = list(step.gather)
        if self.fresh:
            self.fresh = False
            self.read_step_fields(step)
        if step.complete_when is not None and self.holds(step.complete_when):
            self.thread.asked = None
            return True
        missing = next((f for f in fields if f.is_required and is_unset(self.thread, f.name.text)), None)
        if missing is None:
            self.thread.asked = None
            return True
        self.say(self.question(step, missing))
        self.thread.asked = missing.name.text
        return False

    def read_step_fields(self, step: FlowStep, reader: str | None = None) -> None:
        self.read_fields([f for f in step.gather if is_unset(self.thread, f.name.text)], reader)

    def read_fields(self, fields: list[GatherField], reader: str | None = None) -> None:
        """Store what the message gives for `fields`; `reader` is the step the values are for
        (default: the current one)."""
        if not fields:
            return
        specs = [field_spec(self.agent, f, self.thread) for f in fields]
        context, earlier = self.engine.model_context(self.thread, self.message)
        ok, found = self.engine.consult(
            "extract",
            self.thread,
            self.ctx,
            earlier,
            lambda: self.engine.model.extract(specs, self.message.text, context),
        )
        if not ok or not found:
            return
        for f in fields:
            extraction = found.get(f.name.text)
            if extraction is not None:
                self.store(f, extraction.value, reader)

    def store(self, f: GatherField, raw: Any, reader: str | None = None) -> bool:
        value, problem = validate(f, raw)
        attempt = self.thread.attempts.get(f.name.text, 0) + 1
        self.thread.attempts[f.name.text] = attempt
        fields_out: dict[str, Any] = {
            "field": f.name.text,
            "value": value,
            "valid": problem is None,
            "attempt": attempt,
            "step": reader or self.state.get("step") or "",
        }
        if problem is not None:
            fields_out["reason"] = problem
        if f.sensitive:
            self.thread.sensitive = True
            self.engine.protect(f.name.text, value)
            fields_out["value"] = REDACTED
        if problem is None:  # stored before it is told, so an observer sees the field filled
            self.thread.set_value(f.name.text, value, gathered=True)
        self.engine.emit("gather", fields_out, self.thread)
        return problem is None

    def question(self, step: FlowStep | None, f: GatherField) -> str:
        if self.thread.attempts.get(f.name.text, 0) > 0 and f.retry_prompt is not None:
            return f.retry_prompt.text
        if f.prompt is not None and f.prompt.text.strip():
            return f.prompt.text
        if step is not None and step.gather_prompt is not None:
            return step.gather_prompt.text
        return f"Please provide: {f.name.text}"

    # --- fields asked again ----------------------------------------------------------------------

    def owner(self, f: GatherField) -> FlowStep | None:
        """The step that gathers `f` (None for the agent's own `GATHER`)."""
        return next((s for s in self.steps.values() if any(g.name.text == f.name.text for g in s.gather)), None)

    def gathered_before(self, name: str) -> bool:
        """Whether the customer was already asked for the field here: the agent's `GATHER`, or a
        step the flow has entered (a later step asks for its own fields when it is reached)."""
        if any(f.name.text == name for f in self.agent.gather):
            return True
        visited: list[str] = self.state.get("visited", [])
        return any(any(f.name.text == name for f in self.steps[s].gather) for s in visited if s in self.steps)

    def recollect(self, names: list[str]) -> None:
        """Ask again for these cleared fields before the step goes on."""
        queue: list[str] = self.state.setdefault("recollect", [])
        for name in names:
            if name not in queue and self.gathered_before(name) and self.agent.gather_field(name) is not None:
                queue.append(name)
                self.thread.attempts.pop(name, None)
        if not queue:
            self.state.pop("recollect", None)

    def recollecting(self) -> bool:
        return bool(self.state.get("recollect"))

    def next_recollected(self) -> GatherField | None:
        for name in self.state.get("recollect", []):
            f = self.agent.gather_field(name)
            if f is not None and is_unset(self.thread, name):
                return f
        return None

    def read_recollected(self) -> None:
        """The answer to a field asked again: the fields being asked again are read from it; a
        required one stays asked until it has a value, an optional one is asked once."""
        queue: list[str] = self.state.get("recollect", [])
        fields = [f for f in (self.agent.gather_field(n) for n in queue) if f is not None]
        asked = self.thread.asked
        self.read_fields([f for f in fields if is_unset(self.thread, f.name.text)])
        self.state["recollect"] = [
            f.name.text
            for f in fields
            if is_unset(self.thread, f.name.text) and (f.is_required or f.name.text != asked)
        ]
        self.thread.asked = None

    def after_recollection(self, step: FlowStep) -> Outcome:
        """Ask for the next field still missing; with all of them back, the step goes on where it was."""
        if self.next_recollected() is not None:
            self.ask_again()
            return STAY
        self.state.pop("recollect", None)
        if self.state.get("waiting") == "gather":
            return self.run_step(step, "gather")
        self.ask_again()
        return STAY

    def ask_again(self) -> None:
        """Say the open question of the current step again (after a digression or a return); a
        field being asked again comes first."""
        name = self.state.get("step")
        step = self.steps.get(name or "")
        if step is None:
            return
        self.event(step.name.text, "resume")
        recollected = self.next_recollected()
        if recollected is not None:
            self.say(self.question(self.owner(recollected), recollected))
            self.thread.asked = recollected.name.text
            return
        waiting = self.state.get("waiting")
        if waiting == "gather":
            missing = next((f for f in step.gather if f.is_required and is_unset(self.thread, f.name.text)), None)
            if missing is not None:
                self.say(self.question(step, missing))
                self.thread.asked = missing.name.text
        elif waiting in ("input", "choice"):
            self.present(step, again=True)

    # --- reasoning steps -------------------------------------------------------------------------

    def reasoning(self, step: FlowStep) -> Outcome:
        """A step the model drives: it answers each message (calling tools as it sees fit) until
        `EXIT_WHEN` holds or `MAX_TURNS` messages were answered."""
        if step.exit_when is not None and self.holds(step.exit_when):
            return self.then(step)
        if not self.fresh and self.state.get("waiting") == "reasoning":
            return WAIT
        self.fresh = False
        plan = self.engine.plan(self.agent.name.text)
        goal = step.goal.text if step.goal is not None else (self.agent.goal.text if self.agent.goal else "")
        tools = plan.tool_specs(tuple(n.text for n in step.available_tools))
        done = think(
            self.engine,
            self.thread,
            self.message,
            self.ctx,
            goal=goal,
            tools=tools,
            limit=plan.max_iterations,
            exit_when=step.exit_when,
            step=step,
        )
        if done.steps is not None:
            self.state.update({"step": None, "waiting": None, "done": True})
            return Outcome("steps", steps=done.steps)
        turns = int(self.state.get("turns", 0)) + 1
        self.state["turns"] = turns
        if done.exited or (step.exit_when is not None and self.holds(step.exit_when)):
            return self.then(step)
        if turns >= (step.max_turns or DEFAULT_MAX_TURNS):
            return self.then(step)
        self.state["waiting"] = "reasoning"
        return WAIT

    # --- what a message at a waiting step may be instead of an answer ----------------------------

    def interpret(self, step: FlowStep) -> Callable[[], Outcome] | None:
        """A correction (applied now: it is what the message gives), a sub-intent or a
        digression (to run when the flow advances); None when the message is an answer."""
        correction = correct(self.engine, self.thread, self.agent, step, self.message, self.ctx)
        if correction is not None:
            self.fresh = False
            self.recollect(list(correction.cleared))
            return self.resume_after_correction
        # One question covers every side request possible here: the step's sub-intents first,
        # then its digressions, then the flow's.
        digressions: list[tuple[Digression, str]] = [(d, "step") for d in step.digressions]
        digressions += [(d, "global") for d in self.flow.global_digressions]
        options = [(s.intent, ()) for s in step.sub_intents] + [(d.intent, d.keywords) for d, _ in digressions]
        conditions = [None] * len(step.sub_intents) + [d.condition for d, _ in digressions]
        found = self.detect(options, conditions)
        if found is None:
            return None
        self.fresh = False
        index, mode, confidence = found
        if index < len(step.sub_intents):
            return partial(self.handle_sub_intent, step, step.sub_intents[index], mode, confidence)
        digression, scope = digressions[index - len(step.sub_intents)]
        return partial(self.digress, step, digression, scope, mode, confidence)

    def resume_after_correction(self) -> Outcome:
        self.ask_again()
        return STAY

    def handle_sub_intent(self, step: FlowStep, sub: SubIntent, mode: str, confidence: float) -> Outcome:
        self.engine.emit(
            "sub_intent",
            {
                "intent": sub.intent,
                "step": step.name.text,
                "detectionMode": mode,
                "confidence": confidence,
                "resume": sub.resume,
            },
            self.thread,
        )
        had = [f.name.text for f in self.agent.all_gather_fields() if not is_unset(self.thread, f.name.text)]
        moved = self.react(sub.reaction, step)
        if moved is not None:
            return moved
        # A field its CLEAR emptied is asked again.
        self.recollect([name for name in had if is_unset(self.thread, name)])
        if sub.resume:
            self.ask_again()
        return STAY

    def digress(self, step: FlowStep, digression: Digression, scope: str, mode: str, confidence: float) -> Outcome:
        then = digression.reaction.then
        resume = then is not None and then.move is Move.RESUME
        self.engine.emit(
            "digression",
            {
                "intent": digression.intent,
                "step": step.name.text,
                "detectionMode": mode,
                "confidence": confidence,
                "resume": resume,
                "scope": scope,
            },
            self.thread,
        )
        for action in digression.reaction.actions:
            do_action(self.engine, self.thread, action, self.ctx, step.name.text)
        if then is None:
            return STAY  # the step keeps waiting for its answer
        if then.move is Move.HANDOFF and then.target is not None:
            return Outcome("handoff", agent=then.target, returns=digression.returns)
        return self.transition(then, step)

    def detect(
        self, options: list[tuple[str, tuple[str, ...]]], conditions: list[Condition | None] | None = None
    ) -> tuple[int, str, float] | None:
        """Which of the side requests the message makes: a keyword in it, else the model's
        intent match (its `CONDITION`, when written, must hold too)."""
        if not options:
            return None
        allowed = [condition is None or self.holds(condition) for condition in conditions or [None] * len(options)]
        lowered = self.message.text.lower()
        for i, (_, keywords) in enumerate(options):
            if allowed[i] and any(re.search(rf"\b{re.escape(k.lower())}\b", lowered) for k in keywords if k.strip()):
                return i, "keyword", 1.0
        intents = tuple(IntentOption(intent, "", keywords) for intent, keywords in options)
        context, earlier = self.engine.model_context(self.thread, self.message)
        ok, decision = self.engine.consult(
            "intent",
            self.thread,
            self.ctx,
            earlier,
            lambda: self.engine.model.classify_intent(self.message.text, intents, context),
        )
        if not ok or decision is None or decision.name is None:
            return None
        index = next(i for i, (intent, _) in enumerate(options) if intent == decision.name)
        return (index, "model", decision.confidence) if allowed[index] else None


def _match_choice(choices: tuple[Choice, ...], text: str) -> str | None:
    """The action id a reply picks: an id, a label, a value, an option, or its number."""
    said = text.strip().strip("\"'").lower()
    if not said:
        return None
    for choice in choices:
        names = {choice.id.lower(), choice.label.lower()} | ({choice.value.lower()} if choice.value else set())
        if said in names:
            return choice.id
        for option_id, label in choice.options:
            if said in (option_id.lower(), label.lower()):
                return option_id
    # `isdecimal`, not `isdigit`: `int` reads no superscripts; and a choice number is short
    # (the digits of a whole message would not even convert).
    if said.isdecimal() and len(said) <= 6 and 1 <= int(said) <= len(choices):
        return choices[int(said) - 1].id
    return None


def _match_handler_id(step: FlowStep, text: str) -> str | None:
    said = text.strip().strip("\"'").lower()
    return next((h.action for h in step.on_action if h.action.lower() == said), None)
