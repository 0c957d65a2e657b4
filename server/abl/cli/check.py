"""`abl check`: compiler-style diagnostics for files and folders, with fixes, as a CI runs it.

Each project is checked under its configuration (`abl.config`: the nearest `abl.toml` or
`pyproject.toml` `[tool.abl]` above the project, or `--config`), whose selection, severities and
suppression comments decide what is reported. `--fix` applies the first safe fix of each
reported diagnostic (`--unsafe-fixes`: its first fix of any kind) until nothing changes,
`--diff` shows what that would change without writing, `--watch` checks again on every change.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from abl.checks.autofix import MAX_PASSES, FixOutcome, fix_project
from abl.checks.engine import DEFAULT_OPTIONS, check_file, has_errors
from abl.cli import report
from abl.cli.format import unified_diff
from abl.cli.paths import PathRefused, check_inputs, output_path
from abl.cli.terminal import add_color_option, wants_color
from abl.config import DEFAULT, Config, ConfigProblem, find_config, load_config, unknown_selector
from abl.diagnostics import Diagnostic, Severity
from abl.gcpause import paused_gc
from abl.wording import count
from abl.workspace import Project, load_projects
from abl.workspace.index import discover
from abl.workspace.projects import project_files, project_of

FORMATS = ("text", "json", "sarif", "github")
# How often `--watch` looks at the files' modification times.
WATCH_INTERVAL = 0.5


class UsageError(Exception):
    """A problem with the command line or the configuration: printed as is, exit code 2."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="report problems in ABL files", description="Report problems in ABL files.")
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files, or folders searched for *.abl")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("--strict", action="store_true", help="warnings fail the run too")
    p.add_argument("--all", action="store_true", help="also print hints (production-readiness notes)")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when problems are found")
    fixing = p.add_argument_group("fixes")
    fixing.add_argument("--fix", action="store_true", help="apply the safe fixes of the reported problems in place")
    fixing.add_argument(
        "--unsafe-fixes", action="store_true", help="with --fix, --diff or --fix-only: apply unsafe fixes too"
    )
    fixing.add_argument("--fix-only", action="store_true", help="apply fixes and report only what was fixed")
    fixing.add_argument("--diff", action="store_true", help="print what --fix would change as a diff; write nothing")
    fixing.add_argument("--show-fixes", action="store_true", help="list every fix that was applied")
    selecting = p.add_argument_group("selection (adds to the configuration file)")
    selecting.add_argument("--config", metavar="FILE", help="use this abl.toml or pyproject.toml instead of searching")
    selecting.add_argument("--select", metavar="CODES", help="only these codes or groups, comma-separated")
    selecting.add_argument("--extend-select", metavar="CODES", help="also these codes or groups")
    selecting.add_argument("--ignore", metavar="CODES", help="leave out these codes or groups")
    output = p.add_argument_group("output")
    output.add_argument("--statistics", action="store_true", help="count the problems per code instead of listing them")
    output.add_argument("--output-file", metavar="FILE", help="write the report to FILE instead of standard output")
    output.add_argument("--watch", action="store_true", help="check again whenever a file changes (Ctrl-C stops)")
    output.add_argument(
        "--verbose", "-v", action="store_true", help="say which project each file belongs to and every file read"
    )
    add_color_option(output)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with paused_gc():  # a short-lived command: collecting cycles would only slow it down
        try:
            _validate(args)
            if args.watch:
                return _watch(args)
            return _run_once(args)
        except UsageError as problem:
            print(f"abl check: error: {problem}", file=sys.stderr)
            return 2


# --- one run ----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Unit:
    """One project, the configuration it is checked under, and the files to report."""

    project: Project
    config: Config
    files: list[str]


@dataclass(slots=True)
class _Results:
    diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    fixed: dict[str, list[Diagnostic]] = field(default_factory=dict)
    diffs: list[str] = field(default_factory=list)


def _run_once(args: argparse.Namespace) -> int:
    results = _Results()
    for unit in _units(args):
        _check_unit(unit, args, results)
    return _report(args, results)


def _check_unit(unit: _Unit, args: argparse.Namespace, results: _Results) -> None:
    if args.fix or args.fix_only or args.diff:
        outcome = fix_project(
            unit.project, unit.files, lambda path: _diagnostics(unit, path, args), unsafe=args.unsafe_fixes
        )
        _use_fixes(outcome, write=not args.diff, results=results)
        if not outcome.settled:
            print(
                f"abl check: warning: the fixes did not settle (after {MAX_PASSES} passes, or fixes undid one "
                "another); run `abl check` again to see what is left",
                file=sys.stderr,
            )
        if args.fix_only or args.diff:
            return  # only what was fixed is reported
    for path in unit.files:
        results.diagnostics[path] = _diagnostics(unit, path, args)
        results.texts[path] = unit.project.texts[path]


def _diagnostics(unit: _Unit, path: str, args: argparse.Namespace) -> list[Diagnostic]:
    """What is reported for one file: the configuration's view, hints only when shown."""
    found = check_file(unit.project, path, DEFAULT_OPTIONS)
    found = unit.config.filter(path, unit.project.texts[path], found)
    if unit.project.read_diagnostics.get(path):
        # Not valid UTF-8: `--fix` never writes such a file, so no fix is offered in it.
        found = [dataclasses.replace(d, fixes=()) if d.fixes else d for d in found]
    if args.all or args.format != "text":
        return found
    return [d for d in found if d.severity is not Severity.HINT]


def _use_fixes(outcome: FixOutcome, *, write: bool, results: _Results) -> None:
    for path in outcome.changed:
        if write:
            try:
                Path(path).write_bytes(outcome.texts[path].encode("utf-8"))
            except OSError as err:
                raise UsageError(f"cannot write {path}: {err.strerror or err}") from err
        else:
            results.diffs.append(unified_diff(path, outcome.original[path], outcome.texts[path]))
        results.fixed[path] = outcome.fixed[path]


def _report(args: argparse.Namespace, results: _Results) -> int:
    if args.diff:
        _emit(args, "".join(results.diffs))
        fixes = sum(len(d) for d in results.fixed.values())
        print(
            f"{count(fixes, 'fix', 'fixes')} would be applied in {count(len(results.diffs), 'file')}", file=sys.stderr
        )
        return 1 if results.diffs and not args.exit_zero else 0
    color = args.output_file is None and wants_color(args.color)
    if args.fix_only:
        out = report.fixed_summary(results.fixed, unsafe=args.unsafe_fixes, detailed=args.show_fixes)
    elif args.statistics:
        out = report.statistics(args.format, results.diagnostics, unsafe=args.unsafe_fixes)
    else:
        out = report.render(
            args.format,
            results.texts,
            results.diagnostics,
            results.fixed,
            color=color,
            unsafe=args.unsafe_fixes,
            show_fixes=args.show_fixes,
        )
    _emit(args, out)
    if args.exit_zero or args.fix_only:
        return 0
    every = [d for diags in results.diagnostics.values() for d in diags]
    return 1 if has_errors(every, strict=args.strict) else 0


def _emit(args: argparse.Namespace, text: str) -> None:
    if args.output_file is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(args.output_file).write_text(text, encoding="utf-8")
    except OSError as err:
        raise UsageError(f"cannot write {args.output_file}: {err.strerror or err}") from err


# --- projects and their configuration --------------------------------------------------------------


def _units(args: argparse.Namespace) -> list[_Unit]:
    """Every project under the paths, each with its configuration and the files to report."""
    try:
        check_inputs(args.paths)
    except PathRefused as refused:
        raise UsageError(str(refused)) from None
    projects, unreadable = load_projects(args.paths)
    if unreadable:
        raise UsageError("; ".join(f"cannot read {p}" for p in unreadable))
    for project in projects:
        for line in project.skipped:
            print(f"abl check: warning: {line}", file=sys.stderr)
    named = {str(Path(raw)) for raw in args.paths if Path(raw).is_file()}
    configs = _Configs(args)
    units = []
    for project in projects:
        config = configs.for_path(Path(project.root))
        project.default_history = config.default_history
        files = [
            path
            for path in sorted(project.documents)
            if (project.focus is None or path in project.focus) and (path in named or config.is_included(path))
        ]
        units.append(_Unit(project, config, files))
        if args.verbose:
            _say_what_was_read(project, files)
    if not any(unit.files for unit in units):
        raise UsageError(f"every ABL file under {', '.join(args.paths)} is excluded by the configuration")
    return units


def _say_what_was_read(project: Project, reported: list[str]) -> None:
    """`--verbose`: the project, why it is one, and each file read (those reported marked)."""
    shown = set(reported)
    print(
        f"abl check: project {project.origin or project.root}: {count(len(project.documents), 'file')} read, "
        f"{len(reported)} reported",
        file=sys.stderr,
    )
    for path in sorted(project.documents):
        role = "checked" if path in shown else "read to resolve names"
        print(f"  {path}  ({role})", file=sys.stderr)


class _Configs:
    """Configuration files by path, each read once, with the command line's selection on top."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.loaded: dict[Path, Config] = {}
        self.chosen = Path(args.config) if args.config else None
        if self.chosen is not None and not self.chosen.is_file():
            raise UsageError(f"cannot read the configuration {args.config}: no such file")

    def for_path(self, start: Path) -> Config:
        path = self.chosen or find_config(start)
        if path is None:
            return self._overrides(DEFAULT)
        if path not in self.loaded:
            config, problems = load_config(path)
            if problems:
                raise UsageError(_config_problems(problems))
            self.loaded[path] = self._overrides(config)
        return self.loaded[path]

    def _overrides(self, config: Config) -> Config:
        a = self.args
        return config.with_overrides(
            select=_codes(a.select) if a.select is not None else None,
            extend_select=_codes(a.extend_select),
            ignore=_codes(a.ignore),
        )


def _config_problems(problems: list[ConfigProblem]) -> str:
    first, *rest = problems
    more = f" (and {count(len(rest), 'more problem')} in the file)" if rest else ""
    return f"{first}{more}"


def _codes(written: str | None) -> list[str]:
    return [c.strip() for c in (written or "").split(",") if c.strip()]


def _validate(args: argparse.Namespace) -> None:
    """Flag combinations and code lists, before anything is read."""
    for flag, written in (
        ("--select", args.select),
        ("--extend-select", args.extend_select),
        ("--ignore", args.ignore),
    ):
        for code in _codes(written):
            why = unknown_selector(code)
            if why is not None:
                raise UsageError(f"{flag}: {why}")
    if args.diff and args.format != "text":
        raise UsageError("--diff prints a unified diff; it cannot be combined with --format " + args.format)
    if args.diff and args.fix:
        raise UsageError("--diff shows what --fix would change without writing; use one of the two")
    if args.watch and (args.diff or args.output_file):
        raise UsageError("--watch prints to the terminal; it cannot be combined with --diff or --output-file")
    if args.output_file is not None:
        try:
            output_path(args.output_file, "--output-file")
        except PathRefused as refused:
            raise UsageError(str(refused)) from None


# --- watching ------------------------------------------------------------------------------------


def _watch(args: argparse.Namespace) -> int:
    """Check, then check again whenever an ABL or configuration file changes; Ctrl-C ends it (0)."""
    try:
        seen = _stamps(args)
        while True:
            try:
                _run_once(args)
            except UsageError as problem:
                print(f"abl check: error: {problem}", file=sys.stderr)
            print("[watching for changes; Ctrl-C to stop]", file=sys.stderr, flush=True)
            while (now := _stamps(args)) == seen:
                time.sleep(WATCH_INTERVAL)
            seen = now
    except KeyboardInterrupt:
        return 0


def _stamps(args: argparse.Namespace) -> dict[str, tuple[int, int]]:
    """Modification time and size of every file the check reads."""
    stamps = {}
    for path in _watched(args):
        try:
            stat = path.stat()
        except OSError:
            continue
        stamps[str(path)] = (stat.st_mtime_ns, stat.st_size)
    return stamps


def _watched(args: argparse.Namespace) -> Iterator[Path]:
    files, _ = discover(args.paths)
    yield from files
    for raw in args.paths:
        if Path(raw).is_file():  # read with the rest of its project, which may change too
            yield from project_files(project_of(Path(raw)).root) or ()
    if args.config:
        yield Path(args.config)
    for raw in args.paths:
        found = find_config(Path(raw))
        if found is not None:
            yield found
