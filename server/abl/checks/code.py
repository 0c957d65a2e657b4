"""The record that documents one diagnostic code.

A `Code` is everything a user can learn about a diagnostic without reading the rule that emits
it: its severity, what it catches, why that matters, what the platform does, a failing and a
corrected example, and what the quick fix changes. The docs pages, `abl explain` and the LSP
hover for a diagnostic are all rendered from these records, so each fact is written once.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from abl.diagnostics import Severity


class Group(enum.Enum):
    """Where a code comes from, which decides how strictly it must copy the platform."""

    PLATFORM = "platform"  # the reference compiler's own codes: same trigger, same severity
    SYNTAX = "syntax"  # the text cannot be read, or its structure is wrong
    LINT = "lint"  # accepted by the platform, but it will not do what the author meant
    SUPPRESSION = "suppression"  # an `# abl: ignore` comment that does nothing


class FixSafety(enum.Enum):
    """A safe fix keeps the meaning of the file; an unsafe one changes what runs (or deletes what
    the author wrote), so `abl check --fix` applies it only with `--unsafe-fixes` (the editor
    offers both).

    This is the one source of a code's fix safety: the engine marks every fix of an `UNSAFE`
    code unsafe, whatever the rule said, so the docs page and `--fix` cannot disagree."""

    SAFE = "safe"  # the first fix offered is safe (unsafe alternatives may follow)
    SOMETIMES_SAFE = "sometimes safe"  # safe in the cases the fix text names, unsafe otherwise
    UNSAFE = "unsafe"
    NONE = "none"  # no quick fix: the right change depends on what the author meant

    @property
    def allows_safe_fixes(self) -> bool:
        return self in (FixSafety.SAFE, FixSafety.SOMETIMES_SAFE)


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    severity: Severity
    group: Group
    title: str  # a few words, shown in index tables and hover headings
    summary: str  # one sentence: what it catches
    explanation: str  # why it matters, and what the platform does with it
    bad_example: str  # a complete ABL text on which the code fires
    good_example: str  # the same text corrected; the code stays silent
    fix: str  # what the quick fix does, and why it is (not) safe
    fix_safety: FixSafety
    runtime: str  # what happens at runtime (or at deploy) when this is present
    see_also: tuple[str, ...] = ()
    # Codes that necessarily fire on `bad_example` too, because the same mistake trips them.
    also_fires: tuple[str, ...] = ()
    # The bad example fails only once saved in this encoding (the good one is always UTF-8).
    bad_example_encoding: str = "utf-8"
