"""Conditions: names nobody sets, mixed routing state, and prose where an expression is needed.

## What it does
Looks at the conditions the platform's validator reads: route `WHEN` (and `ENABLED_WHEN`),
`COMPLETE` `WHEN`, `DELEGATE` `WHEN`, escalation triggers and remember `WHEN`.
- `UNDEFINED_CONDITION_VAR`: a name (a dotted path counts by its root) that is not a gather
  field, memory variable, `SET` target, tool result, intent or built-in of the agent, nor handed
  over by a caller. Quoted natural language is left to the model and not checked; unquoted prose
  is read as an expression, so each of its unknown words is reported.
- `MIXED_ROUTING_CONDITION_STATE`: one condition reads both `routing_intent` and `intent.category`.
- `PLAIN_ENGLISH_COMPLETE_WHEN`: a `COMPLETE` `WHEN` that is natural language, quoted or not.

Syntax errors inside conditions are reported by the structure walk (`SYNTAX_ERROR`).

## Why is this bad?
A name that is never set reads as unset on every turn: `x == "y"` is always false and `x != "y"`
always true, so the route never (or always) fires. Completion is decided without the model, so
prose there can never be evaluated and the platform rejects it.

## Fix safety
The suggested replacement name changes what the condition tests: unsafe.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.checks.handoff_text import clipped
from abl.checks.layout import offset_range
from abl.checks.scope import AgentScope, agent_scope
from abl.diagnostics import Fix, TextEdit
from abl.expr.query import mixes_routing_state, names
from abl.model import Agent, Condition
from abl.suggest import did_you_mean, did_you_mean_name
from abl.text import Range

_WORD = re.compile(r"[A-Za-z_][\w.]*")
_OPERATOR_WORDS = frozenset(
    {"and", "or", "not", "is", "set", "in", "empty", "exists", "implies", "true", "false", "null"}
)


def conditions(agent: Agent, *, with_complete: bool) -> Iterator[tuple[str, Condition]]:
    """The conditions the validator reads, each with a label for messages."""
    for route in agent.handoffs:
        target = route.target.text if route.target is not None else "?"
        if route.when is not None:
            yield f"the `WHEN` of the route to `{target}`", route.when
        if route.enabled_when is not None:
            yield f"the `ENABLED_WHEN` of the route to `{target}`", route.enabled_when
    if with_complete:
        for rule in agent.complete:
            if rule.when is not None:
                yield "this `COMPLETE` `WHEN`", rule.when
    for delegate in agent.delegates:
        if delegate.when is not None:
            target = delegate.target.text if delegate.target is not None else "?"
            yield f"the `WHEN` of the delegate to `{target}`", delegate.when
    for trigger in agent.escalations:
        if trigger.when is not None:
            yield "this escalation trigger", trigger.when
    for remember in agent.remember:
        if remember.when is not None:
            yield "this remember `WHEN`", remember.when


@agent_rule("UNDEFINED_CONDITION_VAR")
def undefined_condition_var(check: Check, agent: Agent) -> None:
    scope = agent_scope(check.project, agent)
    index = check.document.source.index
    for label, condition in conditions(agent, with_complete=True):
        parsed = condition.parse
        if parsed.natural_language:
            continue
        if parsed.unquoted_prose:
            if any(condition is rule.when for rule in agent.complete):
                continue  # prose in COMPLETE is PLAIN_ENGLISH_COMPLETE_WHEN
            _prose_words(check, agent, scope, condition)
            continue
        reported: set[str] = set()
        unknown: dict[str, list[Range]] = {}  # each unknown name, everywhere it is read
        for ref in names(parsed.expr):
            if ref.root == "intent" and ref.path not in reported:
                _misspelt_intent_member(check, ref, index, condition, label)
                reported.add(ref.path)
            if ref.root in reported or scope.knows(ref.root):
                continue
            unknown.setdefault(ref.root, []).append(offset_range(index, condition.range.start, *ref.root_span))
        for name, places in unknown.items():
            _report_unknown(
                check,
                scope,
                name,
                places,
                f"`{name}` in {label} is not a gather field, memory variable, tool result or "
                f"built-in of `{agent.name.text}`; nothing sets it, so the condition always reads it as unset",
            )


@agent_rule("MIXED_ROUTING_CONDITION_STATE")
def mixed_routing_condition_state(check: Check, agent: Agent) -> None:
    index = check.document.source.index
    for label, condition in conditions(agent, with_complete=True):
        if condition.parse.expr is None or not mixes_routing_state(condition.parse.expr):
            continue
        check.report(
            "MIXED_ROUTING_CONDITION_STATE",
            f"{label[0].upper() + label[1:]} reads both `routing_intent` and `intent.category`, two "
            "separate pieces of routing state; route on `intent.category` alone",
            _content_range(index, condition),
        )


@agent_rule("PLAIN_ENGLISH_COMPLETE_WHEN")
def plain_english_complete_when(check: Check, agent: Agent) -> None:
    index = check.document.source.index
    for rule in agent.complete:
        condition = rule.when
        if condition is None:
            continue
        parsed = condition.parse
        if not (parsed.natural_language or parsed.unquoted_prose):
            continue
        check.report(
            "PLAIN_ENGLISH_COMPLETE_WHEN",
            f"`COMPLETE` conditions are decided without the model, so the text `{clipped(parsed.content, 60)}` "
            "cannot be evaluated and the platform rejects it; write an expression such as "
            "`field IS SET`",
            _content_range(index, condition),
        )


def _prose_words(check: Check, agent: Agent, scope: AgentScope, condition: Condition) -> None:
    index = check.document.source.index
    start, end = condition.parse.content_span
    unknown: dict[str, list[Range]] = {}
    for m in _WORD.finditer(condition.text, start, end):
        word = m.group(0).rstrip(".")
        base = word.split(".", 1)[0]
        if base.lower() in _OPERATOR_WORDS or scope.knows(base):
            continue
        where = offset_range(index, condition.range.start, m.start(), m.start() + len(base))
        unknown.setdefault(base, []).append(where)
    for base, places in unknown.items():
        _report_unknown(
            check,
            scope,
            base,
            places,
            f"unquoted text in a `WHEN` is read as an expression, and `{base}` is not a variable of "
            f"`{agent.name.text}`; put a natural-language condition in quotes",
        )


# What the classifier exposes on `intent` (ABL-REFERENCE §4.6).
_INTENT_MEMBERS = ("category", "confidence", "unclear")


def _misspelt_intent_member(check: Check, ref, index, condition: Condition, label: str) -> None:
    """`intent.catgory`: a near miss of a member the classifier sets. Other members are left
    alone (the runtime may expose more than the reference names)."""
    if len(ref.segments) < 2 or not isinstance(ref.segments[1], str):
        return
    member = ref.segments[1]
    if member in _INTENT_MEMBERS:
        return
    better = did_you_mean(member, _INTENT_MEMBERS)
    if better is None:
        return
    start = ref.root_span[0]
    where = offset_range(index, condition.range.start, start, start + len("intent.") + len(member))
    check.report(
        "UNDEFINED_CONDITION_VAR",
        f"`intent.{member}` in {label} is not set by the intent classifier, so the condition always reads "
        f"it as unset; did you mean `intent.{better}`?",
        where,
        (fixes.replace(f"Replace with `intent.{better}`", where, f"intent.{better}", safe=False),),
    )


def _report_unknown(check: Check, scope: AgentScope, name: str, places: list[Range], message: str) -> None:
    """One report per name and condition, at its first place; the fix renames it everywhere in
    the condition, so that one `--fix` pass settles a name read many times."""
    found: tuple[Fix, ...] = ()
    better = did_you_mean_name(name, scope.variables())
    if better is not None and better != name:
        message += f"; did you mean `{better}`?"
        found = (Fix(f"Replace with `{better}`", tuple(TextEdit(where, better) for where in places), False),)
    check.report("UNDEFINED_CONDITION_VAR", message, places[0], found)


def _content_range(index, condition: Condition) -> Range:
    start, end = condition.parse.content_span
    if end <= start:
        return condition.range
    return offset_range(index, condition.range.start, start, end)
