"""`abl test`: run conversation tests (`*.abltest.yaml`) and report like pytest.

One `PASS`/`FAIL name` line per test as it finishes, then a diff for each failure (expected
against actual, with the turn's replies and trace), the coverage summary, and the last line
`N passed, M failed` (`, K skipped` when some were). Exit 0 when everything passed, 1 when a
test failed, 2 when a file cannot be read or is malformed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from abl.launch import conversation_loader
from abl.runtime.testing.coverage import Coverage, compute_coverage
from abl.runtime.testing.format import Conversation, ConversationFile
from abl.runtime.testing.loader import discover, load_file
from abl.runtime.testing.render import coverage_full, coverage_short, render_failure, status_line, summary_line
from abl.runtime.testing.runner import ConversationResult, ProjectProblem, Runner
from abl.runtime.testing.yamlread import FormatError

_GREEN, _RED, _YELLOW, _BOLD, _RESET = "\x1b[32m", "\x1b[31m", "\x1b[33m", "\x1b[1m", "\x1b[0m"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "test",
        help="run conversation tests (*.abltest.yaml)",
        description="Run conversation tests: files, or folders searched for *.abltest.yaml.",
    )
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="test files or folders (default: .)")
    p.add_argument("-k", metavar="TEXT", dest="keyword", help="only tests whose name contains TEXT (any case)")
    p.add_argument("-x", "--exitfirst", action="store_true", help="stop after the first failing test")
    p.add_argument(
        "--coverage",
        action="store_true",
        help="list every route, WHEN outcome, COMPLETE rule and GATHER field never exercised",
    )
    p.add_argument("--no-coverage", action="store_true", help="leave out the short coverage summary")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    files, missing = discover(args.paths)
    for path in missing:
        print(f"abl test: error: {path} does not exist", file=sys.stderr)
    if missing:
        return 2
    if not files:
        print(f"abl test: error: no *.abltest.yaml files under {', '.join(args.paths)}", file=sys.stderr)
        return 2
    loaded: list[ConversationFile] = []
    problems: list[str] = []
    for path in files:
        try:
            loaded.append(load_file(path))
        except FormatError as err:
            problems.append(str(err))
    if problems:
        for problem in problems:
            print(f"abl test: error: {problem}", file=sys.stderr)
        return 2
    color = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
    keep = _keyword_filter(args.keyword)
    runner = Runner(conversation_loader())
    if args.keyword and not any(keep(c) for f in loaded for c in f.conversations):
        print(f"abl test: error: no test name contains {args.keyword!r}", file=sys.stderr)
        return 2
    results = _run(runner, loaded, keep, color=color, stop_early=args.exitfirst)
    out = sys.stdout
    failed = [r for r in results if r.status in ("failed", "error")]
    if failed:
        out.write("\n" + _paint("FAILURES", _BOLD, color) + "\n")
        cwd = os.getcwd()
        for result in failed:
            out.write("\n" + render_failure(result, relative_to=cwd))
    coverages = _coverage(runner, results)
    if coverages and (args.coverage or not args.no_coverage):
        out.write("\n" + (coverage_full(coverages) if args.coverage else coverage_short(coverages)))
    line = summary_line(results)
    out.write("\n" + _paint(line, _RED if failed else _GREEN, color) + "\n")
    return 1 if failed else 0


def _run(
    runner: Runner, files: list[ConversationFile], keep, *, color: bool, stop_early: bool
) -> list[ConversationResult]:
    results: list[ConversationResult] = []
    cwd = os.getcwd()
    for test_file in files:
        chosen = [c for c in test_file.conversations if keep(c)]
        if not chosen:
            continue
        sys.stdout.write(_paint(_relative(test_file.path, cwd), _BOLD, color) + "\n")
        for conversation in chosen:
            result = runner.run(test_file, conversation)
            results.append(result)
            colour = {"passed": _GREEN, "skipped": _YELLOW}.get(result.status, _RED)
            sys.stdout.write(_paint(status_line(result), colour, color) + "\n")
            sys.stdout.flush()
            if stop_early and result.status in ("failed", "error"):
                return results
    return results


def _coverage(runner: Runner, results: list[ConversationResult]) -> list[Coverage]:
    by_project: dict[Path, list[ConversationResult]] = {}
    for result in results:
        if result.status in ("passed", "failed"):
            by_project.setdefault(result.file.project, []).append(result)
    out = []
    for path, group in by_project.items():
        try:
            project = runner.project(path)
        except ProjectProblem:
            continue
        coverage = compute_coverage(project, [e for r in group for e in r.trace])
        out.append(Coverage(_relative(Path(coverage.project), os.getcwd()), coverage.items))
    return out


def _keyword_filter(keyword: str | None):
    if not keyword:
        return lambda conversation: True
    wanted = keyword.lower()

    def keep(conversation: Conversation) -> bool:
        return wanted in conversation.name.lower()

    return keep


def _relative(path: Path, base: str) -> str:
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def _paint(text: str, style: str, color: bool) -> str:
    return f"{style}{text}{_RESET}" if color else text
