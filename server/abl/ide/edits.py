"""Edits that may touch several files: what rename and cross-file fixes return."""

from __future__ import annotations

from dataclasses import dataclass, field

from abl.diagnostics import TextEdit


@dataclass(slots=True)
class WorkspaceEdit:
    """Text edits by file path. Edits of one file never overlap and are kept in source order."""

    changes: dict[str, list[TextEdit]] = field(default_factory=dict)

    def add(self, path: str, edit: TextEdit) -> None:
        edits = self.changes.setdefault(path, [])
        if any(e.range == edit.range for e in edits):
            return  # the same place reached twice (a name both read and written on one line)
        edits.append(edit)
        edits.sort(key=lambda e: (e.range.start, e.range.end))

    def __bool__(self) -> bool:
        return any(self.changes.values())

    @property
    def paths(self) -> list[str]:
        return sorted(p for p, edits in self.changes.items() if edits)
