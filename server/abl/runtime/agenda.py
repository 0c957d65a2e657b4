"""What happens next: the outcomes the engine's parts return and `turn` carries out.

A part of the engine (a handoff, a return, a flow step, a COMPLETE rule) never calls back into
the turn that called it. It does its own work and returns the `Steps` that follow, in order:
"let the child handle the message, then report how the handoff ended". `turn.drive` runs them
depth first, so each step's own consequences finish before the next step starts. This keeps
the dependencies one way (`turn` depends on every part; no part depends on `turn`) and makes
the order of a turn visible in one place.
"""

from __future__ import annotations

from dataclasses import dataclass

from abl.runtime.history import Entry
from abl.runtime.state import Thread


@dataclass(frozen=True, slots=True)
class Handle:
    """The agent of `thread` handles `message` (a replay does not add it to the history again)."""

    thread: Thread
    message: Entry
    replay: bool = False


@dataclass(frozen=True, slots=True)
class Answer:
    """The agent answers from its own goal: its next GATHER prompt, its tools, or a free reply."""

    thread: Thread
    message: Entry


@dataclass(frozen=True, slots=True)
class AnswerIfSilent:
    """The agent answers only if nothing was said this turn and it is still the active one."""

    thread: Thread
    message: Entry


@dataclass(frozen=True, slots=True)
class Finish:
    """A terminal completion: a returnable child returns, anything else completes the session."""

    thread: Thread
    message: Entry


@dataclass(frozen=True, slots=True)
class GiveBack:
    """A returnable child gives control back to its waiting parent."""

    child: Thread
    message: Entry
    forwarded: Entry | None  # the customer message passed on to the parent, if any
    cause: str  # complete | handback | parent_return | timeout


@dataclass(frozen=True, slots=True)
class Settle:
    """Report how a handoff attempt ended, once the target has run."""

    caller: Thread
    target: str
    started_ms: int
    attempt: int


@dataclass(frozen=True, slots=True)
class EndReplay:
    """A replayed message has been handled: the replay depth goes back down."""


@dataclass(frozen=True, slots=True)
class ResumeFlow:
    """Control came back to an agent in the middle of its flow: it asks its open question again."""

    thread: Thread
    message: Entry


@dataclass(frozen=True, slots=True)
class SurfaceQueue:
    """The agent offers the next request it queued from a message that asked for several."""

    thread: Thread


@dataclass(frozen=True, slots=True)
class NextTask:
    """The next intent of a sequential multi-intent plan, while its agent keeps control."""

    thread: Thread
    tasks: tuple[tuple[str, str], ...]  # (intent, the words that ask for it), in order
    index: int


@dataclass(frozen=True, slots=True)
class RunSiblings:
    """Sibling intents of a parallel plan, run inside the primary intent's handoff attempt."""

    caller: Thread
    siblings: tuple[tuple[str, str], ...]  # (intent, the words that ask for it)
    attempt: int


Step = (
    Handle
    | Answer
    | AnswerIfSilent
    | Finish
    | GiveBack
    | Settle
    | EndReplay
    | ResumeFlow
    | SurfaceQueue
    | NextTask
    | RunSiblings
)
Steps = tuple[Step, ...]
NOTHING: Steps = ()
