"""Conversation tests as JSON records, for tools: what `abl test --format json` prints, one
record per line, in the order things happen.

- `file`: a test file as read, with every test's line and every turn's line (1-based), so an
  editor can list the tests and place each one; `selected` says whether `-k`/`--name` chose it.
- `fileError`: a test file that cannot be read, with the line and column of the problem.
- `started`, then `result`: one test about to run, then how it went. A result's `failures` each
  carry the line of the check that failed (`line`) and the turn it belongs to (`turn`,
  `turnLine`; null for a check made before the first message); `report` is the same text
  `abl test` prints for a failure.
- `summary`: the counts and the summary line.

Plain data only; paths are absolute (as given, not resolved).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from abl.runtime.testing.expectations import Failure
from abl.runtime.testing.format import Conversation, ConversationFile
from abl.runtime.testing.render import render_failure, summary_line
from abl.runtime.testing.runner import ConversationResult, TurnOutcome
from abl.runtime.testing.yamlread import FormatError


def _path(path: str | Path) -> str:
    # Absolute, but not resolved: a tool finds the file again under the name it passed.
    return os.path.abspath(path)


def file_record(test_file: ConversationFile, selected: Callable[[Conversation], bool] | None = None) -> dict[str, Any]:
    """A test file and every test in it, each marked with whether `selected` chose it."""
    return {
        "type": "file",
        "path": _path(test_file.path),
        "project": _path(test_file.project),
        "agent": test_file.agent,
        "tests": [
            {
                "name": c.name,
                "line": c.line,
                "skip": c.skip,
                "selected": selected is None or selected(c),
                "turns": [{"line": t.line, "user": t.user} for t in c.turns],
            }
            for c in test_file.conversations
        ],
    }


def file_error_record(error: FormatError) -> dict[str, Any]:
    return {
        "type": "fileError",
        "path": _path(error.path),
        "line": error.line,
        "column": error.column,
        "message": error.message,
    }


def missing_path_record(path: str) -> dict[str, Any]:
    return {"type": "fileError", "path": _path(path), "line": None, "column": None, "message": "does not exist"}


def started_record(test_file: ConversationFile, conversation: Conversation) -> dict[str, Any]:
    return {"type": "started", "path": _path(test_file.path), "name": conversation.name, "line": conversation.line}


def result_record(result: ConversationResult, duration_ms: float) -> dict[str, Any]:
    failures = [_failure(f, None) for f in result.failures]
    for turn in result.failed_turns:
        failures.extend(_failure(f, turn) for f in turn.failures)
    return {
        "type": "result",
        "path": _path(result.file.path),
        "name": result.name,
        "line": result.conversation.line,
        "status": result.status,
        "durationMs": round(duration_ms, 1),
        "failures": failures,
        # The reason of an `error` (the run could not go on) or of a `skipped` test.
        "error": result.error,
        "report": render_failure(result) if result.status in ("failed", "error") else None,
    }


def summary_record(results: Sequence[ConversationResult]) -> dict[str, Any]:
    return {
        "type": "summary",
        "passed": sum(r.status == "passed" for r in results),
        "failed": sum(r.status in ("failed", "error") for r in results),
        "skipped": sum(r.status == "skipped" for r in results),
        "text": summary_line(results),
    }


def _failure(failure: Failure, turn: TurnOutcome | None) -> dict[str, Any]:
    turn_line = turn.spec.line if turn is not None else None
    return {
        "kind": failure.kind,
        "summary": failure.summary,
        "expected": failure.expected,
        "actual": failure.actual,
        "details": list(failure.details),
        "line": failure.line if failure.line is not None else turn_line,
        "turn": turn.number if turn is not None else None,
        "turnLine": turn_line,
        "user": turn.spec.user if turn is not None else None,
    }
