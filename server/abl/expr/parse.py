"""`parse_condition`: condition text -> AST, or a natural-language verdict, plus readable errors.

The text is taken as written in the file (quotes included). Three outcomes:

* an expression (`order_id IS SET`, or a quoted one with an operator inside,
  `"transfer_type == 'international'"`), parsed into `expr`;
* a semantic condition: a quoted text with no operator (`"the customer asks about a refund"`),
  left for the model; `natural_language=True`, `expr=None`;
* broken input: `expr=None` and `errors` saying what was expected where.

Word operators that also occur in prose (`in`, `contains`, `matches`, `startsWith`, `endsWith`,
a lone `!`) only make a quoted text an expression when it then parses; "the user is interested
in a loan" stays natural language. Symbol operators (`==`, `<`, `&&`, ...), `IS [NOT] SET` and
`NAME(` always do, and if the text then fails to parse the errors say so.

Spans are offsets into the text passed in, quotes and comments included. Never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, NamedTuple

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from abl.syntax.limits import MAX_EXPRESSION_DEPTH

from .ast import Binary, Expr, ObjectEntry, Span, children, depth
from .build import BadSyntax, parser

# Deeper conditions are refused, as on the platform; this also keeps every walker far from
# Python's recursion limit.
MAX_DEPTH = MAX_EXPRESSION_DEPTH  # nesting, counting a chain of ANDs (or ORs) as one level
MAX_TREE_DEPTH = 400  # raw tree depth, which such chains do grow
_DEPTH_CHECK_FROM = MAX_DEPTH  # each level takes at least one character (`!`, `(`)


class ExprError(NamedTuple):
    """A problem in a condition: where (offsets into the condition text) and what."""

    span: Span
    message: str


@dataclass(frozen=True, slots=True)
class ConditionParse:
    text: str
    expr: Expr | None
    errors: tuple[ExprError, ...] = ()
    natural_language: bool = False
    quoted: bool = False
    # The condition proper: no quotes, no trailing comment, no surrounding blanks.
    content: str = ""
    content_span: Span = (0, 0)
    comment_span: Span | None = None
    # Unquoted text that reads like a sentence; it was parsed (and failed) as an expression.
    unquoted_prose: bool = False

    @property
    def ok(self) -> bool:
        return self.expr is not None and not self.errors


# ---- natural-language detection -------------------------------------------------------------

_STRONG_OPERATOR = re.compile(r"==|!=|<=|>=|<|>|&&|\|\||\bIS\s+(?:NOT\s+)?SET\b|\b[^\W\d][\w.]*\(")
_PROSE_OPERATOR = re.compile(r"!|\b(?:in|contains|matches|startswith|endswith)\b", re.IGNORECASE)
_SINGLE_TOKEN_EXPRESSION = re.compile(r"(?i:true|false|null)|-?\d+(?:\.\d+)?|[^\W\d]\w*(?:[._]\w+)+")
_PROSE = re.compile(r"[^\W\d][\w'’-]*(?:[\s,;]+[\w'’?.,!-]+){2,}")
_KEYWORD = re.compile(r"\b(?:IS|SET|AND|OR|NOT|IN|EMPTY|EXISTS|IMPLIES)\b")


def parse_condition(text: str) -> ConditionParse:
    """Parse one condition as written (see the module docstring). Results are cached by text."""
    if not isinstance(text, str):
        return ConditionParse(str(text), None, (ExprError((0, 0), "a condition must be text"),))
    return _cached_parse(text)


@lru_cache(maxsize=4096)
def _cached_parse(text: str) -> ConditionParse:
    return parse_condition_uncached(text)


def parse_condition_uncached(text: str) -> ConditionParse:
    """`parse_condition` without the cache (for benchmarks and callers that parse once)."""
    cut = _comment_start(text)
    comment_span = None if cut is None else (cut, len(text))
    body_end = len(text) if cut is None else cut
    start = _skip_blanks(text, 0, body_end)
    end = _trim_blanks(text, start, body_end)
    if start == end:
        return ConditionParse(
            text, None, (ExprError((0, len(text)), "expected a condition"),), comment_span=comment_span
        )
    first = text[start]
    if first in "\"'" and end - start >= 2 and _closing_quote(text, start, end) == end - 1:
        return _parse_quoted(text, start, end, comment_span)
    content = text[start:end]
    source = _blank_outside(text, start, end)
    expr, errors = _parse_expression(source)
    prose = (
        bool(errors)
        and bool(_PROSE.fullmatch(content))
        and not _STRONG_OPERATOR.search(content)
        and not _KEYWORD.search(content)
    )
    return ConditionParse(
        text, expr, errors, content=content, content_span=(start, end), comment_span=comment_span, unquoted_prose=prose
    )


def _parse_quoted(text: str, start: int, end: int, comment_span: Span | None) -> ConditionParse:
    quote = text[start]
    inner_start, inner_end = start + 1, end - 1
    raw_inner = text[inner_start:inner_end]
    escaped_quote = "\\" + quote
    content = raw_inner.replace(escaped_quote, quote).strip()
    c_start = _skip_blanks(text, inner_start, inner_end)
    c_span = (c_start, _trim_blanks(text, c_start, inner_end))

    def result(expr: Expr | None, errors: tuple[ExprError, ...], natural: bool) -> ConditionParse:
        return ConditionParse(text, expr, errors, natural, True, content, c_span, comment_span)

    if not content:
        return result(None, (ExprError((start, end), "the quoted condition is empty"),), False)
    strong = _STRONG_OPERATOR.search(content)
    weak = _PROSE_OPERATOR.search(content)
    single_token = len(content.split()) == 1
    looks_like_value = single_token and _SINGLE_TOKEN_EXPRESSION.fullmatch(content)
    if not strong and not weak and not looks_like_value:
        return result(None, (), True)
    if escaped_quote in raw_inner:
        expr, errors = _parse_with_offsets(raw_inner, quote, inner_start)
    else:
        expr, errors = _parse_expression(_blank_outside(text, inner_start, inner_end))
    if errors and not strong and not single_token:
        return result(None, (), True)  # prose that merely uses a word like `in`
    if errors and strong:
        hint = ExprError(
            (start, end),
            f"this quoted text contains `{strong.group(0).strip() if strong else ''}`, so it is "
            "read as an expression, not as a natural-language condition",
        )
        errors = (*errors, hint)
    return result(expr, errors, False)


def _parse_with_offsets(
    raw_inner: str,
    quote: str,
    base: int,
) -> tuple[Expr | None, tuple[ExprError, ...]]:
    """Parse quoted content that contains escaped quotes, mapping spans back onto the original."""
    chars: list[str] = []
    origin: list[int] = []
    i = 0
    while i < len(raw_inner):
        if raw_inner.startswith("\\" + quote, i):
            chars.append(quote)
            origin.append(base + i)
            i += 2
        else:
            chars.append(raw_inner[i])
            origin.append(base + i)
            i += 1
    origin.append(base + len(raw_inner))  # one past the end

    def move(span: Span) -> Span:
        return (origin[span[0]], origin[span[1]] if span[1] > span[0] else origin[span[0]])

    expr, errors = _parse_expression("".join(chars))
    moved_errors = tuple(ExprError(move(e.span), e.message) for e in errors)
    return (None if expr is None else _move_spans(expr, move)), moved_errors


def _move_spans(node: Any, move: Any) -> Any:
    """Rebuild a tree with every span passed through `move` (depth is bounded by MAX_DEPTH)."""
    changes: dict[str, Any] = {}
    for field in node.__dataclass_fields__:
        value = getattr(node, field)
        if field == "span" or field.endswith("_span"):
            changes[field] = move(value)
        elif field == "segment_spans":
            changes[field] = tuple(move(s) for s in value)
        elif field == "entries":
            changes[field] = tuple(ObjectEntry(e.key, move(e.key_span), _move_spans(e.value, move)) for e in value)
        elif isinstance(value, tuple) and value and hasattr(value[0], "__dataclass_fields__"):
            changes[field] = tuple(_move_spans(v, move) for v in value)
        elif hasattr(value, "__dataclass_fields__"):
            changes[field] = _move_spans(value, move)
    return replace(node, **changes)


# ---- the expression parser and its error messages -------------------------------------------


def _parse_expression(source: str) -> tuple[Expr | None, tuple[ExprError, ...]]:
    try:
        expr: Expr = parser().parse(source)  # type: ignore[assignment]  # the builder returns an Expr, not a Tree
    except UnexpectedInput as error:
        return None, (_explain(error, source),)
    except BadSyntax as error:
        return None, (ExprError(error.span, error.message),)
    if len(source) >= _DEPTH_CHECK_FROM and (
        _nesting(expr) - 1 > MAX_DEPTH or depth(expr) > MAX_TREE_DEPTH
    ):  # the leaf is no level
        return None, (
            ExprError(
                (0, len(source.rstrip())),
                f"the condition is nested more than {MAX_DEPTH} levels deep (the platform's limit)",
            ),
        )
    return expr, ()


def _nesting(root: Expr) -> int:
    """Depth as an author sees it: `a AND b AND c` is one level, not three."""
    deepest = 0
    stack: list[tuple[Expr, int]] = [(root, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        chain_op = node.op if isinstance(node, Binary) and node.op in ("AND", "OR") else None
        for child in children(node):
            same_chain = chain_op is not None and isinstance(child, Binary) and child.op == chain_op
            stack.append((child, level if same_chain else level + 1))
    return deepest


_OPENERS = {"LPAR": ("(", ")"), "LSQB": ("[", "]"), "LBRACE": ("{", "}")}
_CLOSERS = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}
_NEEDS_OPERAND = {
    "CMP_OP",
    "AND",
    "AMPAMP",
    "OR",
    "PIPEPIPE",
    "IMPLIES",
    "IN",
    "NOT_IN",
    "CONTAINS",
    "STARTS_WITH",
    "ENDS_WITH",
    "MATCHES",
    "NOT",
    "BANG",
    "EXISTS",
    "EMPTY",
    "PLUS",
    "MINUS",
    "STAR",
    "SLASH",
    "PERCENT",
    "QMARK",
    "COLON",
}
_STARTS_OPERAND = {
    "NAME",
    "STRING",
    "NUMBER",
    "DIGITS",
    "TRUE",
    "FALSE",
    "NULL",
    "LPAR",
    "LSQB",
    "LBRACE",
    "NOT",
    "BANG",
    "EXISTS",
    "EMPTY",
    "MINUS",
    "REGEX",
}
_ENDS_OPERAND = {
    "NAME",
    "STRING",
    "NUMBER",
    "DIGITS",
    "TRUE",
    "FALSE",
    "NULL",
    "RPAR",
    "RSQB",
    "RBRACE",
    "REGEX",
    "IS_SET",
    "IS_NOT_SET",
    "IS_NUMBER",
}
_DISPLAY = {
    "NAME": "a name",
    "STRING": "a string",
    "NUMBER": "a number",
    "DIGITS": "a number",
    "REGEX": "a /regex/",
    "CMP_OP": "a comparison (`==`, `!=`, `<`, ...)",
    "AND": "`AND`",
    "AMPAMP": "`&&`",
    "OR": "`OR`",
    "PIPEPIPE": "`||`",
    "IMPLIES": "`IMPLIES`",
    "IN": "`IN`",
    "NOT_IN": "`NOT IN`",
    "CONTAINS": "`contains`",
    "MATCHES": "`matches`",
    "STARTS_WITH": "`startsWith`",
    "ENDS_WITH": "`endsWith`",
    "NOT": "`NOT`",
    "BANG": "`!`",
    "EXISTS": "`EXISTS`",
    "EMPTY": "`EMPTY`",
    "IS_SET": "`IS SET`",
    "IS_NOT_SET": "`IS NOT SET`",
    "IS_NUMBER": "`is_number`",
    "TRUE": "`true`",
    "FALSE": "`false`",
    "NULL": "`null`",
    "PLUS": "`+`",
    "MINUS": "`-`",
    "STAR": "`*`",
    "SLASH": "`/`",
    "PERCENT": "`%`",
    "QMARK": "`?`",
    "COLON": "`:`",
    "COMMA": "`,`",
    "DOT": "`.`",
    "LPAR": "`(`",
    "RPAR": "`)`",
    "LSQB": "`[`",
    "RSQB": "`]`",
    "LBRACE": "`{`",
    "RBRACE": "`}`",
}


def _explain(error: UnexpectedInput, source: str) -> ExprError:
    """Say in words what the parser expected at the failure point."""
    stack = _value_stack(error)
    last = stack[-1] if stack else None
    if isinstance(error, UnexpectedCharacters):
        return _explain_character(error.pos_in_stream or 0, source, last)
    if not isinstance(error, UnexpectedToken):
        return ExprError((0, len(source)), "the condition cannot be read")
    token = error.token
    openers = [t for t in stack if isinstance(t, Token) and t.type in _OPENERS]
    operator = last if isinstance(last, Token) and last.type in _NEEDS_OPERAND else None
    if token.type == "$END":
        if operator is not None:
            return ExprError(_tspan(operator), f"expected a value after `{_word(operator)}`")
        if openers:
            opener = openers[-1]
            opened, closed = _OPENERS[opener.type]
            return ExprError(_tspan(opener), f"unclosed `{opened}`: add `{closed}`")
        if not stack:
            return ExprError((0, len(source)), "expected a condition")
        return ExprError(_end_span(source), "the condition ends too early; expected " + _expected(error.expected))
    span = _tspan(token)
    found = f"`{token}`"
    if token.type == "SLASH" and isinstance(last, Token) and last.type == "MATCHES":
        return ExprError((token.start_pos, len(source.rstrip())), "unclosed regular expression: add the closing /")
    if operator is not None and token.type not in _STARTS_OPERAND:
        return ExprError(span, f"expected a value after `{_word(operator)}`, found {found}")
    if isinstance(last, Token) and last.type in _OPENERS and token.type not in _STARTS_OPERAND:
        return ExprError(span, f"expected a value after `{last}`, found {found}")
    if token.type in _CLOSERS:
        if not openers:
            return ExprError(span, f"{found} closes nothing")
        opened, closed = _OPENERS[openers[-1].type]
        if _CLOSERS[token.type] != opened:
            return ExprError(span, f"expected `{closed}` to close `{opened}`, found {found}")
    if token.type == "NAME" and str(token).lower() == "is":
        return ExprError(span, "`IS` must be followed by `SET` or `NOT SET`")
    last_is_value = last is not None and (not isinstance(last, Token) or last.type in _ENDS_OPERAND)
    if token.type in _STARTS_OPERAND and last_is_value:
        return ExprError(span, f"expected an operator such as `==`, `AND` or `OR` before {found}")
    if "NAME" in (error.expected or ()):
        return ExprError(span, f"expected a value, found {found}")
    return ExprError(span, f"unexpected {found}; expected " + _expected(error.expected))


def _explain_character(pos: int, source: str, last: Any) -> ExprError:
    ch = source[pos]
    if ch in "\"'":
        return ExprError((pos, len(source.rstrip())), f"unclosed string: add the closing {ch}")
    if ch == "=":
        return ExprError((pos, pos + 1), "`=` does not compare; write `==`")
    if ch in "&|":
        return ExprError((pos, pos + 1), f"`{ch}` alone is not an operator; write `{ch * 2}`")
    if ch == "/" and isinstance(last, Token) and last.type == "MATCHES":
        return ExprError((pos, len(source.rstrip())), "unclosed regular expression: add the closing /")
    return ExprError((pos, pos + 1), f"unexpected character `{ch}`")


def _value_stack(error: UnexpectedInput) -> list[Any]:
    interactive = getattr(error, "interactive_parser", None)
    if interactive is None:
        return []
    return list(interactive.parser_state.value_stack)


def _expected(names: Any) -> str:
    shown = sorted({_DISPLAY.get(n, n) for n in names or () if not n.startswith("$")})
    if not shown:
        return "nothing more"
    if len(shown) > 6:
        shown = [*shown[:6], "..."]
    return ", ".join(shown)


def _word(token: Token) -> str:
    return " ".join(str(token).split())


def _tspan(token: Token) -> Span:
    return (token.start_pos or 0, token.end_pos or 0)  # lark types them optional; the lexer sets them


def _end_span(source: str) -> Span:
    end = len(source.rstrip())
    return (max(end - 1, 0), end)


# ---- text scanning --------------------------------------------------------------------------


def _comment_start(text: str) -> int | None:
    """Offset of a trailing `//` (or ` #`) comment outside quotes and `/regex/` literals."""
    if "/" not in text and "#" not in text:
        return None
    quote = ""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "/":
            if text.startswith("//", i):
                return i
            if _follows_matches(text, i):
                i = _regex_end(text, i)
                continue
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            return i
        i += 1
    return None


def _follows_matches(text: str, slash: int) -> bool:
    before = text[:slash].rstrip()
    return before.lower().endswith("matches") and (len(before) == 7 or not (before[-8].isalnum() or before[-8] == "_"))


def _regex_end(text: str, slash: int) -> int:
    i = slash + 1
    while i < len(text) and text[i] not in "/\n":
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _closing_quote(text: str, start: int, end: int) -> int:
    quote = text[start]
    i = start + 1
    while i < end:
        ch = text[i]
        if ch == "\\":
            i += 2
        elif ch == quote:
            return i
        else:
            i += 1
    return -1


def _skip_blanks(text: str, i: int, end: int) -> int:
    while i < end and text[i].isspace():
        i += 1
    return i


def _trim_blanks(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _blank_outside(text: str, start: int, end: int) -> str:
    """`text` with everything outside [start, end) turned into spaces: offsets stay valid."""
    if start == 0 and end == len(text):
        return text
    return " " * start + text[start:end] + " " * (len(text) - end)


__all__ = ["MAX_DEPTH", "ConditionParse", "ExprError", "parse_condition", "parse_condition_uncached"]
