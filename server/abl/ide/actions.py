"""Code actions: each diagnostic's quick fixes, and "fix all safe problems in this file".

Safe fixes keep the file's meaning and are preferred; unsafe ones change what runs, so they are
offered with a title that says so and never applied in bulk. Bulk fixing takes errors and
warnings only: a hint's fix (inserting a default) is a suggestion, not a repair; and, as with
`--fix`, not inside a block that does not parse.
"""

from __future__ import annotations

from dataclasses import dataclass

from abl.checks.fixes import UNREADABLE_CODES, apply_edits, settled, unsettled_rows
from abl.diagnostics import Diagnostic, Severity, TextEdit
from abl.ide.edits import WorkspaceEdit
from abl.syntax import parse
from abl.text import LineIndex, Range


@dataclass(frozen=True, slots=True)
class Action:
    title: str
    edit: WorkspaceEdit
    diagnostic: Diagnostic | None = None
    preferred: bool = False
    fixes_all: bool = False  # every safe fix of the file, not one diagnostic's


def quick_fixes(path: str, diagnostics: list[Diagnostic], where: Range) -> list[Action]:
    """The fixes of every diagnostic that touches `where`."""
    actions = []
    for d in diagnostics:
        if d.range.end < where.start or where.end < d.range.start:
            continue
        for fix in d.fixes:
            edit = WorkspaceEdit()
            for e in fix.edits:
                edit.add(path, e)
            title = fix.title if fix.safe else f"{fix.title} (changes behaviour)"
            actions.append(Action(title, edit, d, preferred=fix.safe and fix is d.fixes[0]))
    return actions


def fix_all(path: str, text: str, diagnostics: list[Diagnostic]) -> Action | None:
    """One edit that applies the first safe fix of every error and warning in the file."""
    edits: list[TextEdit] = []
    spans = unsettled_rows(parse(text)) if any(d.code in UNREADABLE_CODES for d in diagnostics) else []
    for d in diagnostics:
        first_safe = next((f for f in d.fixes if f.safe), None)
        if d.severity is not Severity.HINT and first_safe is not None and settled(d, first_safe, spans):
            edits.extend(first_safe.edits)
    if not edits:
        return None
    fixed, applied = apply_edits(text, edits)
    if not applied or fixed == text:
        return None
    edit = WorkspaceEdit()
    edit.add(path, _difference(text, fixed))
    return Action("Fix all safe problems in this file", edit, fixes_all=True)


def _difference(old: str, new: str) -> TextEdit:
    """The smallest single edit turning `old` into `new`."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    index = LineIndex(old)
    return TextEdit(Range(index.position(start), index.position(end_old)), new[start:end_new])
