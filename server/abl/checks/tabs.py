"""The fix of `TAB_INDENTATION`: every line's tabs of indentation written as the spaces the parser
reads them as (a tab reaches the next multiple of `TAB_WIDTH`), so the nesting that runs is the
one every editor shows. The scanner reports the warning; the fix needs the whole file.
"""

from __future__ import annotations

from dataclasses import replace

from abl.diagnostics import Diagnostic, Fix, TextEdit
from abl.syntax.cst import SourceFile
from abl.syntax.scanner import indent_width
from abl.text import Range

CODE = "TAB_INDENTATION"


def with_tab_fix(source: SourceFile, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """`diagnostics` with the re-indenting fix on a `TAB_INDENTATION` warning."""
    if not any(d.code == CODE for d in diagnostics):
        return diagnostics
    fix = _spaces_for_tabs(source)
    if fix is None:
        return diagnostics
    return [replace(d, fixes=(fix,)) if d.code == CODE else d for d in diagnostics]


def _spaces_for_tabs(source: SourceFile) -> Fix | None:
    index = source.index
    edits: list[TextEdit] = []
    rows = sorted({node.row for node in source.walk()})  # the lines whose indentation nests
    for row in rows:
        line = index.line_text(row)
        written = len(line) - len(line.lstrip(" \t"))
        if "\t" in line[:written]:
            edits.append(TextEdit(Range.on_line(row, 0, written), " " * indent_width(line)))
    if not edits:
        return None
    return Fix("Indent with spaces, as the lines nest now", tuple(edits), safe=True)
