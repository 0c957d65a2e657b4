"""Renaming an agent in the conversation tests (`*.abltest.yaml`) that run its project, so
they still pass afterwards."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from abl.diagnostics import TextEdit
from abl.runtime.testing.agent_names import agent_name_spans
from abl.runtime.testing.loader import discover
from abl.runtime.testing.yamlread import FormatError, LineDict, read_yaml
from abl.text import LineIndex, Range
from abl.workspace import Project


def agent_rename_in_tests(project: Project, old: str, new: str, folders: Iterable[str]) -> dict[str, list[TextEdit]]:
    """The edits, by test file, that rename agent `old` to `new` in every test file under
    `folders` (the workspace's) whose `project:` is this project, a file of it, or a folder
    holding it."""
    root = Path(project.root).resolve()
    found, _missing = discover(folders)
    out: dict[str, list[TextEdit]] = {}
    for test_file in found:
        try:
            text = test_file.read_text(encoding="utf-8")
            data = read_yaml(test_file, text)
        except (OSError, UnicodeDecodeError, FormatError):
            continue  # unreadable: `abl test` says why; nothing here can be renamed safely
        if not (isinstance(data, LineDict) and _runs(test_file, data.get("project"), root)):
            continue
        index = LineIndex(text)
        edits = [TextEdit(Range(index.position(s), index.position(e)), new) for s, e in agent_name_spans(text, old)]
        if edits:
            out[str(test_file.absolute())] = edits
    return out


def _runs(test_file: Path, project: object, root: Path) -> bool:
    if not isinstance(project, str):
        return False
    target = (test_file.parent / project).resolve()
    return target == root or root in target.parents or target in root.parents
