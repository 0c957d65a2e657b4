"""Conditions, assigned values and templates, evaluated against one thread's data.

The engine reads variables from the active thread's values plus a few per-turn names
(`intent.category`, ...). Conditions are parsed once by the model layer (`Condition.parse`) and
evaluated here by `abl.expr`; `SET` right-hand sides are parsed once and cached by text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from abl.expr import UNDEFINED, ChainScope, DictScope, Environment, evaluate, names, parse_condition
from abl.expr.ast import Expr, IsSet, Literal, Path, walk
from abl.expr.parse import ConditionParse
from abl.expr.values import in_range, is_number
from abl.runtime.templates import MaskRule, has_placeholders, render


@dataclass(frozen=True, slots=True)
class Outcome:
    """A deterministic condition's verdict and the values it read (for `evaluatedContext`)."""

    result: bool
    context: dict[str, Any]
    problems: tuple[str, ...] = ()


def scope_of(values: Mapping[str, Any], extras: Mapping[str, Any] | None = None) -> Any:
    if not extras:
        return DictScope(values)
    return ChainScope(DictScope(extras), DictScope(values))


_PATHS: dict[str, tuple[str, ...]] = {}


def referenced_paths(parse: ConditionParse) -> tuple[str, ...]:
    """The dotted variable paths a parsed condition reads, each once, in source order."""
    found = _PATHS.get(parse.text)
    if found is None:
        seen: dict[str, None] = {}
        for ref in names(parse.expr):
            seen.setdefault(ref.path, None)
        found = tuple(seen)
        if len(_PATHS) < 4096:
            _PATHS[parse.text] = found
    return found


def lookup_path(values: Mapping[str, Any], extras: Mapping[str, Any] | None, path: str) -> Any:
    """A dotted path's current value, or None when it is not set."""
    parts = path.split(".")
    for source in (extras or {}, values):
        if parts[0] not in source:
            continue
        current: Any = source[parts[0]]
        for part in parts[1:]:
            if isinstance(current, Mapping) and part in current:
                current = current[part]
            else:
                return None
        return current
    return None


# What `unset_variables` needs of a condition's text, worked out once: the variables it reads
# (root and path, source order) and the roots it tests with `IS SET` / `IS NOT SET`.
_READS: dict[str, tuple[tuple[tuple[str, str], ...], frozenset[str]]] = {}


def _reads(parse: ConditionParse) -> tuple[tuple[tuple[str, str], ...], frozenset[str]]:
    found = _READS.get(parse.text)
    if found is None:
        tested: set[str] = set()
        if parse.expr is not None:
            for node in walk(parse.expr):
                if isinstance(node, IsSet):
                    tested.update(p.root for p in walk(node.operand) if isinstance(p, Path))
        refs = tuple((ref.root, ref.path) for ref in names(parse.expr)) if parse.expr is not None else ()
        found = (refs, frozenset(tested))
        if len(_READS) < 4096:
            _READS[parse.text] = found
    return found


def unset_variables(parse: ConditionParse, values: Mapping[str, Any], extras: Mapping[str, Any] | None) -> list[str]:
    """The variables a condition reads that are unset in every scope, in source order. A
    variable the condition tests with `IS SET` / `IS NOT SET` is accounted for, wherever else
    it is read: that test is how a condition asks whether it is set."""
    if parse.expr is None:
        return []
    refs, tested = _reads(parse)
    scopes = (extras or {}, values)
    found: list[str] = []
    for root, path in refs:
        if root in tested or root in found:
            continue
        if any(root in scope or path in scope for scope in scopes):
            continue
        found.append(root)
    return found


def check(
    parse: ConditionParse, values: Mapping[str, Any], extras: Mapping[str, Any] | None, env: Environment
) -> Outcome:
    """Evaluate a deterministic condition; a condition that cannot be read does not hold."""
    context = {path: lookup_path(values, extras, path) for path in referenced_paths(parse)}
    if parse.expr is None or parse.errors:
        problems = tuple(e.message for e in parse.errors) or ("the condition cannot be read",)
        return Outcome(False, context, problems)
    result = evaluate(parse.expr, scope_of(values, extras), env=env)
    return Outcome(result.truthy, context, tuple(e.message for e in result.errors))


@lru_cache(maxsize=2048)
def _value_parse(text: str) -> ConditionParse:
    return parse_condition(text)


def value_of(
    text: str, values: Mapping[str, Any], env: Environment, extras: Mapping[str, Any] | None = None
) -> tuple[Any, tuple[str, ...]]:
    """The value of a `SET` right-hand side: an expression, or a quoted text (templates filled)."""
    raw = text.strip()
    if not raw:
        return None, ("the value is empty",)
    parsed = _value_parse(raw)
    if parsed.natural_language or (parsed.quoted and parsed.expr is None and not parsed.errors):
        return fill(parsed.content, values, env), ()
    if parsed.expr is None:
        return None, tuple(e.message for e in parsed.errors) or ("the value cannot be read",)
    expr = _fill_written_text(parsed.expr, values, env)
    result = evaluate(expr, scope_of(values, extras), env=env)
    problems = tuple(e.message for e in result.errors)
    value = stored(result.value)
    if value is None and is_number(result.value):
        problems += ("the number is out of range",)
    return value, problems


def stored(value: Any) -> Any:
    """An expression's value as a variable holds it: plain data, where a name that is not set
    is null, also inside a list or an object (`[a, b]` with `a` unset is `[null, b]`), and a
    number is one a saved session holds (`in_range`: a written `1e999` is null, an integer of
    40 digits a float)."""
    if value is UNDEFINED:
        return None
    if isinstance(value, list):
        return [stored(item) for item in value]
    if isinstance(value, dict):
        return {key: stored(item) for key, item in value.items()}
    if is_number(value):
        return in_range(value)
    return value


def _fill_written_text(expr: Expr, values: Mapping[str, Any], env: Environment) -> Expr:
    """The expression with its own quoted texts' `{{ }}` placeholders filled in.

    Only text written in the file is a template. A value that arrives from the customer or a
    tool (a name typed as `{{pin}}`) is data and is copied as it is, never expanded.
    """
    if not any(isinstance(n, Literal) and isinstance(n.value, str) and has_placeholders(n.value) for n in walk(expr)):
        return expr

    def rebuild(node: Any) -> Any:
        if isinstance(node, Literal):
            if isinstance(node.value, str) and has_placeholders(node.value):
                return Literal(node.span, fill(node.value, values, env))
            return node
        if isinstance(node, tuple):
            return tuple(rebuild(item) for item in node)
        if not dataclasses.is_dataclass(node) or isinstance(node, type):
            return node
        changed = {}
        for spec in dataclasses.fields(node):
            old = getattr(node, spec.name)
            new = rebuild(old)
            if new is not old:
                changed[spec.name] = new
        return dataclasses.replace(node, **changed) if changed else node

    return rebuild(expr)


def fill(
    template: str, values: Mapping[str, Any], env: Environment, masks: Mapping[str, MaskRule] | None = None
) -> str:
    """Render a `{{ }}` template from thread values; text without placeholders is returned as is."""
    if not has_placeholders(template):
        return template
    return render(template, values, masks=masks, environment=env).text
