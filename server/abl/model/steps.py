"""The vocabulary of scripted behaviour: `FLOW` steps and `ON_START`.

A step is lowered once into plain objects: its guard and checks as parsed conditions, its
actions in the order they are written, its branches, its transitions, its digressions and
sub-intents, its buttons and their handlers, its error handlers. The runtime runs these objects
and the FLOW checks read them; neither looks at the syntax tree again.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from abl.model.movable import Movable
from abl.model.types import Assignment, Condition, GatherField, Name, Scalar, read_flag
from abl.text import Range

if TYPE_CHECKING:
    from abl.syntax.cst import Node

# The entries of `FLOW:` that are settings of the flow, not steps.
FLOW_SETTINGS = frozenset({"entry_point", "steps", "global_digressions"})

# Step keys whose work needs something a local, text-only run does not have (a file upload, a
# keypad, a telephony route) or that the runtime does not enforce; a step with one says so.
STEP_KEYS_NOT_RUN = frozenset({"AWAIT_ATTACHMENT", "SECURE_INPUT", "RESOLVE_SIP_DESTINATION", "STEP_CONSTRAINTS"})

# Step keys only a `REASONING: false` step runs: a reasoning step hands the message to the model
# and its tools, and none of these is read there (PLATFORM-RUNTIME.md 3.8).
DETERMINISTIC_STEP_KEYS = frozenset(
    {
        "RESPOND",
        "SAY",
        "MESSAGE_KEY",
        "PRESENT",
        "GATHER",
        "COMPLETE_WHEN",
        "CALL",
        "WITH",
        "AS",
        "SET",
        "CHECK",
        "ON_FAIL",
        "ON_FAILURE",
        "ON_SUCCESS",
        "ON_RESULT",
        "ON_INPUT",
        "CLEAR",
        "TRANSFORM",
        "LOG",
        "ACTIONS",
        "ON_ACTION",
    }
)

# Step keys only a `REASONING: true` step reads: a deterministic step runs its actions and never
# hands the message to the model (ABL-REFERENCE.md, FLOW step properties: "should not" carry them).
REASONING_STEP_KEYS = frozenset({"GOAL", "BEHAVIOR", "AVAILABLE_TOOLS", "EXIT_WHEN", "MAX_TURNS"})

# Words that end or leave a step instead of naming one (any case).
ACTION_WORDS = frozenset(
    {
        "complete",
        "escalate",
        "handoff",
        "delegate",
        "continue",
        "retry",
        "retry_step",
        "backtrack",
        "return",
        "return_to_parent",
        "resume",
        "end",
        "ask_user",
        "respond",
        "block",
    }
)


class Move(enum.Enum):
    """Where a transition leads."""

    STEP = "step"  # another step of the flow
    COMPLETE = "complete"  # the flow, and the agent, are done
    ESCALATE = "escalate"  # a human takes over
    HANDOFF = "handoff"  # another agent takes over
    CONTINUE = "continue"  # go on as if nothing happened (error handlers)
    RETRY_STEP = "retry_step"  # run the current step again
    BACKTRACK = "backtrack"  # back to the step before (or `BACKTRACK_TO`)
    RESUME = "resume"  # back to the interrupted step (digressions)
    END = "end"  # the flow ends without completing the agent
    UNKNOWN = "unknown"  # an action word the runtime does not run


@dataclass(frozen=True, slots=True)
class Transition(Movable):
    """`THEN: collect_amount`, `THEN: COMPLETE`, `THEN: ESCALATE with REASON: "..."`, `HANDOFF X`."""

    move: Move
    value: Scalar  # as written
    target: Name | None = None  # the step (STEP) or the agent (HANDOFF)
    reason: str | None = None  # ESCALATE's reason, unquoted


@dataclass(frozen=True, slots=True)
class CallSpec(Movable):
    """`CALL: tool` with `WITH:` and `AS:`, or `CALL: tool(a = x, "y")`."""

    tool: Name
    arguments: tuple[tuple[str | None, str], ...]  # (parameter, or None when positional; expression)
    result: Name | None  # `AS`
    range: Range


@dataclass(frozen=True, slots=True)
class TransformSpec(Movable):
    """`TRANSFORM`: a list reshaped by `FILTER`, `MAP`, `SORT_BY` and `LIMIT` into `INTO`."""

    source: str  # expression giving the list
    item: str  # the name each element has inside FILTER and MAP (`AS`)
    into: Name | None
    filter: Condition | None
    map: tuple[tuple[str, str], ...]  # output field -> expression; empty keeps the element
    map_expression: str | None  # `MAP: expression` (one value per element)
    sort_by: str | None
    descending: bool
    limit: int | None
    range: Range


@dataclass(frozen=True, slots=True)
class Say(Movable):
    text: Scalar  # RESPOND, SAY or PRESENT


@dataclass(frozen=True, slots=True)
class Assign(Movable):
    assignments: tuple[Assignment, ...]


@dataclass(frozen=True, slots=True)
class Clear(Movable):
    names: tuple[Name, ...]


@dataclass(frozen=True, slots=True)
class Call(Movable):
    call: CallSpec


@dataclass(frozen=True, slots=True)
class Transform(Movable):
    spec: TransformSpec


@dataclass(frozen=True, slots=True)
class Log(Movable):
    message: Scalar
    level: str


Action = Say | Assign | Clear | Call | Transform | Log


@dataclass(frozen=True, slots=True)
class Reaction(Movable):
    """What a branch, handler or digression does: its actions in order, then where it goes."""

    actions: tuple[Action, ...] = ()
    then: Transition | None = None
    gather: tuple[GatherField, ...] = ()  # fields an `ON_INPUT` branch collects


@dataclass(frozen=True, slots=True)
class Branch(Movable):
    """`- IF: condition` (or `- ELSE:`, `condition` None) and its reaction. A one-block
    `ON_SUCCESS:` or one-line `ON_FAIL: step` is a single branch without a condition."""

    condition: Condition | None
    reaction: Reaction
    range: Range


@dataclass(frozen=True, slots=True)
class Digression(Movable):
    """A side topic the customer may raise at a step (or, globally, at every step)."""

    intent: str
    keywords: tuple[str, ...]
    condition: Condition | None
    reaction: Reaction  # its `then`: GOTO a step, HANDOFF, or RESUME the interrupted step
    returns: bool  # a digression HANDOFF that comes back (`RETURN: true`)
    range: Range


@dataclass(frozen=True, slots=True)
class SubIntent(Movable):
    """A request handled without leaving the step; the step's question is asked again after it
    unless `RESUME: false`."""

    intent: str
    reaction: Reaction
    resume: bool
    range: Range


@dataclass(frozen=True, slots=True)
class Choice(Movable):
    """One element of a step's `ACTIONS`: a button, a select or an input."""

    id: str
    kind: str  # button | select | input
    label: str
    value: str | None
    options: tuple[tuple[str, str], ...]  # (id, label) of a select


@dataclass(frozen=True, slots=True)
class ActionHandler(Movable):
    """One entry of `ON_ACTION`: what the chosen action id does."""

    action: str
    condition: Condition | None
    reaction: Reaction
    range: Range


@dataclass(frozen=True, slots=True)
class ErrorHandler(Movable):
    """One entry of `ON_ERROR` (a step's or the agent's), keyed by error type."""

    type: str  # tool_error, llm_error, validation_error, timeout_error, default, ...
    subtypes: tuple[str, ...]
    reaction: Reaction  # RESPOND and SET, then CONTINUE, COMPLETE, ESCALATE, BACKTRACK, RETRY_STEP or HANDOFF
    retry: int  # how often the failed call is tried again first
    retry_delay_ms: int
    backoff: str  # fixed | exponential | linear
    max_delay_ms: int | None
    backtrack_to: Name | None
    range: Range


@dataclass(frozen=True, slots=True)
class FlowStep(Movable):
    """One named step of a flow."""

    name: Name
    range: Range
    is_block: bool = True  # False for a one-line `name: value`, which is no step block
    reasoning: Scalar | None = None  # `REASONING` as written
    declares_reasoning: bool = False  # the key is there (with or without a readable value)
    when: Condition | None = None
    messages: tuple[Say, ...] = ()  # RESPOND / SAY / PRESENT, in written order
    gather: tuple[GatherField, ...] = ()
    gather_prompt: Scalar | None = None  # a shared `PROMPT` of `GATHER: FIELDS:`
    corrections: bool = False
    complete_when: Condition | None = None
    actions: tuple[Action, ...] = ()  # SET, CALL, TRANSFORM, CLEAR, LOG in written order
    check: Condition | None = None
    on_fail: tuple[Branch, ...] = ()  # when CHECK fails or the step's call fails
    on_success: tuple[Branch, ...] = ()  # when the step's call succeeds
    on_result: tuple[Branch, ...] = ()
    on_input: tuple[Branch, ...] = ()  # on the customer's next message
    choices: tuple[Choice, ...] = ()  # ACTIONS
    on_action: tuple[ActionHandler, ...] = ()
    digressions: tuple[Digression, ...] = ()
    sub_intents: tuple[SubIntent, ...] = ()
    on_error: tuple[ErrorHandler, ...] = ()
    max_attempts: int | None = None
    on_exhausted: Transition | None = None
    goal: Scalar | None = None  # a reasoning step's goal (with BEHAVIOR folded in)
    available_tools: tuple[Name, ...] = ()
    exit_when: Condition | None = None
    max_turns: int | None = None
    then: Transition | None = None  # THEN, GOTO or TRANSITION
    not_run: tuple[Name, ...] = ()  # keys written in the step that the runtime does not run
    deterministic_keys: tuple[Name, ...] = ()  # keys written that only a `REASONING: false` step runs
    reasoning_keys: tuple[Name, ...] = ()  # keys written that only a `REASONING: true` step reads

    @property
    def is_reasoning(self) -> bool:
        return read_flag(self.reasoning) is True


@dataclass(slots=True)
class Flow(Movable):
    """An agent's `FLOW`: its steps by name and what other parts of the project can see."""

    node: Node | None = field(default=None, repr=False)  # the `FLOW:` section itself
    entry_point: Name | None = None
    steps: list[Name] = field(default_factory=list)  # every step, column-0 ones included
    listed_steps: list[Name] = field(default_factory=list)  # `steps: [...]`
    written: list[FlowStep] = field(default_factory=list)  # every step block, repeats included
    global_digressions: tuple[Digression, ...] = ()
    sets: list[Assignment] = field(default_factory=list)
    call_results: list[Name] = field(default_factory=list)  # `AS: name`, `INTO: name`
    gather: list[GatherField] = field(default_factory=list)
    # Every step name the flow writes (`entry_point`, `steps`, transitions outside ON_ERROR),
    # with the key it is written under, for the checker's unknown-step report.
    references: list[tuple[str, Name]] = field(default_factory=list)

    def step(self, name: str) -> FlowStep | None:
        """The step of that name (the first, when a name is written twice)."""
        return next((s for s in self.written if s.name.text == name), None)

    @property
    def entry(self) -> str | None:
        """The first step: `entry_point`, else the first of `steps`, else the first written."""
        if self.entry_point is not None:
            return self.entry_point.text
        if self.listed_steps:
            return self.listed_steps[0].text
        return self.steps[0].text if self.steps else None


@dataclass(frozen=True, slots=True)
class OnStart(Movable):
    """`ON_START`: runs once per session, before the first message."""

    range: Range
    set: tuple[Assignment, ...]
    respond: Scalar | None
    calls: tuple[Name, ...]  # the tools it calls (for references)
    actions: tuple[Action, ...] = ()  # SET and CALL in written order
    branches: tuple[Branch, ...] = ()  # `BRANCHES: - IF: ... RESPOND: ...`
    not_run: tuple[Name, ...] = ()  # keys written here that the runtime does not run (DELEGATE)
