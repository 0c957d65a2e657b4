"""A rule sees the project through `ProjectView` only: a question outside it fails, with the
check cache and without, and every question in it is one the cache records (so a stored result
can be judged stale when its answer changes)."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest

from abl.checks.cache import CheckCache, _Reads, _WatchedProject
from abl.checks.context import AGENT_RULES, BLOCK_RULES, DOCUMENT_RULES, ProjectView
from abl.checks.engine import CheckOptions, check_project
from abl.workspace import Project

STRICT = CheckOptions(strict_rules=True)

TRIAGE = """\
AGENT: Triage
GOAL: "Find out what the customer needs"
HANDOFF:
  - TO: Billing
    WHEN: topic == "billing"
"""

BILLING = """\
AGENT: Billing
GOAL: "Sort out invoices"
"""

# Each question with arguments a rule could pass; the setting is read, never recorded (a change
# of it empties the cache).
QUESTIONS: dict[str, Callable[[ProjectView], object]] = {
    "agent": lambda view: view.agent("Billing"),
    "agent_names": lambda view: view.agent_names(),
    "namesakes": lambda view: view.namesakes("Billing"),
    "handed_over": lambda view: view.handed_over("Billing"),
    "graph_facts": lambda view: view.graph_facts("Triage", (0,)),
    "behavior_profiles": lambda view: view.behavior_profiles(),
    "tool_libraries": lambda view: list(view.tool_libraries()),
}


def _project() -> Project:
    project = Project("/p")
    project.update("/p/triage.abl", TRIAGE)
    project.update("/p/billing.abl", BILLING)
    return project


def _public(cls: type) -> set[str]:
    return {name for name, _ in inspect.getmembers(cls) if not name.startswith("_")}


def test_every_question_of_the_view_is_covered_here() -> None:
    assert _public(ProjectView) == {*QUESTIONS, "default_history"}


@pytest.mark.parametrize("question", sorted(QUESTIONS))
def test_the_cache_records_every_question(question: str) -> None:
    project, reads = _project(), _Reads()
    answer = QUESTIONS[question](_WatchedProject(project, reads))
    assert not reads.nothing, f"`{question}` was asked and nothing was noted"
    assert answer == QUESTIONS[question](ProjectView(project))


def test_the_setting_is_read_without_being_recorded() -> None:
    reads = _Reads()
    assert _WatchedProject(_project(), reads).default_history == "full"
    assert reads.nothing


def _peek_at_documents(check, *_: object) -> None:
    check.project.documents  # noqa: B018  (the read itself is what is tested)


@pytest.mark.parametrize("cached", [False, True], ids=["from-scratch", "cached"])
@pytest.mark.parametrize("rules", [AGENT_RULES, BLOCK_RULES, DOCUMENT_RULES], ids=["agent", "block", "document"])
def test_a_rule_that_reads_outside_the_view_fails(rules: list, cached: bool) -> None:
    entry = ("MISSING_GOAL", _peek_at_documents)
    rules.append(entry)
    try:
        with pytest.raises(AttributeError, match="documents"):
            check_project(_project(), STRICT, CheckCache() if cached else None)
    finally:
        rules.remove(entry)
