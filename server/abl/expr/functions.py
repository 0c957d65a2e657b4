"""The pure built-in functions of ABL expressions (reference section 4.5).

Names are case-insensitive and may be written with the CEL prefix (`abl.upper(x)`). Functions
take already-evaluated arguments (`IF` is eager, as documented) and never raise on bad input
types: they coerce as documented or return null. Time and ids come from an `Environment` so a
runtime can make every run repeatable. An author's pattern runs through `patterns`, within its
bounds; one stopped there raises `PatternTimeout`, for the evaluator to report.
"""

from __future__ import annotations

import math
import random
import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from . import patterns
from .scope import walk_value
from .values import (
    MAX_STRING,
    UNDEFINED,
    arithmetic_number,
    contains,
    equal,
    is_finite,
    is_list,
    is_missing,
    is_nan,
    is_number,
    is_object,
    numeric,
    to_text,
    truthy,
)


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


_ID_ALPHABET = string.ascii_letters + string.digits


def _random_id(length: int) -> str:
    return "".join(random.choices(_ID_ALPHABET, k=length))


@dataclass(frozen=True)
class Environment:
    """What the functions may ask of the outside world: the time and fresh ids."""

    now: Callable[[], datetime] = field(default=_utc_now)
    make_id: Callable[[int], str] = field(default=_random_id)


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    run: Callable[..., Any]
    min_args: int
    max_args: int | None  # None: any number
    needs_env: bool = False


# Documented names that cannot be computed here (PII vault, identity matching).
UNAVAILABLE = {
    "MATCH_SCORE": "identity matching",
    "MATCHES": "identity matching",
    "MATCH_RESULT": "identity matching",
    "CONTAINS_PII": "PII detection",
    "DETECT_PII": "PII detection",
    "REDACT_PII": "PII detection",
    "PII_EQUAL": "the PII vault",
    "CONTAINS_CODE": "code detection",
}

# ---- regular expressions --------------------------------------------------------------------


def compile_regex(pattern: str, flag_letters: str = "") -> re.Pattern[str] | None:
    """A compiled pattern, or None when it is not a pattern that can be used (`patterns`)."""
    flags = 0
    for letter in flag_letters:
        flags |= {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}.get(letter, 0)
    try:
        return patterns.compile_pattern(pattern, flags)
    except patterns.PatternError:
        return None


# ---- math ------------------------------------------------------------------------------------


def _numbers(args: tuple[Any, ...]) -> list[int | float] | None:
    out = []
    for arg in args:
        number = arithmetic_number(arg)
        if number is None:
            return None
        out.append(number)
    return out


def _finite(value: int | float) -> int | float | None:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _add(*args: Any) -> Any:
    numbers = _numbers(args)
    return (
        None
        if numbers is None
        else _finite(math.fsum(numbers) if any(isinstance(n, float) for n in numbers) else sum(numbers))
    )


def _sub(a: Any, b: Any) -> Any:
    numbers = _numbers((a, b))
    return None if numbers is None else _finite(numbers[0] - numbers[1])


def _mul(*args: Any) -> Any:
    numbers = _numbers(args)
    if numbers is None:
        return None
    product: int | float = 1
    for number in numbers:
        product = product * number
        if isinstance(product, int) and product.bit_length() > 1024:
            raise OverflowError("the product is too large")  # stops the loop; reported as out of range
    return _finite(product)


def _div(a: Any, b: Any) -> Any:
    numbers = _numbers((a, b))
    if numbers is None or numbers[1] == 0:
        return None
    return _finite(divide(numbers[0], numbers[1]))


def divide(a: int | float, b: int | float) -> int | float:
    """Exact integer quotients stay integers (`6 / 3` is `2`); others are floats."""
    if isinstance(a, int) and isinstance(b, int) and a % b == 0:
        return a // b
    return a / b


def _round(value: Any, decimals: Any = 0) -> Any:
    number = numeric(value) if not isinstance(value, bool) else int(value)
    places = numeric(decimals)
    if number is None or places is None or not is_finite(number):
        return None
    places = max(-15, min(15, int(places)))
    if isinstance(number, int) and places >= 0:
        return number  # already whole (and of any length, which a decimal would not hold)
    try:
        rounded = Decimal(str(number)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    except InvalidOperation:
        return None
    return int(rounded) if places <= 0 else float(rounded)


def _abs(value: Any) -> Any:
    number = arithmetic_number(value)
    return None if number is None else abs(number)


def _spread(args: tuple[Any, ...]) -> list[Any]:
    if len(args) == 1 and is_list(args[0]):
        return list(args[0])
    return list(args)


def _min(*args: Any) -> Any:
    numbers = [n for n in (numeric(a) for a in _spread(args)) if n is not None]
    return min(numbers) if numbers else None


def _max(*args: Any) -> Any:
    numbers = [n for n in (numeric(a) for a in _spread(args)) if n is not None]
    return max(numbers) if numbers else None


def _avg(*args: Any) -> Any:
    numbers = [n for n in (numeric(a) for a in _spread(args)) if n is not None]
    return _finite(math.fsum(numbers) / len(numbers)) if numbers else None


# ---- strings ---------------------------------------------------------------------------------


def _int_arg(value: Any, default: int) -> int:
    number = numeric(value)
    if number is None or not is_finite(number):
        return default
    return int(number)


def _substring(text: Any, start: Any, end: Any = UNDEFINED) -> str:
    s = to_text(text)
    a = max(0, min(len(s), _int_arg(start, 0)))
    b = len(s) if is_missing(end) else max(0, min(len(s), _int_arg(end, len(s))))
    if a > b:
        a, b = b, a
    return s[a:b]


def _replace(text: Any, find: Any, replacement: Any) -> str:
    s, old = to_text(text), to_text(find)
    if not old:
        return s
    new = to_text(replacement)
    if new and s.count(old) * len(new) > MAX_STRING * 2:
        return s
    return s.replace(old, new)


def _split(text: Any, separator: Any = ",") -> list[str]:
    if is_missing(text):
        return []
    s, sep = to_text(text), to_text(separator)
    return list(s) if sep == "" else s.split(sep)


def _join(items: Any, separator: Any = ",") -> str:
    if not is_list(items):
        return to_text(items)
    return to_text(separator).join(to_text(item) for item in items)


def _pad(text: Any, width: Any, fill: Any, at_start: bool) -> str:
    s = to_text(text)
    size = min(_int_arg(width, 0), MAX_STRING)
    pad = to_text(fill) if not is_missing(fill) else " "
    if size <= len(s) or not pad:
        return s
    filler = (pad * ((size - len(s)) // len(pad) + 1))[: size - len(s)]
    return filler + s if at_start else s + filler


def _pad_start(text: Any, width: Any, fill: Any = " ") -> str:
    return _pad(text, width, fill, True)


def _pad_end(text: Any, width: Any, fill: Any = " ") -> str:
    return _pad(text, width, fill, False)


def _repeat(text: Any, times: Any) -> str:
    s = to_text(text)
    count = max(0, _int_arg(times, 0))
    if s and count > MAX_STRING // len(s):
        count = MAX_STRING // len(s) + 1  # the caller cuts the result to the cap
    return s * count


def _regex_replace(text: Any, pattern: Any, replacement: Any) -> str:
    s = to_text(text)
    compiled = compile_regex(to_text(pattern))
    if compiled is None:
        return s
    template = to_text(replacement).replace("\\", "\\\\")
    template = re.sub(r"\$(\d)", r"\\g<\1>", template)
    try:
        return patterns.sub(compiled, template, s, MAX_STRING)
    except (re.error, IndexError):
        return s


def _regex_extract(text: Any, pattern: Any, group: Any = UNDEFINED) -> Any:
    compiled = compile_regex(to_text(pattern))
    if compiled is None or is_missing(text):
        return None
    found = patterns.search(compiled, to_text(text))
    if found is None:
        return None
    default = 1 if compiled.groups else 0
    index = _int_arg(group, default) if not is_missing(group) else default
    if not 0 <= index <= compiled.groups:
        return None
    return found.group(index)


# ---- formatting ------------------------------------------------------------------------------


def _mask(text: Any, mode: Any = "last4", char: Any = "*") -> str:
    s = to_text(text)
    mark = (to_text(char) or "*")[0]
    how = to_text(mode).strip().lower() or "last4"
    keep_start, keep_end = 0, 4
    if m := re.fullmatch(r"(last|first)(\d{1,6})", how):
        keep_start, keep_end = (0, int(m[2])) if m[1] == "last" else (int(m[2]), 0)
    elif m := re.fullmatch(r"(\d{1,6})\*(\d{1,6})", how):
        keep_start, keep_end = int(m[1]), int(m[2])
    elif how == "all":
        keep_start, keep_end = 0, 0
    if keep_start + keep_end >= len(s):
        return s
    return s[:keep_start] + mark * (len(s) - keep_start - keep_end) + s[len(s) - keep_end :]


_CURRENCY_SYMBOLS = {
    "USD": "$",
    "EUR": "€",
    "GBP": "£",
    "JPY": "¥",
    "CNY": "¥",
    "INR": "₹",
    "KRW": "₩",
    "CAD": "CA$",
    "AUD": "A$",
    "CHF": "CHF ",
    "BRL": "R$",
    "MXN": "MX$",
}
_NO_DECIMALS = {"JPY", "KRW"}
_COMMA_DECIMAL_LOCALES = ("de", "es", "it", "pt", "nl", "fr", "tr", "id", "da", "sv", "nb", "fi")


def _format_currency(amount: Any, currency: Any = "USD", locale: Any = "en-US") -> Any:
    number = numeric(amount)
    if number is None or not is_finite(number):
        return None
    code = (to_text(currency) or "USD").upper()
    places = 0 if code in _NO_DECIMALS else 2
    try:
        value = Decimal(str(number)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    except InvalidOperation:  # more digits than a decimal amount holds
        return None
    whole, _, fraction = f"{abs(value):f}".partition(".")
    grouped = f"{int(whole):,}"
    language = to_text(locale).lower()[:2] or "en"
    if language in _COMMA_DECIMAL_LOCALES:
        thousands = " " if language in ("fr", "sv", "nb", "fi") else "."
        digits = grouped.replace(",", thousands) + ("," + fraction if fraction else "")
        symbol = _CURRENCY_SYMBOLS.get(code, code).strip()
        text = f"{digits} {symbol}"
    else:
        digits = grouped + ("." + fraction if fraction else "")
        symbol = _CURRENCY_SYMBOLS.get(code, code + " ")
        text = f"{symbol}{digits}"
    return "-" + text if value < 0 else text


def _to_datetime(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    elif is_number(value):
        seconds = value / 1000 if abs(value) > 1e11 else value
        try:
            moment = datetime.fromtimestamp(seconds, timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _zone(name: Any) -> Any:
    if is_missing(name) or not to_text(name):
        return timezone.utc
    try:
        return ZoneInfo(to_text(name))
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return timezone.utc


_DATE_TOKENS = re.compile(r"YYYY|MM|DD|HH|mm|ss")


def _format_date(value: Any, pattern: Any = "YYYY-MM-DD", zone: Any = UNDEFINED) -> Any:
    moment = _to_datetime(value)
    if moment is None:
        return None
    local = moment.astimezone(_zone(zone))
    parts = {
        "YYYY": f"{local.year:04d}",
        "MM": f"{local.month:02d}",
        "DD": f"{local.day:02d}",
        "HH": f"{local.hour:02d}",
        "mm": f"{local.minute:02d}",
        "ss": f"{local.second:02d}",
    }
    fmt = to_text(pattern) or "YYYY-MM-DD"
    return _DATE_TOKENS.sub(lambda m: parts[m.group(0)], fmt)


def _ordinal(value: Any) -> str:
    number = numeric(value)
    if number is None or not is_finite(number):
        return ""
    n = int(number)
    suffix = "th" if 10 <= abs(n) % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(abs(n) % 10, "th")
    return f"{n}{suffix}"


# ---- types, arrays, objects ------------------------------------------------------------------


def _to_number(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    number = numeric(value)
    if number is None or is_nan(number):
        return None
    return number


def _length(value: Any) -> int:
    if isinstance(value, str) or is_list(value) or is_object(value):
        return len(value)
    return 0


def _find_index(items: Any, field_path: Any, wanted: Any) -> int:
    if not is_list(items):
        return -1
    keys = to_text(field_path).split(".") if to_text(field_path) else []
    for position, item in enumerate(items):
        if equal(walk_value(item, keys) if keys else item, wanted):
            return position
    return -1


def _array_find(items: Any, field_path: Any, wanted: Any) -> Any:
    position = _find_index(items, field_path, wanted)
    return None if position < 0 else items[position]


def _object_keys(value: Any) -> list[str]:
    return [str(k) for k in value] if is_object(value) else []


def _object_values(value: Any) -> list[Any]:
    return list(value.values()) if is_object(value) else []


def _object_merge(*objects: Any) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for obj in objects:
        if isinstance(obj, Mapping):
            merged.update(obj)
    return merged


# ---- utility ---------------------------------------------------------------------------------


def _coalesce(*args: Any) -> Any:
    return next((a for a in args if not is_missing(a)), None)


def _first_non_empty(*args: Any) -> Any:
    return next((a for a in args if not is_missing(a) and not (isinstance(a, str) and not a.strip())), None)


def _if(condition: Any, then: Any, otherwise: Any = None) -> Any:
    return then if truthy(condition) else otherwise


def _now(env: Environment) -> str:
    moment = env.now()
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    text = moment.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def _now_ms(env: Environment) -> int:
    return int(env.now().timestamp() * 1000)


def _unique_id(env: Environment, length: Any = 6) -> str:
    return env.make_id(max(1, min(64, _int_arg(length, 6))))


# ---- guardrail text functions (`abl.word_count(...)` etc.) ----------------------------------

_URL = re.compile(r"\bhttps?://\S+|\bwww\.[^\s.]+\.\S+", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def _word_count(text: Any) -> int:
    return len(to_text(text).split())


def _sentence_count(text: Any) -> int:
    s = to_text(text).strip()
    if not s:
        return 0
    return max(1, len(re.findall(r"[.!?]+(?:\s|$)", s)))


def _matches_pattern(text: Any, pattern: Any) -> bool:
    compiled = compile_regex(to_text(pattern))
    return compiled is not None and patterns.search(compiled, to_text(text)) is not None


def _upper(v: Any) -> str:
    return to_text(v).upper()


def _lower(v: Any) -> str:
    return to_text(v).lower()


def _trim(v: Any) -> str:
    return to_text(v).strip()


_TABLE: list[Builtin] = [
    Builtin("ADD", _add, 1, None),
    Builtin("SUB", _sub, 2, 2),
    Builtin("MUL", _mul, 1, None),
    Builtin("DIV", _div, 2, 2),
    Builtin("ROUND", _round, 1, 2),
    Builtin("ABS", _abs, 1, 1),
    Builtin("MIN", _min, 1, None),
    Builtin("MAX", _max, 1, None),
    Builtin("AVG", _avg, 1, None),
    Builtin("UPPER", _upper, 1, 1),
    Builtin("LOWER", _lower, 1, 1),
    Builtin("TRIM", _trim, 1, 1),
    Builtin("SUBSTRING", _substring, 2, 3),
    Builtin("REPLACE", _replace, 3, 3),
    Builtin("SPLIT", _split, 1, 2),
    Builtin("JOIN", _join, 1, 2),
    Builtin("PAD_START", _pad_start, 2, 3),
    Builtin("PAD_END", _pad_end, 2, 3),
    Builtin("REPEAT", _repeat, 2, 2),
    Builtin("REGEX_REPLACE", _regex_replace, 3, 3),
    Builtin("REGEX_EXTRACT", _regex_extract, 2, 3),
    Builtin("MASK", _mask, 1, 3),
    Builtin("FORMAT_CURRENCY", _format_currency, 1, 3),
    Builtin("FORMAT_DATE", _format_date, 1, 3),
    Builtin("ORDINAL", _ordinal, 1, 1),
    Builtin("IS_ARRAY", lambda v: is_list(v), 1, 1),
    Builtin("IS_NUMBER", lambda v: is_number(v) and not is_nan(v), 1, 1),
    Builtin("IS_STRING", lambda v: isinstance(v, str), 1, 1),
    Builtin("TO_NUMBER", _to_number, 1, 1),
    Builtin("TO_STRING", to_text, 1, 1),
    Builtin("LENGTH", _length, 1, 1),
    Builtin("LEN", _length, 1, 1),
    Builtin("SIZE", _length, 1, 1),
    Builtin("ARRAY_FIND", _array_find, 3, 3),
    Builtin("ARRAY_FIND_INDEX", _find_index, 3, 3),
    Builtin("OBJECT_KEYS", _object_keys, 1, 1),
    Builtin("OBJECT_VALUES", _object_values, 1, 1),
    Builtin("OBJECT_MERGE", _object_merge, 0, None),
    Builtin("COALESCE", _coalesce, 0, None),
    Builtin("FIRST_NON_EMPTY", _first_non_empty, 0, None),
    Builtin("IF", _if, 2, 3),
    Builtin("NOW", _now, 0, 0, needs_env=True),
    Builtin("NOW_MS", _now_ms, 0, 0, needs_env=True),
    Builtin("UNIQUE_ID", _unique_id, 0, 1, needs_env=True),
    Builtin("WORD_COUNT", _word_count, 1, 1),
    Builtin("SENTENCE_COUNT", _sentence_count, 1, 1),
    Builtin("CONTAINS_URL", lambda v: bool(_URL.search(to_text(v))), 1, 1),
    Builtin("CONTAINS_EMAIL", lambda v: bool(_EMAIL.search(to_text(v))), 1, 1),
    Builtin("MATCHES_PATTERN", _matches_pattern, 2, 2),
    Builtin("NOT_MATCHES_PATTERN", lambda t, p: not _matches_pattern(t, p), 2, 2),
]
# `LENGTH` is documented; `len`, `length` and CEL's `size` appear in examples.
BUILTINS: dict[str, Builtin] = {b.name: b for b in _TABLE}
BUILTINS["LENGTH"] = BUILTINS["LEN"] = BUILTINS["SIZE"]

# Methods in CEL style: `x.contains("y")`, `x.size()`. Anything else falls back to the
# function of the same name with the target as first argument (`x.upper()`).
METHODS: dict[str, Callable[..., Any]] = {
    "contains": contains,
    "startswith": lambda target, prefix: isinstance(target, str) and target.startswith(to_text(prefix)),
    "endswith": lambda target, suffix: isinstance(target, str) and target.endswith(to_text(suffix)),
    "matches": lambda target, pattern: isinstance(target, str) and _matches_pattern(target, pattern),
    "size": _length,
    "lowerascii": _lower,
    "upperascii": _upper,
    "trim": _trim,
}


def canonical_name(name: str) -> str:
    """`abl.upper` / `Upper` / `UPPER` -> `UPPER`."""
    bare = name[4:] if name[:4].lower() == "abl." else name
    return bare.upper()


def lookup(name: str) -> Builtin | None:
    return BUILTINS.get(canonical_name(name))


def is_known_function(name: str) -> bool:
    """Documented function names, including those that cannot run locally."""
    key = canonical_name(name)
    return key in BUILTINS or key in UNAVAILABLE or key == "HAS"


__all__ = [
    "BUILTINS",
    "METHODS",
    "UNAVAILABLE",
    "Builtin",
    "Environment",
    "canonical_name",
    "compile_regex",
    "divide",
    "is_known_function",
    "lookup",
]
