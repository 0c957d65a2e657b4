"""`ON_ERROR`: which handler answers a failure, and how often a failed call is tried again.

A failure has a type (`tool_error`, `timeout_error`, `llm_error`, ...) and maybe a subtype
(`rate_limit`). The step's handlers are tried first, then (after the step's own `ON_FAIL`, which
the flow runs in between) the agent's; in each, a handler naming the subtype wins over one for
the whole type, which wins over `default`. Retries are
counted and their delays (fixed, linear or exponential, up to `RETRY_MAX_DELAY`) are reported and
added to the session's timeline, never slept. A call is tried again at most `MAX_RETRIES` times
whatever `RETRY` says, and no delay is longer than the timeline goes (`MAX_MS`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from abl.model.steps import ErrorHandler, FlowStep, Move, Transition
from abl.model.types import Scalar
from abl.runtime.actions import run_actions
from abl.runtime.engine import Engine, TurnContext
from abl.runtime.session_file import MAX_MS
from abl.runtime.state import Thread
from abl.runtime.tools import CallResult

# More tries than anyone means: a turn that retried `RETRY: 1000000000` times would never end.
MAX_RETRIES = 100


@dataclass(frozen=True, slots=True)
class Recovery:
    """After a failed call: its last result, and where the handler goes (None: no handler)."""

    result: CallResult
    then: Transition | None
    handled: bool


def recover(
    engine: Engine,
    thread: Thread,
    step: FlowStep | None,
    failure: CallResult,
    tool: str,
    again: Callable[[], CallResult],
    ctx: TurnContext,
    scopes: tuple[str, ...] = ("step", "agent"),
) -> Recovery:
    """Find the handler of a failed call in `scopes`, try the call again as often as it says,
    then run its actions; the handler's `THEN` is for the caller to follow (`CONTINUE` when none
    is written)."""
    found = resolve(engine, thread, step, failure.error_type, failure.subtype, scopes)
    if found is None:
        return Recovery(failure, None, False)
    handler = found.handler
    result = failure
    for attempt in range(1, min(handler.retry, MAX_RETRIES) + 1):
        delay = retry_delay_ms(handler, attempt)
        engine.emit("tool_call_retry", {"tool": tool, "attempt": attempt, "delayMs": delay}, thread)
        engine.timeline.advance(delay)
        result = again()
        if result.ok:
            return Recovery(result, None, True)
    run_actions(engine, thread, handler.reaction.actions, ctx, step.name.text if step is not None else None)
    then = handler.reaction.then
    if then is None:
        then = Transition(Move.CONTINUE, Scalar("CONTINUE", "CONTINUE", False, handler.range))
    return Recovery(result, then, True)


@dataclass(frozen=True, slots=True)
class Resolution:
    handler: ErrorHandler
    scope: str  # step | agent


def resolve(
    engine: Engine,
    thread: Thread,
    step: FlowStep | None,
    error_type: str,
    subtype: str | None,
    scopes: tuple[str, ...] = ("step", "agent"),
) -> Resolution | None:
    agent = engine.agent(thread.agent)
    handlers_of: dict[str, Sequence[ErrorHandler]] = {
        "step": step.on_error if step is not None else (),
        "agent": agent.error_handlers if agent is not None else (),
    }
    for scope in scopes:
        handlers = handlers_of[scope]
        found = _best(handlers, error_type, subtype)
        if found is not None:
            then = found.reaction.then
            engine.emit(
                "error_handler_resolved",
                {
                    "errorType": error_type,
                    "subtype": subtype,
                    "scope": scope,
                    "handler": found.type,
                    "then": then.value.text if then is not None else "CONTINUE",
                },
                thread,
            )
            return Resolution(found, scope)
    return None


def _best(handlers: Sequence[ErrorHandler], error_type: str, subtype: str | None) -> ErrorHandler | None:
    same = [h for h in handlers if h.type == error_type]
    if subtype is not None:
        named = next((h for h in same if subtype in h.subtypes), None)
        if named is not None:
            return named
    whole = next((h for h in same if not h.subtypes), None)
    if whole is not None:
        return whole
    return next((h for h in handlers if h.type == "default"), None)


def retry_delay_ms(handler: ErrorHandler, attempt: int) -> int:
    """The wait before retry number `attempt` (1-based)."""
    base = handler.retry_delay_ms
    if handler.backoff == "exponential":
        delay = base * (2 ** (attempt - 1))
    elif handler.backoff == "linear":
        delay = base * attempt
    else:
        delay = base
    if handler.max_delay_ms is not None:
        delay = min(delay, handler.max_delay_ms)
    return min(delay, MAX_MS)
