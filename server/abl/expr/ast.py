"""The condition AST: small frozen nodes, each with the character span it covers.

Spans are `(start, end)` offsets into the text handed to `parse_condition` (end exclusive),
so an editor can underline exactly the operand or operator a diagnostic is about.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

Span = tuple[int, int]
PathKey = str | int


@dataclass(frozen=True, slots=True)
class Literal:
    """A string, number, boolean or null written in the condition."""

    span: Span
    value: str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class RegexLiteral:
    """`/pattern/flags`, only valid as the right side of `matches`."""

    span: Span
    pattern: str
    flags: str


@dataclass(frozen=True, slots=True)
class Path:
    """A variable reference: `a`, `a.b[0].c`, `a["k"]`, `match.1` (static keys only)."""

    span: Span
    segments: tuple[PathKey, ...]
    segment_spans: tuple[Span, ...]

    @property
    def root(self) -> str:
        return str(self.segments[0])

    @property
    def dotted(self) -> str:
        return format_path(self.segments)


@dataclass(frozen=True, slots=True)
class Member:
    """`.name` on something that is not a plain path, e.g. `FIRST(xs).id`."""

    span: Span
    target: Expr
    name: str
    name_span: Span


@dataclass(frozen=True, slots=True)
class Index:
    """`target[expr]` where the key is computed, e.g. `items[i]`."""

    span: Span
    target: Expr
    index: Expr


@dataclass(frozen=True, slots=True)
class Call:
    """A function call `UPPER(x)` / `abl.upper(x)` (target None) or a method `x.contains("y")`."""

    span: Span
    name: str
    name_span: Span
    args: tuple[Expr, ...]
    target: Expr | None = None


@dataclass(frozen=True, slots=True)
class Unary:
    """Prefix operator; `op` is one of `NOT` (also written `!`), `EXISTS`, `EMPTY`, `-`."""

    span: Span
    op: str
    operand: Expr
    op_span: Span


@dataclass(frozen=True, slots=True)
class Binary:
    """`AND`, `OR`, `IMPLIES` (`&&`/`||` are normalised) and arithmetic `+ - * / %`."""

    span: Span
    op: str
    left: Expr
    right: Expr
    op_span: Span


@dataclass(frozen=True, slots=True)
class Compare:
    """`== != < > <= >=` with ABL's null-safe coercion."""

    span: Span
    op: str
    left: Expr
    right: Expr
    op_span: Span


@dataclass(frozen=True, slots=True)
class In:
    """`item IN container` / `item NOT IN container`."""

    span: Span
    item: Expr
    container: Expr
    negated: bool
    op_span: Span


@dataclass(frozen=True, slots=True)
class TextOp:
    """Infix `contains`, `matches`, `startsWith`, `endsWith` (op spelled in that canonical case)."""

    span: Span
    op: str
    left: Expr
    right: Expr
    op_span: Span


@dataclass(frozen=True, slots=True)
class IsSet:
    """`x IS SET` (negated=False) or `x IS NOT SET` (negated=True)."""

    span: Span
    operand: Expr
    negated: bool
    op_span: Span


@dataclass(frozen=True, slots=True)
class IsNumber:
    """Postfix `x is_number`."""

    span: Span
    operand: Expr
    op_span: Span


@dataclass(frozen=True, slots=True)
class Ternary:
    span: Span
    condition: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True, slots=True)
class ListLiteral:
    span: Span
    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class ObjectEntry:
    key: str
    key_span: Span
    value: Expr


@dataclass(frozen=True, slots=True)
class ObjectLiteral:
    span: Span
    entries: tuple[ObjectEntry, ...]


@dataclass(frozen=True, slots=True)
class Group:
    """Parentheses, kept so that spans of the enclosing node include them."""

    span: Span
    inner: Expr


Expr = (
    Literal
    | RegexLiteral
    | Path
    | Member
    | Index
    | Call
    | Unary
    | Binary
    | Compare
    | In
    | TextOp
    | IsSet
    | IsNumber
    | Ternary
    | ListLiteral
    | ObjectLiteral
    | Group
)


def format_path(segments: tuple[PathKey, ...] | list[PathKey]) -> str:
    """`("items", 0, "name")` -> `items[0].name`; the form used in traces and messages."""
    out: list[str] = []
    for position, key in enumerate(segments):
        if isinstance(key, int):
            out.append(f"[{key}]")
        elif position == 0:
            out.append(key)
        elif key.isidentifier() or key.isdigit():
            out.append(f".{key}")
        else:
            out.append(f'["{key}"]')
    return "".join(out)


def children(node: Expr) -> tuple[Expr, ...]:
    """Direct sub-expressions, in source order."""
    # Looked up by exact type: every walk over a condition asks this of each of its nodes.
    of = _CHILDREN_OF.get(type(node))
    if of is None:
        raise TypeError(f"not an expression node: {type(node).__name__}")
    return of(node)


def _no_children(node: Expr) -> tuple[Expr, ...]:
    return ()


def _two_sides(node: Binary | Compare | TextOp) -> tuple[Expr, ...]:
    return (node.left, node.right)


def _operand(node: Unary | IsSet | IsNumber) -> tuple[Expr, ...]:
    return (node.operand,)


def _call_children(node: Call) -> tuple[Expr, ...]:
    return node.args if node.target is None else (node.target, *node.args)


_CHILDREN_OF: dict[type, Callable[[Any], tuple[Expr, ...]]] = {
    Literal: _no_children,
    RegexLiteral: _no_children,
    Path: _no_children,
    Binary: _two_sides,
    Compare: _two_sides,
    TextOp: _two_sides,
    Unary: _operand,
    IsSet: _operand,
    IsNumber: _operand,
    In: lambda node: (node.item, node.container),
    Call: _call_children,
    Member: lambda node: (node.target,),
    Index: lambda node: (node.target, node.index),
    Ternary: lambda node: (node.condition, node.then, node.otherwise),
    ListLiteral: lambda node: node.items,
    ObjectLiteral: lambda node: tuple(entry.value for entry in node.entries),
    Group: lambda node: (node.inner,),
}


def walk(root: Expr) -> Iterator[Expr]:
    """Every node, parents before children, left to right; iterative so depth is no concern."""
    stack: list[Expr] = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def depth(root: Expr) -> int:
    """Nesting depth of the tree (a lone leaf is 1)."""
    deepest = 0
    stack: list[tuple[Expr, int]] = [(root, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children(node))
    return deepest
