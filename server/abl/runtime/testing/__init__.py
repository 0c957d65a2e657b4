"""Conversation tests: the `*.abltest.yaml` format, its loader, matchers, runner, coverage and recorder.

Used by `abl test`, `abl run --record` and the pytest plugin; nothing here prints.
"""

from __future__ import annotations

from abl.runtime.testing.coverage import Coverage, CoverageItem, compute_coverage
from abl.runtime.testing.expectations import Failure, Observed, check_turn
from abl.runtime.testing.format import TEST_FILE_SUFFIX, Conversation, ConversationFile, TurnSpec
from abl.runtime.testing.loader import discover, load_file
from abl.runtime.testing.matcher import EventPattern, Matcher, MatcherError, compile_matcher, compile_text_matcher
from abl.runtime.testing.runner import ConversationResult, ProjectProblem, Runner, TurnOutcome, load_plain_project
from abl.runtime.testing.yamlread import FormatError

__all__ = [
    "TEST_FILE_SUFFIX",
    "Conversation",
    "ConversationFile",
    "ConversationResult",
    "Coverage",
    "CoverageItem",
    "EventPattern",
    "Failure",
    "FormatError",
    "Matcher",
    "MatcherError",
    "Observed",
    "ProjectProblem",
    "Runner",
    "TurnOutcome",
    "TurnSpec",
    "check_turn",
    "compile_matcher",
    "compile_text_matcher",
    "compute_coverage",
    "discover",
    "load_file",
    "load_plain_project",
]
