"""The diagnostic and fix types shared by every layer.

Codes, severities and their documentation are defined once, in `abl.checks.registry`;
lower layers name a code and the severity it is registered with.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from abl.text import Range


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    HINT = "hint"


@dataclass(frozen=True, slots=True)
class TextEdit:
    range: Range
    new_text: str
    # An insertion that may share its place with the stacking insertions of other fixes (an item
    # appended to one list, a block moved below one line): applied together, in the fixes' order.
    stacks: bool = False


@dataclass(frozen=True, slots=True)
class Fix:
    """A quick fix: text edits in the diagnostic's file. `safe` fixes keep the file's meaning
    and are applied by `abl check --fix`; unsafe ones change what runs and are offered only."""

    title: str
    edits: tuple[TextEdit, ...]
    safe: bool


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    range: Range
    fixes: tuple[Fix, ...] = field(default=())
    related: tuple[tuple[str, Range, str], ...] = field(default=())  # (path, range, note)

    @staticmethod
    def error(code: str, message: str, range: Range, *fixes: Fix) -> Diagnostic:
        return Diagnostic(code, Severity.ERROR, message, range, tuple(fixes))

    @staticmethod
    def warning(code: str, message: str, range: Range, *fixes: Fix) -> Diagnostic:
        return Diagnostic(code, Severity.WARNING, message, range, tuple(fixes))

    @staticmethod
    def hint(code: str, message: str, range: Range, *fixes: Fix) -> Diagnostic:
        return Diagnostic(code, Severity.HINT, message, range, tuple(fixes))
