"""`abl check`: compiler-style diagnostics for files and folders, with safe fixes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from abl.checks.engine import CheckOptions, check_project, has_errors
from abl.checks.fixes import apply_edits
from abl.cli import report
from abl.diagnostics import Diagnostic, Severity
from abl.gcpause import paused_gc
from abl.workspace import Project, load_projects

FORMATS = ("text", "json", "sarif", "github")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="report problems in ABL files", description="Report problems in ABL files.")
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files, or folders searched for *.abl")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("--strict", action="store_true", help="warnings fail the run too")
    p.add_argument("--all", action="store_true", help="also print hints (production-readiness notes)")
    p.add_argument("--fix", action="store_true", help="apply safe fixes in place and report what changed")
    p.add_argument("--select", metavar="CODES", help="only these codes, comma-separated")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with paused_gc():  # a short-lived command: collecting cycles would only slow it down
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    projects, problems = load_projects(args.paths)
    if problems:
        for p in problems:
            print(f"abl check: error: cannot read {p}", file=sys.stderr)
        return 2
    select = frozenset(c.strip() for c in args.select.split(",") if c.strip()) if args.select else None
    if select is not None:
        from abl.checks.registry import BY_CODE

        unknown = sorted(c for c in select if c not in BY_CODE)
        if unknown:
            print(f"abl check: error: unknown code(s): {', '.join(unknown)}", file=sys.stderr)
            return 2
    options = CheckOptions(select=select)
    results: dict[str, list[Diagnostic]] = {}
    fixed: dict[str, list[Diagnostic]] = {}
    texts: dict[str, str] = {}
    for project in projects:
        project_results = check_project(project, options)
        if project.focus is not None:
            project_results = {p: d for p, d in project_results.items() if p in project.focus}
        if args.fix:
            project_fixed = _apply_safe_fixes(project, project_results)
            if project_fixed:
                for path in project_fixed:
                    project.update(path, Path(path).read_bytes().decode("utf-8"))
                project_results = check_project(project, options)
            fixed.update(project_fixed)
        results.update(project_results)
        texts.update(project.texts)
    shown = {
        path: [d for d in diags if args.all or args.format != "text" or d.severity is not Severity.HINT]
        for path, diags in results.items()
    }
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    out = report.render(args.format, texts, shown, fixed, color=color)
    sys.stdout.write(out)
    every = [d for diags in results.values() for d in diags]
    return 1 if has_errors(every, strict=args.strict) else 0


def _apply_safe_fixes(project: Project, results: dict[str, list[Diagnostic]]) -> dict[str, list[Diagnostic]]:
    changed: dict[str, list[Diagnostic]] = {}
    for path, diags in results.items():
        fixable = [d for d in diags if any(f.safe for f in d.fixes)]
        if not fixable:
            continue
        # Take the first safe fix of each diagnostic only.
        edits = [e for d in fixable for e in next(f for f in d.fixes if f.safe).edits]
        text = project.texts[path]
        new_text, applied = apply_edits(text, edits)
        if applied and new_text != text:
            Path(path).write_bytes(new_text.encode("utf-8"))
            changed[path] = fixable
    return changed
