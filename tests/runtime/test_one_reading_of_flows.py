"""The checker and the runtime read a FLOW the same way: from the lowered model, once.

A step written at column 0 after the FLOW, and listed in `steps`, is that step for both (the
checker says so with a warning); booleans read `true`/`false` the same everywhere; intent names
come from the parsed WHEN."""

from __future__ import annotations

from engine_support import of_type, project_text, texts

from abl.checks.engine import check_project
from abl.model import load_document
from abl.runtime import start_session
from abl.runtime.plan import build_plan

COLUMN_ZERO = """AGENT: Quote_Desk
GOAL: "Quote a delivery"
FLOW:
  steps: [ask_size, quote]
  ask_size:
    REASONING: false
    GATHER:
      - size: required
        type: number
        prompt: "How many boxes?"
    THEN: quote
quote:
  REASONING: false
  RESPOND: "{{size}} boxes cost {{size * 5}} dollars."
  THEN: COMPLETE
"""


def test_a_column_zero_step_runs_as_the_checker_reads_it() -> None:
    project = project_text(COLUMN_ZERO)
    codes = [d.code for ds in check_project(project).values() for d in ds]
    assert "FLOW_STEP_AT_COLUMN_ZERO" in codes
    assert "UNKNOWN_FLOW_STEP" not in codes
    session = start_session(project, "Quote_Desk")
    assert texts(session.send("hi")) == ["How many boxes?"]
    done = session.send("3")
    assert texts(done) == ["3 boxes cost 15 dollars."]
    assert done.ended
    assert not of_type(session.trace, "error")


def test_yes_is_not_a_boolean_anywhere() -> None:
    text = COLUMN_ZERO.replace("  ask_size:\n    REASONING: false", "  ask_size:\n    REASONING: yes")
    project = project_text(text)
    step = project.agent("Quote_Desk").flow.step("ask_size")
    assert step.declares_reasoning and not step.is_reasoning
    messages = [d.message for ds in check_project(project).values() for d in ds if d.code == "INVALID_VALUE"]
    assert any("REASONING" in m and "yes" in m for m in messages)
    # The runtime reads it as the checker does: not `true`, so the step runs its actions.
    assert texts(start_session(project, "Quote_Desk").send("hi")) == ["How many boxes?"]


def test_intent_names_come_from_the_parsed_condition() -> None:
    doc = load_document("""SUPERVISOR: Hub
GOAL: "Route"
INTENTS:
  billing: "Bills"
  refunds: "Refunds"
  other: "Anything else"
HANDOFF:
  - TO: Desk
    WHEN: (intent.category IN ["billing", "refunds"]) AND note != "intent.category == 'other'"
AGENT: Desk
GOAL: "Desk"
""")
    plan = build_plan(doc.agents[0], project_text(""))
    assert plan.route_intents == {0: ("billing", "refunds")}
