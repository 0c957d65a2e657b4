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


class FixSafety(enum.Enum):
    """Ruff's definition: a safe fix keeps the meaning of the file; an unsafe one changes what
    runs, so it is offered in the editor but never applied by `abl check --fix`."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    NONE = "none"  # no quick fix: the right change depends on what the author meant


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

    def bad_example_bytes(self) -> bytes:
        """The bad example as it would sit on disk."""
        return self.bad_example.encode(self.bad_example_encoding)
