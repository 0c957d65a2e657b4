"""The diagnostic and fix types shared by every layer.

Codes, severities and their documentation are defined once, in `abl.checks.registry`;
lower layers name a code and the severity it is registered with.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from abl.text import Range, rows_on


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


def moved_diagnostic(d: Diagnostic, rows: int, path: str | None = None) -> Diagnostic:
    """`d` found `rows` rows further down, with the ranges of its fixes, and of the related
    places in `path` (its own file, when known), moved too. Made for every finding below a new
    line, so the slots are set directly: the `__init__` of a frozen dataclass sets each through
    `object.__setattr__`, which takes twice as long."""
    fixes = d.fixes
    if fixes:
        fixes = tuple(_moved_fix(f, rows) for f in fixes)
    related = d.related
    if related and path is not None:
        related = tuple((p, rows_on(r, rows) if p == path else r, note) for p, r, note in related)
    made = _make(Diagnostic)
    _SET_CODE(made, d.code)
    _SET_SEVERITY(made, d.severity)
    _SET_MESSAGE(made, d.message)
    _SET_RANGE(made, rows_on(d.range, rows))
    _SET_FIXES(made, fixes)
    _SET_RELATED(made, related)
    return made


def _moved_fix(fix: Fix, rows: int) -> Fix:
    made = _make(Fix)
    _SET_TITLE(made, fix.title)
    _SET_EDITS(made, tuple(_moved_edit(e, rows) for e in fix.edits))
    _SET_SAFE(made, fix.safe)
    return made


def _moved_edit(edit: TextEdit, rows: int) -> TextEdit:
    made = _make(TextEdit)
    _SET_EDIT_RANGE(made, rows_on(edit.range, rows))
    _SET_NEW_TEXT(made, edit.new_text)
    _SET_STACKS(made, edit.stacks)
    return made


_make = object.__new__
# The slots' own setters, for `moved_diagnostic`: every field of each class (a test holds them to
# `dataclasses.fields`, so that a field added above is not left unset there).
_SET_CODE, _SET_SEVERITY, _SET_MESSAGE, _SET_RANGE, _SET_FIXES, _SET_RELATED = (
    vars(Diagnostic)[name].__set__ for name in ("code", "severity", "message", "range", "fixes", "related")
)
_SET_TITLE, _SET_EDITS, _SET_SAFE = (vars(Fix)[name].__set__ for name in ("title", "edits", "safe"))
_SET_EDIT_RANGE, _SET_NEW_TEXT, _SET_STACKS = (vars(TextEdit)[name].__set__ for name in ("range", "new_text", "stacks"))
