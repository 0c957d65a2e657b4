"""Handoff and delegate timeouts: the duration itself, and what happens when it runs out.

## What it does
- `INVALID_TIMEOUT_SYNTAX`: a route's `TIMEOUT`/`ASYNC_TIMEOUT` or a delegate's `TIMEOUT` that is
  neither bare milliseconds nor a number ending in `ms`, `s` or `m` (quotes allowed).
- `INVALID_HANDOFF_TIMEOUT_ACTION`: a route's `ON_TIMEOUT` that is not `continue`, `escalate`
  or `respond:<message>`.

## Why is this bad?
The compiler rejects both. Without a readable timeout, a stalled child blocks its parent.

## Fix safety
Rewriting a recognisable duration (`"10 seconds"` as `"10s"`, `"1 hour"` as `"60m"`) keeps its
length: safe. Choosing a timeout action changes what happens when the child is late: unsafe.
"""

from __future__ import annotations

import re

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.diagnostics import Fix
from abl.model import Agent, Scalar

_DURATION = re.compile(r"\d+(?:ms|s|m)?")
_ACTIONS = ("continue", "escalate")
_RESPOND = "respond:"
# Spelled-out units an author writes, and how to say the same length in an accepted unit.
_SPELLED = re.compile(
    r"(\d+)\s*(milliseconds?|millis|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)", re.IGNORECASE
)
_UNIT = {"ms": ("ms", 1), "s": ("s", 1), "m": ("m", 1), "h": ("m", 60)}


@agent_rule("INVALID_TIMEOUT_SYNTAX")
def invalid_timeout_syntax(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        if route.timeout is not None:
            _check_duration(check, route.timeout, "this handoff")
    for delegate in agent.delegates:
        if delegate.timeout is not None:
            _check_duration(check, delegate.timeout, "this delegate")


@agent_rule("INVALID_HANDOFF_TIMEOUT_ACTION")
def invalid_handoff_timeout_action(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        value = route.on_timeout
        if value is None:
            continue
        text = value.text.strip()
        lowered = text.lower()
        if lowered in _ACTIONS or (lowered.startswith(_RESPOND) and text[len(_RESPOND) :].strip()):
            continue
        choices = (
            fixes.replace("Continue when the child is late", value.range, "continue", safe=False),
            fixes.replace("Escalate when the child is late", value.range, "escalate", safe=False),
            fixes.replace(
                "Tell the customer when the child is late",
                value.range,
                '"respond:Sorry, this is taking longer than expected."',
                safe=False,
            ),
        )
        check.report(
            "INVALID_HANDOFF_TIMEOUT_ACTION",
            f"`ON_TIMEOUT: {value.raw}` is not an action the platform knows; write `continue`, "
            "`escalate` or `respond:<message>`, or the compiler rejects the route",
            value.range,
            choices,
        )


def _check_duration(check: Check, value: Scalar, what: str) -> None:
    text = value.text.strip()
    if _DURATION.fullmatch(text):
        return
    fix = _rewrite(value)
    message = (
        f"`{value.raw}` is not a timeout the platform reads for {what}; write milliseconds "
        "(`15000`) or a number ending in `ms`, `s` or `m` (`15s`), or the compiler rejects it"
    )
    if fix is not None:
        message += f"; did you mean `{fix.edits[0].new_text}`?"
    check.report("INVALID_TIMEOUT_SYNTAX", message, value.range, (fix,) if fix else ())


def _rewrite(value: Scalar) -> Fix | None:
    m = _SPELLED.fullmatch(value.text.strip())
    if m is None:
        return None
    amount, word = int(m.group(1)), m.group(2).lower()
    if word.startswith("mil") or word.startswith("ms") or word == "msec" or word == "msecs":
        unit = "ms"
    elif word.startswith("s"):
        unit = "s"
    elif word.startswith("h"):
        unit = "h"
    else:
        unit = "m"
    written, factor = _UNIT[unit]
    new = f"{amount * factor}{written}"
    if value.quoted:
        new = f'"{new}"'
    return fixes.replace(f"Write `{new}`", value.range, new, safe=True)
