"""A compact prefix rendering of the AST: `(AND (== intent.category "x") (IS_SET order_id))`.

Used in tests (precedence is visible at a glance) and in debug output; parentheses written by
the author are not shown because the nesting already says the same thing.
"""

from __future__ import annotations

import json

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
    Ternary,
    TextOp,
    Unary,
)


def show(expr: Expr | None) -> str:
    if expr is None:
        return "<none>"
    return _show(expr)


def _show(node: Expr) -> str:
    if isinstance(node, Literal):
        return _literal(node.value)
    if isinstance(node, RegexLiteral):
        return f"/{node.pattern}/{node.flags}"
    if isinstance(node, Path):
        return node.dotted
    if isinstance(node, Group):
        return _show(node.inner)
    if isinstance(node, Member):
        return f"(. {_show(node.target)} {node.name})"
    if isinstance(node, Index):
        return f"([] {_show(node.target)} {_show(node.index)})"
    if isinstance(node, Call):
        parts = [_show(arg) for arg in node.args]
        if node.target is not None:
            return _join(f"method {node.name}", [_show(node.target), *parts])
        return _join(f"call {node.name}", parts)
    if isinstance(node, Unary):
        return f"({node.op} {_show(node.operand)})"
    if isinstance(node, (Binary, Compare, TextOp)):
        return f"({node.op} {_show(node.left)} {_show(node.right)})"
    if isinstance(node, In):
        op = "NOT_IN" if node.negated else "IN"
        return f"({op} {_show(node.item)} {_show(node.container)})"
    if isinstance(node, IsSet):
        return f"({'IS_NOT_SET' if node.negated else 'IS_SET'} {_show(node.operand)})"
    if isinstance(node, IsNumber):
        return f"(is_number {_show(node.operand)})"
    if isinstance(node, Ternary):
        return f"(? {_show(node.condition)} {_show(node.then)} {_show(node.otherwise)})"
    if isinstance(node, ListLiteral):
        return "[" + " ".join(_show(item) for item in node.items) + "]"
    if isinstance(node, ObjectLiteral):
        return "{" + ", ".join(f"{e.key}: {_show(e.value)}" for e in node.entries) + "}"
    raise TypeError(f"not an expression node: {type(node).__name__}")


def _join(head: str, parts: list[str]) -> str:
    return "(" + " ".join([head, *parts]) + ")"


def _literal(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


__all__ = ["show"]
