"""Regular expressions an author wrote, which run on what customers type.

## What it does
- `PATTERN_BACKTRACKS`: a gather field's `extraction_pattern`, the `pattern(...)` of its
  `VALIDATE`, or a pattern written in a condition or a `SET` value (`x matches /.../`,
  `x matches "..."`, `x.matches("...")`, `MATCHES_PATTERN`, `NOT_MATCHES_PATTERN`,
  `REGEX_EXTRACT`, `REGEX_REPLACE`) repeats a group that can itself repeat with nothing else to
  tell the turns apart: `(a+)+`, `(\\w+\\s?)+`, `(x*)*`. On a message that almost matches, such a
  pattern tries every way of splitting the text between the two repeats: time doubles with each
  character.

## Why is this bad?
The turn stalls while the pattern runs (the local runtime stops it after a quarter of a second
and treats the field as not found; the platform may not). Written so that each turn of the
outer repeat must consume something the inner one cannot (`[a-z]+(?:-[a-z]+)*`), the pattern
matches the same texts in linear time.

## Fix safety
No fix: which rewrite keeps the texts the author meant is the author's call.

The pattern is read with Python's own regular-expression parser and never run here.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import importlib
import re
import typing
import warnings
from collections.abc import Iterator
from typing import Any

from abl.checks.context import Check, agent_rule
from abl.expr import Call, ConditionParse, Expr, Literal, RegexLiteral, TextOp, parse_condition, walk
from abl.expr.functions import canonical_name
from abl.expr.patterns import MAX_PATTERN_LENGTH
from abl.model import Agent
from abl.model.steps import ErrorHandler, Flow, OnStart
from abl.model.types import Assignment, Condition, Name, Scalar
from abl.syntax.cst import Node, SourceFile
from abl.text import LineIndex, Position, Range

# Python's parser of regular expressions: `re._parser` from 3.11, `sre_parse` before.
try:
    _sre: Any = importlib.import_module("re._parser")
except ModuleNotFoundError:  # Python 3.10
    _sre = importlib.import_module("sre_parse")

_REPEATS = (_sre.MAX_REPEAT, _sre.MIN_REPEAT)
_UNBOUNDED = _sre.MAXREPEAT
# What never backtracks into itself, so nothing inside it can blow up (Python 3.11+).
_ATOMIC = tuple(op for op in (getattr(_sre, "POSSESSIVE_REPEAT", None), getattr(_sre, "ATOMIC_GROUP", None)) if op)
_ZERO_WIDTH = (_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT)
# Longer patterns are not examined: the runtime does not compile them either.
_MAX_PATTERN = MAX_PATTERN_LENGTH
# `pattern(...)` in `VALIDATE`, read as the runtime reads it.
_RULE = re.compile(r"([A-Za-z_]+)\s*\(([^()]*)\)")


@agent_rule("PATTERN_BACKTRACKS")
def pattern_backtracks(check: Check, agent: Agent) -> None:
    for field in agent.all_gather_fields():
        for where, pattern in _patterns(field.extraction_pattern, field.validate):
            if backtracks(pattern):
                check.report(
                    "PATTERN_BACKTRACKS",
                    f"the pattern `{_clip(pattern)}` of `{field.name.text}` repeats a group that repeats itself, so "
                    "on a message that almost matches it tries every way to split the text and the turn "
                    "stalls; make each repeat consume something the other cannot, as in `[a-z]+(?:-[a-z]+)*`",
                    where.range,
                )
    for place, written in _written_patterns(check, agent):
        if backtracks(written):
            check.report(
                "PATTERN_BACKTRACKS",
                f"the pattern `{_clip(written)}` repeats a group that repeats itself, so on a text that almost "
                "matches it tries every way to split the text and the turn stalls; make each repeat consume "
                "something the other cannot, as in `[a-z]+(?:-[a-z]+)*`",
                place,
            )


# Functions whose second argument is a pattern (the first, written as a method: `x.regex_extract("...")`).
_PATTERN_FUNCTIONS = frozenset({"REGEX_REPLACE", "REGEX_EXTRACT", "MATCHES_PATTERN", "NOT_MATCHES_PATTERN"})


def _written_patterns(check: Check, agent: Agent) -> Iterator[tuple[Range, str]]:
    """Every pattern written as a literal in the agent's conditions and `SET` values, with its
    range (the whole expression's, should the pattern's not lie inside it)."""
    index = check.document.source.index
    for whole, base, expr in _expressions(agent, index):
        for (start, end), pattern in _literal_patterns(expr):
            where = Range(index.position(base + start), index.position(base + end))
            yield (where if _within(where, whole) else whole), pattern


def _within(inner: Range, outer: Range) -> bool:
    return (outer.start.line, outer.start.character) <= (inner.start.line, inner.start.character) and (
        inner.end.line,
        inner.end.character,
    ) <= (outer.end.line, outer.end.character)


def _expressions(agent: Agent, index: LineIndex) -> Iterator[tuple[Range, int, Expr]]:
    """The agent's conditions and `SET` values, wherever they are written (routes, `COMPLETE`,
    triggers, flow steps, handlers), parsed: (their range, the offset their text starts at, the
    expression)."""
    for found in _conditions_and_assignments(agent):
        if isinstance(found, Condition):
            if found.parse.expr is not None and _may_hold_pattern(found.text):
                yield found.range, index.offset(found.range.start), found.parse.expr
            continue
        text = found.expr
        if not _may_hold_pattern(text):
            continue
        parsed = parse_condition(text.strip())
        if parsed.expr is not None and not parsed.natural_language:
            lead = len(text) - len(text.lstrip())
            yield found.expr_range, index.offset(found.expr_range.start) + lead, parsed.expr


def _may_hold_pattern(text: str) -> bool:
    """Whether a text can hold a pattern literal at all: a `/.../`, `matches` (the operator, the
    method, `MATCHES_PATTERN`) or a `REGEX_` function. Most conditions do not, and are not walked."""
    if "/" in text:
        return True
    lowered = text.lower()
    return "match" in lowered or "regex" in lowered


# What holds no condition: plain values, positions (tuples themselves), and written text.
_LEAVES = (str, int, float, Range, Position, Scalar, Name, Node)


def _conditions_and_assignments(agent: Agent) -> Iterator[Condition | Assignment]:
    """Every `Condition` and `Assignment` of the agent's model, in no particular order."""
    pending: list[object] = [agent]
    seen: set[int] = set()
    while pending:
        item = pending.pop()
        if item is None or isinstance(item, _LEAVES):
            continue
        if isinstance(item, (Condition, Assignment)):
            if id(item) not in seen:  # one held in two places is reported once
                seen.add(id(item))
                yield item
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif (
            dataclasses.is_dataclass(item)
            and not isinstance(item, (type, Scalar, Name))
            and type(item).__module__.startswith("abl.model")
            and id(item) not in seen
        ):
            seen.add(id(item))
            pending.extend(getattr(item, name) for name in _field_names(type(item)))


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    """The fields of a model class that may hold a condition or an assignment, however deep, as
    their annotations tell: a name, a position or a list of text values is not walked (every
    agent's model is walked by this rule, at every check)."""
    try:
        hints = typing.get_type_hints(kind, localns=_ANNOTATED)
    except (NameError, TypeError):  # an annotation that does not resolve: walk every field
        return tuple(spec.name for spec in dataclasses.fields(kind))
    return tuple(spec.name for spec in dataclasses.fields(kind) if _may_hold(hints.get(spec.name, Any)))


# The names the model's annotations use that its modules import for the type checker only.
_ANNOTATED: dict[str, Any] = {
    "ConditionParse": ConditionParse,
    "ErrorHandler": ErrorHandler,
    "Flow": Flow,
    "OnStart": OnStart,
    "Node": Node,
    "SourceFile": SourceFile,
}
# Whether values of a model class may hold a condition or an assignment (as `_may_hold`).
_HOLDS: dict[type, bool] = {}


def _may_hold(annotation: Any) -> bool:
    """Whether a value of this annotation may be, or hold, a `Condition` or an `Assignment`.
    Anything it cannot tell (`Any`, a class from elsewhere) may."""
    if typing.get_origin(annotation) is not None:  # list[X], X | None, dict[K, V], ...
        return any(_may_hold(arg) for arg in typing.get_args(annotation) if arg is not Ellipsis)
    if annotation is type(None):
        return False
    if not isinstance(annotation, type):
        return True
    if annotation in (Condition, Assignment):
        return True
    if issubclass(annotation, (*_LEAVES, bool, enum.Enum)):
        return False
    if not (dataclasses.is_dataclass(annotation) and annotation.__module__.startswith("abl.model")):
        return True
    known = _HOLDS.get(annotation)
    if known is None:
        # While its fields are looked at, a class met again through them (a step holding
        # branches of steps) is taken to hold one: the fields of the classes in between are
        # kept for good (`_field_names` is cached), so a cycle may only walk more, never less.
        _HOLDS[annotation] = True
        known = _HOLDS[annotation] = bool(_field_names(annotation))
    return known


def _literal_patterns(expr: Expr) -> Iterator[tuple[tuple[int, int], str]]:
    """The patterns written as literals in an expression: `/.../`, the text right of `matches`,
    and the pattern argument of `.matches()` and the regex functions."""
    for node in walk(expr):
        if isinstance(node, RegexLiteral):
            yield node.span, node.pattern
            continue
        operand: Expr | None = None
        if isinstance(node, TextOp) and node.op == "matches":
            operand = node.right
        elif isinstance(node, Call):
            name = canonical_name(node.name)
            position = 0 if node.target is not None else 1  # a method's target is its first argument
            if (name in _PATTERN_FUNCTIONS or (name == "MATCHES" and node.target is not None)) and len(
                node.args
            ) > position:
                operand = node.args[position]
        if isinstance(operand, Literal) and isinstance(operand.value, str):
            yield operand.span, operand.value


def _patterns(extraction: Scalar | None, validate: Scalar | None) -> Iterator[tuple[Scalar, str]]:
    if extraction is not None and extraction.text:
        yield extraction, extraction.text
    if validate is not None:
        for m in _RULE.finditer(validate.text):
            if m.group(1).lower() == "pattern":
                yield validate, m.group(2).strip().strip("\"'/")


def backtracks(pattern: str) -> bool:
    """Whether `pattern` repeats a group whose own repeat can take any share of the same text."""
    if len(pattern) > _MAX_PATTERN:
        return False
    try:
        with warnings.catch_warnings():  # `[[` and the like draw a FutureWarning: not the checker's to print
            warnings.simplefilter("ignore")
            parsed = _sre.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return False  # not a pattern the runtime could compile either
    try:
        return _nested(list(parsed))
    except RecursionError:
        return False


def _nested(items: list[tuple[Any, Any]]) -> bool:
    """Some repeat among `items` (at any depth) repeats a loose body (see `_loose`)."""
    for op, av in items:
        if op in _REPEATS:
            _, most, body = av
            if most > 1 and _loose(list(body)):
                return True
            if _nested(list(body)):
                return True
        elif op is _sre.SUBPATTERN:
            if _nested(list(av[-1])):
                return True
        elif op is _sre.BRANCH:
            if any(_nested(list(branch)) for branch in av[1]):
                return True
        elif op in (_sre.ASSERT, _sre.ASSERT_NOT) and _nested(list(av[1])):
            return True
    return False


def _loose(items: list[tuple[Any, Any]]) -> bool:
    """The body holds an unbounded repeat and everything else in it may match nothing: one pass
    of the outer repeat can then take any part of what the inner one takes."""
    for i, (op, av) in enumerate(items):
        if _unbounded_edge(op, av) and all(_may_be_empty(o, a) for j, (o, a) in enumerate(items) if j != i):
            return True
    return False


def _unbounded_edge(op: Any, av: Any) -> bool:
    if op in _REPEATS:
        return bool(av[1] == _UNBOUNDED)
    if op is _sre.SUBPATTERN:
        return _loose(list(av[-1]))
    if op is _sre.BRANCH:
        return any(_loose(list(branch)) for branch in av[1])
    return False


def _may_be_empty(op: Any, av: Any) -> bool:
    if op in _ZERO_WIDTH:
        return True
    if op in _REPEATS or (op in _ATOMIC and isinstance(av, tuple) and len(av) == 3):
        least, _, body = av
        return least == 0 or all(_may_be_empty(o, a) for o, a in body)
    if op is _sre.SUBPATTERN:
        return all(_may_be_empty(o, a) for o, a in av[-1])
    if op is _sre.BRANCH:
        return any(all(_may_be_empty(o, a) for o, a in branch) for branch in av[1])
    return False


def _clip(pattern: str, width: int = 60) -> str:
    return pattern if len(pattern) <= width else pattern[: width - 3] + "..."
