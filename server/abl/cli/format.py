"""`abl format`: rewrite ABL files in their canonical layout, or report which ones differ."""

from __future__ import annotations

import argparse
import difflib
import sys
from dataclasses import dataclass
from pathlib import Path

from abl.cli.paths import input_problem
from abl.gcpause import paused_gc
from abl.ide.format import format_text, rows_under_values
from abl.workspace.index import discover


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "format",
        help="format ABL files in place",
        description="Format ABL files in place: canonical indentation and spacing, same meaning.",
    )
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files, or folders searched for *.abl")
    p.add_argument("--check", action="store_true", help="write nothing; exit 1 if any file would change")
    p.add_argument("--diff", action="store_true", help="write nothing; print a unified diff and exit 1 if any")
    p.set_defaults(handler=run)


@dataclass(slots=True)
class _Outcome:
    changed: list[Path]
    unchanged: int = 0
    failed: int = 0


def run(args: argparse.Namespace) -> int:
    with paused_gc():  # a short-lived command: collecting cycles would only slow it down
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    # A path that gives nothing to format is said and fails the run, after the others are done.
    problems = {raw: why for raw in args.paths if (why := input_problem(raw)) is not None}
    for why in problems.values():
        _error(why)
    files, missing = discover(raw for raw in args.paths if raw not in problems)
    outcome = _Outcome(changed=[], failed=len(problems) + len(missing))
    for raw in missing:  # gone since it was looked at
        _error(f"cannot read {raw}: no such file or directory")
    write = not (args.check or args.diff)
    for path in files:
        _format_file(path, outcome, write=write, show_diff=args.diff)
    if files:  # with no file found, the errors above are all there is to say
        _summary(outcome, write=write, listed=args.check and not args.diff)
    if outcome.failed:
        return 2
    return 1 if outcome.changed and not write else 0


def _format_file(path: Path, outcome: _Outcome, *, write: bool, show_diff: bool) -> None:
    text = _read(path)
    if text is None:
        outcome.failed += 1
        return
    formatted = format_text(text)
    _say_rows_under_values(path, text)
    if formatted == text:
        outcome.unchanged += 1
        return
    if write:
        try:
            path.write_bytes(formatted.encode("utf-8"))
        except OSError as err:
            _error(f"cannot write {path}: {err.strerror or err}")
            outcome.failed += 1
            return
    elif show_diff:
        sys.stdout.write(unified_diff(str(path), text, formatted))
    outcome.changed.append(path)


def _say_rows_under_values(path: Path, text: str) -> None:
    rows = rows_under_values(text)
    if rows:
        lines = ", ".join(str(row + 1) for row in rows[:5]) + (", ..." if len(rows) > 5 else "")
        print(
            f"{path}: {len(rows)} line(s) nested under a key that holds a value, left where they are: nothing reads "
            f"them ({'line' if len(rows) == 1 else 'lines'} {lines}; KEY_UNDER_VALUE; `abl check --fix --unsafe-fixes` moves them)",
            file=sys.stderr,
        )


def _read(path: Path) -> str | None:
    """The file as text, or None after saying why it cannot be read. A BOM is kept as U+FEFF,
    so that writing the text back keeps it."""
    try:
        data = path.read_bytes()
    except OSError as err:
        _error(f"cannot read {path}: {err.strerror or err}")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        _error(f"cannot read {path}: not valid UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start})")
        return None


def _summary(outcome: _Outcome, *, write: bool, listed: bool) -> None:
    if listed:
        for path in outcome.changed:
            print(f"Would reformat: {path}")
    n = len(outcome.changed)
    verb = "reformatted" if write else "would be reformatted"
    left = "left unchanged" if write else "already formatted"
    # With --diff, stdout holds only the diff (it can be piped to `patch`).
    stream = sys.stderr if not write and not listed else sys.stdout
    print(f"{_files(n)} {verb}, {_files(outcome.unchanged)} {left}", file=stream)


def _files(n: int) -> str:
    return f"{n} file" if n == 1 else f"{n} files"


def _error(message: str) -> None:
    print(f"abl format: error: {message}", file=sys.stderr)


def unified_diff(path: str, before: str, after: str) -> str:
    """A unified diff of two texts; a last line without a line end is marked as `diff` does."""
    lines = difflib.unified_diff(_lines(before), _lines(after), fromfile=path, tofile=path)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _lines(text: str) -> list[str]:
    """Lines ending at `\\n` only, as ABL reads them (a `\\r` stays inside its line)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines
