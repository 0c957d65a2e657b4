"""Typed GATHER extraction without a language model.

Each field type has its own extractor; `extract_fields` runs them over one message. Values
that look like something else are kept apart: a number inside a date, a phone number or an
identifier such as `ORD-20931` is not offered to a number field, and a span one field took
is not given to another.

Precision rules (a field that was not asked for must be clearly present):
- numbers: accepted when the field was asked, when the message is just the number, when a
  currency amount is given to a currency field, or when the field's own words are near it;
- yes/no: only when asked, or when the message is a short answer (four words or fewer);
- dates: explicit calendar dates always; relative ones ("tomorrow") when asked or mentioned;
- enum options: written out always; fuzzy matches (typos) when asked, or at a stricter cutoff;
- strings: a pattern (`extraction_pattern`, or one learned from an example in the field's
  description) anywhere; otherwise the whole trimmed reply, and only when the field was asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from rapidfuzz import fuzz

from abl.expr import patterns
from abl.runtime.models.base import Extraction, FieldSpec, ModelError
from abl.runtime.models.dates import DateOrder, find_dates, find_times
from abl.runtime.models.lexical import concepts, name_words, words
from abl.runtime.models.numbers import NumberMatch, find_numbers
from abl.runtime.models.spans import Spans

NUMERIC_TYPES = frozenset({"number", "integer", "int", "float", "decimal", "currency", "amount", "money", "quantity"})
BOOLEAN_TYPES = frozenset({"boolean", "bool", "yes_no", "yesno", "confirmation"})
DATE_TYPES = frozenset({"date"})
DATETIME_TYPES = frozenset({"datetime", "date_time", "timestamp"})
EMAIL_TYPES = frozenset({"email"})
PHONE_TYPES = frozenset({"phone", "phone_number", "telephone", "tel"})
ENUM_TYPES = frozenset({"enum", "choice", "option"})

YES_WORDS = frozenset(
    [
        "yes",
        "yeah",
        "yea",
        "yep",
        "yup",
        "ya",
        "sure",
        "correct",
        "right",
        "ok",
        "okay",
        "affirmative",
        "absolutely",
        "definitely",
        "certainly",
        "true",
        "y",
        "agreed",
        "indeed",
        "confirm",
        "confirmed",
    ]
)
NO_WORDS = frozenset(["no", "nope", "nah", "negative", "false", "n", "never", "incorrect", "wrong"])
UNSURE_PHRASES = ("not sure", "unsure", "maybe", "dunno", "don't know", "do not know", "no idea", "perhaps")
SHORT_ANSWER_WORDS = 4
CONTEXT_WINDOW_WORDS = 4
_LONGEST_WORD = 64  # characters; longer runs are not words a field is named by

_EMAIL_RE = re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])")
_PHONE_RE = re.compile(r"(?<![\w+])(\+?\(?\d[\d\s().-]{5,}\d)(?![\w])")
_EXAMPLE_TOKEN_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-/.#]*[A-Za-z0-9]")
_RUN_RE = re.compile(r"[A-Z]+|[a-z]+|\d+|[^A-Za-z0-9]")


@dataclass(frozen=True, slots=True)
class Found:
    """An extracted value and the character span it came from.

    `claims_span` is false for the whole-reply fallback, which must not keep typed fields from
    finding their values in the same reply.
    """

    value: object
    confidence: float
    start: int
    end: int
    claims_span: bool = True


@dataclass(frozen=True, slots=True)
class LearnedPattern:
    """A shape learned from an example value, e.g. `ORD-20931` in a field description."""

    example: str
    literal: re.Pattern[str]  # Same letters as the example, flexible digit count and separator.
    shape: re.Pattern[str]  # Same character classes and lengths as the example.
    separators: tuple[str, ...]
    uppercase: bool

    def normalise(self, match: re.Match[str]) -> str:
        if match.re is self.literal:
            runs = [group for group in match.groups() if group is not None]
            text = "".join(run + sep for run, sep in zip(runs, (*self.separators, ""), strict=True))
        else:
            text = match.group(0)
        return text.upper() if self.uppercase else text


def normalise_type(type_name: str) -> str:
    return type_name.strip().lower().replace("-", "_")


def extract_fields(
    fields: Sequence[FieldSpec], message: str, today: date, date_order: DateOrder = "MDY"
) -> dict[str, Extraction]:
    """Values for `fields` found in `message`; fields without a value are left out.

    Fields with an `extraction_pattern` are served first (they are the most specific), then
    asked fields, so they get first pick of spans more than one field could take.
    """
    ordered = sorted(fields, key=lambda spec: (not spec.pattern, not spec.asked))
    taken: list[tuple[int, int]] = []
    found: dict[str, Extraction] = {}
    for spec in ordered:
        result = extract_field(spec, message, today, date_order, taken)
        if result is None:
            continue
        if result.claims_span:
            taken.append((result.start, result.end))
        found[spec.name] = Extraction(
            value=result.value, confidence=round(result.confidence, 4), span=message[result.start : result.end]
        )
    return {spec.name: found[spec.name] for spec in fields if spec.name in found}


def extract_field(
    spec: FieldSpec,
    message: str,
    today: date,
    date_order: DateOrder = "MDY",
    taken: Sequence[tuple[int, int]] = (),
) -> Found | None:
    """One field's value in `message`, avoiding the `taken` spans."""
    kind = normalise_type(spec.type)
    if spec.pattern:
        return _by_explicit_pattern(spec, message, kind, taken)
    if kind in NUMERIC_TYPES:
        return _number(spec, message, kind, today, date_order, taken)
    if kind in BOOLEAN_TYPES:
        return _boolean(spec, message)
    if kind in DATE_TYPES or kind in DATETIME_TYPES:
        return _date(spec, message, today, date_order, taken, with_time=kind in DATETIME_TYPES)
    if kind in EMAIL_TYPES:
        return _first_free(_EMAIL_RE.finditer(message), taken, 0.95)
    if kind in PHONE_TYPES:
        return _phone(message, today, date_order, taken)
    if spec.options or kind in ENUM_TYPES:
        return _enum(spec, message, taken)
    return _string(spec, message, taken)


# --- Explicit patterns ------------------------------------------------------------------------


def _by_explicit_pattern(spec: FieldSpec, message: str, kind: str, taken: Sequence[tuple[int, int]]) -> Found | None:
    try:
        pattern = patterns.compile_pattern(spec.pattern or "")
    except patterns.PatternError as err:
        raise ModelError(
            f"field `{spec.name}`: extraction_pattern {spec.pattern!r} is not a valid regular expression ({err})"
        ) from None
    group = spec.pattern_group
    if group is None:
        group = 1 if pattern.groups >= 1 else 0
    if group > pattern.groups:
        raise ModelError(f"field `{spec.name}`: extraction_group {group} does not exist in {spec.pattern!r}")
    try:
        matches = patterns.finditer(pattern, message)
    except patterns.PatternTimeout as err:
        raise ModelError(f"field `{spec.name}`: extraction_pattern {spec.pattern!r} was not used: {err}") from None
    for match in matches:
        start, end = match.span(group)
        if start < 0 or _overlaps(start, end, taken):
            continue
        text = match.group(group)
        if kind in NUMERIC_TYPES:
            numbers = find_numbers(text)
            if not numbers:
                continue
            return Found(numbers[0].value, 0.95, start, end)
        return Found(text, 0.95, start, end)
    return None


# --- Numbers ----------------------------------------------------------------------------------


def _number(
    spec: FieldSpec, message: str, kind: str, today: date, date_order: DateOrder, taken: Sequence[tuple[int, int]]
) -> Found | None:
    blanked = _blank_out(message, _non_number_spans(message, today, date_order))
    candidates = [n for n in find_numbers(blanked) if not _overlaps(n.start, n.end, taken)]
    if not candidates:
        return None
    whole = message.strip().rstrip(".!?")
    lone = len(candidates) == 1 and candidates[0].text.strip() == whole.strip()
    field_words = _field_concepts(spec)
    distances = [(_mention_distance(message, n.start, n.end, field_words), n.start, n) for n in candidates]
    near = [n for distance, _, n in sorted((d, s, n) for d, s, n in distances if d is not None)]
    if kind in ("currency", "amount", "money"):
        priced = [n for n in candidates if n.currency is not None]
        near = near or priced
    if lone:
        return _number_found(candidates[0], 0.95 if spec.asked else 0.85)
    if near:
        return _number_found(near[0], 0.85)
    if not spec.asked:
        return None
    if len(candidates) == 1:
        return _number_found(candidates[0], 0.9)
    return _number_found(candidates[0], 0.6)


def _number_found(number: NumberMatch, confidence: float) -> Found:
    return Found(number.value, confidence, number.start, number.end)


def _non_number_spans(message: str, today: date, date_order: DateOrder) -> list[tuple[int, int]]:
    spans = [(m.start, m.end) for m in find_dates(message, today, date_order) if m.explicit]
    spans += [m.span() for m in _EMAIL_RE.finditer(message)]
    spans += [(m.start, m.end) for m in find_times(message) if ":" in m.text]
    for match in _PHONE_RE.finditer(message):
        text = match.group(1)
        if re.search(r"\d[\s().-]+\d", text) and 7 <= sum(c.isdigit() for c in text) <= 15 and "," not in text:
            spans.append(match.span(1))
    return spans


# --- Yes / no ---------------------------------------------------------------------------------


def _boolean(spec: FieldSpec, message: str) -> Found | None:
    tokens = [m for m in re.finditer(r"[a-z]+(?:'[a-z]+)?", message.lower())]
    if not tokens:
        return None
    if not spec.asked and len(tokens) > SHORT_ANSWER_WORDS:
        return None
    lowered = message.lower()
    if any(re.search(rf"\b{re.escape(phrase)}\b", lowered) for phrase in UNSURE_PHRASES):
        return None
    for index, token in enumerate(tokens):
        word = token.group(0)
        previous = tokens[index - 1].group(0) if index > 0 else ""
        negated = previous in ("not", "don't", "dont", "isn't", "isnt")
        if word in YES_WORDS:
            value = not negated
            start = tokens[index - 1].start() if negated else token.start()
        elif word in NO_WORDS or (word in ("don't", "dont") and index == 0):
            value = False
            start = token.start()
        elif word == "of" and index + 1 < len(tokens) and tokens[index + 1].group(0) == "course":
            value, start = True, token.start()
        else:
            continue
        confidence = 0.95 if index == 0 else 0.8
        if not spec.asked:
            confidence = min(confidence, 0.7)
        return Found(value, confidence, start, token.end())
    return None


# --- Dates ------------------------------------------------------------------------------------


def _date(
    spec: FieldSpec,
    message: str,
    today: date,
    date_order: DateOrder,
    taken: Sequence[tuple[int, int]],
    with_time: bool,
) -> Found | None:
    field_words = _field_concepts(spec)
    for match in find_dates(message, today, date_order):
        if _overlaps(match.start, match.end, taken):
            continue
        if not (match.explicit or spec.asked or _mentioned_near(message, match.start, match.end, field_words)):
            continue
        confidence = 0.9 if match.explicit else 0.8
        if not with_time:
            return Found(match.value.isoformat(), confidence, match.start, match.end)
        times = [t for t in find_times(message) if not _overlaps(t.start, t.end, taken)]
        if not times:
            return Found(match.value.isoformat(), confidence * 0.9, match.start, match.end)
        moment = datetime.combine(match.value, times[0].value)
        return Found(moment.isoformat(), confidence, min(match.start, times[0].start), max(match.end, times[0].end))
    return None


# --- Emails and phones ------------------------------------------------------------------------


def _phone(message: str, today: date, date_order: DateOrder, taken: Sequence[tuple[int, int]]) -> Found | None:
    dates = Spans()
    for found in find_dates(message, today, date_order):
        if found.explicit:
            dates.add(found.start, found.end)
    for match in _PHONE_RE.finditer(message):
        start, end = match.span(1)
        text = match.group(1)
        digits = sum(c.isdigit() for c in text)
        if not 7 <= digits <= 15 or _overlaps(start, end, taken) or dates.overlaps(start, end):
            continue
        normalised = ("+" if text.lstrip("(").startswith("+") else "") + "".join(c for c in text if c.isdigit())
        return Found(normalised, 0.85, start, end)
    return None


def _first_free(matches: Iterable[re.Match[str]], taken: Sequence[tuple[int, int]], confidence: float) -> Found | None:
    for match in matches:
        start, end = match.span()
        if not _overlaps(start, end, taken):
            return Found(match.group(0), confidence, start, end)
    return None


# --- Enum options -----------------------------------------------------------------------------

FUZZY_CUTOFF_ASKED = 80.0
FUZZY_CUTOFF_UNASKED = 90.0


def _enum(spec: FieldSpec, message: str, taken: Sequence[tuple[int, int]]) -> Found | None:
    options = [str(option) for option in spec.options]
    if not options:
        return _string(spec, message, taken)
    # Written out: the earliest option in the message wins; longer options first at one place.
    written: list[tuple[int, int, str]] = []
    for option in options:
        phrase = r"[\s_-]+".join(re.escape(part) for part in words(name_words(option)))
        if not phrase:
            continue
        for match in re.finditer(rf"(?<![A-Za-z0-9]){phrase}(?![A-Za-z0-9])", message, re.IGNORECASE):
            if not _overlaps(match.start(), match.end(), taken):
                written.append((match.start(), -(match.end() - match.start()), option))
                break
    if written:
        written.sort()
        start, negative_length, option = written[0]
        confidence = 0.95 if len({w[2] for w in written}) == 1 else 0.7
        return Found(option, confidence, start, start - negative_length)
    return _fuzzy_option(spec, options, message, taken)


def _fuzzy_option(
    spec: FieldSpec, options: Sequence[str], message: str, taken: Sequence[tuple[int, int]]
) -> Found | None:
    tokens = [m for m in re.finditer(r"[A-Za-z0-9]+", message)]
    cutoff = FUZZY_CUTOFF_ASKED if spec.asked else FUZZY_CUTOFF_UNASKED
    best: tuple[float, int, int, str] | None = None
    for option in options:
        option_words = words(name_words(option))
        if not option_words:
            continue
        target = " ".join(option_words)
        for width in sorted({len(option_words), len(option_words) + 1, max(1, len(option_words) - 1)}):
            for index in range(0, max(0, len(tokens) - width + 1)):
                start, end = tokens[index].start(), tokens[index + width - 1].end()
                if _overlaps(start, end, taken):
                    continue
                candidate = " ".join(t.group(0).lower() for t in tokens[index : index + width])
                if len(candidate) < 3:
                    continue
                score = fuzz.ratio(candidate, target)
                if score >= cutoff and (best is None or score > best[0]):
                    best = (score, start, end, option)
    if best is None:
        return None
    score, start, end, option = best
    return Found(option, round(0.9 * score / 100, 4), start, end)


# --- Strings ----------------------------------------------------------------------------------


def _string(spec: FieldSpec, message: str, taken: Sequence[tuple[int, int]]) -> Found | None:
    learned = learn_pattern(spec.description)
    if learned is not None:
        for pattern, confidence in ((learned.literal, 0.9), (learned.shape, 0.75)):
            for match in pattern.finditer(message):
                if not _overlaps(match.start(), match.end(), taken):
                    return Found(learned.normalise(match), confidence, match.start(), match.end())
    if not spec.asked:
        return None
    stripped = message.strip()
    if not stripped:
        return None
    if learned is not None and not _could_be_identifier(stripped, learned):
        # The description shows what a value looks like; a sentence such as "I have a
        # question" is not one, so the field stays unset and is asked again.
        return None
    start = message.index(stripped)
    confidence = 0.5 if learned is not None else 0.8
    return Found(stripped, confidence, start, start + len(stripped), claims_span=False)


def _could_be_identifier(reply: str, learned: LearnedPattern) -> bool:
    """A reply that missed the learned shape but may still be a value of that kind: one word,
    with a digit when the example has one (`20931` for `ORD-20931`)."""
    if any(c.isspace() for c in reply) or len(reply) > 64:
        return False
    return not any(c.isdigit() for c in learned.example) or any(c.isdigit() for c in reply)


_EXAMPLE_CUE_RE = re.compile(
    r"\b(?:for example|for instance|e\.g\.?|eg|such as|like|example:?|format:?)\s*[:,]?\s*", re.IGNORECASE
)


def learn_pattern(description: str) -> LearnedPattern | None:
    """A pattern from the example value in `description`, if it has one.

    After a cue ("for example", "e.g.", "such as", "like") the first token with a digit counts
    (`ORD-20931`, `12345678`); without a cue only tokens that mix letters and digits do, so
    ordinary numbers in prose are not taken for examples. "Order number, for example
    ORD-20931." gives a literal pattern that accepts `ORD-55555`, `ord 55555` or `ORD-555555`,
    and a shape pattern `[A-Za-z]{3}-\\d{5}`.
    """
    if not description:
        return None
    cue = _EXAMPLE_CUE_RE.search(description)
    if cue is not None:
        for token in _EXAMPLE_TOKEN_RE.finditer(description, cue.end()):
            example = token.group(0).rstrip(".")
            if _is_example_value(example, needs_letters=False):
                return _pattern_from_example(example)
    for token in _EXAMPLE_TOKEN_RE.finditer(description):
        example = token.group(0).rstrip(".")
        if _is_example_value(example, needs_letters=True):
            return _pattern_from_example(example)
    return None


def _is_example_value(token: str, needs_letters: bool) -> bool:
    if len(token) < 3 or not any(c.isdigit() for c in token):
        return False
    if re.fullmatch(r"\d+(?:[.,]\d+)+", token):
        return False  # A decimal or grouped number is a quantity, not an identifier.
    return not needs_letters or any(c.isalpha() for c in token)


def _pattern_from_example(example: str) -> LearnedPattern:
    runs = _RUN_RE.findall(example)
    has_letters = any(c.isalpha() for c in example)
    literal_parts: list[str] = []
    shape_parts: list[str] = []
    separators: list[str] = []
    pending_separator: str | None = None
    for run in runs:
        if run.isdigit():
            # With letters to anchor it, the digit count may vary a little; alone it may not.
            low, high = (max(1, len(run) - 2), len(run) + 2) if has_letters else (len(run), len(run))
            literal_body, shape_body = rf"(\d{{{low},{high}}})", rf"\d{{{len(run)}}}"
        elif run.isalpha():
            literal_body, shape_body = f"({re.escape(run)})", rf"[A-Za-z]{{{len(run)}}}"
        else:
            pending_separator = (pending_separator or "") + run
            shape_parts.append(re.escape(run))
            continue
        if literal_parts:
            sep = pending_separator or ""
            separators.append(sep)
            if sep in ("-", "_", " ", ""):
                literal_parts.append(r"[-_\s]?")
            else:
                literal_parts.append(re.escape(sep))
        pending_separator = None
        literal_parts.append(literal_body)
        shape_parts.append(shape_body)
    boundary_start, boundary_end = r"(?<![A-Za-z0-9])", r"(?![A-Za-z0-9])"
    letters = [c for c in example if c.isalpha()]
    return LearnedPattern(
        example=example,
        literal=re.compile(boundary_start + "".join(literal_parts) + boundary_end, re.IGNORECASE),
        shape=re.compile(boundary_start + "".join(shape_parts) + boundary_end, re.IGNORECASE),
        separators=tuple(separators),
        uppercase=bool(letters) and all(c.isupper() for c in letters),
    )


# --- Shared by the readers above --------------------------------------------------------------


def _field_concepts(spec: FieldSpec) -> frozenset[str]:
    return frozenset(concepts(f"{name_words(spec.name)} {spec.description}"))


def _mentioned_near(message: str, start: int, end: int, field_words: frozenset[str]) -> bool:
    return _mention_distance(message, start, end, field_words) is not None


def _mention_distance(message: str, start: int, end: int, field_words: frozenset[str]) -> int | None:
    """How many words away the nearest of the field's own words is (within a small window)."""
    if not field_words:
        return None
    # Only a few words either side matter; reading a bounded stretch keeps long messages linear.
    reach = CONTEXT_WINDOW_WORDS * _LONGEST_WORD
    before = words(message[max(0, start - reach) : start])[-CONTEXT_WINDOW_WORDS:]
    after = words(message[end : end + reach])[:CONTEXT_WINDOW_WORDS]
    distances = [len(before) - i for i, word in enumerate(before) if field_words.intersection(concepts(word))]
    distances += [i + 1 for i, word in enumerate(after) if field_words.intersection(concepts(word))]
    return min(distances) if distances else None


def _overlaps(start: int, end: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(start < other_end and other_start < end for other_start, other_end in spans)


def _blank_out(text: str, spans: Sequence[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        for index in range(start, end):
            chars[index] = " "
    return "".join(chars)
