"""The conformance suite's expected failures: the one list of rules the engine breaks today.

Each entry is `folder/file.abltest.yaml::test name` and why it fails. The marks are strict, so a
fix that makes a test pass turns it into an XPASS failure until its entry is removed here.
`generate.py` reads this list too: `docs/conformance.md` shows each such rule as failing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SUITE = Path(__file__).resolve().parent

KNOWN_FAILURES: dict[str, str] = {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        reason = KNOWN_FAILURES.get(suite_id(item))
        if reason is not None:
            item.add_marker(pytest.mark.xfail(strict=True, reason=reason))


def suite_id(item: pytest.Item) -> str:
    """`folder/file.abltest.yaml::name` for a conversation of this suite, else its node id."""
    try:
        relative = Path(item.path).resolve().relative_to(SUITE).as_posix()
    except ValueError:
        return item.nodeid
    return f"{relative}::{item.name}"
