"""Numbers in customer messages: "85,000", "85k", "$85,000", "1.2m", "eighty-five thousand".

`find_numbers` returns every number in a message with its span, in order. Digit forms accept
thousands separators (groups of three), decimals, a currency sign or word, and a scale suffix
(`k`, `m`, `mm`, `bn`, `b`, or a scale word such as "thousand"). Word forms follow English
cardinal grammar ("twenty thousand five hundred", "one hundred and twenty", "a million") and
stop where the grammar breaks, so "five six" is two numbers, not eleven.

Digits glued to letters, or joined to other letters or digits by a hyphen ("ORD-20931", "A12",
"555-123-4567"), belong to an identifier and are not numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

Number = int | float

# A run of more digits than this is an identifier (an account or card number), never an amount;
# it also keeps every number the runtime stores printable (Python refuses to print an int of
# more than 4,300 digits) and its conversion linear.
MAX_DIGITS = 30


@dataclass(frozen=True, slots=True)
class NumberMatch:
    value: Number
    start: int
    end: int
    text: str
    currency: str | None = None


UNITS = {
    "zero": 0,
    "oh": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fourty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
SCALES = {"thousand": 1_000, "grand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
MULTIPLIERS = {"hundred": 100, "dozen": 12}

SUFFIX_SCALES = {"k": 1_000, "m": 1_000_000, "mm": 1_000_000, "mn": 1_000_000, "bn": 1_000_000_000}
CURRENCY_SIGNS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
CURRENCY_WORDS = {
    "dollar": "USD",
    "dollars": "USD",
    "usd": "USD",
    "bucks": "USD",
    "euro": "EUR",
    "euros": "EUR",
    "eur": "EUR",
    "pound": "GBP",
    "pounds": "GBP",
    "gbp": "GBP",
    "rupees": "INR",
    "inr": "INR",
}

_SIGN = "|".join(re.escape(sign) for sign in CURRENCY_SIGNS)
_CODE_BEFORE = r"(?:usd|eur|gbp|inr)"
_DIGITS_RE = re.compile(
    rf"""
    (?<![\w.])(?<![A-Za-z0-9]-)
    (?P<neg>-)?
    (?:(?P<sign>{_SIGN})\s?|(?P<code>{_CODE_BEFORE})\s)?
    (?P<num>\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
    (?:
        (?P<suffix>mm|mn|bn|[km])(?![A-Za-z0-9])
      | \s?(?P<scale>hundred|thousand|grand|million|billion)\b
    )?
    (?:\s?(?P<word>{"|".join(sorted(CURRENCY_WORDS, key=len, reverse=True))})\b)?
    (?![A-Za-z0-9])(?!-[A-Za-z0-9])
    """,
    re.IGNORECASE | re.VERBOSE,
)
_TOKEN_RE = re.compile(r"[A-Za-z]+")


def find_numbers(text: str) -> list[NumberMatch]:
    """Every number in `text`, digit and word forms, ordered by position."""
    found = [m for m in (_digit_match(match) for match in _DIGITS_RE.finditer(text)) if m is not None]
    taken = [(m.start, m.end) for m in found]
    found.extend(
        match
        for match in _word_numbers(text)
        if not any(match.start < end and start < match.end for start, end in taken)
    )
    found.sort(key=lambda m: m.start)
    return found


def parse_number(text: str) -> Number | None:
    """The number `text` consists of (surrounding spaces allowed), or None."""
    stripped = text.strip().rstrip(".!")
    matches = find_numbers(stripped)
    if len(matches) == 1 and matches[0].start == 0 and matches[0].end == len(stripped):
        return matches[0].value
    return None


def _digit_match(match: re.Match[str]) -> NumberMatch | None:
    written = match.group("num").replace(",", "")
    if len(written) - written.count(".") > MAX_DIGITS:
        return None
    try:
        amount = Decimal(written)
    except InvalidOperation:
        return None
    suffix = match.group("suffix")
    scale_word = match.group("scale")
    if suffix:
        amount *= SUFFIX_SCALES[suffix.lower()]
    elif scale_word:
        amount *= {**SCALES, **MULTIPLIERS}[scale_word.lower()]
    if match.group("neg"):
        amount = -amount
    currency = None
    if match.group("sign"):
        currency = CURRENCY_SIGNS[match.group("sign")]
    elif match.group("code"):
        currency = match.group("code").upper()
    elif match.group("word"):
        currency = CURRENCY_WORDS[match.group("word").lower()]
    return NumberMatch(
        value=_plain(amount), start=match.start(), end=match.end(), text=match.group(0), currency=currency
    )


def _plain(amount: Decimal) -> Number:
    if amount == amount.to_integral_value():
        return int(amount)
    return float(amount)


@dataclass(slots=True)
class _WordState:
    total: int = 0
    current: int = 0
    last: str = ""  # "", "a", "unit", "tens", "hundred", "scale"
    smallest_scale: int = 0  # Scales must shrink: "thousand thousand" is not one number.


def _word_numbers(text: str) -> list[NumberMatch]:
    tokens = [(m.group(0).lower(), m.start(), m.end()) for m in _TOKEN_RE.finditer(text)]
    found: list[NumberMatch] = []
    index = 0
    while index < len(tokens):
        parsed = _parse_words(tokens, index, text)
        if parsed is None:
            index += 1
            continue
        value, last_index = parsed
        start, end = tokens[index][1], tokens[last_index][2]
        currency = None
        if last_index + 1 < len(tokens) and _adjacent(text, end, tokens[last_index + 1][1]):
            currency = CURRENCY_WORDS.get(tokens[last_index + 1][0])
            if currency is not None:
                end = tokens[last_index + 1][2]
                last_index += 1
        found.append(NumberMatch(value=value, start=start, end=end, text=text[start:end], currency=currency))
        index = last_index + 1
    return found


def _parse_words(tokens: list[tuple[str, int, int]], index: int, text: str) -> tuple[int, int] | None:
    """Parse number words starting at `index`; (value, index of the last word used) or None."""
    state = _WordState()
    last_used = -1
    position = index
    while position < len(tokens):
        word = tokens[position][0]
        if position > index and not _adjacent(text, tokens[position - 1][2], tokens[position][1]):
            break
        following = tokens[position + 1][0] if position + 1 < len(tokens) else ""
        if word == "and":
            if state.last in ("hundred", "scale") and (following in UNITS or following in TENS):
                position += 1
                continue
            break
        if word == "a":
            if state.last == "" and (following in SCALES or following in MULTIPLIERS):
                state.last = "a"
                position += 1
                continue
            break
        if not _accept(state, word):
            break
        last_used = position
        position += 1
    if last_used < 0:
        return None
    return state.total + state.current, last_used


def _accept(state: _WordState, word: str) -> bool:
    """Apply one number word to the state, or refuse it when the grammar does not allow it."""
    if word in UNITS:
        value = UNITS[word]
        if state.last == "unit" or (state.last == "tens" and value >= 10) or (state.last == "tens" and value == 0):
            return False
        if word == "oh" and state.last == "":
            return False  # "oh" alone is an exclamation, not zero.
        state.current += value
        state.last = "unit"
        return True
    if word in TENS:
        if state.last in ("unit", "tens"):
            return False
        state.current += TENS[word]
        state.last = "tens"
        return True
    if word in MULTIPLIERS:
        if state.last not in ("unit", "tens", "a") or state.current % 100 != state.current:
            return False
        state.current = (state.current or 1) * MULTIPLIERS[word]
        state.last = "hundred"
        return True
    if word in SCALES:
        scale = SCALES[word]
        if state.last not in ("unit", "tens", "hundred", "a"):
            return False
        if state.smallest_scale and scale >= state.smallest_scale:
            return False
        state.total += (state.current or 1) * scale
        state.current = 0
        state.smallest_scale = scale
        state.last = "scale"
        return True
    return False


def _adjacent(text: str, end: int, start: int) -> bool:
    """True when only spaces or a hyphen separate two words."""
    gap = text[end:start]
    return gap.strip(" -") == "" and len(gap) <= 3
