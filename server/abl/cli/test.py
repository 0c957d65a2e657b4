"""`abl test`: run conversation tests (`*.abltest.yaml`) and report like pytest.

One `PASS`/`FAIL name` line per test as it finishes, then a diff for each failure (expected
against actual, with the turn's replies and trace), the coverage summary, and the last line
`N passed, M failed` (`, K skipped` when some were). Exit 0 when everything passed, 1 when a
test failed, 2 when a file cannot be read or is malformed.

`--format json` prints JSON records instead, one per line as things happen (the tests of each
file with their lines, each test's start and result, the summary; `abl.runtime.testing.records`),
for editors and other tools. `--collect-only` lists the tests without running them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from abl.cli.notices import print_not_enforced
from abl.cli.terminal import add_color_option, wants_color
from abl.launch import Launcher, LaunchRefused, conversation_loader
from abl.runtime.testing.coverage import Coverage, compute_coverage
from abl.runtime.testing.format import Conversation, ConversationFile
from abl.runtime.testing.loader import discover, load_file
from abl.runtime.testing.records import (
    file_error_record,
    file_record,
    missing_path_record,
    result_record,
    started_record,
    summary_record,
)
from abl.runtime.testing.render import coverage_full, coverage_short, render_failure, status_line, summary_line
from abl.runtime.testing.runner import ConversationResult, ProjectProblem, Runner
from abl.runtime.testing.yamlread import FormatError
from abl.workspace import Project

_GREEN, _RED, _YELLOW, _BOLD, _RESET = "\x1b[32m", "\x1b[31m", "\x1b[33m", "\x1b[1m", "\x1b[0m"


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "test",
        help="run conversation tests (*.abltest.yaml)",
        description="Run conversation tests: files, or folders searched for *.abltest.yaml.",
    )
    p.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="test files or folders (default: .)")
    p.add_argument("-k", metavar="TEXT", dest="keyword", help="only tests whose name contains TEXT (any case)")
    p.add_argument(
        "--name",
        action="append",
        dest="names",
        metavar="NAME",
        help="only the test named exactly NAME (repeat for several)",
    )
    p.add_argument("--collect-only", action="store_true", help="list the tests and their lines without running them")
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="json: one JSON record per line, for tools (see docs/conversation-tests.md)",
    )
    p.add_argument("-x", "--exitfirst", action="store_true", help="stop after the first failing test")
    p.add_argument(
        "--coverage",
        action="store_true",
        help="list every route, WHEN outcome, COMPLETE rule and GATHER field never exercised",
    )
    p.add_argument("--no-coverage", action="store_true", help="leave out the short coverage summary")
    add_color_option(p)
    p.set_defaults(handler=run)


Emit = Callable[[dict[str, Any]], None]


def run(args: argparse.Namespace) -> int:
    emit = _json_lines if args.format == "json" else None
    files, missing = discover(args.paths)
    for absent in missing:
        print(f"abl test: error: {absent} does not exist", file=sys.stderr)
        if emit is not None:
            emit(missing_path_record(absent))
    if missing:
        return 2
    if not files:
        print(f"abl test: error: no *.abltest.yaml files under {', '.join(args.paths)}", file=sys.stderr)
        return 2
    keep = _selection(args.keyword, args.names)
    loaded: list[ConversationFile] = []
    problems: list[str] = []
    for path in files:
        try:
            test_file = load_file(path)
        except FormatError as err:
            problems.append(str(err))
            if emit is not None:
                emit(file_error_record(err))
            continue
        loaded.append(test_file)
        if emit is not None:
            emit(file_record(test_file, keep))
    for problem in problems:
        print(f"abl test: error: {problem}", file=sys.stderr)
    if args.collect_only:
        if emit is None:
            _list_tests(loaded, keep)
        return 2 if problems else 0
    if problems:
        return 2
    color = emit is None and wants_color(args.color)
    launcher = Launcher()
    runner = Runner(conversation_loader(launcher))
    unknown = _unselected(loaded, keep, args.keyword, args.names)
    if unknown:
        print(f"abl test: error: {unknown}", file=sys.stderr)
        return 2
    print_not_enforced("abl test", _starts(launcher, loaded, keep), sys.stderr)
    results = _run(runner, loaded, keep, color=color, stop_early=args.exitfirst, emit=emit)
    failed = [r for r in results if r.status in ("failed", "error")]
    if emit is not None:
        emit(summary_record(results))
        return 1 if failed else 0
    out = sys.stdout
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
    runner: Runner,
    files: list[ConversationFile],
    keep: Callable[[Conversation], bool],
    *,
    color: bool,
    stop_early: bool,
    emit: Emit | None,
) -> list[ConversationResult]:
    results: list[ConversationResult] = []
    cwd = os.getcwd()
    for test_file in files:
        chosen = [c for c in test_file.conversations if keep(c)]
        if not chosen:
            continue
        if emit is None:
            sys.stdout.write(_paint(_relative(test_file.path, cwd), _BOLD, color) + "\n")
        for conversation in chosen:
            if emit is not None:
                emit(started_record(test_file, conversation))
            started = time.perf_counter()
            result = runner.run(test_file, conversation)
            results.append(result)
            if emit is not None:
                emit(result_record(result, (time.perf_counter() - started) * 1000))
            else:
                colour = {"passed": _GREEN, "skipped": _YELLOW}.get(result.status, _RED)
                sys.stdout.write(_paint(status_line(result), colour, color) + "\n")
                sys.stdout.flush()
            if stop_early and result.status in ("failed", "error"):
                return results
    return results


def _starts(
    launcher: Launcher, files: list[ConversationFile], keep: Callable[[Conversation], bool]
) -> Iterator[tuple[Project, str]]:
    """(project, entry agent) of each file with a selected conversation; a project that cannot
    run is left to its tests, which report why."""
    for test_file in files:
        if not any(keep(c) for c in test_file.conversations):
            continue
        try:
            yield launcher.project(test_file.project.resolve()), test_file.agent
        except LaunchRefused:
            continue


def _json_lines(record: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    sys.stdout.flush()  # a tool reading the pipe sees each test as it finishes


def _list_tests(files: list[ConversationFile], keep: Callable[[Conversation], bool]) -> None:
    cwd = os.getcwd()
    for test_file in files:
        chosen = [c for c in test_file.conversations if keep(c)]
        if chosen:
            print(_relative(test_file.path, cwd))
            for conversation in chosen:
                print(f"  {conversation.name} (line {conversation.line})")


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


def _selection(keyword: str | None, names: list[str] | None) -> Callable[[Conversation], bool]:
    """Tests whose name contains `keyword` (any case) and, when `names` are given, is one of them."""
    wanted = keyword.lower() if keyword else None
    exact = set(names) if names else None

    def keep(conversation: Conversation) -> bool:
        if wanted is not None and wanted not in conversation.name.lower():
            return False
        return exact is None or conversation.name in exact

    return keep


def _unselected(
    files: list[ConversationFile], keep: Callable[[Conversation], bool], keyword: str | None, names: list[str] | None
) -> str | None:
    """Why the selection is wrong (it chose no test, or names one that no file has), or None."""
    known = {c.name for f in files for c in f.conversations}
    absent = [name for name in names or () if name not in known]
    if absent:
        return f"no test is named {absent[0]!r}"
    if (keyword or names) and not any(keep(c) for f in files for c in f.conversations):
        return f"no test name contains {keyword!r}" if keyword else "no test matches both -k and --name"
    return None


def _relative(path: Path, base: str) -> str:
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def _paint(text: str, style: str, color: bool) -> str:
    return f"{style}{text}{_RESET}" if color else text
