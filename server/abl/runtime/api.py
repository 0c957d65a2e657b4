"""The session API: the one way the CLI, the test runner and the editor talk to the engine.

`start_session(project, agent, options)` gives a `Session`; `Session.send(text)` runs one turn
and returns a `Turn` (the replies and the trace events of that turn). Everything here is plain
data, independent of any terminal or transport. Whether a project may run at all is answered
before, by the one loader (`abl.launch`).
"""

from __future__ import annotations

from abl.runtime.session import Session
from abl.runtime.session_types import (
    Message,
    Reply,
    RuntimeOptions,
    SessionError,
    SessionState,
    ThreadView,
    Turn,
)
from abl.workspace import Project


def start_session(project: Project, agent: str, options: RuntimeOptions | None = None) -> Session:
    """Start a conversation with `agent`; its `ON_START` replies are in `session.greeting`."""
    return Session.start(project, agent, options or RuntimeOptions())


__all__ = [
    "Message",
    "Reply",
    "RuntimeOptions",
    "Session",
    "SessionError",
    "SessionState",
    "ThreadView",
    "Turn",
    "start_session",
]
