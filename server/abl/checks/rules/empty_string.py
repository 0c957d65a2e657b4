"""EMPTY_STRING_COMPARISON: `x != ""` or `x == ""` used as an emptiness test.

## What it does
Finds comparisons with the empty string in every condition of an agent (route `WHEN` and
`ENABLED_WHEN`, `COMPLETE`, `DELEGATE`, escalation and remember triggers). A comparison that
sits next to the matching presence test (`x IS SET AND x != ""`, `x IS NOT SET OR x == ""`)
is a deliberate "set and not blank" check and is left alone.

## Why is this bad?
A variable that was never set is not the empty string: `x != ""` is already true before the
customer said anything, so a gate written that way opens on the first turn (seed 004,
"Gating with `!= ""`"). `x == ""` is false while `x` is unset.

## Fix safety
`IS SET` / `IS NOT SET` give a different result for unset values, which is the point; the fix
is unsafe.
"""

from __future__ import annotations

from collections.abc import Iterator

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.checks.handoff_text import span_range
from abl.expr.ast import Expr, IsSet, Path, walk
from abl.expr.query import empty_string_comparisons
from abl.model import Agent, Condition


@agent_rule("EMPTY_STRING_COMPARISON")
def empty_string_comparison(check: Check, agent: Agent) -> None:
    for condition in _conditions(agent):
        expr = condition.parse.expr
        if expr is None:
            continue
        for hit in empty_string_comparisons(expr):
            subject = condition.text[hit.subject.span[0] : hit.subject.span[1]]
            wants_set = hit.operator == "!="
            if _guarded(expr, hit.subject, negated=not wants_set):
                continue
            replacement = f"{subject} IS SET" if wants_set else f"{subject} IS NOT SET"
            where = span_range(condition.range.start, condition.text, *hit.span)
            written = condition.text[hit.span[0] : hit.span[1]]
            if wants_set:
                why = f"it is also true while `{subject}` is not set"
            else:
                why = f"it is false while `{subject}` is not set"
            # Unset values now give the other answer, which is the point of the fix.
            fix = fixes.replace(f"Write `{replacement}`", where, replacement, safe=False)
            check.report(
                "EMPTY_STRING_COMPARISON",
                f"`{written}` does not test for a missing value: {why}; write `{replacement}`",
                where,
                fixes=(fix,),
            )


def _guarded(expr: Expr, subject: Expr, *, negated: bool) -> bool:
    """Whether the condition also tests `subject IS SET` (or `IS NOT SET` when `negated`)."""
    if not isinstance(subject, Path):
        return False
    for node in walk(expr):
        if isinstance(node, IsSet) and node.negated is negated:
            operand = node.operand
            if isinstance(operand, Path) and operand.segments == subject.segments:
                return True
    return False


def _conditions(agent: Agent) -> Iterator[Condition]:
    for route in agent.handoffs:
        if route.when is not None:
            yield route.when
        if route.enabled_when is not None:
            yield route.enabled_when
    for rule in agent.complete:
        if rule.when is not None:
            yield rule.when
    for delegate in agent.delegates:
        if delegate.when is not None:
            yield delegate.when
    for trigger in agent.escalations:
        if trigger.when is not None:
            yield trigger.when
    for remember in agent.remember:
        if remember.when is not None:
            yield remember.when
