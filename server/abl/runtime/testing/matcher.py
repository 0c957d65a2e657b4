"""Value matchers for conversation tests: how an expected value in YAML is compared with what ran.

A plain value means "equal" (numbers compare by value, so `85000` matches `85000.0`; `true`
never matches `1`). A plain mapping means "these keys match" (other keys may be present). A
plain list means "exactly these items, in this order". A mapping whose keys are all operators
is a matcher:

    {contains: x}     text contains x / a list has an item equal to x
    {regex: p}        the value, as text, has a match for the regular expression p
    {equals: v}       exactly v (also for mappings and lists: no subset rule)
    {gte: n} {lte: n} {gt: n} {lt: n}   numeric bounds
    {includes: [..]}  a list holding an item that matches each entry, in any order
    {exists: bool}    the field is present (true) or absent (false)
    {not: m}          m does not match
    {any_of: [..]}    at least one of the matchers matches

Several operators in one mapping must all hold (`{gte: 1, lte: 5}`).

`check` returns None when the value matches, else a short reason written for a person.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from abl.expr.values import is_number
from abl.wording import count

MISSING: Any = object()
"""Stands for a field that the actual data does not have."""

OPERATORS = ("contains", "regex", "equals", "gte", "lte", "gt", "lt", "includes", "exists", "not", "any_of")


class MatcherError(ValueError):
    """An expected value that is not a valid matcher; the message says what is wrong."""


# --- showing values ------------------------------------------------------------------------------

_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")
_RESERVED_WORDS = {"true", "false", "null", "yes", "no", "on", "off", "none", "~"}


def show(value: Any, limit: int = 200) -> str:
    """A compact, YAML-like rendering of a value for messages (`{to: X, count: 2}`)."""
    text = _show(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def _show(value: Any) -> str:
    if value is MISSING:
        return "(missing)"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, str):
        if _PLAIN.match(value) and value.lower() not in _RESERVED_WORDS:
            return value
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_show(k)}: {_show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value)


def _number(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


# --- equality ------------------------------------------------------------------------------------


def values_equal(expected: Any, actual: Any) -> bool:
    """Equality as a test author means it: numbers by value, no bool/number mixing, deep."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if is_number(expected) and is_number(actual):
        return math.isclose(float(expected), float(actual), rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return set(expected) == set(actual) and all(values_equal(expected[k], actual[k]) for k in expected)
    if _is_list(expected) and _is_list(actual):
        return len(expected) == len(actual) and all(values_equal(e, a) for e, a in zip(expected, actual, strict=True))
    return type(expected) is type(actual) and expected == actual


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))


# --- matchers ------------------------------------------------------------------------------------


class Matcher:
    """Something an actual value can be checked against."""

    def check(self, actual: Any) -> str | None:
        """None when `actual` matches (MISSING for an absent field), else why not."""
        raise NotImplementedError

    def describe(self) -> str:
        """The expectation, written back the way an author would write it."""
        raise NotImplementedError

    def matches(self, actual: Any) -> bool:
        return self.check(actual) is None


@dataclass(frozen=True)
class Equals(Matcher):
    value: Any

    def check(self, actual: Any) -> str | None:
        if actual is MISSING:
            return f"missing, expected {show(self.value)}"
        if values_equal(self.value, actual):
            return None
        return f"expected {show(self.value)}, got {show(actual)}"

    def describe(self) -> str:
        return show(self.value)


@dataclass(frozen=True)
class Contains(Matcher):
    part: Any

    def check(self, actual: Any) -> str | None:
        if actual is MISSING:
            return f"missing, expected it to contain {show(self.part)}"
        if isinstance(actual, str):
            if isinstance(self.part, str) and self.part in actual:
                return None
            if not isinstance(self.part, str) and _scalar_text(self.part) in actual:
                return None
            return f"expected text containing {show(self.part)}, got {show(actual)}"
        if _is_list(actual):
            if any(values_equal(self.part, item) for item in actual):
                return None
            return f"expected a list containing {show(self.part)}, got {show(actual)}"
        if isinstance(actual, Mapping):
            if self.part in actual:
                return None
            return f"expected a mapping with key {show(self.part)}, got {show(actual)}"
        return f"expected something containing {show(self.part)}, got {show(actual)}"

    def describe(self) -> str:
        return f"{{contains: {show(self.part)}}}"


@dataclass(frozen=True)
class Regex(Matcher):
    pattern: re.Pattern[str]

    def check(self, actual: Any) -> str | None:
        if actual is MISSING:
            return f"missing, expected a match for /{self.pattern.pattern}/"
        text = actual if isinstance(actual, str) else _scalar_text(actual)
        if self.pattern.search(text):
            return None
        return f"expected a match for /{self.pattern.pattern}/, got {show(actual)}"

    def describe(self) -> str:
        return f"{{regex: {show(self.pattern.pattern)}}}"


_COMPARISONS = {
    "gte": (">=", lambda a, b: a >= b),
    "lte": ("<=", lambda a, b: a <= b),
    "gt": (">", lambda a, b: a > b),
    "lt": ("<", lambda a, b: a < b),
}


@dataclass(frozen=True)
class Compare(Matcher):
    op: str
    bound: float

    def check(self, actual: Any) -> str | None:
        symbol, holds = _COMPARISONS[self.op]
        if actual is MISSING:
            return f"missing, expected a number {symbol} {_number(self.bound)}"
        if not is_number(actual):
            return f"expected a number {symbol} {_number(self.bound)}, got {show(actual)}"
        if holds(actual, self.bound):
            return None
        return f"expected a number {symbol} {_number(self.bound)}, got {show(actual)}"

    def describe(self) -> str:
        return f"{{{self.op}: {_number(self.bound)}}}"


@dataclass(frozen=True)
class Includes(Matcher):
    items: tuple[Matcher, ...]

    def check(self, actual: Any) -> str | None:
        if actual is MISSING:
            return f"missing, expected a list including {self.describe_items()}"
        if not _is_list(actual):
            return f"expected a list including {self.describe_items()}, got {show(actual)}"
        absent = [m.describe() for m in self.items if not any(m.matches(item) for item in actual)]
        if not absent:
            return None
        return f"expected the list to include {', '.join(absent)}, got {show(actual)}"

    def describe_items(self) -> str:
        return "[" + ", ".join(m.describe() for m in self.items) + "]"

    def describe(self) -> str:
        return f"{{includes: {self.describe_items()}}}"


@dataclass(frozen=True)
class ListExactly(Matcher):
    items: tuple[Matcher, ...]

    def check(self, actual: Any) -> str | None:
        if actual is MISSING:
            return f"missing, expected {self.describe()}"
        if not _is_list(actual):
            return f"expected the list {self.describe()}, got {show(actual)}"
        if len(actual) != len(self.items):
            return f"expected {count(len(self.items), 'item')} {self.describe()}, got {len(actual)}: {show(actual)}"
        for index, (matcher, item) in enumerate(zip(self.items, actual, strict=True)):
            reason = matcher.check(item)
            if reason is not None:
                return f"item {index + 1}: {reason} (list {show(actual)})"
        return None

    def describe(self) -> str:
        return "[" + ", ".join(m.describe() for m in self.items) + "]"


@dataclass(frozen=True)
class HasFields(Matcher):
    """A plain mapping: each listed key matches; other keys are allowed."""

    fields: tuple[tuple[str, Matcher], ...]

    def check(self, actual: Any) -> str | None:
        if actual is MISSING:
            return f"missing, expected {self.describe()}"
        if not isinstance(actual, Mapping):
            return f"expected a mapping {self.describe()}, got {show(actual)}"
        for key, matcher in self.fields:
            reason = matcher.check(actual.get(key, MISSING))
            if reason is not None:
                return f"{key}: {reason}"
        return None

    def describe(self) -> str:
        return "{" + ", ".join(f"{k}: {m.describe()}" for k, m in self.fields) + "}"


@dataclass(frozen=True)
class Exists(Matcher):
    wanted: bool

    def check(self, actual: Any) -> str | None:
        present = actual is not MISSING
        if present == self.wanted:
            return None
        return f"expected no value, got {show(actual)}" if present else "missing, expected a value"

    def describe(self) -> str:
        return f"{{exists: {show(self.wanted)}}}"


@dataclass(frozen=True)
class Not(Matcher):
    inner: Matcher

    def check(self, actual: Any) -> str | None:
        if self.inner.check(actual) is None:
            return f"expected anything but {self.inner.describe()}, got {show(actual)}"
        return None

    def describe(self) -> str:
        return f"{{not: {self.inner.describe()}}}"


@dataclass(frozen=True)
class AnyOf(Matcher):
    options: tuple[Matcher, ...]

    def check(self, actual: Any) -> str | None:
        if any(m.matches(actual) for m in self.options):
            return None
        return f"expected one of {', '.join(m.describe() for m in self.options)}, got {show(actual)}"

    def describe(self) -> str:
        return "{any_of: [" + ", ".join(m.describe() for m in self.options) + "]}"


@dataclass(frozen=True)
class AllOf(Matcher):
    parts: tuple[Matcher, ...]

    def check(self, actual: Any) -> str | None:
        for part in self.parts:
            reason = part.check(actual)
            if reason is not None:
                return reason
        return None

    def describe(self) -> str:
        return " and ".join(part.describe() for part in self.parts)


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if is_number(value):
        return _number(value)
    if value is None:
        return "null"
    return str(value)


# --- building matchers from YAML -----------------------------------------------------------------


def compile_matcher(spec: Any) -> Matcher:
    """The matcher an expected YAML value stands for. Raises MatcherError when it is malformed."""
    if isinstance(spec, Mapping):
        keys = list(spec)
        operators = [k for k in keys if k in OPERATORS]
        if not operators:
            return HasFields(tuple((str(k), compile_matcher(v)) for k, v in spec.items()))
        others = [k for k in keys if k not in OPERATORS]
        if others:
            raise MatcherError(
                f"mixes matcher operators ({', '.join(map(str, operators))}) with field names "
                f"({', '.join(map(str, others))}); write field checks and operators at separate levels"
            )
        parts = tuple(_operator(op, spec[op]) for op in operators)
        return parts[0] if len(parts) == 1 else AllOf(parts)
    if _is_list(spec):
        return ListExactly(tuple(compile_matcher(item) for item in spec))
    return Equals(spec)


def _operator(op: str, arg: Any) -> Matcher:
    if op == "equals":
        return Equals(arg)
    if op == "contains":
        if isinstance(arg, (Mapping, list)):
            raise MatcherError("`contains` takes one value (text, number or list item)")
        return Contains(arg)
    if op == "regex":
        if not isinstance(arg, str):
            raise MatcherError(f"`regex` takes a pattern as text, got {show(arg)}")
        try:
            return Regex(re.compile(arg))
        except re.error as err:
            raise MatcherError(f"`regex` pattern {show(arg)} is not valid: {err}") from err
    if op in _COMPARISONS:
        if not is_number(arg):
            raise MatcherError(f"`{op}` takes a number, got {show(arg)}")
        return Compare(op, arg)
    if op == "includes":
        if not _is_list(arg):
            raise MatcherError(f"`includes` takes a list, got {show(arg)}")
        return Includes(tuple(compile_matcher(item) for item in arg))
    if op == "exists":
        if not isinstance(arg, bool):
            raise MatcherError(f"`exists` takes true or false, got {show(arg)}")
        return Exists(arg)
    if op == "not":
        return Not(compile_matcher(arg))
    if op == "any_of":
        if not _is_list(arg) or not arg:
            raise MatcherError(f"`any_of` takes a non-empty list, got {show(arg)}")
        return AnyOf(tuple(compile_matcher(item) for item in arg))
    raise MatcherError(f"unknown matcher operator `{op}`")


def compile_text_matcher(spec: Any) -> Matcher:
    """A reply expectation: plain text means "contains"; a mapping uses the operators above.

    A list of texts means every one of them is contained.
    """
    if isinstance(spec, str):
        return Contains(spec)
    if _is_list(spec):
        if not spec:
            raise MatcherError("an empty list of expected texts checks nothing")
        return AllOf(tuple(compile_text_matcher(item) for item in spec))
    if isinstance(spec, Mapping):
        unknown = [k for k in spec if k not in OPERATORS]
        if unknown:
            raise MatcherError(
                f"unknown reply check {', '.join(f'`{k}`' for k in unknown)}; use contains, regex or equals "
                "(or any_of, not)"
            )
        return compile_matcher(spec)
    if is_number(spec):
        return Contains(_number(spec))
    raise MatcherError(f"expected text or a mapping with contains/regex/equals, got {show(spec)}")


# --- matching events in order --------------------------------------------------------------------


@dataclass(frozen=True)
class EventPattern:
    """One expected event: a type and matchers for its fields (envelope keys included)."""

    type: str
    fields: tuple[tuple[str, Matcher], ...]
    line: int | None = None

    def mismatches(self, event: Mapping[str, Any]) -> list[str]:
        """Why `event` is not this one; empty when it matches."""
        if event.get("type") != self.type:
            return [f"type: expected {self.type}, got {show(event.get('type'))}"]
        out = []
        for key, matcher in self.fields:
            reason = matcher.check(event.get(key, MISSING))
            if reason is not None:
                out.append(f"{key}: {reason}")
        return out

    def matches(self, event: Mapping[str, Any]) -> bool:
        return not self.mismatches(event)

    def describe(self) -> str:
        if not self.fields:
            return self.type
        return f"{self.type} {{" + ", ".join(f"{k}: {m.describe()}" for k, m in self.fields) + "}"


@dataclass(frozen=True)
class Near:
    """An event of the wanted type that did not match, and why."""

    event: Mapping[str, Any]
    reasons: tuple[str, ...]
    before_previous: bool  # it came before the event matched for the previous expectation


@dataclass(frozen=True)
class SequenceResult:
    """The outcome of matching expected events as an ordered subsequence."""

    matched: tuple[int, ...]  # positions in the actual events, one per expectation matched
    missing: EventPattern | None = None  # the first expectation that found no event
    missing_index: int | None = None
    near: tuple[Near, ...] = ()

    @property
    def ok(self) -> bool:
        return self.missing is None


def match_in_order(expected: Sequence[EventPattern], events: Sequence[Mapping[str, Any]]) -> SequenceResult:
    """Find each expectation in `events`, in order; other events may come between.

    Taking the earliest match for each expectation is enough: if any order-preserving
    assignment exists, the earliest-first one does too.
    """
    matched: list[int] = []
    start = 0
    for index, pattern in enumerate(expected):
        found = next((pos for pos in range(start, len(events)) if pattern.matches(events[pos])), None)
        if found is None:
            near = tuple(
                Near(event, tuple(pattern.mismatches(event)), pos < start)
                for pos, event in enumerate(events)
                if event.get("type") == pattern.type
            )
            return SequenceResult(tuple(matched), pattern, index, near)
        matched.append(found)
        start = found + 1
    return SequenceResult(tuple(matched))


def find_forbidden(
    forbidden: Sequence[EventPattern], events: Sequence[Mapping[str, Any]]
) -> list[tuple[EventPattern, Mapping[str, Any]]]:
    """Every (pattern, event) pair where an event that must not appear did appear."""
    return [(pattern, event) for pattern in forbidden for event in events if pattern.matches(event)]
