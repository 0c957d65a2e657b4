"""Questions the checker and editor ask about a parsed condition.

Which variables does it read (for undefined-variable warnings, go-to-definition, rename)?
Does it compare against `""` (the `EMPTY_STRING_COMPARISON` trap)? Does it mix `routing_intent`
with `intent.category` (`MIXED_ROUTING_CONDITION_STATE`)?
"""

from __future__ import annotations

from dataclasses import dataclass

from .ast import Call, Compare, Expr, Group, In, ListLiteral, Literal, Path, PathKey, Span, walk


@dataclass(frozen=True, slots=True)
class NameRef:
    """One variable reference: `root` is the first segment, `path` the whole dotted path."""

    root: str
    path: str
    segments: tuple[PathKey, ...]
    span: Span
    root_span: Span


@dataclass(frozen=True, slots=True)
class EmptyStringComparison:
    """`x != ""` or `x == ""` (either side): `!=` holds when x is missing, `==` does not."""

    span: Span
    operator: str
    subject: Expr
    op_span: Span


def names(expr: Expr | None) -> list[NameRef]:
    """Variable references in source order; function names and object keys are not variables."""
    if expr is None:
        return []
    found = [
        NameRef(node.root, node.dotted, node.segments, node.span, node.segment_spans[0])
        for node in walk(expr)
        if isinstance(node, Path)
    ]
    found.sort(key=lambda ref: ref.span)
    return found


def function_calls(expr: Expr | None) -> list[Call]:
    """Every call (function or method), in source order."""
    if expr is None:
        return []
    return sorted((n for n in walk(expr) if isinstance(n, Call)), key=lambda c: c.span)


def empty_string_comparisons(expr: Expr | None) -> list[EmptyStringComparison]:
    """Each `== ""` / `!= ""` comparison, with the operand compared to the empty string."""
    if expr is None:
        return []
    hits: list[EmptyStringComparison] = []
    for node in walk(expr):
        if not isinstance(node, Compare) or node.op not in ("==", "!="):
            continue
        left, right = _unwrap(node.left), _unwrap(node.right)
        if _is_empty_string(right):
            hits.append(EmptyStringComparison(node.span, node.op, node.left, node.op_span))
        elif _is_empty_string(left):
            hits.append(EmptyStringComparison(node.span, node.op, node.right, node.op_span))
    hits.sort(key=lambda hit: hit.span)
    return hits


def mixes_routing_state(expr: Expr | None) -> bool:
    """True when one condition reads both `routing_intent` and `intent.category`."""
    refs = names(expr)
    uses_routing_intent = any(ref.root == "routing_intent" for ref in refs)
    uses_category = any(ref.segments[:2] == ("intent", "category") for ref in refs)
    return uses_routing_intent and uses_category


def compared_texts(expr: Expr | None, segments: tuple[PathKey, ...]) -> list[str]:
    """The texts a condition compares a path with, by `==` (either side) or `IN [...]`, in source
    order and each once: `["order_status", "returns"]` for `intent.category == "order_status" OR
    intent.category IN ["returns"]` and the path `("intent", "category")`."""
    found: dict[str, None] = {}
    if expr is None:
        return []
    for node in sorted(walk(expr), key=lambda n: n.span):
        if isinstance(node, Compare) and node.op == "==":
            left, right = _unwrap(node.left), _unwrap(node.right)
            for subject, other in ((left, right), (right, left)):
                if _is_path(subject, segments) and isinstance(other, Literal) and isinstance(other.value, str):
                    found.setdefault(other.value, None)
        elif isinstance(node, In) and not node.negated and _is_path(_unwrap(node.item), segments):
            container = _unwrap(node.container)
            if isinstance(container, ListLiteral):
                for item in container.items:
                    item = _unwrap(item)
                    if isinstance(item, Literal) and isinstance(item.value, str):
                        found.setdefault(item.value, None)
    return list(found)


def _is_path(node: Expr, segments: tuple[PathKey, ...]) -> bool:
    return isinstance(node, Path) and node.segments == segments


def _unwrap(node: Expr) -> Expr:
    while isinstance(node, Group):
        node = node.inner
    return node


def _is_empty_string(node: Expr) -> bool:
    return isinstance(node, Literal) and node.value == "" and isinstance(node.value, str)
