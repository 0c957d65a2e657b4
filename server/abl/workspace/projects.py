"""Split the files under the given paths into projects.

A folder holding a `project.json` (the platform's project manifest) or an `abl.lock` is the
root of a project: the files under it are resolved against each other and against nothing
else. Files that no manifest claims form one project per path given, as before. This lets
`abl check examples/` check several independent projects that reuse agent names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

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


def load_projects(paths: Iterable[str]) -> tuple[list[Project], list[str]]:
    """Read every file under `paths`, grouped into projects. Returns them and unreadable paths."""
    groups: dict[str, tuple[str, list[Path]]] = {}
    problems: list[str] = []
    for raw in paths:
        files, missing = discover([raw])
        problems.extend(missing)
        base = Path(raw) if Path(raw).is_dir() else Path(raw).parent
        for f in files:
            root = project_root(f, base)
            key = str(root) if root is not None else f"arg:{raw}"
            groups.setdefault(key, (str(root) if root is not None else str(base.resolve()), []))[1].append(f)
    projects = []
    for key in sorted(groups):
        root, files = groups[key]
        project = Project(root)
        read_files(project, files, problems)
        projects.append(project)
    return projects, problems
