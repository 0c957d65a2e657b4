"""Evaluate a condition AST against variables, with ABL's null-safe rules.

A missing variable never raises: it is `UNDEFINED`, compares as documented in `values`, and is
listed in `EvalResult.unresolved` so the runtime can tell "false" from "could not tell"
(`route_condition_unresolved`). Paths read only to test their existence (`IS SET`, `EXISTS`,
`EMPTY`, `has()`) are not listed: asking whether something is set is a complete answer.

Division or modulo by zero, arithmetic on non-numbers, a number out of range, an author's
pattern stopped at its time limit (`patterns`) and runaway nesting make the whole condition not
hold: the result is `UNDEFINED`, falsy, with an error saying why.

Numbers: integers stay exact below `MAX_INT`; a larger result is a float, and one past the
largest float is out of range. No operation converts an integer of any size without a check.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import patterns
from .ast import (
    Binary,
    Call,
    Compare,
    Expr,
    Group,
    In,
    Index,
    IsNumber,
    IsSet,
    ListLiteral,
    Literal,
    Member,
    ObjectLiteral,
    Path,
    RegexLiteral,
    Span,
    Ternary,
    TextOp,
    Unary,
    format_path,
)
from .functions import (
    BUILTINS,
    METHODS,
    UNAVAILABLE,
    Environment,
    canonical_name,
    compile_regex,
    divide,
)
from .parse import ExprError, parse_condition
from .scope import Scope, as_scope, step_into, walk_value
from .values import (
    MAX_STRING,
    UNDEFINED,
    arithmetic_number,
    contains,
    equal,
    in_range,
    is_list,
    is_missing,
    is_nan,
    is_number,
    is_object,
    member_of,
    numeric,
    order,
    to_text,
    truthy,
    type_name,
)

MAX_CALL_DEPTH = 32  # documented limit on nested function calls
MAX_EVAL_DEPTH = 200  # any hand-built tree deeper than this is refused
_DEFAULT_ENV = Environment()


@dataclass
class EvalResult:
    value: Any
    truthy: bool
    unresolved: list[str] = field(default_factory=list)
    errors: list[ExprError] = field(default_factory=list)
    # Capture groups of the last successful `matches`: "0" (whole match), "1", ..., names.
    captures: dict[str, str | None] = field(default_factory=dict)
    # A quoted text with no operator: the value is the text, to be judged by a model.
    natural_language: bool = False


class _DoesNotHold(Exception):
    """Aborts evaluation: the condition cannot hold (division by zero, nesting, ...)."""

    def __init__(self, span: Span, message: str) -> None:
        super().__init__(message)
        self.span = span
        self.message = message


def evaluate(
    expr: Expr | None, scope: Scope | Mapping[str, Any] | None = None, *, env: Environment | None = None
) -> EvalResult:
    """Evaluate a parsed condition. Never raises."""
    if expr is None:
        return EvalResult(UNDEFINED, False, errors=[ExprError((0, 0), "nothing to evaluate")])
    run = _Evaluation(as_scope(scope), env or _DEFAULT_ENV)
    try:
        value = run.eval(expr)
    except _DoesNotHold as stop:
        run.errors.append(ExprError(stop.span, stop.message))
        return EvalResult(UNDEFINED, False, run.unresolved, run.errors, run.captures)
    except RecursionError:
        run.errors.append(ExprError(expr.span, "a value in this condition is nested too deeply"))
        return EvalResult(UNDEFINED, False, run.unresolved, run.errors, run.captures)
    return EvalResult(value, truthy(value), run.unresolved, run.errors, run.captures)


def evaluate_text(
    text: str, scope: Scope | Mapping[str, Any] | None = None, *, env: Environment | None = None
) -> EvalResult:
    """Parse and evaluate a condition as written. A natural-language condition comes back
    truthy with `natural_language=True` and its text as the value (a model decides it)."""
    parsed = parse_condition(text)
    if parsed.natural_language:
        return EvalResult(parsed.content, True, natural_language=True)
    if parsed.expr is None or parsed.errors:
        return EvalResult(UNDEFINED, False, errors=list(parsed.errors))
    return evaluate(parsed.expr, scope, env=env)


class _Evaluation:
    """State of one evaluation: what was unresolved, errors, captures, nesting depth."""

    def __init__(self, scope: Scope, env: Environment) -> None:
        self.scope = scope
        self.env = env
        self.unresolved: list[str] = []
        self.errors: list[ExprError] = []
        self.captures: dict[str, str | None] = {}
        self.depth = 0
        self.call_depth = 0

    # ---- dispatch ----------------------------------------------------------------------------
    def eval(self, node: Expr) -> Any:
        self.depth += 1
        try:
            if self.depth > MAX_EVAL_DEPTH:
                raise _DoesNotHold(node.span, f"the condition is nested more than {MAX_EVAL_DEPTH} levels deep")
            handler = _HANDLERS.get(type(node))
            if handler is None:
                raise _DoesNotHold(getattr(node, "span", (0, 0)), f"cannot evaluate {type(node).__name__}")
            return handler(self, node)
        finally:
            self.depth -= 1

    def probe(self, node: Expr) -> Any:
        """Value of an operand of an existence test: a path is read without being reported."""
        while isinstance(node, Group):
            node = node.inner
        if isinstance(node, Path):
            return self.read(node, report=False)
        return self.eval(node)

    # ---- leaves ------------------------------------------------------------------------------
    def literal(self, node: Literal) -> Any:
        return node.value

    def regex(self, node: RegexLiteral) -> Any:
        return node.pattern

    def path(self, node: Path) -> Any:
        return self.read(node, report=True)

    def read(self, node: Path, report: bool) -> Any:
        segments = node.segments
        if self.captures and segments[0] == "match" and len(segments) > 1:
            value = walk_value(self.captures, segments[1:])
            if value is not UNDEFINED:
                return value
        try:
            value = self.scope.lookup(segments)
        except (TypeError, KeyError, IndexError, AttributeError) as problem:
            self.errors.append(ExprError(node.span, f"cannot read `{node.dotted}`: {problem}"))
            value = UNDEFINED
        if value is UNDEFINED and report:
            dotted = format_path(segments)
            if dotted not in self.unresolved:
                self.unresolved.append(dotted)
        return value

    # ---- structure ---------------------------------------------------------------------------
    def group(self, node: Group) -> Any:
        return self.eval(node.inner)

    def member(self, node: Member) -> Any:
        return _step(self.eval(node.target), node.name)

    def index(self, node: Index) -> Any:
        target = self.eval(node.target)
        key = self.eval(node.index)
        if isinstance(key, float) and key.is_integer():
            key = int(key)
        if isinstance(key, bool) or not isinstance(key, (int, str)):
            return UNDEFINED
        return _step(target, key)

    def list_literal(self, node: ListLiteral) -> Any:
        return [self.eval(item) for item in node.items]

    def object_literal(self, node: ObjectLiteral) -> Any:
        return {entry.key: self.eval(entry.value) for entry in node.entries}

    def ternary(self, node: Ternary) -> Any:
        return self.eval(node.then if truthy(self.eval(node.condition)) else node.otherwise)

    # ---- operators ---------------------------------------------------------------------------
    def unary(self, node: Unary) -> Any:
        if node.op == "NOT":
            return not truthy(self.eval(node.operand))
        if node.op == "EXISTS":
            return not is_missing(self.probe(node.operand))
        if node.op == "EMPTY":
            value = self.probe(node.operand)
            return is_missing(value) or (
                (isinstance(value, str) or is_list(value) or is_object(value)) and len(value) == 0
            )
        value = self.eval(node.operand)
        number = arithmetic_number(value)
        if number is None:
            raise _DoesNotHold(node.span, f"cannot negate {_describe(value)}")
        return self.in_range(node, -number)

    def is_set(self, node: IsSet) -> bool:
        present = not is_missing(self.probe(node.operand))
        return not present if node.negated else present

    def is_number(self, node: IsNumber) -> bool:
        value = self.probe(node.operand)
        if isinstance(value, bool):
            return False
        number = numeric(value)
        return number is not None and not is_nan(number)

    def binary(self, node: Binary) -> Any:
        op = node.op
        if op in ("AND", "OR"):
            return self.logical_chain(node)
        if op == "IMPLIES":
            return (not truthy(self.eval(node.left))) or truthy(self.eval(node.right))
        return self.arithmetic(node, self.eval(node.left), self.eval(node.right))

    def logical_chain(self, node: Binary) -> bool:
        """`a AND b AND c ...` left to right with short-circuit, iteratively (long chains are
        common in generated conditions and should not count as deep nesting)."""
        op = node.op
        operands: list[Expr] = []
        current: Expr = node
        while isinstance(current, Binary) and current.op == op:
            operands.append(current.right)
            current = current.left
        operands.append(current)
        for operand in reversed(operands):
            value = truthy(self.eval(operand))
            if value is (op == "OR"):
                return value
        return op == "AND"

    def arithmetic(self, node: Binary, left: Any, right: Any) -> Any:
        op = node.op
        if op == "+":
            if isinstance(left, str) or isinstance(right, str):
                return self.cap(node, to_text(left) + to_text(right))
            if is_list(left) and is_list(right):
                return [*left, *right]
        a, b = arithmetic_number(left), arithmetic_number(right)
        if a is None or b is None:
            raise _DoesNotHold(node.span, f"`{op}` needs numbers, not {_describe(left)} and {_describe(right)}")
        if op in ("/", "%") and b == 0:
            raise _DoesNotHold(node.op_span, "division by zero: the condition does not hold")
        try:
            if op == "+":
                result = a + b
            elif op == "-":
                result = a - b
            elif op == "*":
                result = a * b
            elif op == "/":
                result = divide(a, b)
            else:
                result = _remainder(a, b)
        except OverflowError:  # an integer too large for the float it meets
            raise _DoesNotHold(node.span, "the number is out of range") from None
        return self.in_range(node, result)

    def in_range(self, node: Expr, result: int | float) -> int | float:
        number = in_range(result)
        if number is None:
            raise _DoesNotHold(node.span, "the number is out of range")
        return number

    def compare(self, node: Compare) -> bool:
        left, right = self.eval(node.left), self.eval(node.right)
        if node.op == "==":
            return equal(left, right)
        if node.op == "!=":
            return not equal(left, right)
        return order(node.op, left, right)

    def member_test(self, node: In) -> bool:
        found = member_of(self.eval(node.item), self.eval(node.container))
        return not found if node.negated else found

    def text_op(self, node: TextOp) -> bool:
        left = self.eval(node.left)
        if node.op == "contains":
            return contains(left, self.eval(node.right))
        if node.op == "matches":
            return self.matches(node, left)
        right = self.eval(node.right)
        if is_missing(left) or is_missing(right) or not (isinstance(left, str) or is_number(left)):
            return False
        text, part = to_text(left), to_text(right)
        return text.startswith(part) if node.op == "startsWith" else text.endswith(part)

    def matches(self, node: TextOp, subject: Any) -> bool:
        if isinstance(node.right, RegexLiteral):
            pattern, flags = node.right.pattern, node.right.flags
        else:
            pattern, flags = to_text(self.eval(node.right)), ""
        if is_missing(subject) or not (isinstance(subject, str) or is_number(subject)):
            return False
        compiled = compile_regex(pattern, flags)
        if compiled is None:
            message = f"invalid regular expression {pattern!r}"
            self.errors.append(ExprError(node.right.span, message))
            return False
        try:
            found = patterns.search(compiled, to_text(subject))
        except patterns.PatternTimeout as stopped:
            raise _DoesNotHold(node.right.span, f"the pattern {_clip(pattern)} was not used: {stopped}") from None
        if found is None:
            return False
        captures: dict[str, str | None] = {"0": found.group(0)}
        for number, text in enumerate(found.groups(), start=1):
            captures[str(number)] = text
        captures.update(found.groupdict())
        self.captures = captures
        return True

    # ---- calls -------------------------------------------------------------------------------
    def call(self, node: Call) -> Any:
        self.call_depth += 1
        try:
            if self.call_depth > MAX_CALL_DEPTH:
                raise _DoesNotHold(node.span, f"functions are nested more than {MAX_CALL_DEPTH} deep")
            if node.target is not None:
                return self.method(node)
            return self.function(node)
        finally:
            self.call_depth -= 1

    def function(self, node: Call) -> Any:
        key = canonical_name(node.name)
        if key == "HAS":
            if len(node.args) != 1:
                return self.fail_call(node, "has() takes exactly one path")
            return not is_missing(self.probe(node.args[0]))
        if key == "CONTAINS":
            self.errors.append(
                ExprError(node.name_span, "CONTAINS(a, b) is not a function and never matches; write `a contains b`")
            )
            return False
        builtin = BUILTINS.get(key)
        if builtin is None:
            if key in UNAVAILABLE:
                return self.fail_call(
                    node, f"{node.name}() needs {UNAVAILABLE[key]}, which is not available when evaluating locally"
                )
            return self.fail_call(node, f"unknown function `{node.name}`")
        count = len(node.args)
        if count < builtin.min_args or (builtin.max_args is not None and count > builtin.max_args):
            takes = _arity(builtin.min_args, builtin.max_args)
            return self.fail_call(node, f"{builtin.name}() takes {takes}, not {count}")
        args = [self.eval(arg) for arg in node.args]
        if builtin.needs_env:
            args.insert(0, self.env)
        return self.run(node, builtin.name, builtin.run, args)

    def method(self, node: Call) -> Any:
        if node.target is None:
            return self.function(node)
        target = self.eval(node.target)
        args = [self.eval(arg) for arg in node.args]
        method = METHODS.get(node.name.lower())
        if method is not None:
            return self.run(node, node.name, method, [target, *args])
        builtin = BUILTINS.get(canonical_name(node.name))
        if builtin is None or builtin.needs_env:
            return self.fail_call(node, f"unknown method `{node.name}`")
        return self.run(node, builtin.name, builtin.run, [target, *args])

    def run(self, node: Call, name: str, run: Callable[..., Any], args: list[Any]) -> Any:
        try:
            result = run(*args)
        except TypeError as problem:
            return self.fail_call(node, f"{name}() cannot take these arguments ({problem})")
        except OverflowError:  # an integer too large for the float it meets
            return self.fail_call(node, f"{name}() gave a number out of range")
        except (ValueError, ArithmeticError, IndexError, KeyError, re.error) as problem:
            return self.fail_call(node, f"{name}() failed: {problem}")
        except patterns.PatternTimeout as stopped:
            raise _DoesNotHold(node.span, f"{name}(): its pattern was not used: {stopped}") from None
        if isinstance(result, str):
            return self.cap(node, result)
        if is_number(result):
            number = in_range(result)
            if number is None:
                return self.fail_call(node, f"{name}() gave a number out of range")
            return number
        return result

    def fail_call(self, node: Call, message: str) -> Any:
        self.errors.append(ExprError(node.name_span, message))
        return UNDEFINED

    def cap(self, node: Expr, text: str) -> str:
        if len(text) <= MAX_STRING:
            return text
        self.errors.append(ExprError(node.span, f"text cut to {MAX_STRING} characters"))
        return text[:MAX_STRING]


def _step(container: Any, key: str | int) -> Any:
    if is_missing(container):
        return UNDEFINED
    return step_into(container, key)


def _remainder(a: int | float, b: int | float) -> int | float:
    """Remainder with the sign of the dividend, as in CEL and JavaScript."""
    if isinstance(a, int) and isinstance(b, int):
        rest = abs(a) % abs(b)
        return -rest if a < 0 else rest
    return math.fmod(a, b)


def _clip(text: str, width: int = 40) -> str:
    shown = text if len(text) <= width else text[: width - 3] + "..."
    return f"`{shown}`"


def _describe(value: Any) -> str:
    if isinstance(value, str):
        shown = value if len(value) <= 20 else value[:17] + "..."
        return f"the text {shown!r}"
    return type_name(value)


def _arity(low: int, high: int | None) -> str:
    if high is None:
        return f"at least {low} argument{'s' if low != 1 else ''}"
    if low == high:
        return f"{low} argument{'s' if low != 1 else ''}"
    return f"{low} to {high} arguments"


_HANDLERS: dict[type, Callable[[_Evaluation, Any], Any]] = {
    Literal: _Evaluation.literal,
    RegexLiteral: _Evaluation.regex,
    Path: _Evaluation.path,
    Group: _Evaluation.group,
    Member: _Evaluation.member,
    Index: _Evaluation.index,
    ListLiteral: _Evaluation.list_literal,
    ObjectLiteral: _Evaluation.object_literal,
    Ternary: _Evaluation.ternary,
    Unary: _Evaluation.unary,
    IsSet: _Evaluation.is_set,
    IsNumber: _Evaluation.is_number,
    Binary: _Evaluation.binary,
    Compare: _Evaluation.compare,
    In: _Evaluation.member_test,
    TextOp: _Evaluation.text_op,
    Call: _Evaluation.call,
}
