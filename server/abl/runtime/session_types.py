"""The plain data the session API speaks: options in, turns and state out.

These types sit below the engine so that every layer (the engine, the session, the CLI, the
test runner, the editor) can name them without importing the engine itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from abl.runtime.trace import Clock, IdSource, TraceEvent

if TYPE_CHECKING:
    from abl.runtime.models import Model
    from abl.runtime.state import SessionData


@dataclass(frozen=True)
class RuntimeOptions:
    """How a session runs.

    `model` is a provider name (`embedded`, `scripted`, `openai`) or a ready model object;
    `model_options` go to the provider. `mocks` maps a tool name to its result (a list gives one
    result per call, in turn; `{"$error": message}` makes the call fail). `trace_level` decides
    what `Turn.events` holds; `session.trace` always keeps everything. `clock` and `ids` default
    to deterministic sources. `initial_values` are set on the entry agent before `ON_START` runs
    (a returning customer). `parent_return` is the project's default for
    `EXECUTION.pipeline.parentReturn` (`minConfidence`, `ignoreAmbiguous`); an agent's own
    setting overrides it. `handoff_delays` maps an agent to how long (ms) it takes to accept a
    handoff: a slow or remote target, so that handoff timeouts can be tried offline.
    """

    model: str | Model = "embedded"
    model_options: Mapping[str, Any] = field(default_factory=dict)
    mocks: Mapping[str, Any] = field(default_factory=dict)
    trace_level: str = "standard"
    clock: Clock | None = None
    ids: IdSource | None = None
    intent_threshold: float | None = None
    initial_values: Mapping[str, Any] = field(default_factory=dict)
    parent_return: Mapping[str, Any] = field(default_factory=dict)
    handoff_delays: Mapping[str, int] = field(default_factory=dict)
    observer: Callable[[TraceEvent, SessionData], None] | None = field(default=None, compare=False)


class SessionError(Exception):
    """A session cannot start (unknown agent) or cannot be restored."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems: list[str] = list(problems or [message])


@dataclass(frozen=True)
class Message:
    """One message of the conversation as the customer saw it."""

    role: str  # user | assistant | tool | system
    text: str
    agent: str
    tool_call_id: str | None = None


@dataclass(frozen=True)
class Reply:
    agent: str
    text: str
    choices: tuple[tuple[str, str], ...] = ()  # buttons offered with the reply: (id, label)


@dataclass(frozen=True)
class Turn:
    index: int
    user: str
    replies: list[Reply]
    events: list[TraceEvent]
    active_agent: str
    ended: bool


@dataclass(frozen=True)
class ThreadView:
    id: str
    agent: str
    status: str  # active | waiting | completed
    values: dict[str, Any]
    history_length: int


@dataclass(frozen=True)
class SessionState:
    active_agent: str
    values: dict[str, Any]
    threads: list[ThreadView]
    stack: list[str]
    ended: bool  # closed for good (stopped, handed to a human): no message is processed any more
    completed: bool = False  # the active agent completed; a new message reopens the conversation
