"""Dates and times in customer messages, resolved against an injected "today".

Explicit forms: ISO (`2026-03-03`), numeric (`3/4/2026`, `03.04.26`; month first by default,
day first when configured or when the first part cannot be a month), and month names
(`March 3 2026`, `3rd of March`, `Mar 3`; without a year, the year of "today").
Relative forms: `today`, `tonight`, `tomorrow`, `yesterday`, `day after tomorrow`,
`in 3 days` / `in two weeks`, and weekday names (`friday`, `next friday`: the next such day
after today). Times: `5pm`, `5:30 pm`, `17:30`, `noon`, `midnight`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, time, timedelta
from typing import Literal

from abl.runtime.models.numbers import parse_number
from abl.runtime.models.spans import Spans

DateOrder = Literal["MDY", "DMY"]


@dataclass(frozen=True, slots=True)
class DateMatch:
    value: date
    start: int
    end: int
    text: str
    explicit: bool  # Written as a calendar date rather than relative to today.


@dataclass(frozen=True, slots=True)
class TimeMatch:
    value: time
    start: int
    end: int
    text: str


MONTHS = {
    "january": 1,
    "jan": 1,
    "february": 2,
    "feb": 2,
    "march": 3,
    "mar": 3,
    "april": 4,
    "apr": 4,
    "may": 5,
    "june": 6,
    "jun": 6,
    "july": 7,
    "jul": 7,
    "august": 8,
    "aug": 8,
    "september": 9,
    "sep": 9,
    "sept": 9,
    "october": 10,
    "oct": 10,
    "november": 11,
    "nov": 11,
    "december": 12,
    "dec": 12,
}
WEEKDAYS = {
    "monday": 0,
    "mon": 0,
    "tuesday": 1,
    "tue": 1,
    "tues": 1,
    "wednesday": 2,
    "wed": 2,
    "thursday": 3,
    "thu": 3,
    "thurs": 3,
    "friday": 4,
    "fri": 4,
    "saturday": 5,
    "sat": 5,
    "sunday": 6,
    "sun": 6,
}
RELATIVE_DAYS = {"today": 0, "tonight": 0, "tomorrow": 1, "tmrw": 1, "yesterday": -1}

_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)?"
_ISO_RE = re.compile(r"(?<![\d-])(\d{4})-(\d{1,2})-(\d{1,2})(?![\d-])")
_NUMERIC_RE = re.compile(r"(?<![\d/.])(\d{1,2})([/.])(\d{1,2})\2(\d{4}|\d{2})(?![\d/.])")
_MONTH_FIRST_RE = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}}){_ORD}\b(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE)
_DAY_FIRST_RE = re.compile(rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?({_MONTH})\b\.?(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE)
_DAY_AFTER_RE = re.compile(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", re.IGNORECASE)
_RELATIVE_RE = re.compile(r"\b(today|tonight|tomorrow|tmrw|yesterday)\b", re.IGNORECASE)
_IN_UNITS_RE = re.compile(r"\bin\s+(\w+(?:[\s-]\w+)?)\s+(days?|weeks?)\b", re.IGNORECASE)
_WEEKDAY_RE = re.compile(
    rf"\b(?:(next|this|on)\s+)?({'|'.join(sorted(WEEKDAYS, key=len, reverse=True))})\b", re.IGNORECASE
)
_TIME_RE = re.compile(
    r"\b(?:(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?|([01]?\d|2[0-3]):([0-5]\d))(?![\w:])|\b(noon|midday|midnight)\b",
    re.IGNORECASE,
)


def find_dates(text: str, today: date, order: DateOrder = "MDY") -> list[DateMatch]:
    """Every date in `text`, ordered by position; overlapping readings keep the earliest finder."""
    found: list[DateMatch] = []
    claimed = Spans()

    def add(value: date | None, match: re.Match[str], explicit: bool) -> None:
        if value is None or not claimed.add(match.start(), match.end()):
            return
        found.append(DateMatch(value, match.start(), match.end(), match.group(0), explicit))

    for match in _ISO_RE.finditer(text):
        add(_safe_date(int(match[1]), int(match[2]), int(match[3])), match, True)
    for match in _NUMERIC_RE.finditer(text):
        add(_numeric_date(int(match[1]), int(match[3]), match[4], order), match, True)
    for match in _MONTH_FIRST_RE.finditer(text):
        year = int(match[3]) if match[3] else today.year
        add(_safe_date(year, MONTHS[match[1].lower()], int(match[2])), match, True)
    for match in _DAY_FIRST_RE.finditer(text):
        year = int(match[3]) if match[3] else today.year
        add(_safe_date(year, MONTHS[match[2].lower()], int(match[1])), match, True)
    for match in _DAY_AFTER_RE.finditer(text):
        add(today + timedelta(days=2), match, False)
    for match in _RELATIVE_RE.finditer(text):
        add(today + timedelta(days=RELATIVE_DAYS[match[1].lower()]), match, False)
    for match in _IN_UNITS_RE.finditer(text):
        count = parse_number(match[1])
        if isinstance(count, int) and 0 <= count <= 3660:
            days = count * (7 if match[2].lower().startswith("week") else 1)
            add(today + timedelta(days=days), match, False)
    for match in _WEEKDAY_RE.finditer(text):
        if match[1] is None and match[2].lower() in ("sun", "sat", "wed", "mon"):
            continue  # Short forms alone are too often ordinary words.
        add(_next_weekday(today, WEEKDAYS[match[2].lower()]), match, False)
    found.sort(key=lambda m: m.start)
    return found


def find_times(text: str) -> list[TimeMatch]:
    """Clock times in `text`, ordered by position."""
    found = []
    for match in _TIME_RE.finditer(text):
        value = _time_of(match)
        if value is not None:
            found.append(TimeMatch(value, match.start(), match.end(), match.group(0)))
    return found


def _time_of(match: re.Match[str]) -> time | None:
    if match[6]:
        return time(0, 0) if match[6].lower() == "midnight" else time(12, 0)
    if match[3]:
        hour, minute = int(match[1]), int(match[2] or 0)
        if not 1 <= hour <= 12 or minute > 59:
            return None
        hour = hour % 12 + (12 if match[3].lower() == "p" else 0)
        return time(hour, minute)
    return time(int(match[4]), int(match[5]))


def _numeric_date(first: int, second: int, year_text: str, order: DateOrder) -> date | None:
    year = int(year_text)
    if len(year_text) == 2:
        year += 2000
    month, day = (first, second) if order == "MDY" else (second, first)
    if month > 12 and day <= 12:
        month, day = day, month  # "25/12/2026" can only be day first.
    return _safe_date(year, month, day)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _next_weekday(today: date, weekday: int) -> date:
    ahead = (weekday - today.weekday()) % 7
    return today + timedelta(days=ahead or 7)
