"""Turns `grammar/condition.lark` into AST nodes in the same pass as parsing.

The transformer is handed to lark itself (tree-less LALR), and every node's span comes from the
tokens it was built from, which is much cheaper than `propagate_positions`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from lark import Lark, Token, Transformer

from .. import resources
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
    ObjectEntry,
    ObjectLiteral,
    Path,
    PathKey,
    RegexLiteral,
    Span,
    Ternary,
    TextOp,
    Unary,
)
from .values import is_number

GRAMMAR_FILE = "condition.lark"

# Operators as the AST spells them, whatever case or symbol the author used.
_LOGICAL = {"AND": "AND", "AMPAMP": "AND", "OR": "OR", "PIPEPIPE": "OR", "IMPLIES": "IMPLIES"}
_PREFIX = {"NOT": "NOT", "BANG": "NOT", "EXISTS": "EXISTS", "EMPTY": "EMPTY", "MINUS": "-"}
_TEXT_OPS = {
    "CONTAINS": "contains",
    "MATCHES": "matches",
    "STARTS_WITH": "startsWith",
    "ENDS_WITH": "endsWith",
}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "0": "\0", '"': '"', "'": "'", "\\": "\\", "/": "/"}
_MAX_INT_DIGITS = 300


class BadSyntax(Exception):
    """Raised by the builder for text the grammar accepts but the language does not."""

    def __init__(self, span: Span, message: str) -> None:
        super().__init__(message)
        self.span = span
        self.message = message


# Lark types a token's offsets as optional; the lexer always sets them.


def _tok_span(token: Token) -> Span:
    return (token.start_pos or 0, token.end_pos or 0)


def _span(first: Any, last: Any) -> Span:
    start = (first.start_pos or 0) if isinstance(first, Token) else first.span[0]
    end = (last.end_pos or 0) if isinstance(last, Token) else last.span[1]
    return (start, end)


def unescape(body: str) -> str:
    """Resolve backslash escapes; unknown ones (`\\d` in a regex) keep their backslash."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "u" and i + 6 <= n and _is_hex(body[i + 2 : i + 6]):
            out.append(chr(int(body[i + 2 : i + 6], 16)))
            i += 6
        else:
            out.append(ch)
            out.append(nxt)
            i += 2
    return "".join(out)


def _is_hex(text: str) -> bool:
    return len(text) == 4 and all(c in "0123456789abcdefABCDEF" for c in text)


def _number(text: str) -> int | float:
    if "." in text or "e" in text or "E" in text or len(text) > _MAX_INT_DIGITS:
        return float(text)
    return int(text)


class _Builder(Transformer):
    """One callback per grammar alias; children arrive already built."""

    # ---- atoms -------------------------------------------------------------------------------
    def name(self, c: list[Any]) -> Path:
        tok = c[0]
        span = _tok_span(tok)
        return Path(span, (str(tok),), (span,))

    def string(self, c: list[Any]) -> Literal:
        tok = c[0]
        return Literal(_tok_span(tok), unescape(str(tok)[1:-1]))

    def number(self, c: list[Any]) -> Literal:
        tok = c[0]
        return Literal(_tok_span(tok), _number(str(tok)))

    def constant(self, c: list[Any]) -> Literal:
        tok = c[0]
        value = {"TRUE": True, "FALSE": False, "NULL": None}[tok.type]
        return Literal(_tok_span(tok), value)

    def items(self, c: list[Any]) -> tuple[Expr, ...]:
        return tuple(x for x in c if not isinstance(x, Token))

    arguments = items

    def list_literal(self, c: list[Any]) -> ListLiteral:
        return ListLiteral(_span(c[0], c[-1]), c[1] or ())

    def entry(self, c: list[Any]) -> ObjectEntry:
        key_tok = c[0]
        key = unescape(str(key_tok)[1:-1]) if key_tok.type == "STRING" else str(key_tok)
        if len(c) == 1:  # `{user_id}` shorthand: the field takes the same-named variable
            return ObjectEntry(key, _tok_span(key_tok), self.name([key_tok]))
        return ObjectEntry(key, _tok_span(key_tok), c[2])

    def entries(self, c: list[Any]) -> tuple[ObjectEntry, ...]:
        return tuple(x for x in c if not isinstance(x, Token))

    def object_literal(self, c: list[Any]) -> ObjectLiteral:
        return ObjectLiteral(_span(c[0], c[-1]), c[1] or ())

    def group(self, c: list[Any]) -> Group:
        return Group(_span(c[0], c[-1]), c[1])

    # ---- postfix chains ----------------------------------------------------------------------
    def member(self, c: list[Any]) -> Expr:
        target, _dot, tok = c
        key = str(tok)
        if isinstance(target, Path):
            return _extend(target, key, _tok_span(tok))
        return Member(_span(target, tok), target, key, _tok_span(tok))

    def index(self, c: list[Any]) -> Expr:
        target, _open, key, close = c
        if isinstance(target, Path) and isinstance(key, Literal) and _static_key(key.value):
            extended = _extend(target, key.value, key.span)  # type: ignore[arg-type]
            return Path(_span(target, close), extended.segments, extended.segment_spans)
        return Index(_span(target, close), target, key)

    def call(self, c: list[Any]) -> Call:
        callee, _open, args, close = c
        args = args or ()
        span = _span(callee, close)
        if isinstance(callee, Path) and isinstance(name := callee.segments[-1], str):
            segments = callee.segments
            last_span = callee.segment_spans[-1]
            if len(segments) == 1:
                return Call(span, name, last_span, args)
            if len(segments) == 2 and str(segments[0]).lower() == "abl":
                return Call(span, f"abl.{segments[1]}", (callee.span[0], last_span[1]), args)
            target = Path((callee.span[0], callee.segment_spans[-2][1]), segments[:-1], callee.segment_spans[:-1])
            return Call(span, name, last_span, args, target)
        if isinstance(callee, Member):
            return Call(span, callee.name, callee.name_span, args, callee.target)
        raise BadSyntax(callee.span, "only a function or method name can be called")

    # ---- operators ---------------------------------------------------------------------------
    def prefix(self, c: list[Any]) -> Expr:
        op_tok, operand = c
        op = _PREFIX[op_tok.type]
        span = _span(op_tok, operand)
        if op == "-" and isinstance(operand, Literal) and is_number(operand.value):
            return Literal(span, -operand.value)  # type: ignore[operator]
        return Unary(span, op, operand, _tok_span(op_tok))

    def postfix(self, c: list[Any]) -> Expr:
        operand, op_tok = c
        span = _span(operand, op_tok)
        if op_tok.type == "IS_NUMBER":
            return IsNumber(span, operand, _tok_span(op_tok))
        return IsSet(span, operand, op_tok.type == "IS_NOT_SET", _tok_span(op_tok))

    def binary(self, c: list[Any]) -> Binary:
        left, op_tok, right = c
        op = _LOGICAL.get(op_tok.type) or str(op_tok)
        return Binary(_span(left, right), op, left, right, _tok_span(op_tok))

    def compare(self, c: list[Any]) -> Compare:
        left, op_tok, right = c
        return Compare(_span(left, right), str(op_tok), left, right, _tok_span(op_tok))

    def membership(self, c: list[Any]) -> In:
        item, op_tok, container = c
        return In(_span(item, container), item, container, op_tok.type == "NOT_IN", _tok_span(op_tok))

    def text_op(self, c: list[Any]) -> TextOp:
        left, op_tok, right = c
        if isinstance(right, Token):  # REGEX
            text = str(right)
            close = text.rindex("/")
            right = RegexLiteral(_tok_span(right), text[1:close], text[close + 1 :])
        return TextOp(_span(left, right), _TEXT_OPS[op_tok.type], left, right, _tok_span(op_tok))

    def ternary(self, c: list[Any]) -> Ternary:
        condition, _q, then, _colon, otherwise = c
        return Ternary(_span(condition, otherwise), condition, then, otherwise)


def _static_key(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _extend(path: Path, key: PathKey, key_span: Span) -> Path:
    return Path((path.span[0], key_span[1]), (*path.segments, key), (*path.segment_spans, key_span))


@cache
def parser() -> Lark:
    """The condition parser, built once per process."""
    return Lark(
        resources.grammar_text(GRAMMAR_FILE),
        parser="lalr",
        lexer="contextual",
        transformer=_Builder(),
        maybe_placeholders=True,
    )
