"""The pytest plugin: `*.abltest.yaml` files become one pytest item per named conversation."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1].parent
LOAN = ROOT / "examples" / "loan-supervisor"

CONVERSATIONS = f"""\
project: {LOAN}
agent: Loan_Supervisor
tests:
  - name: new customer is asked for the income
    turns:
      - user: I want a loan offer
        agent: Income_Capture_Agent
        events:
          - type: handoff
            returnExpected: true
  - name: wrong expectation
    turns:
      - user: I want a loan offer
        agent: Offer_Agent
  - name: later
    skip: true
    turns: [hi]
"""


@pytest.fixture(autouse=True)
def _quiet_ini(pytester: pytest.Pytester) -> None:
    # The inner runs load the same plugins as this one; settle pytest-asyncio's loop scope there too.
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")


def _plugin_args() -> list[str]:
    """Load the plugin by name only when the installed entry point does not already load it."""
    installed = any(e.name == "abl_conversations" for e in entry_points(group="pytest11"))
    return [] if installed else ["-p", "abl.pytest_plugin"]


def test_each_conversation_is_an_item(pytester: pytest.Pytester):
    pytester.makefile(".abltest.yaml", loan=CONVERSATIONS)
    result = pytester.runpytest(*_plugin_args(), "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "loan.abltest.yaml::new customer is asked for the income",
            "loan.abltest.yaml::wrong expectation",
            "loan.abltest.yaml::later",
        ]
    )


def test_results_and_the_failure_diff(pytester: pytest.Pytester):
    pytester.makefile(".abltest.yaml", loan=CONVERSATIONS)
    result = pytester.runpytest(*_plugin_args(), "-rA")
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "*FAIL wrong expectation (loan.abltest.yaml:11)",
            "*turn 1 (line 13): user: I want a loan offer",
            "*- agent (line 14): the active agent after the turn differs",
            "*expected: Offer_Agent",
            "*actual:   Income_Capture_Agent",
            "*#3 handoff Loan_Supervisor → Income_Capture_Agent*",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_malformed_file_fails_collection_with_its_line(pytester: pytest.Pytester):
    pytester.makefile(
        ".abltest.yaml",
        bad="project: .\nagent: A\ntests:\n  - name: x\n    turns:\n      - user: hi\n        agnet: B\n",
    )
    result = pytester.runpytest(*_plugin_args())
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*bad.abltest.yaml:7: unknown key `agnet` in a turn; did you mean `agent`?*"])


def test_coverage_option_adds_a_section(pytester: pytest.Pytester):
    pytester.makefile(".abltest.yaml", loan=CONVERSATIONS)
    result = pytester.runpytest(*_plugin_args(), "--abl-coverage", "-k", "income")
    result.assert_outcomes(passed=1, deselected=2)
    result.stdout.fnmatch_lines(["*ABL conversation coverage*", "*routes*1/2*", "*Loan_Supervisor: never exercised*"])


def test_other_yaml_files_are_left_alone(pytester: pytest.Pytester):
    pytester.makefile(".yaml", config="tests: [1]\n")
    result = pytester.runpytest(*_plugin_args())
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
