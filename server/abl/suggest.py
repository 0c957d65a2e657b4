""" "Did you mean": the one way every layer picks the known word a misspelt one most likely meant.

Keywords (`HANDOF` for `HANDOFF`), names in a project (`Loan_Supervisr`, `income_finished`),
allowed values and diagnostic codes all go through the same scoring, so a typo gets the same
suggestion in the checker, the test-file loader, the CLI and the editor.

Scoring, from 0 to 100, of a word against one candidate:

1. Both are squashed: lowercased, with `_` and `-` removed, because ABL reads keywords
   case-insensitively and people are loose about separators (`check_in_date` for
   `checkin_date`, `RETRY_PROMT` for `retry_prompt`).
2. The base score is the insertion/deletion similarity of the squashed forms, as rapidfuzz's
   `fuzz.ratio` computes it (100 times one less the letters to delete and insert over the
   summed lengths), except that two swapped neighbours (`RETRUN`, `tset`) count as one slip,
   not a deletion plus an insertion; the swaps are what OSA distance saves over Levenshtein.
3. Overlap closes part of the gap to 100: up to half of it, in proportion to how much of the
   shorter word the longer one shares, either as a common beginning (`income_finished` and
   `income_done`; `max` abbreviating `maximum`) or, when every token of the shorter word is a
   whole token of the longer, as all of it (`status` inside `card_status`). An overlap under
   three letters counts for nothing. Neither does a token in common when the shorter word has
   others (`Gift_Agent` and `Complaint_Agent` share `Agent`): so many names end alike that a
   common ending says nothing about which one was meant.

The best score wins if it reaches `CUTOFF`; a candidate equal to the word ignoring case and
separators scores 100. Equal scores go to the candidate spelt exactly like the word, then to
one differing from it only in case, then to the alphabetically first (by code point), so the
answer never depends on the order the candidates come in (often a set's).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from rapidfuzz.distance import OSA, Indel, Levenshtein

# Below this score a suggestion is more often wrong than helpful. It keeps `income_finished` ->
# `income_done` (77) and `order_number` -> `order_id` (71); it drops `PROMPT` -> `PROTOCOL` (68),
# `yearly_income` -> `annual_income` (67) and `Gift_Agent` -> `Complaint_Agent` (61).
CUTOFF = 70.0

# Full overlap closes this share of the gap between the base score and 100.
_OVERLAP_WEIGHT = 0.5
# Shorter overlaps are coincidence more often than intent (`re`, `on`).
_MIN_OVERLAP = 3

# Letters and digits; `_`, `-`, `.`, spaces and other punctuation separate tokens.
_TOKEN = re.compile(r"[^\W_]+")


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate `word` most likely meant, spelt as the candidate is, or None when nothing
    is close enough to be worth suggesting."""
    best = ranked(word, candidates, limit=1)
    return best[0] if best else None


# How a variable, field, step or tool can be written where a fix puts it: `a`, `a_b`, `a.b`.
_NAME = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")


def did_you_mean_name(word: str, candidates: Iterable[str]) -> str | None:
    """`did_you_mean` among the candidates that can be written as a name: one read from broken
    text (`us[toid` from `SET: us[toid=`) would break the line a fix writes it into."""
    return did_you_mean(word, (c for c in candidates if _NAME.fullmatch(c)))


def ranked(word: str, candidates: Iterable[str], limit: int = 5) -> list[str]:
    """Up to `limit` candidates close enough to `word`, the most likely first."""
    if not squash(word) or limit <= 0:
        return []
    keyed = []
    for candidate in dict.fromkeys(candidates):
        value = score(word, candidate)
        if value >= CUTOFF:
            keyed.append((-value, _spelling_distance(word, candidate), candidate))
    return [key[-1] for key in sorted(keyed)[:limit]]


def score(word: str, candidate: str) -> float:
    """How alike `word` and `candidate` are, 0 to 100 (see the module docstring)."""
    if len(word) + len(candidate) <= _REMEMBERED_LENGTH:
        return _remembered_score(word, candidate)
    return _score(word, candidate)


# A file that repeats one unknown word asks the same question each time (a pasted block of
# misspelt keys: thousands of times), so short pairs are answered once; long ones are rare.
_REMEMBERED_LENGTH = 200


@lru_cache(maxsize=16_384)
def _remembered_score(word: str, candidate: str) -> float:
    return _score(word, candidate)


def _score(word: str, candidate: str) -> float:
    left, right = squash(word), squash(candidate)
    if not left or not right:
        return 0.0
    swaps = Levenshtein.distance(left, right) - OSA.distance(left, right)
    slips = Indel.distance(left, right) - swaps
    base = 100.0 * (1.0 - slips / (len(left) + len(right)))
    shorter = min(len(left), len(right))
    overlap = min(shorter, max(_common_beginning(left, right), _contained_tokens(word, candidate)))
    if overlap < _MIN_OVERLAP:
        return base
    return base + (100.0 - base) * _OVERLAP_WEIGHT * overlap / shorter


def squash(word: str) -> str:
    """The form words are compared in: lowercase, without `_` and `-`."""
    return word.lower().replace("_", "").replace("-", "")


def _common_beginning(left: str, right: str) -> int:
    """How many leading characters two squashed words share."""
    shared = 0
    for a, b in zip(left, right, strict=False):
        if a != b:
            break
        shared += 1
    return shared


def _contained_tokens(word: str, candidate: str) -> int:
    """The letters of the word with fewer tokens, when each of its tokens is a whole token of
    the other word (`status` in `card_status`, `income` in `annual_income`); otherwise 0."""
    fewer, more = sorted((_TOKEN.findall(word.lower()), _TOKEN.findall(candidate.lower())), key=len)
    if not fewer or not set(fewer) <= set(more):
        return 0
    return sum(len(t) for t in fewer)


def _spelling_distance(word: str, candidate: str) -> int:
    """0 for the very spelling, 1 for the same letters in another case, 2 for anything else:
    among equally scored candidates the one written most like `word` wins."""
    if candidate == word:
        return 0
    return 1 if candidate.lower() == word.lower() else 2
