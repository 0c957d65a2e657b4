"""Which project a file belongs to, and the files under the given paths grouped into projects.

A file's project is the nearest folder above it holding `project.json` (the platform's project
manifest) or `abl.lock`; else the nearest holding a configuration (`abl.toml`, or a
`pyproject.toml` with a `[tool.abl]` table); else the root of the repository holding it (the
folder with `.git`); else the file's own folder. The search never leaves the repository: a
marker above its root belongs to something else. `abl check FILE`, the pre-commit hooks and the
language server (for a file opened outside its workspace folders) all ask `project_of`.

A project is read whole only up to `MAX_PROJECT_FILES` ABL files: above that (a file in a home
folder, say) only the named files are read, and the project says so in `skipped`.

`load_projects` groups the files under the given paths: a folder holding a manifest is a project
of its own, and the files under it are resolved against each other and against nothing else.
Files that no manifest claims form one project per folder given. A file named one by one is read
together with the rest of its project, so that the agents it routes to in other files are
found; the project's `focus` then names the files that were asked about. This lets
`abl check examples/` check several independent projects that reuse agent names.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from abl.workspace.index import Project, discover, read_files, walk

MARKERS = ("project.json", "abl.lock")
CONFIG_FILE = "abl.toml"
PYPROJECT = "pyproject.toml"
REPOSITORY = ".git"  # a folder in a clone, a file in a worktree or submodule
# A project with more ABL files than this is not read whole for a lone file (nor indexed whole
# by the language server when a file inside it is opened alone).
MAX_PROJECT_FILES = 2_000

_PYPROJECT_HEADER = re.compile(r"^\s*\[\s*tool\s*\.\s*abl\s*[\].]", re.M)


def config_file_in(folder: Path) -> Path | None:
    """The configuration file of `folder` itself: `abl.toml`, else a `pyproject.toml` that has a
    `[tool.abl]` (or `[tool.abl.<table>]`) header."""
    own = folder / CONFIG_FILE
    if own.is_file():
        return own
    pyproject = folder / PYPROJECT
    if pyproject.is_file() and _declares_abl(pyproject):
        return pyproject
    return None


def _declares_abl(pyproject: Path) -> bool:
    try:
        return _PYPROJECT_HEADER.search(pyproject.read_text(encoding="utf-8")) is not None
    except (OSError, UnicodeDecodeError):
        return False


def has_manifest(folder: Path) -> bool:
    return any((folder / m).is_file() for m in MARKERS)


@dataclass(frozen=True, slots=True)
class ProjectChoice:
    """The project of a file: its root folder, and why that folder (as a user reads it)."""

    root: Path
    reason: str


def project_of(file: Path) -> ProjectChoice:
    """The project `file` belongs to (see the module's docstring for the rule)."""
    start = Path(file).absolute().parent
    searched: list[Path] = []
    for folder in (start, *start.parents):
        searched.append(folder)
        if (folder / REPOSITORY).exists():
            break
    for folder in searched:
        marker = next((m for m in MARKERS if (folder / m).is_file()), None)
        if marker is not None:
            return ProjectChoice(folder, f"it holds {marker}")
    for folder in searched:
        config = config_file_in(folder)
        if config is not None:
            what = config.name if config.name == CONFIG_FILE else f"{config.name} with [tool.abl]"
            return ProjectChoice(folder, f"it holds {what}, and no project.json or abl.lock is nearer")
    top = searched[-1]
    if (top / REPOSITORY).exists():
        return ProjectChoice(top, "the repository root: no project.json, abl.lock or configuration above the file")
    return ProjectChoice(start, "the file's folder: no project.json, abl.lock, configuration or repository above it")


def project_files(root: Path, skipped: list[str] | None = None) -> list[Path] | None:
    """The ABL files of the project rooted at `root`: those under it that no nested manifest
    claims, as checking the folder would group them. None when there are more than
    `MAX_PROJECT_FILES`: the walk stops there."""
    resolved = root.resolve()
    own = walk(root, resolved, skipped, enter=lambda folder: not has_manifest(folder))
    files = list(islice(own, MAX_PROJECT_FILES + 1))
    return files if len(files) <= MAX_PROJECT_FILES else None


def load_projects(paths: Iterable[str]) -> tuple[list[Project], list[str]]:
    """Read every file under `paths`, grouped into projects. Returns them and unreadable paths."""
    groups: dict[str, _Group] = {}  # by root
    problems: list[str] = []
    skipped: list[str] = []
    for raw in paths:
        files, missing = discover([raw], skipped)
        problems.extend(missing)
        if Path(raw).is_file():
            choice = project_of(Path(raw))
            root = str(choice.root.resolve())
            group = groups.setdefault(root, _Group(f"{root} (the project of {raw}: {choice.reason})"))
            group.lone = True
            group.add(files)
            continue
        for f in files:
            manifest = _manifest_root(f, Path(raw))
            root = str(manifest) if manifest is not None else str(Path(raw).resolve())
            why = "it holds a project manifest" if manifest is not None else "a folder named"
            groups.setdefault(root, _Group(f"{root} ({why})")).add([f])
    projects = [groups[root].read(root, problems) for root in sorted(groups)]
    if projects:
        projects[0].skipped[:0] = skipped  # reported once, with the project list
    else:
        problems.extend(skipped)  # nothing could be read: say why rather than "no files"
    return projects, problems


class _Group:
    """The files asked about in one project, and whether one was named alone (then the rest of
    the project is read too, to resolve names)."""

    def __init__(self, origin: str) -> None:
        self.origin = origin
        self.asked: dict[str, Path] = {}  # by absolute path: a file named twice is read once
        self.lone = False

    def add(self, files: Iterable[Path]) -> None:
        for f in files:
            self.asked.setdefault(os.path.abspath(f), f)

    def read(self, root: str, problems: list[str]) -> Project:
        project = Project(root, origin=self.origin)
        files = list(self.asked.values())
        if self.lone:
            found = project_files(Path(root))
            if found is None:
                project.skipped.append(
                    f"{root}: not read whole: it holds more than {MAX_PROJECT_FILES} ABL files, so only the "
                    "named files were read (names they take from its other files are not found)"
                )
            else:
                files = _in_project_order(found, files)
        read_files(project, files, problems)
        if len(files) > len(self.asked):
            project.focus = frozenset(str(f) for f in self.asked.values())
        return project


def _in_project_order(found: list[Path], asked: list[Path]) -> list[Path]:
    """The project's files in the order checking its folder reads them (which of two agents of
    one name is found first depends on it), each named file under the name it was given."""
    named = {f.resolve(): f for f in asked}
    ordered = [named.pop(f.resolve(), f) for f in found]
    return ordered + [f for f in asked if f.resolve() in named]


def _manifest_root(file: Path, stop: Path) -> Path | None:
    """The nearest folder from `file` up to `stop` (inclusive) that holds a manifest."""
    folder = file.parent.resolve()
    stop = stop.resolve()
    while True:
        if has_manifest(folder):
            return folder
        if folder == stop or folder.parent == folder:
            return None
        folder = folder.parent
