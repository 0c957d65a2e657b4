"""`FLOW`: deterministic steps run one after another, pausing when they need the customer.

A thread's place in its flow is plain data (`Thread.flow`): the current step, what it waits
for (`gather`, `input`, `reasoning`, `retry`), and reasoning turns used. Inside a step the
order is: `WHEN` guard, `RESPOND`/`PRESENT`, `GATHER`, `SET`/`CALL` (as written), `CHECK` +
`ON_FAIL`, `ON_RESULT`, `ON_INPUT` (on the next message), `CLEAR`, `THEN`. A branch that
transitions stops the step. Step entries per turn are bounded, so a loop never hangs a turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from abl.expr import parse_condition
from abl.model.types import Agent, FlowInfo, GatherField
from abl.runtime.engine import Engine, TurnContext
from abl.runtime.evaluation import check, fill, value_of
from abl.runtime.history import Entry
from abl.runtime.models import ReplyRequest
from abl.runtime.state import Thread
from abl.runtime.trace import REDACTED
from abl.syntax.cst import Node, find_entry
from abl.syntax.values import unquote
from abl.text import Range

MAX_STEP_ENTRIES_PER_TURN = 100
DEFAULT_MAX_TURNS = 10

_RESERVED = frozenset({"entry_point", "steps", "global_digressions"})
_RUN = frozenset({"REASONING", "WHEN", "RESPOND", "SAY", "PRESENT", "GATHER", "SET", "CALL", "WITH", "AS",
                  "CHECK", "ON_FAIL", "ON_RESULT", "ON_INPUT", "CLEAR", "THEN", "GOTO", "EXIT_WHEN",
                  "MAX_TURNS"})
# Written in real flows, but only shaping behaviour the local runtime does not model: the flow
# still runs, and a one-time warning names them.
_IGNORED = frozenset({"CORRECTIONS", "DIGRESSIONS", "SUB_INTENTS", "MESSAGE_KEY", "LOG", "GOAL", "BEHAVIOR",
                      "AVAILABLE_TOOLS", "STEP_CONSTRAINTS", "DESCRIPTION"})
_REASON = re.compile(r"REASON\s*:\s*(.*)$", re.I | re.S)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a step ended: `goto` a step, `wait` for a message, `complete`, `escalate`, or `end`."""

    kind: str
    target: str = ""


WAIT = Outcome("wait")
END = Outcome("end")


# --- what can run ------------------------------------------------------------------------------


def steps_of(info: FlowInfo) -> dict[str, Node]:
    if info.node is None:
        return {}
    return {e.key: e for e in info.node.children if e.is_entry and e.key.lower() not in _RESERVED}


def unsupported(info: FlowInfo) -> tuple[list[str], list[str]]:
    """The constructs that stop the flow from running, and those it runs without."""
    blocking: list[str] = []
    ignored: list[str] = []
    if info.node is not None and info.node.find("global_digressions") is not None:
        ignored.append("global_digressions")
    for step in steps_of(info).values():
        for entry in step.entries():
            key = entry.key.upper()
            if key in _RUN:
                continue
            target = ignored if key in _IGNORED else blocking
            if key not in target:
                target.append(key)
    return blocking, ignored


def entry_step(info: FlowInfo) -> str | None:
    node = info.node.find("entry_point") if info.node is not None else None
    if node is not None and node.has_value:
        return unquote(node.value)[0].strip()
    if info.listed_steps:
        return info.listed_steps[0].text
    return info.steps[0].text if info.steps else None


def is_finished(thread: Thread) -> bool:
    return bool(thread.flow.get("done"))


# --- running -----------------------------------------------------------------------------------


class FlowRun:
    """One message through a thread's flow."""

    def __init__(self, engine: Engine, thread: Thread, agent: Agent, message: Entry, ctx: TurnContext) -> None:
        assert agent.flow is not None
        self.engine = engine
        self.thread = thread
        self.agent = agent
        self.info = agent.flow
        self.steps = steps_of(agent.flow)
        self.message = message
        self.fresh = True  # the message has not yet been read by a GATHER, ON_INPUT or reasoning step
        self.ctx = ctx
        self.entries = 0

    # state helpers
    @property
    def state(self) -> dict[str, Any]:
        return self.thread.flow

    def event(self, step: str, action: str, to: str | None = None) -> None:
        fields: dict[str, Any] = {"step": step, "action": action}
        if to is not None:
            fields["to"] = to
        self.engine.emit("flow_step", fields, self.thread)

    def say(self, text: str) -> None:
        if text.strip():
            self.engine.say(self.thread, fill(text, self.thread.values, self.engine.env), self.ctx)

    # the loop
    def run(self) -> None:
        from abl.runtime.turn import finish

        step = self.state.get("step")
        waiting = self.state.get("waiting")
        if step is None:
            step, phase = entry_step(self.info), "start"
        else:
            phase = {"gather": "gather", "input": "input", "reasoning": "reasoning"}.get(waiting or "", "start")
        while step is not None:
            node = self.steps.get(step)
            if node is None:
                self.engine.emit("error", {"code": "flow_unknown_step", "step": step,
                                           "message": f"the flow has no step named `{step}`"}, self.thread)
                self.state.update({"step": None, "waiting": None, "done": True})
                return
            if phase == "start":
                self.entries += 1
                if self.entries > MAX_STEP_ENTRIES_PER_TURN:
                    self.engine.emit("error", {"code": "flow_step_limit", "step": step,
                                               "limit": MAX_STEP_ENTRIES_PER_TURN,
                                               "message": f"more than {MAX_STEP_ENTRIES_PER_TURN} flow steps in one "
                                                          "turn; the flow stops here until the next message"},
                                     self.thread)
                    self.state.update({"step": step, "waiting": "retry"})
                    return
                self.state.update({"step": step, "waiting": None, "turns": 0})
                self.event(step, "enter")
                self.revisit(step, node)
            outcome = self.run_step(step, node, phase)
            if outcome.kind == "wait":
                self.event(step, "wait")
                return
            if outcome.kind == "goto":
                self.event(step, "transition", outcome.target)
                step, phase = outcome.target, "start"
                continue
            self.state.update({"step": None, "waiting": None, "done": True})
            if outcome.kind == "complete":
                self.event(step, "transition", "COMPLETE")
                self.engine.emit("complete", {"step": step, "terminal": True}, self.thread)
                finish(self.engine, self.thread, self.message, self.ctx)
            elif outcome.kind == "escalate":
                from abl.runtime.escalate import escalate

                self.event(step, "transition", "ESCALATE")
                escalate(self.engine, self.thread, outcome.target, None, self.ctx, source="flow")
            else:
                self.event(step, "end")
            return

    def revisit(self, name: str, node: Node) -> None:
        """Coming back to a GATHER step (a failed check, an invalid amount) asks its fields again."""
        visited: list[str] = self.state.setdefault("visited", [])
        gather = node.find("GATHER")
        if gather is None:
            return
        if name not in visited:
            visited.append(name)
            return
        span = gather.range()
        for f in self.info.gather:
            if _within(f.range, span):
                self.thread.clear_value(f.name.text)
                self.thread.attempts.pop(f.name.text, None)

    def run_step(self, name: str, node: Node, phase: str) -> Outcome:
        if phase == "start":
            when = node.find("WHEN")
            if when is not None and when.has_value and not self.holds(when.value):
                self.event(name, "skip")
                return self.then(node)
            if _is_true(node.find("REASONING")):
                return self.reasoning(node, resumed=False)
            for key in ("RESPOND", "SAY", "PRESENT"):
                part = node.find(key)
                if part is not None:
                    self.say(_text(part))
        if phase == "reasoning":
            return self.reasoning(node, resumed=True)
        if phase in ("start", "gather"):
            gather = node.find("GATHER")
            if gather is not None and not self.gather(gather):
                self.state["waiting"] = "gather"
                return WAIT
            outcome = self.actions(node)
            if outcome is not None:
                return outcome
            on_input = node.find("ON_INPUT")
            if on_input is not None:
                self.state["waiting"] = "input"
                return WAIT
        else:  # "input": the customer answered the step's question
            on_input = node.find("ON_INPUT")
            if on_input is not None:
                self.fresh = False
                outcome = self.branches(on_input, {"input": self.message.text.strip()})
                if outcome is not None:
                    return outcome
        return self.then(node)

    def actions(self, node: Node) -> Outcome | None:
        """`SET`/`CALL` in written order, then `CHECK` and `ON_RESULT`."""
        for entry in node.entries():
            key = entry.key.upper()
            if key == "SET":
                self.assign(entry)
            elif key == "CALL":
                self.call(node, entry)
        condition = node.find("CHECK")
        if condition is not None and condition.has_value and not self.holds(condition.value):
            on_fail = node.find("ON_FAIL")
            if on_fail is None:
                self.state["waiting"] = "retry"
                return WAIT  # the step halts; the next message tries it again
            return self.follow(on_fail) or WAIT
        on_result = node.find("ON_RESULT")
        if on_result is not None:
            return self.branches(on_result, None)
        return None

    def then(self, node: Node) -> Outcome:
        clear = node.find("CLEAR")
        if clear is not None:
            self.clear(clear)
        target = node.find("THEN") or node.find("GOTO")
        return self.target(target) if target is not None else END

    def follow(self, node: Node) -> Outcome | None:
        """`ON_FAIL: step`, or a block with `RESPOND` and `THEN`/`GOTO`."""
        if node.has_value:
            return self.target(node)
        part = node.find("RESPOND") or node.find("SAY")
        if part is not None:
            self.say(_text(part))
        target = node.find("THEN") or node.find("GOTO")
        return self.target(target) if target is not None else None

    def target(self, node: Node) -> Outcome:
        raw = unquote(node.value)[0].strip()
        if raw in self.steps:
            return Outcome("goto", raw)  # a step may be called `complete` or `escalate`
        word = raw.split(None, 1)[0] if raw else ""
        if word.upper() == "COMPLETE":
            return Outcome("complete")
        if word.upper() == "ESCALATE":
            m = _REASON.search(raw)
            reason = unquote(m.group(1).strip())[0] if m else "the flow escalated"
            return Outcome("escalate", fill(reason, self.thread.values, self.engine.env))
        return Outcome("goto", raw)

    def branches(self, node: Node, extras: dict[str, Any] | None) -> Outcome | None:
        """The first `- IF:` that holds (or `- ELSE:`) runs; conditions see the values as they
        were before any branch ran."""
        for item in node.children:
            content = item.content if item.is_item else None
            if content is None or not content.is_entry:
                continue
            props = list(content.children) + item.children[1:]
            kind = content.key.upper()
            if kind == "IF" and not self.holds(content.value, extras):
                continue
            if kind not in ("IF", "ELSE"):
                continue
            for prop in props:
                if not prop.is_entry:
                    continue
                key = prop.key.upper()
                if key in ("RESPOND", "SAY"):
                    self.say(_text(prop))
                elif key == "SET":
                    self.assign(prop)
                elif key == "CLEAR":
                    self.clear(prop)
            target = find_entry(props, "THEN") or find_entry(props, "GOTO")
            return self.target(target) if target is not None else None
        return None

    # actions
    def holds(self, text: str, extras: dict[str, Any] | None = None) -> bool:
        return check(parse_condition(text.strip()), self.thread.values, extras, self.engine.env).result

    def assign(self, node: Node) -> None:
        span = node.range()
        for assignment in self.info.sets:
            if not _within(assignment.range, span):
                continue
            value, problems = value_of(assignment.expr, self.thread.values, self.engine.env)
            self.thread.set_value(assignment.target.text, value)
            if problems:
                self.engine.emit("warning", {"code": "flow_set", "target": assignment.target.text,
                                             "message": "; ".join(problems)}, self.thread)

    def clear(self, node: Node) -> None:
        raw = node.value.strip().strip("[]") if node.has_value else ""
        names = [n.strip() for n in raw.split(",") if n.strip()]
        names += [c.value.strip() for c in node.walk() if c.is_text and c is not node]
        for name in names:
            self.thread.clear_value(name)
            self.thread.attempts.pop(name, None)

    def call(self, step: Node, node: Node) -> None:
        from abl.runtime.tools import call_tool

        name = node.value.strip()
        with_node = node.find("WITH") or step.find("WITH")
        as_node = node.find("AS") or step.find("AS")
        arguments: dict[str, Any] = {}
        for pair in with_node.entries() if with_node is not None else []:
            arguments[pair.key], _ = value_of(pair.value, self.thread.values, self.engine.env)
        ok, result = call_tool(self.engine, self.thread, name, arguments, self.ctx)
        if as_node is not None and as_node.has_value:
            self.thread.set_value(as_node.value.strip(), result if ok else None)

    def gather(self, node: Node) -> bool:
        """Read the step's fields from a message not yet read; True when every required one is
        set, else the first missing one is asked for."""
        from abl.runtime.gather import field_spec, is_unset, validate

        span = node.range()
        fields = [f for f in self.info.gather if _within(f.range, span)]
        open_fields = [f for f in fields if is_unset(self.thread, f.name.text)]
        if open_fields and self.fresh:
            self.fresh = False
            specs = [field_spec(self.agent, f, self.thread) for f in open_fields]
            context, earlier = self.engine.model_context(self.thread, self.message)
            ok, found = self.engine.consult("extract", self.thread, self.ctx, earlier,
                                            lambda: self.engine.model.extract(specs, self.message.text, context))
            for f in open_fields if ok and found else []:
                extraction = found.get(f.name.text)
                if extraction is None:
                    continue
                value, problem = validate(f, extraction.value)
                attempt = self.thread.attempts.get(f.name.text, 0) + 1
                self.thread.attempts[f.name.text] = attempt
                fields_out: dict[str, Any] = {"field": f.name.text, "value": value, "valid": problem is None,
                                              "attempt": attempt}
                if problem is not None:
                    fields_out["reason"] = problem
                if f.sensitive:
                    self.thread.sensitive = True
                    self.engine.protect(f.name.text, value)
                    fields_out["value"] = REDACTED
                self.engine.emit("gather", fields_out, self.thread)
                if problem is None:
                    self.thread.set_value(f.name.text, value, gathered=True)
        missing = next((f for f in fields if f.is_required and is_unset(self.thread, f.name.text)), None)
        if missing is None:
            self.thread.asked = None
            return True
        self.say(self.question(node, missing))
        self.thread.asked = missing.name.text
        return False

    def question(self, node: Node, f: GatherField) -> str:
        if self.thread.attempts.get(f.name.text, 0) > 0 and f.retry_prompt is not None:
            return f.retry_prompt.text
        if f.prompt is not None and f.prompt.text.strip():
            return f.prompt.text
        shared = node.find("PROMPT")
        if shared is not None:
            return _text(shared)
        return f"Please provide: {f.name.text}"

    def reasoning(self, node: Node, resumed: bool) -> Outcome:
        """A free-talk step: the model answers each message until `EXIT_WHEN` or `MAX_TURNS`."""
        exit_when = node.find("EXIT_WHEN")
        if exit_when is not None and exit_when.has_value and self.holds(exit_when.value):
            return self.then(node)
        if not self.fresh:
            self.state["waiting"] = "reasoning"
            return WAIT
        self.fresh = False
        self.reply(node)
        turns = int(self.state.get("turns", 0)) + 1
        self.state["turns"] = turns
        if exit_when is not None and exit_when.has_value and self.holds(exit_when.value):
            return self.then(node)
        limit_node = node.find("MAX_TURNS")
        limit = int(limit_node.value) if limit_node is not None and limit_node.value.strip().isdigit() \
            else DEFAULT_MAX_TURNS
        if turns >= limit:
            return self.then(node)
        self.state["waiting"] = "reasoning"
        return WAIT

    def reply(self, node: Node) -> None:
        goal_node = node.find("GOAL")
        goal = _text(goal_node) if goal_node is not None else (self.agent.goal.text if self.agent.goal else "")
        context, earlier = self.engine.model_context(self.thread, self.message)
        request = ReplyRequest(agent=self.thread.agent, goal=goal,
                               persona=self.agent.persona.text if self.agent.persona is not None else "",
                               messages=context.messages)
        ok, text = self.engine.consult("reply", self.thread, self.ctx, earlier,
                                       lambda: self.engine.model.reply(request))
        if ok and text:
            self.engine.say(self.thread, text, self.ctx)


def run(engine: Engine, thread: Thread, agent: Agent, message: Entry, ctx: TurnContext) -> None:
    FlowRun(engine, thread, agent, message, ctx).run()


# --- small readers -----------------------------------------------------------------------------


def _text(node: Node) -> str:
    if node.is_pipe:
        return node.pipe_text.rstrip("\n")
    return unquote(node.value)[0] if node.has_value else ""


def _is_true(node: Node | None) -> bool:
    return node is not None and node.value.strip().lower() in ("true", "yes")


def _within(inner: Range, outer: Range) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


