"""Apply the fixes of the reported diagnostics to a project, in memory, until nothing changes.

Only the diagnostics the caller reports are fixed (the caller's `check` decides: after the
configuration, suppressions and hint visibility), and of each one only its first applicable fix:
its first safe fix, or with `unsafe` its first fix of any kind. The rules list a diagnostic's
fixes in the order of what the author most likely meant, so that fix is the one that keeps the
author's intent when several compete.

Fixes are applied whole, the earlier diagnostic's first; one that overlaps a fix already taken
waits for the next pass, where it is judged again on the new text (it may no longer apply);
insertions that say they stack share their place instead (items appended to one list). Passes
repeat until a pass changes nothing, so a second run finds nothing left to do; should they run
out, or come back to a text they made before, the outcome says it did not settle. A file
that was not valid UTF-8 is never fixed: writing it back would replace its unreadable bytes. In
a top-level block the parser could not read (a syntax error in it), which block a line belongs
to is a guess, so fixes there (safe or not) wait until the block parses (`fixes.unsettled_rows`);
the parser's own diagnostics are fixed all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from abl.checks.fixes import UNREADABLE_CODES, apply_fixes, settled, unsettled_rows
from abl.diagnostics import Diagnostic, Fix
from abl.workspace import Project

# More passes than any chain of fixes in the catalogue needs (fixes that would wait for one
# another at one place stack instead, see `TextEdit.stacks`); a guard, not a limit anyone should
# reach. Fixes that undo each other are caught sooner: a text seen before ends the passes.
MAX_PASSES = 100


@dataclass(slots=True)
class FixOutcome:
    """What the passes did: the new text of each changed file, and the diagnostics fixed."""

    original: dict[str, str] = field(default_factory=dict)  # path -> text before any fix
    texts: dict[str, str] = field(default_factory=dict)  # path -> text after the fixes
    fixed: dict[str, list[Diagnostic]] = field(default_factory=dict)  # in the text of their pass

    settled: bool = True  # False when the passes ran out (or went round in a circle) with fixes left

    @property
    def changed(self) -> list[str]:
        return [path for path, text in self.texts.items() if text != self.original[path]]


def chosen_fix(diagnostic: Diagnostic, unsafe: bool) -> Fix | None:
    """The fix `--fix` applies for `diagnostic`: its first safe one, or with `unsafe` its first."""
    return next((f for f in diagnostic.fixes if f.safe or unsafe), None)


def applicable(
    project: Project, path: str, diagnostics: Iterable[Diagnostic], unsafe: bool
) -> list[tuple[Diagnostic, Fix]]:
    """Each of `diagnostics` of `path` with the fix `--fix` would apply for it now: none in a file
    that is not valid UTF-8 (never written back), none in a block the parser could not read."""
    if project.read_diagnostics.get(path):
        return []
    return _chosen(diagnostics, unsafe, unsettled_rows(project.documents[path].source))


def fix_project(
    project: Project,
    paths: Iterable[str],
    check: Callable[[str], list[Diagnostic]],
    *,
    unsafe: bool = False,
) -> FixOutcome:
    """Fix `paths` of `project` in place (the project's texts are updated, no file is written).
    `check(path)` gives the diagnostics reported for one file of the current project."""
    outcome = FixOutcome()
    fixable = [p for p in paths if not project.read_diagnostics.get(p)]
    seen = {p: {hash(project.texts[p])} for p in fixable}  # each file's texts so far, hashed
    for _ in range(MAX_PASSES):
        changed = False
        for path in fixable:
            # A fix waits while its block does not parse: which block a line belongs to is the
            # parser's guess there, so an edit may land beside what it means to change.
            chosen = applicable(project, path, check(path), unsafe)
            if not chosen:
                continue
            text = project.texts[path]
            new_text, applied = apply_fixes(text, [f for _, f in chosen])
            if new_text == text:
                continue
            outcome.original.setdefault(path, text)
            outcome.fixed.setdefault(path, []).extend(chosen[i][0] for i in applied)
            outcome.texts[path] = new_text
            project.update(path, new_text)
            changed = True
            if hash(new_text) in seen[path]:  # a text seen before: fixes that undo one another
                outcome.settled = False
                return outcome
            seen[path].add(hash(new_text))
        if not changed:
            return outcome
    outcome.settled = False
    return outcome


def _chosen(
    diagnostics: Iterable[Diagnostic], unsafe: bool, spans: Sequence[tuple[int, int]]
) -> list[tuple[Diagnostic, Fix]]:
    """Each diagnostic with the fix `--fix` applies for it now. A fix offered by many diagnostics
    (one list rewritten for each of its bad items) is judged once."""
    judged: dict[int, bool] = {}
    chosen = []
    for d in diagnostics:
        fix = chosen_fix(d, unsafe)
        if fix is None:
            continue
        if spans:
            key = id(fix) if d.code not in UNREADABLE_CODES else -1 - id(fix)
            if key not in judged:
                judged[key] = settled(d, fix, spans)
            if not judged[key]:
                continue
        chosen.append((d, fix))
    return chosen
