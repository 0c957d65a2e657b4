"""Seed 000's "How the compiler reads the value" table, at the model level: what each
spelling resolves to, and whether it is a compile error or a silent fallback to `full`."""

from __future__ import annotations

import pytest

from abl.model import load_document

ROUTE = """SUPERVISOR: Hub
GOAL: "Route"
HANDOFF:
  - TO: Returns_Agent
    WHEN: true
{history}
AGENT: Returns_Agent
GOAL: "Returns"
"""

# (how HISTORY is written, resolved mode, resolved count, compile error, silently falls back)
TABLE = [
    ("    HISTORY: last_5", "last_n", 5, None, False),
    ("    HISTORY: last_0", "none", 0, None, False),
    ("    HISTORY:\n      mode: last_n", "full", None, "E331", False),
    ("    HISTORY: last_n", "full", None, None, True),
    ("    HISTORY:\n      mode: last_n\n      count: 0", "full", None, None, True),
    ("    HISTORY:\n      mode: recent", "full", None, "E330", False),
    ("    HISTORY: recent", "full", None, None, True),
    ("    HISTORY: FULL", "full", None, None, False),
    ('    HISTORY: "none"', "none", None, None, False),
    ("    HISTORY:\n      mode: last_n\n      count: 6", "last_n", 6, None, False),
    ("    HISTORY:\n      mode: last_n\n      count: -2", "full", None, None, True),
    ("    HISTORY:\n      mode: last_n\n      count: five", "full", None, None, True),
    ("    HISTORY: summary_only", "summary_only", None, None, False),
    ("    HISTORY: Auto", "auto", None, None, False),
    ("    CONTEXT:\n      history: last_3", "last_n", 3, None, False),
    ("    CONTEXT:\n      history: { mode: last_n }", "full", None, None, True),
    ("    CONTEXT:\n      history:\n        mode: last_n\n        count: 4", "last_n", 4, None, False),
    ("    CONTEXT:\n      history:\n        mode: recent", "full", None, "E330", False),
]


@pytest.mark.parametrize(
    "written,mode,count,error,falls_back", TABLE, ids=[t[0].strip().replace("\n", " ") for t in TABLE]
)
def test_history_spelling(written: str, mode: str, count: int | None, error: str | None, falls_back: bool) -> None:
    doc = load_document(ROUTE.format(history=written), "hub.abl")
    spec = doc.agents[0].handoffs[0].history
    assert spec is not None
    assert spec.resolved_mode == mode
    assert spec.resolved_count == count
    assert spec.error == error
    assert (spec.fallback is not None) == falls_back


def test_no_history_means_full() -> None:
    doc = load_document(ROUTE.format(history=""), "hub.abl")
    route = doc.agents[0].handoffs[0]
    assert route.history is None
    assert route.history_mode == "full"


def test_uppercase_context_keys_are_ignored() -> None:
    doc = load_document(ROUTE.format(history="    CONTEXT:\n      HISTORY: none\n      PASS: [a]"), "hub.abl")
    route = doc.agents[0].handoffs[0]
    assert route.history is None  # ignored, so the default `full` applies
    assert route.passes == []
    assert [k.text for k in route.ignored_context_keys] == ["HISTORY", "PASS"]
