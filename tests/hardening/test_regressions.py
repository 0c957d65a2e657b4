"""Every input that ever failed a fuzz target is kept in `regressions/` and must hold now.

A case is a file of `#- /path` sections (one per file of the project), as `python -m fuzz`
writes them. A case named after a runtime loader (`session-…`, `mocks-…`, `test_file-…`) runs
through that loader; one named `run-…` (a project and `/conversation.jsonl`) runs through the
runtime as `abl run` runs it; any other runs through every ABL target (parse, lower, check,
`--fix` and the editor features at every position), or, when it is large, through the target its
name starts with.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz.runner import read_case, run_once
from fuzz.targets import ABL_TARGETS, RUN_TARGETS, RUNTIME_TARGETS

CASES = sorted((Path(__file__).parent / "regressions").glob("*.abl"))


# A small case runs through every ABL target; a larger one only through the target it failed in
# (the editor target visits every position, which takes seconds on a few kilobytes).
SMALL = 2_000


def _targets(case: Path) -> list[str]:
    runtime = [t for t in (*RUNTIME_TARGETS, *RUN_TARGETS) if case.name.startswith(f"{t}-")]
    if runtime:
        return runtime
    named = [t for t in ABL_TARGETS if case.name.startswith(f"{t}-")]
    return list(ABL_TARGETS) if case.stat().st_size <= SMALL or not named else named


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_a_case_that_once_failed_holds(case: Path) -> None:
    files = read_case(case)
    for target in _targets(case):
        _, problem = run_once(target, files, limit=60.0)
        assert problem is None, f"{target}: {type(problem).__name__}: {problem}"


def test_there_are_cases() -> None:
    assert CASES
