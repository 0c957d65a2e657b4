"""Inline values: plain scalars, quoted strings, flow lists and flow maps.

Scalars and quoted strings are read by hand (they are most values and must be cheap); values
opening with `[` or `{` go through lark's LALR parser with `grammar/value.lark`. Reading never
raises: a value that does not parse comes back with `error` set and its raw text kept.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

from abl.resources import grammar_text
from abl.syntax.limits import MAX_LIST_ITEMS, MAX_NESTING_DEPTH


class ValueKind(enum.Enum):
    EMPTY = "empty"
    PLAIN = "plain"
    QUOTED = "quoted"
    LIST = "list"
    MAP = "map"


@dataclass(frozen=True, slots=True)
class Value:
    """An inline value. `start`/`end` are offsets within the text that was read."""

    kind: ValueKind
    raw: str
    start: int
    end: int
    text: str = ""  # the scalar's content: unquoted and unescaped
    items: tuple[Value, ...] = ()
    pairs: tuple[tuple[Value, Value | None], ...] = ()  # (key, value); None for `{name}` shorthand
    error: str | None = None
    error_at: int = 0

    @property
    def is_scalar(self) -> bool:
        return self.kind in (ValueKind.PLAIN, ValueKind.QUOTED)


def unquote(raw: str) -> tuple[str, bool]:
    """Content of a quoted scalar and whether it was quoted; plain text comes back as is."""
    s = raw.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        body = s[1:-1]
        if "\\" in body:
            body = _unescape(body, s[0])
        return body, True
    return s, False


def quote(text: str) -> str:
    """`text` as a double-quoted scalar that `unquote` reads back as `text` (one line)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def read_value(raw: str, base: int = 0) -> Value:
    """Read one inline value. `base` is added to every offset (the value's column)."""
    stripped = raw.strip()
    if not stripped:
        return Value(ValueKind.EMPTY, raw, base, base)
    lead = len(raw) - len(raw.lstrip())
    start = base + lead
    end = start + len(stripped)
    first = stripped[0]
    if first == "[":
        simple = _simple_list(stripped, start)
        return simple if simple is not None else _read_flow(stripped, start)
    if first == "{":
        return _read_flow(stripped, start)
    if first in "\"'" and len(stripped) >= 2 and stripped[-1] == first and _single_string(stripped):
        text, _ = unquote(stripped)
        return Value(ValueKind.QUOTED, stripped, start, end, text)
    return Value(ValueKind.PLAIN, stripped, start, end, stripped)


# `[a, b.c, "d e"]`: the list shape nearly every `PASS` and `CLEAR` has. Read by hand, since a
# lark parse costs far more than the list does; anything else goes through the grammar.
_SIMPLE_ITEM = r"""(?:[A-Za-z_$][\w.$-]*|"[^"\\\n\[\]{}]*"|'[^'\\\n\[\]{}]*')"""
_SIMPLE_LIST = re.compile(rf"\[\s*(?:{_SIMPLE_ITEM}\s*(?:,\s*{_SIMPLE_ITEM}\s*)*)?\]")
_ITEM = re.compile(_SIMPLE_ITEM)


def _simple_list(s: str, start: int) -> Value | None:
    if _SIMPLE_LIST.fullmatch(s) is None:
        return None
    items = []
    for m in _ITEM.finditer(s):
        raw = m.group()
        quoted = raw[0] in "\"'"
        items.append(
            Value(
                ValueKind.QUOTED if quoted else ValueKind.PLAIN,
                raw,
                start + m.start(),
                start + m.end(),
                raw[1:-1] if quoted else raw,
            )
        )
    return Value(ValueKind.LIST, s, start, start + len(s), items=tuple(items[:MAX_LIST_ITEMS]))


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split `text` at `sep`, except inside brackets or quotes: `a, f(b, c), "d, e"` gives
    three parts. Parts are returned as written (not stripped)."""
    parts: list[str] = []
    depth, quote = 0, ""
    current: list[str] = []
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts


def _single_string(s: str) -> bool:
    """True when `s` is exactly one quoted string (not `"a" and "b"`)."""
    q = s[0]
    i = 1
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == q:
            return i == len(s) - 1
        i += 1
    return False


def _unescape(body: str, quote: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "t": "\t", "\\": "\\", quote: quote}.get(nxt, "\\" + nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


class _ToValue(Transformer):
    def __init__(self, base: int) -> None:
        super().__init__()
        self.base = base

    def _scalar(self, tok: Token, kind: ValueKind, text: str) -> Value:
        s = self.base + (tok.start_pos or 0)  # always set by the lexer; typed optional by lark
        return Value(kind, str(tok), s, s + len(tok), text)

    # Lark calls each method with the rule's children; `list` below names a rule, not the type.
    def plain(self, children: Sequence[Any]) -> Value:
        tok = children[0]
        return self._scalar(tok, ValueKind.PLAIN, str(tok).strip())

    def dq_string(self, children: Sequence[Any]) -> Value:
        tok = children[0]
        return self._scalar(tok, ValueKind.QUOTED, unquote(str(tok))[0])

    sq_string = dq_string

    # Past MAX_LIST_ITEMS the rest is not read (the scanner reports LIMIT_EXCEEDED there).
    def list(self, children: Sequence[Any]) -> Value:
        items = tuple(c for c in children if isinstance(c, Value))
        return Value(ValueKind.LIST, "", 0, 0, items=items[:MAX_LIST_ITEMS])

    def map(self, children: Sequence[Any]) -> Value:
        pairs = tuple(c for c in children if isinstance(c, tuple))
        return Value(ValueKind.MAP, "", 0, 0, pairs=pairs[:MAX_LIST_ITEMS])

    def pair(self, children: Sequence[Any]) -> tuple[Value, Value]:
        return (children[0], children[1])

    def shorthand(self, children: Sequence[Any]) -> tuple[Value, None]:
        return (self.plain(children), None)


@cache
def _flow_parser() -> Lark:
    return Lark(grammar_text("value.lark"), parser="lalr", maybe_placeholders=False)


def _read_flow(s: str, start: int) -> Value:
    end = start + len(s)
    deep = _too_deep_at(s)
    if deep >= 0:
        # The tree below is turned into values recursively; past the limit it is not read at
        # all (the scanner reports NESTING_TOO_DEEP on the same bracket).
        kind = ValueKind.LIST if s[0] == "[" else ValueKind.MAP
        return Value(
            kind, s, start, end, error=f"nested more than {MAX_NESTING_DEPTH} levels deep", error_at=start + deep
        )
    try:
        tree = _flow_parser().parse(s)
    except (UnexpectedToken, UnexpectedCharacters, UnexpectedEOF) as err:
        at = getattr(err, "pos_in_stream", None)
        if at is None:
            token = getattr(err, "token", None)
            at = getattr(token, "start_pos", None) or len(s)
        kind = ValueKind.LIST if s[0] == "[" else ValueKind.MAP
        return Value(kind, s, start, end, error=_flow_message(s, at), error_at=start + min(at, len(s)))
    except LarkError as err:
        kind = ValueKind.LIST if s[0] == "[" else ValueKind.MAP
        return Value(kind, s, start, end, error=f"cannot read this value: {err}", error_at=start)
    value = _ToValue(start).transform(tree)
    return _with_span(value, s, start, end)


def _too_deep_at(s: str) -> int:
    """Offset of the first `[`/`{` nested past MAX_NESTING_DEPTH (quotes skipped), or -1."""
    if s.count("[") + s.count("{") <= MAX_NESTING_DEPTH:
        return -1
    depth, quote, i, n = 0, "", 0, len(s)
    while i < n:
        c = s[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
            if depth > MAX_NESTING_DEPTH:
                return i
        elif c in "]}":
            depth -= 1
        i += 1
    return -1


def _with_span(value: Value, raw: str, start: int, end: int) -> Value:
    return Value(value.kind, raw, start, end, value.text, value.items, value.pairs)


def _flow_message(s: str, at: int) -> str:
    if at >= len(s):
        closer = "]" if s[0] == "[" else "}"
        return f"the value ends before its closing `{closer}`"
    return f"unexpected `{s[at]}` in this {'list' if s[0] == '[' else 'map'}"
