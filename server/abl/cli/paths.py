"""The paths a command is given, judged before it does any work.

Inputs: every path must exist, and a folder must hold an ABL file, or the command stops (exit 2)
instead of reporting on nothing. Outputs (`--output-file`, `-o`, `--trace-out`, `--record`,
`--session`): a path that cannot be written stops the command before it starts, with the
operating system's reason, instead of losing what the work produced. Nothing here creates a
folder, and a probe leaves nothing behind.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from abl.workspace.index import holds_abl


class PathRefused(Exception):
    """A path the command cannot use; the message says which and why."""


def check_inputs(paths: Iterable[str]) -> None:
    """PathRefused for the first path that is missing or a folder without ABL files."""
    for raw in paths:
        why = input_problem(raw)
        if why is not None:
            raise PathRefused(why)


def input_problem(raw: str) -> str | None:
    """Why the command can read nothing from `raw` (missing, or a folder without ABL files)."""
    path = Path(raw)
    if path.is_dir():
        return None if holds_abl(path) else f"{raw} holds no ABL file (*.abl); check the path"
    return None if path.exists() else f"cannot read {raw}: no such file or directory"


def output_path(raw: str, option: str, *, replaced: bool = False) -> Path:
    """`raw` as a path that can be written, or PathRefused with the reason it cannot.

    `replaced`: the file is written beside and renamed over (a trace, a session, a recorded
    test), so its folder must take new files even when the file exists."""
    path = Path(raw)
    why = _why_not_writable(path, replaced=replaced)
    if why is not None:
        raise PathRefused(f"cannot write {raw} ({option}): {why}")
    return path


def _why_not_writable(path: Path, *, replaced: bool) -> str | None:
    if os.path.lexists(path):
        try:
            # Opening for appending, without blocking on a pipe, changes nothing in the file.
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK))
        except OSError as err:
            return _reason(err, path)
        return _why_folder_refuses(path.parent) if replaced else None
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except OSError as err:
        return _reason(err, path)
    os.unlink(path)
    return None


def _why_folder_refuses(folder: Path) -> str | None:
    try:
        handle, probe = tempfile.mkstemp(prefix=".abl-probe-", dir=folder)
    except OSError as err:
        return _reason(err, folder)
    os.close(handle)
    os.unlink(probe)
    return None


def _reason(err: OSError, path: Path) -> str:
    said = err.strerror or str(err)
    if err.errno == errno.ENOENT:
        return f"{said} (the folder {path.parent} does not exist; create it first)"
    if err.errno == errno.ENOTDIR:
        return f"{said} (a part of the path above the file is a file, not a folder)"
    return said
