"""The typed semantic model of an ABL document.

Lowered from the CST by `abl.model.lower`. Every value that a check or the runtime may point
at keeps the source range it came from. The model never rejects input: a missing or unreadable
value is `None` (or an empty list), and the checks say why.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from abl.model.movable import Movable
from abl.text import Position, Range

if TYPE_CHECKING:
    from abl.expr import ConditionParse
    from abl.model.steps import ErrorHandler, Flow, OnStart
    from abl.syntax.cst import Node, SourceFile


@dataclass(frozen=True, slots=True)
class Name(Movable):
    """An identifier as written (agent, field, handler, variable), with its range."""

    # Every moved agent's name is read at once (by name tables and the graph): copied whole.
    eager_fields: ClassVar[tuple[str, ...]] = ("text", "range")

    text: str
    range: Range


@dataclass(frozen=True, slots=True)
class Scalar(Movable):
    """A one-line value or a pipe block. `text` is unquoted; `raw` is as written."""

    text: str
    raw: str
    quoted: bool
    range: Range
    key_range: Range | None = None  # the key this value was written under

    @property
    def lower(self) -> str:
        return self.text.strip().lower()

    def part(self, offset: int, length: int) -> Range:
        """Where `length` characters at `offset` into `raw` are written. A value that runs over
        several lines (an open bracket carries it on) gives its whole range: its line lengths
        are not known here, and a guess could point past the end of a line."""
        start = self.range.start
        if self.range.end.line != start.line:
            return self.range
        first = start.character + max(offset, 0)
        return Range(Position(start.line, first), Position(start.line, min(first + length, self.range.end.character)))


def read_flag(value: Scalar | None) -> bool | None:
    """A boolean as the platform reads it: `true` or `false` in any case, quoted or not; None
    for anything else (the checker reports it) and when nothing is written. The one exception
    is `RETURN`, where only the exact lowercase `true` counts (`ReturnFlag`)."""
    if value is None:
        return None
    word = value.lower
    if word == "true":
        return True
    if word == "false":
        return False
    return None


@dataclass(frozen=True, slots=True)
class Condition(Movable):
    """A `WHEN`-like condition. `parse` holds the expression (or says it is natural language)."""

    text: str  # as written, quotes included
    range: Range
    parse: ConditionParse

    @property
    def is_natural_language(self) -> bool:
        return self.parse.natural_language


@dataclass(frozen=True, slots=True)
class Assignment(Movable):
    """`target = expr` (or `target: expr`) in a `SET` block."""

    target: Name
    expr: str
    range: Range
    expr_range: Range


class HistoryForm(enum.Enum):
    LINE = "line"  # `HISTORY: last_5`
    BLOCK = "block"  # `HISTORY:` + `mode:` / `count:`


HISTORY_MODES = ("full", "none", "summary_only", "auto", "last_n")


@dataclass(frozen=True, slots=True)
class HistorySpec(Movable):
    """A route's history setting and how the compiler reads it (seed 000's table)."""

    form: HistoryForm
    key_range: Range
    in_context: bool
    written: Scalar | None  # the one-line value
    mode: Scalar | None  # block `mode:`
    count: Scalar | None  # block `count:`
    resolved_mode: str  # what the runtime uses: full | none | last_n | summary_only | auto
    resolved_count: int | None  # for last_n
    error: str | None  # "E330" or "E331" (the compile fails)
    fallback: str | None  # why the value silently became `full`, when it did
    last_zero: bool = False  # `last_0`: valid, means no messages


@dataclass(frozen=True, slots=True)
class MemoryGrant(Movable):
    """One `memory_grants` entry: a persistent path the target may use, and how."""

    path: Name
    access: str  # read (the default) or readwrite


@dataclass(frozen=True, slots=True)
class ReturnFlag(Movable):
    key: Name  # RETURN or EXPECT_RETURN
    value: Scalar

    @property
    def is_true(self) -> bool:
        # Only the exact lowercase `true` reads as true; `True` and `"true"` read as false.
        return self.value.raw.strip() == "true"


@dataclass(frozen=True, slots=True)
class MapEntry(Movable):
    """`child_field: parent_variable`."""

    child: Name
    parent: Name
    range: Range


RETURN_ACTIONS = ("continue", "resume_intent")
RESUME_WITH = (
    "original_handoff_utterance",
    "latest_child_user_utterance",
    "latest_session_user_utterance",
    "forwarded_return_message",
)


@dataclass(frozen=True, slots=True)
class OnReturn(Movable):
    key_range: Range
    shorthand: Scalar | None  # `ON_RETURN: "name"` (one-line form)
    action: Scalar | None
    handler: Scalar | None
    resume_with: Scalar | None
    map: tuple[MapEntry, ...]
    set: tuple[Assignment, ...]
    clear: tuple[Name, ...]

    @property
    def action_name(self) -> str | None:
        return self.action.lower if self.action is not None else None

    @property
    def effective_action(self) -> str | None:
        """The built-in action the runtime runs for what is written: `resume_intent` only when
        written so (block `action:` or one-line form), `continue` for any other `action:` word
        (seed 004: an unknown action runs `continue`). `None` when no action is written, so a
        handler's `RESUME_INTENT` or the default decides."""
        word = self.action_name
        if word is None and self.shorthand is not None and self.shorthand.lower in ("continue", "resume_intent"):
            word = self.shorthand.lower
        if word is None:
            return None
        return "resume_intent" if word == "resume_intent" else "continue"

    @property
    def handler_name(self) -> str | None:
        """The `RETURN_HANDLERS` entry named by `handler:` or by a one-line value that is not a
        built-in action."""
        if self.handler is not None:
            return self.handler.text.strip() or None
        if self.shorthand is not None and self.shorthand.lower not in RETURN_ACTIONS:
            return self.shorthand.text.strip() or None
        return None

    @property
    def unknown_action(self) -> str | None:
        """An `action:` word that is not a built-in action (it runs `continue`)."""
        action = self.action
        return action.text if action is not None and action.lower not in RETURN_ACTIONS else None

    @property
    def resume_message(self) -> str | None:
        """`resume_with` when it names a known message, else None (the original one is used)."""
        word = self.resume_with.lower if self.resume_with is not None else None
        return word if word in RESUME_WITH else None


class FailureKind(enum.Enum):
    CONTINUE = "continue"
    ESCALATE = "escalate"
    RESPOND = "respond"
    HANDOFF = "handoff"
    RETRY = "retry"
    INVALID = "invalid"


@dataclass(frozen=True, slots=True)
class FailureAction(Movable):
    """`ON_FAILURE: CONTINUE | ESCALATE | RESPOND "message"` (also `HANDOFF Agent`)."""

    kind: FailureKind
    value: Scalar
    message: str | None = None
    target: Name | None = None


@dataclass(slots=True)
class HandoffRoute(Movable):
    index: int
    range: Range  # the whole list item
    dash_range: Range
    target: Name | None = None
    when: Condition | None = None
    priority: Scalar | None = None
    passes: list[Name] = field(default_factory=list)
    summary: Scalar | None = None
    history: HistorySpec | None = None
    set: list[Assignment] = field(default_factory=list)
    returns: ReturnFlag | None = None
    on_return: OnReturn | None = None
    legacy_map: list[MapEntry] = field(default_factory=list)
    on_failure: FailureAction | None = None
    on_timeout: Scalar | None = None
    timeout: Scalar | None = None
    context_range: Range | None = None
    ignored_context_keys: list[Name] = field(default_factory=list)  # uppercase keys in CONTEXT
    context_history_flow: Scalar | None = None  # `history: { mode: last_n }` on one line
    enabled_when: Condition | None = None
    remote: bool = False
    grant_memory: Name | None = None  # legacy key, an error on the platform
    memory_grants: list[MemoryGrant] = field(default_factory=list)  # `CONTEXT: memory_grants:`
    node: Node | None = field(default=None, repr=False)

    @property
    def is_returnable(self) -> bool:
        return self.returns is not None and self.returns.is_true

    @property
    def history_mode(self) -> str:
        return self.history.resolved_mode if self.history is not None else "full"


@dataclass(frozen=True, slots=True)
class ReturnHandler(Movable):
    name: Name
    respond: Scalar | None
    clear: tuple[Name, ...]
    continue_: Scalar | None
    resume_intent: Scalar | None
    range: Range

    @staticmethod
    def flag(value: Scalar | None) -> bool:
        return read_flag(value) is True

    @property
    def resumes_intent(self) -> bool:
        return read_flag(self.resume_intent) is True


@dataclass(frozen=True, slots=True)
class MemoryVar(Movable):
    name: Name
    scope: str  # "session" | "persistent"
    type: Scalar | None = None
    description: Scalar | None = None
    initial: Scalar | None = None
    sensitive: bool = False
    display: Scalar | None = None  # SENSITIVE_DISPLAY: redact | mask | replace
    mask: tuple[tuple[str, str], ...] = ()  # MASK_CONFIG as written: (key, value)
    # A persistent fact's `ACCESS` (`read`, `write`, `readwrite`), lowercased; the `READS:` and
    # `WRITES:` shorthands give `read` and `write`. `access_key` is the key that says so
    # (`ACCESS`, `READS`, `WRITES`, or "" for the default) and `access_range` where it is written.
    access: str = "readwrite"
    access_key: str = ""
    access_range: Range | None = None

    @property
    def writable(self) -> bool:
        return self.access != "read"


@dataclass(frozen=True, slots=True)
class RememberRule(Movable):
    when: Condition | None
    value: str
    target: Name | None
    range: Range


@dataclass(frozen=True, slots=True)
class GatherField(Movable):
    name: Name
    range: Range
    prompt: Scalar | None = None
    type: Scalar | None = None
    required: Scalar | None = None
    default: Scalar | None = None
    options: tuple[str, ...] = ()
    description: Scalar | None = None
    sensitive: bool = False
    validate: Scalar | None = None
    retry_prompt: Scalar | None = None
    max_retries: Scalar | None = None
    depends_on: tuple[Name, ...] = ()
    extraction_pattern: Scalar | None = None
    extraction_group: Scalar | None = None
    in_flow: bool = False
    display: Scalar | None = None  # sensitive_display: redact | mask | replace
    mask: tuple[tuple[str, str], ...] = ()  # mask_config as written: (key, value)

    @property
    def is_required(self) -> bool:
        # `- field: optional` is lowered to `false`; anything unreadable keeps the default.
        return read_flag(self.required) is not False

    @property
    def type_name(self) -> str:
        return self.type.lower if self.type is not None else "string"


@dataclass(frozen=True, slots=True)
class CompleteRule(Movable):
    index: int
    range: Range
    when: Condition | None
    respond: Scalar | None
    set: tuple[Assignment, ...]
    terminal: Scalar | None

    @property
    def is_terminal(self) -> bool:
        return read_flag(self.terminal) is not False


@dataclass(frozen=True, slots=True)
class Intent(Movable):
    name: Name
    description: str


@dataclass(frozen=True, slots=True)
class ParentReturn(Movable):
    min_confidence: Scalar | None
    ignore_ambiguous: Scalar | None
    range: Range


@dataclass(frozen=True, slots=True)
class Delegate(Movable):
    index: int
    range: Range
    target: Name | None
    when: Condition | None
    purpose: Scalar | None
    inputs: tuple[tuple[Name, str], ...]  # (child parameter, parent expression)
    returns: tuple[MapEntry, ...]  # child field -> parent variable
    timeout: Scalar | None
    on_fail: Scalar | None
    remote: bool = False  # `REMOTE` / `LOCATION: remote`: the target lives in another deployment
    memory_grants: tuple[MemoryGrant, ...] = ()  # `MEMORY_GRANTS:`


@dataclass(frozen=True, slots=True)
class EscalateTrigger(Movable):
    when: Condition | None
    reason: Scalar | None
    priority: Scalar | None
    range: Range


@dataclass(frozen=True, slots=True)
class ToolParam(Movable):
    name: str
    type: str
    optional: bool
    default: str | None


@dataclass(frozen=True, slots=True)
class Tool(Movable):
    name: Name
    params: tuple[ToolParam, ...]
    returns: str  # the return type as written, `""` when none
    properties: tuple[tuple[str, Scalar], ...]
    range: Range


@dataclass(frozen=True, slots=True)
class ToolImport(Movable):
    path: Scalar
    names: tuple[Name, ...]


@dataclass(frozen=True, slots=True)
class MultiIntent(Movable):
    """`MULTI_INTENT`: how a message that asks for several things at once is handled."""

    range: Range
    enabled: bool = True
    strategy: str = "primary_queue"  # primary_queue | sequential | parallel | disambiguate | auto
    unknown_relationship_strategy: str = "parallel"
    max_intents: int = 3
    confidence_threshold: float = 0.6
    queue_max_age_ms: int = 600_000
    advance_on_primary_response: bool = True


class AgentKind(enum.Enum):
    AGENT = "agent"
    SUPERVISOR = "supervisor"
    BEHAVIOR_PROFILE = "behavior_profile"


@dataclass(slots=True)
class Agent(Movable):
    # What an edit's later layers ask of every moved agent (which blocks it is read from, its
    # name), set on the copy at once: asking them fills in nothing else.
    eager_fields: ClassVar[tuple[str, ...]] = ("kind", "name", "path", "header", "sections", "blocks_key")
    shared_fields: ClassVar[tuple[str, ...]] = ("sections", "blocks_key")

    kind: AgentKind
    name: Name
    path: str
    header: Node
    sections: list[Node] = field(default_factory=list)  # column-0 entries of this document
    goal: Scalar | None = None
    persona: Scalar | None = None
    description: Scalar | None = None
    version: Scalar | None = None
    role: Scalar | None = None
    intents: list[Intent] = field(default_factory=list)
    memory: list[MemoryVar] = field(default_factory=list)
    remember: list[RememberRule] = field(default_factory=list)
    gather: list[GatherField] = field(default_factory=list)
    handoffs: list[HandoffRoute] = field(default_factory=list)
    return_handlers: list[ReturnHandler] = field(default_factory=list)
    complete: list[CompleteRule] = field(default_factory=list)
    on_start: OnStart | None = None
    parent_return: ParentReturn | None = None
    delegates: list[Delegate] = field(default_factory=list)
    escalations: list[EscalateTrigger] = field(default_factory=list)
    tools: list[Tool] = field(default_factory=list)
    tool_imports: list[ToolImport] = field(default_factory=list)
    flow: Flow | None = None
    error_handlers: tuple[ErrorHandler, ...] = ()  # the agent's `ON_ERROR`
    messages: list[tuple[str, Scalar]] = field(default_factory=list)  # `MESSAGES` overrides
    multi_intent: MultiIntent | None = None
    max_reasoning_iterations: Scalar | None = None  # `EXECUTION.max_reasoning_iterations`
    hooks_sets: list[Assignment] = field(default_factory=list)
    # SETs and `AS:` results outside FLOW, HOOKS and ON_ERROR: tool `on_result`/`on_error`,
    # action handlers, escalation triggers, ON_START branches and calls.
    handler_sets: list[Assignment] = field(default_factory=list)
    call_results: list[Name] = field(default_factory=list)
    # `HANDOFF X` written outside `HANDOFF:` (ON_FAIL, ON_ERROR): (where, target)
    other_handoff_refs: list[tuple[str, Name]] = field(default_factory=list)
    # `model.incremental.blocks_of`, kept once asked (after lowering: the sections are final
    # then). A moved copy has its original's, as it is read from the very same blocks.
    blocks_key: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def is_supervisor(self) -> bool:
        return self.kind is AgentKind.SUPERVISOR

    def message(self, key: str) -> Scalar | None:
        """A `MESSAGES` override (the last one written wins)."""
        found = None
        for written, text in self.messages:
            if written == key:
                found = text
        return found

    def section(self, key: str) -> Node | None:
        want = key.upper()
        for node in self.sections:
            if node.key.upper() == want:
                return node
        return None

    def gather_field(self, name: str) -> GatherField | None:
        for f in self.all_gather_fields():
            if f.name.text == name:
                return f
        return None

    def all_gather_fields(self) -> list[GatherField]:
        if self.flow is None:
            return self.gather
        return self.gather + self.flow.gather

    def memory_var(self, name: str) -> MemoryVar | None:
        for v in self.memory:
            if v.name.text == name:
                return v
        return None


@dataclass(slots=True)
class Document(Movable):
    """One parsed `.abl` file: its tree, the agents it declares, and any tool library."""

    path: str
    source: SourceFile
    agents: list[Agent] = field(default_factory=list)
    library_tools: list[Tool] = field(default_factory=list)  # root `TOOLS:` of a `.tools.abl`
    is_library: bool = False  # a tool library: a root `TOOLS:` and no agent header
    stray_sections: list[Node] = field(default_factory=list)  # before any header
    column_zero_steps: list[tuple[Agent, Node]] = field(default_factory=list)
    # Answers computed from this document by later layers (e.g. the checks' block layout),
    # kept with it so that they are dropped with it when the file changes.
    memo: dict[str, object] = field(default_factory=dict, repr=False, compare=False)
    # Set when a keystroke re-read one agent only (`model.incremental`): the document this one
    # was made from and the index of the agent that replaced its predecessor, so that later
    # layers can patch what they kept instead of rebuilding it. One generation is kept: the
    # previous document's own link is cut when this one is made.
    previous: Document | None = field(default=None, repr=False, compare=False)
    edited_agent: int = field(default=-1, repr=False, compare=False)
