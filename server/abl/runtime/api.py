"""The session API: the one way the CLI, the test runner and the editor talk to the engine.

`start_session(project, agent, options)` gives a `Session`; `Session.send(text)` runs one turn
and returns a `Turn` (the replies and the trace events of that turn). Everything here is plain
data, independent of any terminal or transport.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from abl.runtime.trace import Clock, IdSource, TraceEvent

if TYPE_CHECKING:
    from abl.runtime.models import Model
    from abl.workspace import Project


@dataclass(frozen=True)
class RuntimeOptions:
    """How a session runs.

    `model` is a provider name (`embedded`, `scripted`, `openai`) or a ready model object;
    `model_options` go to the provider. `mocks` maps a tool name to its result (a list gives one
    result per call, in turn). `trace_level` decides what `Turn.events` holds; `session.trace`
    always keeps everything. `clock` and `ids` default to deterministic sources.
    `initial_values` are set on the entry agent before `ON_START` runs (a returning customer).
    `parent_return` is the project's default for `EXECUTION.pipeline.parentReturn`
    (`minConfidence`, `ignoreAmbiguous`); an agent's own setting overrides it.
    """

    model: "str | Model" = "embedded"
    model_options: Mapping[str, Any] = field(default_factory=dict)
    mocks: Mapping[str, Any] = field(default_factory=dict)
    trace_level: str = "standard"
    clock: Clock | None = None
    ids: IdSource | None = None
    intent_threshold: float | None = None
    initial_values: Mapping[str, Any] = field(default_factory=dict)
    parent_return: Mapping[str, Any] = field(default_factory=dict)


class SessionError(Exception):
    """A session cannot start (unknown agent, a project with errors) or cannot be restored."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems: list[str] = list(problems or [message])


RuntimeError_ = SessionError


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


def start_session(project: "Project", agent: str, options: RuntimeOptions | None = None) -> "Session":
    """Start a conversation with `agent`; its `ON_START` replies are in `session.greeting`."""
    from abl.runtime.session import Session

    return Session.start(project, agent, options or RuntimeOptions())


if TYPE_CHECKING:
    from abl.runtime.session import Session
