"""The embedded runtime: run ABL agents locally, deterministically, with a trace of every decision.

`start_session(project, agent, options)` returns a `Session`; `send(text)` runs one turn.
"""

from abl.runtime.api import (
    Message,
    Reply,
    RuntimeOptions,
    SessionError,
    SessionState,
    ThreadView,
    Turn,
    start_session,
)
from abl.runtime.session import Session

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
