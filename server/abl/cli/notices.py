"""The notice `abl run` and `abl test` print on standard error before the first message: what
the agents of the run declare that runs on the platform but not locally (`runtime.local_limits`)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TextIO

from abl.runtime.local_limits import NotEnforced, notice, reachable_not_enforced
from abl.workspace import Project


def print_not_enforced(command: str, starts: Iterable[tuple[Project, str]], stream: TextIO) -> None:
    """One notice for every session start (project, entry agent), each construct listed once;
    files are named relative to the working folder when they sit under it."""
    items: list[NotEnforced] = []
    seen: set[tuple[str, int, int, str]] = set()
    for project, entry in starts:
        for item in reachable_not_enforced(project, entry):
            key = (item.path, item.range.start.line, item.range.start.character, item.construct)
            if key not in seen:
                seen.add(key)
                items.append(item)
    cwd = os.getcwd()
    lines = notice(command, items, {item.path: _relative(item.path, cwd) for item in items})
    if lines:
        stream.write("\n".join(lines) + "\n")
        stream.flush()


def _relative(path: str, base: str) -> str:
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel
