"""Check one turn's expectations against what the runtime did.

Pure functions over plain data (`Observed`), so they are tested on hand-made events and
used unchanged by the runner. Each unmet expectation becomes a `Failure` with the expected
and actual sides written for a person; every expectation of a turn is checked, so one run
shows all that is wrong.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from abl.runtime.testing.describe import describe_event
from abl.runtime.testing.format import HistoryReceived, ThreadValues, TurnSpec
from abl.runtime.testing.matcher import MISSING, EventPattern, Matcher, find_forbidden, match_in_order, show


@dataclass(frozen=True)
class ObservedThread:
    agent: str
    status: str
    values: Mapping[str, Any]


@dataclass(frozen=True)
class Observed:
    """What a turn produced: replies as (agent, text), the active agent, its events, the state."""

    replies: tuple[tuple[str, str], ...]
    active_agent: str
    events: tuple[Mapping[str, Any], ...]
    values: Mapping[str, Any]  # the active thread's values
    threads: tuple[ObservedThread, ...] = ()
    ended: bool = False


@dataclass(frozen=True)
class Failure:
    """One unmet expectation."""

    kind: str  # agent | reply | greeting | events | no_events | vars | history_received | ended | error
    summary: str
    expected: str | None = None
    actual: str | None = None
    details: tuple[str, ...] = field(default_factory=tuple)
    line: int | None = None


def check_turn(spec: TurnSpec, seen: Observed) -> list[Failure]:
    """Every unmet expectation of `spec`, in the order they are written in the format."""
    failures: list[Failure] = []
    if spec.agent is not None and spec.agent != seen.active_agent:
        failures.append(
            Failure(
                "agent",
                "the active agent after the turn differs",
                spec.agent,
                seen.active_agent,
                line=spec.line_of("agent"),
            )
        )
    if spec.reply is not None:
        failure = check_reply("reply", spec.reply, seen.replies)
        if failure is not None:
            failures.append(dataclasses.replace(failure, line=spec.line_of("reply")))
    if spec.events:
        failures.extend(check_events(spec.events, seen.events))
    if spec.no_events:
        for pattern, event in find_forbidden(spec.no_events, seen.events):
            failures.append(
                Failure(
                    "no_events",
                    f"an event that must not appear did: {pattern.describe()}",
                    actual=describe_event(event),
                    line=pattern.line,
                )
            )
    for expected in spec.vars:
        failures.extend(check_values(expected, seen))
    for received in spec.history_received:
        failure = check_history(received, seen.events)
        if failure is not None:
            failures.append(failure)
    failures.extend(unexpected_errors(spec.events, seen.events, spec.line))
    if spec.ended is not None and spec.ended != seen.ended:
        failures.append(
            Failure(
                "ended",
                "the session should have ended" if spec.ended else "the session ended but should go on",
                show(spec.ended),
                show(seen.ended),
                line=spec.line_of("ended"),
            )
        )
    return failures


def is_problem(event: Mapping[str, Any]) -> bool:
    """An event that reports something going wrong: an `error`, or a tool call that failed."""
    kind = event.get("type")
    return kind == "error" or (kind == "tool_result" and event.get("success") is False)


def problem_text(event: Mapping[str, Any]) -> str:
    if event.get("type") == "tool_result":
        return f"the tool {event.get('tool', '?')} failed: {event.get('error', '(no message)')}"
    return f"the runtime reported an error: {event.get('message', '(no message)')}"


def unexpected_errors(
    expected: Sequence[EventPattern], events: Sequence[Mapping[str, Any]], line: int | None = None
) -> list[Failure]:
    """Errors and failed tool calls fail, unless one of the expected events matches them.

    Errors are never silent: a scripted model with no answer, a tool without a mock or an
    endpoint that is down all end up here. A test of such a path says so in `events`
    (`- type: error`, or `- {type: tool_result, success: false}`).
    """
    return [
        Failure(
            "error",
            problem_text(event),
            details=(describe_event(event), "expect it in `events` when this is what the test is about"),
            line=line,
        )
        for event in events
        if is_problem(event) and not any(pattern.matches(event) for pattern in expected)
    ]


def check_reply(kind: str, matcher: Matcher, replies: Sequence[tuple[str, str]]) -> Failure | None:
    text = "\n".join(t for _, t in replies)
    reason = matcher.check(text)
    if reason is None:
        return None
    actual = "\n".join(f"[{agent}] {t}" for agent, t in replies) if replies else "(no reply)"
    return Failure(kind, f"the {kind} does not match", matcher.describe(), actual, (reason,))


def check_events(
    expected: Sequence[EventPattern], events: Sequence[Mapping[str, Any]], kind: str = "events"
) -> list[Failure]:
    """The expected events must appear in this order; a failure shows the nearest candidates."""
    result = match_in_order(expected, events)
    if result.ok:
        return []
    missing = result.missing
    assert missing is not None and result.missing_index is not None
    details: list[str] = []
    if result.matched:
        last = events[result.matched[-1]]
        details.append(f"earlier expectations matched up to {describe_event(last)}")
    if not result.near:
        types = sorted({str(e.get("type")) for e in events})
        details.append(f"no `{missing.type}` event in this turn (types seen: {', '.join(types) or 'none'})")
    for near in result.near:
        where = (
            " (it came before the previously matched event: check the order)"
            if near.before_previous and not near.reasons
            else ""
        )
        details.append(f"candidate {describe_event(near.event)}{where}")
        details.extend(f"    {reason}" for reason in near.reasons)
    return [
        Failure(
            kind,
            f"expected event {result.missing_index + 1} of {len(expected)} not found in order",
            missing.describe(),
            None,
            tuple(details),
            line=missing.line,
        )
    ]


def check_values(expected: ThreadValues, seen: Observed) -> list[Failure]:
    if expected.agent is None:
        values, where = seen.values, f"the active thread ({seen.active_agent})"
    else:
        threads = [t for t in seen.threads if t.agent == expected.agent]
        if not threads:
            known = sorted({t.agent for t in seen.threads})
            return [
                Failure(
                    "vars",
                    f"no thread of {expected.agent} exists",
                    details=(f"threads: {', '.join(known) or 'none'}",),
                    line=expected.line,
                )
            ]
        values, where = threads[-1].values, f"the thread of {expected.agent}"
    out = []
    for name, matcher in expected.values:
        actual = values.get(name, MISSING)
        reason = matcher.check(actual)
        if reason is not None:
            out.append(
                Failure(
                    "vars",
                    f"`{name}` in {where}: {reason}",
                    matcher.describe(),
                    show(actual),
                    line=expected.line,
                )
            )
    return out


def check_history(expected: HistoryReceived, events: Sequence[Mapping[str, Any]]) -> Failure | None:
    handoffs = [e for e in events if e.get("type") == "handoff" and e.get("to") == expected.agent]
    if not handoffs:
        others = [describe_event(e) for e in events if e.get("type") == "handoff"]
        return Failure(
            "history_received",
            f"no handoff to {expected.agent} in this turn",
            expected.count.describe(),
            None,
            tuple(f"handoff seen: {o}" for o in others),
            line=expected.line,
        )
    counts = [e.get("historyMessages", MISSING) for e in handoffs]
    if any(expected.count.matches(c) for c in counts):
        return None
    return Failure(
        "history_received",
        f"the handoff to {expected.agent} copied a different number of history messages",
        expected.count.describe(),
        ", ".join(show(c) for c in counts),
        tuple(describe_event(e) for e in handoffs),
        line=expected.line,
    )
