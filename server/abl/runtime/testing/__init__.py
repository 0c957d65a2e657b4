"""Conversation tests: the `*.abltest.yaml` format, its loader, matchers, runner, coverage and recorder.

Used by `abl test`, `abl run --record` and the pytest plugin; nothing here prints. Names are
imported on first use, so reading a test file does not load the engine.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "TEST_FILE_SUFFIX": "format",
    "Conversation": "format",
    "ConversationFile": "format",
    "TurnSpec": "format",
    "FormatError": "yamlread",
    "discover": "loader",
    "load_file": "loader",
    "EventPattern": "matcher",
    "Matcher": "matcher",
    "MatcherError": "matcher",
    "compile_matcher": "matcher",
    "compile_text_matcher": "matcher",
    "Failure": "expectations",
    "Observed": "expectations",
    "check_turn": "expectations",
    "ConversationResult": "runner",
    "ProjectProblem": "runner",
    "Runner": "runner",
    "TurnOutcome": "runner",
    "load_plain_project": "runner",
    "Coverage": "coverage",
    "CoverageItem": "coverage",
    "compute_coverage": "coverage",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
