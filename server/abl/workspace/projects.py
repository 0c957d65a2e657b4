"""Split the files under the given paths into projects.

A folder holding a `project.json` (the platform's project manifest) or an `abl.lock` is the
root of a project: the files under it are resolved against each other and against nothing
else. Files that no manifest claims form one project per folder given, and the files named
one by one (as pre-commit passes them) form one project together. This lets
`abl check examples/` check several independent projects that reuse agent names.

A single file inside a project (`abl check agents/hub.agent.abl`) is read together with the
rest of its project, so that the agents it routes to in other files are found; the project's
`focus` then names the files that were asked about.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from abl.workspace.index import Project, discover, read_files

MARKERS = ("project.json", "abl.lock")


def project_root(file: Path, stop: Path) -> Path | None:
    """The nearest folder from `file` up to `stop` (inclusive) that holds a manifest."""
    folder = file.parent.resolve()
    stop = stop.resolve()
    while True:
        if any((folder / m).is_file() for m in MARKERS):
            return folder
        if folder == stop or folder.parent == folder:
            return None
        folder = folder.parent


_LOOSE_FILES = "files:"  # the group of named files that no manifest claims


def _common_folder(paths: list[str]) -> str:
    """The deepest folder holding every named file (the root of the loose files' project)."""
    folders = [str(Path(p).resolve().parent) for p in paths if Path(p).is_file()]
    return os.path.commonpath(folders) if folders else os.getcwd()


def load_projects(paths: Iterable[str]) -> tuple[list[Project], list[str]]:
    """Read every file under `paths`, grouped into projects. Returns them and unreadable paths."""
    paths = list(paths)
    groups: dict[str, tuple[str, list[Path]]] = {}
    context: dict[str, set[str]] = {}  # project key -> files read only to resolve names
    problems: list[str] = []
    skipped: list[str] = []
    for raw in paths:
        files, missing = discover([raw], skipped)
        problems.extend(missing)
        single = Path(raw).is_file()
        base = Path(raw).parent if single else Path(raw)
        for f in files:
            root = project_root(f, Path(f.anchor) if single else base)
            if root is not None:
                key, folder = str(root), str(root)
            elif single:
                key, folder = _LOOSE_FILES, _common_folder(paths)
            else:
                key, folder = f"arg:{raw}", str(base.resolve())
            group = groups.setdefault(key, (folder, []))[1]
            if f not in group:
                group.append(f)
            if single and root is not None:
                siblings, _ = discover([str(root)])
                context.setdefault(key, set()).update(str(s) for s in siblings if s.resolve() != f.resolve())
    projects = []
    for key in sorted(groups):
        folder, files = groups[key]
        asked = {str(f) for f in files}
        extra = sorted(context.get(key, set()) - {str(Path(a).resolve()) for a in asked} - asked)
        project = Project(folder)
        read_files(project, files + [Path(e) for e in extra], problems)
        if extra:
            project.focus = frozenset(asked)
        projects.append(project)
    if projects:
        projects[0].skipped[:0] = skipped  # reported once, with the project list
    else:
        problems.extend(skipped)  # nothing could be read: say why rather than "no files"
    return projects, problems
