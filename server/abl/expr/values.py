"""ABL's value model and its null-safe coercion rules (reference section 4.3).

Values are plain Python data: `None` is null, `UNDEFINED` is a variable or path that does not
exist, and otherwise bool, int, float, str, list and dict. Conditions never fail because of a
missing variable: the rules below say what a missing value compares as.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

MAX_STRING = 100_000  # string results are capped at this many characters
MAX_INT = 10**30
"""Integers an expression gives are exact below this magnitude. A larger result is a
floating-point number, as every number is in JavaScript, and one past the largest of those is
out of range. A saved session holds integers up to this bound (`abl.runtime.session_file`)."""


class _Undefined:
    """The one value of "no such variable / path"; distinct from an explicit null."""

    _instance: _Undefined | None = None

    def __new__(cls) -> _Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNDEFINED"


UNDEFINED: Final = _Undefined()

_NUMERIC = re.compile(r"\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*")


def is_missing(value: Any) -> bool:
    """Null or undefined: what `IS NOT SET` tests for."""
    return value is None or value is UNDEFINED


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray))


def is_object(value: Any) -> bool:
    return isinstance(value, Mapping)


def truthy(value: Any) -> bool:
    """Falsy: false, 0, "", "false", null, undefined, [], {}. Everything else is truthy."""
    if is_missing(value):
        return False
    if isinstance(value, bool):
        return value
    if is_number(value):
        return value != 0 and not is_nan(value)
    if isinstance(value, str):
        return value != "" and value.strip().lower() != "false"
    if is_list(value) or is_object(value):
        return len(value) > 0
    return True


def is_nan(value: Any) -> bool:
    """Not a number (a float NaN). Never converts: an integer of any size is a number."""
    return isinstance(value, float) and math.isnan(value)


def is_finite(value: int | float) -> bool:
    """Neither infinite nor NaN; integers always are (however long: no conversion to float)."""
    return not isinstance(value, float) or math.isfinite(value)


def in_range(value: int | float) -> int | float | None:
    """A computed number as an expression gives it (see `MAX_INT`): an integer below `MAX_INT`
    as it is, a larger one as a float, a finite float as it is; None when no finite float can
    hold it (out of range)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if -MAX_INT < value < MAX_INT:
            return value
        try:
            return float(value)
        except OverflowError:
            return None
    return value if math.isfinite(value) else None


def parse_number(text: str) -> int | float | None:
    """A number written as text (`"42"`, `" 3.5 "`, `"1e3"`), or None."""
    if len(text) > 400 or not _NUMERIC.fullmatch(text):
        return None
    stripped = text.strip()
    if "." in stripped or "e" in stripped or "E" in stripped:
        return float(stripped)
    return int(stripped)


def numeric(value: Any) -> int | float | None:
    """Numbers and numeric strings as numbers (booleans are not numbers here)."""
    if is_number(value):
        return value
    if isinstance(value, str):
        return parse_number(value)
    return None


def ordering_number(value: Any) -> int | float | None:
    """The number `<`, `>`, ... use: strings parsed, booleans 0/1, arrays their length,
    undefined (and null) 0. Objects and other text have none."""
    if is_missing(value):
        return 0
    if isinstance(value, bool):
        return int(value)
    if is_number(value):
        return value
    if isinstance(value, str):
        return parse_number(value)
    if is_list(value):
        return len(value)
    return None


def arithmetic_number(value: Any) -> int | float | None:
    """Operands of `- * / %` and unary minus: as for ordering, but arrays do not count."""
    if is_list(value):
        return None
    return ordering_number(value)


def equal(left: Any, right: Any) -> bool:
    """`==`: null and undefined equal each other; numbers match numeric strings; strings are
    case-sensitive; booleans equal only booleans; lists and objects compare deeply."""
    if is_missing(left) or is_missing(right):
        return is_missing(left) and is_missing(right)
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if is_number(left) or is_number(right):
        a, b = numeric(left), numeric(right)
        return a is not None and b is not None and a == b
    if isinstance(left, str) or isinstance(right, str):
        return isinstance(left, str) and isinstance(right, str) and left == right
    if is_list(left) and is_list(right):
        return len(left) == len(right) and all(equal(a, b) for a, b in zip(left, right, strict=True))
    if is_object(left) and is_object(right):
        return left.keys() == right.keys() and all(equal(left[k], right[k]) for k in left)
    try:
        return bool(left == right)
    except (TypeError, ValueError):  # opaque host objects with unusual `==`
        return False


def order(op: str, left: Any, right: Any) -> bool:
    """`<`, `<=`, `>`, `>=`. Two texts that are not both numbers compare as text (ISO dates
    order correctly); otherwise both sides become numbers, and no number means false."""
    if isinstance(left, str) and isinstance(right, str):
        a_num, b_num = parse_number(left), parse_number(right)
        if a_num is None or b_num is None:
            return _apply_order(op, left, right)
        return _apply_order(op, a_num, b_num)
    a, b = ordering_number(left), ordering_number(right)
    if a is None or b is None or is_nan(a) or is_nan(b):
        return False
    return _apply_order(op, a, b)


def _apply_order(op: str, a: Any, b: Any) -> bool:
    if op == "<":
        return a < b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == ">=":
        return a >= b
    raise ValueError(f"not an ordering operator: {op}")


def to_text(value: Any) -> str:
    """Text form for concatenation and string functions: null/undefined -> ""."""
    if is_missing(value):
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)
    if is_number(value):
        return _integer_text(value)
    if is_list(value) or is_object(value):
        try:
            return json.dumps(value, ensure_ascii=False, default=_json_default)
        except (TypeError, ValueError, RecursionError):
            pass
        try:
            return str(value)
        except (ValueError, RecursionError):  # an integer too long to write, nesting too deep
            return f"[an {type_name(value)} that cannot be written as text]"
    return str(value)


# Python refuses to write an integer of more digits than this as text (`sys.int_info`).
_MAX_INT_TEXT_DIGITS = 4_300


def _integer_text(value: int) -> str:
    """An integer's digits; past what Python writes out, a description of its length."""
    if value.bit_length() < _MAX_INT_TEXT_DIGITS * 3.32:  # 3.32 bits per decimal digit
        return str(value)
    return f"[a number of about {math.floor(math.log10(abs(value))) + 1:,} digits]"


def _json_default(value: Any) -> Any:
    if value is UNDEFINED:
        return None
    if is_object(value):
        return dict(value)
    if is_list(value):
        return list(value)
    return str(value)


def contains(haystack: Any, needle: Any) -> bool:
    """`contains`: substring of a text, element of a list (by `==`), or key of an object."""
    if is_missing(haystack):
        return False
    if isinstance(haystack, str):
        return not is_missing(needle) and to_text(needle) in haystack
    if is_list(haystack):
        return any(equal(item, needle) for item in haystack)
    if is_object(haystack):
        return not is_missing(needle) and to_text(needle) in haystack
    return False


def member_of(item: Any, container: Any) -> bool:
    """`IN`: element of a list, key of an object, or substring of a text."""
    if is_list(container):
        return any(equal(item, element) for element in container)
    if is_object(container):
        return not is_missing(item) and to_text(item) in container
    if isinstance(container, str):
        return isinstance(item, str) and item in container
    return False


def type_name(value: Any) -> str:
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if is_list(value):
        return "array"
    if is_object(value):
        return "object"
    return type(value).__name__
