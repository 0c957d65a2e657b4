"""Coverage of routes, WHEN outcomes, COMPLETE rules and GATHER fields, read from trace events."""

from __future__ import annotations

from pathlib import Path

from abl.runtime.testing.coverage import compute_coverage
from abl.runtime.testing.render import coverage_full, coverage_short
from abl.workspace import load_project

LOAN = Path(__file__).resolve().parents[2] / "examples" / "loan-supervisor"


def _loan():
    project, problems = load_project([str(LOAN)])
    assert not problems
    return project


def _ev(kind, agent, **fields):
    return {"type": kind, "seq": 0, "turn": 1, "thread": "t", "agent": agent, "ts": "", **fields}


NEW_CUSTOMER = [
    _ev(
        "handoff_condition_check",
        "Loan_Supervisor",
        condition="annual_income IS NOT SET",
        target="Income_Capture_Agent",
        result=True,
        whenOutcome="deterministic_match",
    ),
    _ev("handoff", "Loan_Supervisor", **{"from": "Loan_Supervisor"}, to="Income_Capture_Agent", returnExpected=True),
    _ev("gather", "Income_Capture_Agent", field="annual_income", value=85000, valid=True),
    _ev("complete", "Income_Capture_Agent", rule={"index": 0, "condition": "annual_income IS SET"}, terminal=True),
    _ev(
        "handoff_condition_check",
        "Loan_Supervisor",
        condition="annual_income IS NOT SET",
        target="Income_Capture_Agent",
        result=False,
        whenOutcome="deterministic_no_match",
    ),
    _ev(
        "handoff_condition_check",
        "Loan_Supervisor",
        condition="annual_income IS SET",
        target="Offer_Agent",
        result=True,
        whenOutcome="deterministic_match",
    ),
    _ev("handoff", "Loan_Supervisor", **{"from": "Loan_Supervisor"}, to="Offer_Agent", returnExpected=False),
]


def _uncovered(coverage):
    return [item.label for item in coverage.uncovered]


def test_nothing_run_means_nothing_covered():
    coverage = compute_coverage(_loan(), [])
    assert coverage.totals("route") == (0, 2)
    assert coverage.totals("condition") == (0, 4)
    assert coverage.totals("complete") == (0, 1)
    assert coverage.totals("gather") == (0, 1)


def test_the_new_customer_path_covers_all_but_one_outcome():
    coverage = compute_coverage(_loan(), NEW_CUSTOMER)
    assert _uncovered(coverage) == ["Loan_Supervisor → Offer_Agent (route 2) WHEN annual_income IS SET is false"]
    assert coverage.totals("route") == (2, 2)
    assert coverage.totals("condition") == (3, 4)


def test_an_invalid_gather_value_does_not_count():
    events = [_ev("gather", "Income_Capture_Agent", field="annual_income", value="lots", valid=False)]
    coverage = compute_coverage(_loan(), events)
    assert "Income_Capture_Agent GATHER annual_income" in _uncovered(coverage)


def test_outcomes_are_read_from_when_outcome_without_result():
    events = [
        _ev(
            "handoff_condition_check",
            "Loan_Supervisor",
            condition="annual_income IS SET",
            target="Offer_Agent",
            whenOutcome="deterministic_no_match",
        )
    ]
    coverage = compute_coverage(_loan(), events)
    labels = [i.label for i in coverage.items if i.covered]
    assert labels == ["Loan_Supervisor → Offer_Agent (route 2) WHEN annual_income IS SET is false"]


def test_a_handoff_without_condition_checks_is_matched_by_target():
    events = [_ev("handoff", "Loan_Supervisor", **{"from": "Loan_Supervisor"}, to="Offer_Agent")]
    coverage = compute_coverage(_loan(), events)
    assert [i.label for i in coverage.items if i.covered] == ["Loan_Supervisor → Offer_Agent (route 2)"]


def test_rendered_summaries():
    coverage = compute_coverage(_loan(), NEW_CUSTOMER)
    short = coverage_short([coverage])
    assert "routes 2/2, WHEN outcomes 3/4, COMPLETE rules 1/1, GATHER fields 1/1; 1 never exercised" in short
    full = coverage_full([coverage])
    assert (
        "  Loan_Supervisor: never exercised\n    - Loan_Supervisor → Offer_Agent (route 2) WHEN annual_income IS SET is false"
        in full
    )
    complete = compute_coverage(
        _loan(),
        [
            *NEW_CUSTOMER,
            _ev(
                "handoff_condition_check",
                "Loan_Supervisor",
                condition="annual_income IS SET",
                target="Offer_Agent",
                result=False,
            ),
        ],
    )
    assert "everything exercised" in coverage_short([complete])
    assert "every route, WHEN outcome, COMPLETE rule and GATHER field was exercised" in coverage_full([complete])
