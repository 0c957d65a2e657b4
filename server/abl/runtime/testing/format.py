"""The conversation-test file, as typed data (`*.abltest.yaml`; `docs/conversation-tests.md`).

A file names an ABL project and its entry agent, optional tool mocks and scripted model
decisions, and a list of named conversations. Each conversation is a list of turns: a user
message and what must be true after it (active agent, reply text, trace events in order,
events that must not appear, thread values, history handed to a target).

The loader (`abl.runtime.testing.loader`) builds these objects and keeps the line of every
test and turn, so a failure can point back at the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abl.runtime.testing.matcher import EventPattern, Matcher

TEST_FILE_SUFFIX = ".abltest.yaml"
MODELS = ("embedded", "scripted", "openai")
SCRIPT_PURPOSES = ("intents", "conditions", "extractions", "replies", "tool_calls")
"""Keys of a `scripted` block: the scripted model's answers per kind of question. Each is a list
(used in order) or a mapping (looked up: by message for intents and extractions, by condition
text for conditions, by agent name for replies and tool calls). `fallback: embedded` lets the
embedded model answer anything not scripted."""


@dataclass(frozen=True)
class ThreadValues:
    """Expected values in one thread: the active one (`agent` None) or an agent's latest thread."""

    agent: str | None
    values: tuple[tuple[str, Matcher], ...]
    line: int


@dataclass(frozen=True)
class HistoryReceived:
    """How many history messages the handoff to `agent` copied (its `historyMessages`)."""

    agent: str
    count: Matcher
    line: int


@dataclass(frozen=True)
class TurnSpec:
    """One user message and the expectations checked after it."""

    user: str
    line: int
    agent: str | None = None
    reply: Matcher | None = None
    events: tuple[EventPattern, ...] = ()
    no_events: tuple[EventPattern, ...] = ()
    vars: tuple[ThreadValues, ...] = ()
    history_received: tuple[HistoryReceived, ...] = ()
    ended: bool | None = None
    scripted: dict[str, list[Any]] | None = None  # answers for this turn only, per purpose
    after_ms: int = 0  # time that passes before the message is sent
    key_lines: dict[str, int] = field(default_factory=dict)  # where each check is written

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


RULE_STATUSES = ("holds", "not run locally")
"""What a conformance test claims about its rule: the engine honours it, or it cannot locally."""


@dataclass(frozen=True)
class RuleRef:
    """The rule sentence a test is written against (`rule:`); read by `docs/conformance.md`."""

    id: str
    source: str  # file and section
    quote: str  # the sentence, as written there
    status: str  # one of RULE_STATUSES
    reason: str | None = None  # why it is not run locally
    reading: str | None = None  # the reading chosen where the text allows more than one, and why


@dataclass(frozen=True)
class Conversation:
    """One named test: optional starting values, then turns."""

    name: str
    line: int
    turns: tuple[TurnSpec, ...]
    setup: dict[str, Any] = field(default_factory=dict)
    greeting: Matcher | None = None  # what ON_START says before the first message
    start_events: tuple[EventPattern, ...] = ()  # what ON_START does, in order
    mocks: dict[str, Any] = field(default_factory=dict)  # merged over the file's mocks
    scripted: dict[str, Any] | None = None  # replaces the file's scripted answers when given
    skip: str | None = None  # reason, when the test is skipped
    handoff_delays: dict[str, int] = field(default_factory=dict)  # merged over the file's (ms)
    rule: RuleRef | None = None  # the sentence the test checks, when it is written against one


@dataclass(frozen=True)
class ConversationFile:
    """A whole `*.abltest.yaml` file."""

    path: Path
    project: Path  # resolved against the file's folder
    agent: str
    conversations: tuple[Conversation, ...]
    model: str | None = None  # as written; None lets `model_for` choose
    model_options: dict[str, Any] = field(default_factory=dict)
    mocks: dict[str, Any] = field(default_factory=dict)
    scripted: dict[str, Any] | None = None  # scripted model answers per purpose (see SCRIPT_PURPOSES)
    handoff_delays: dict[str, int] = field(default_factory=dict)  # agent -> acceptance time (ms)

    def mocks_for(self, conversation: Conversation) -> dict[str, Any]:
        return {**self.mocks, **conversation.mocks}

    def delays_for(self, conversation: Conversation) -> dict[str, int]:
        return {**self.handoff_delays, **conversation.handoff_delays}

    def script_for(self, conversation: Conversation) -> dict[str, Any] | None:
        """The scripted model's answers shared by the whole conversation (the conversation's own
        `scripted` replaces the file's), or None. A turn's own answers are not in it: they are
        handed to the model when that turn's message is sent, and used first during that turn."""
        base = conversation.scripted if conversation.scripted is not None else self.scripted
        if base is None:
            return None
        return {
            key: list(value) if isinstance(value, list) else (dict(value) if isinstance(value, dict) else value)
            for key, value in base.items()
        }

    def model_for(self, conversation: Conversation) -> str:
        """The named model; without one, `scripted` when decisions are given, else `embedded`."""
        if self.model is not None:
            return self.model
        scripted = self.script_for(conversation) is not None or any(t.scripted for t in conversation.turns)
        return "scripted" if scripted else "embedded"
