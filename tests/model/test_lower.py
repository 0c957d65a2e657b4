"""Lowering the seeds' own examples into the model."""

from __future__ import annotations

from pathlib import Path

from abl.model import load_document, produced_fields
from abl.model.types import AgentKind, FailureKind

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"

LOAN = """SUPERVISOR: Loan_Supervisor
GOAL: "Collect the applicant's income before any loan offer discussion"

MEMORY:
  session:
    - annual_income
      TYPE: number
      DESCRIPTION: "Annual income in whole currency units, collected by the income agent."

HANDOFF:
  - TO: Income_Capture_Agent
    WHEN: annual_income IS NOT SET
    SUMMARY: "Collect the applicant's annual income, then return."
    HISTORY: summary_only
    RETURN: true
    ON_RETURN:
      action: resume_intent
      MAP:
        annual_income: annual_income
    ON_FAILURE: RESPOND "I cannot collect your income details right now. Please try again later."

  - TO: Offer_Agent
    WHEN: annual_income IS SET
    PASS: [annual_income]
    SUMMARY: "The offer agent now owns the conversation."
    RETURN: false

AGENT: Income_Capture_Agent
GOAL: "Collect the annual income and return it to the supervisor"

GATHER:
  annual_income:
    PROMPT: "What is your annual income?"
    TYPE: number
    REQUIRED: true

COMPLETE:
  - WHEN: annual_income IS SET
    RESPOND: "Thanks. I have your income."

AGENT: Offer_Agent
GOAL: "Explain loan offers based on the applicant's annual income"
"""


def test_loan_supervisor_lowers_every_seed_key() -> None:
    doc = load_document(LOAN, "loan.agent.abl")
    sup, child, offer = doc.agents
    assert (sup.kind, child.kind, offer.kind) == (AgentKind.SUPERVISOR, AgentKind.AGENT, AgentKind.AGENT)
    assert [v.name.text for v in sup.memory] == ["annual_income"]
    assert sup.memory[0].type is not None and sup.memory[0].type.text == "number"
    gate, permanent = sup.handoffs
    assert gate.target is not None and gate.target.text == "Income_Capture_Agent"
    assert gate.is_returnable and not permanent.is_returnable
    assert gate.history is not None and gate.history.resolved_mode == "summary_only"
    assert gate.on_return is not None and gate.on_return.action_name == "resume_intent"
    assert [(m.child.text, m.parent.text) for m in gate.on_return.map] == [("annual_income", "annual_income")]
    assert gate.on_failure is not None and gate.on_failure.kind is FailureKind.RESPOND
    assert gate.on_failure.message == "I cannot collect your income details right now. Please try again later."
    assert [p.text for p in permanent.passes] == ["annual_income"]
    assert gate.when is not None and not gate.when.is_natural_language
    assert child.gather[0].name.text == "annual_income" and child.gather[0].is_required
    assert child.complete[0].respond is not None and child.complete[0].respond.text == "Thanks. I have your income."
    assert "annual_income" in produced_fields(child)


def test_ranges_point_at_the_written_text() -> None:
    doc = load_document(LOAN, "loan.agent.abl")
    gate = doc.agents[0].handoffs[0]
    lines = LOAN.splitlines()
    r = gate.target.range  # type: ignore[union-attr]
    assert lines[r.start.line][r.start.character : r.end.character] == "Income_Capture_Agent"
    m = gate.on_return.map[0]  # type: ignore[union-attr]
    assert (
        lines[m.child.range.start.line][m.child.range.start.character : m.child.range.end.character] == "annual_income"
    )


def test_return_spellings() -> None:
    text = LOAN.replace("    RETURN: true\n    ON_RETURN:", "    RETURN: True\n    ON_RETURN:")
    assert not load_document(text, "x.abl").agents[0].handoffs[0].is_returnable
    text = LOAN.replace("    RETURN: true\n    ON_RETURN:", '    EXPECT_RETURN: "true"\n    ON_RETURN:')
    assert not load_document(text, "x.abl").agents[0].handoffs[0].is_returnable
    text = LOAN.replace("    RETURN: true\n    ON_RETURN:", "    EXPECT_RETURN: true\n    ON_RETURN:")
    assert load_document(text, "x.abl").agents[0].handoffs[0].is_returnable


def test_context_block_and_flow_map() -> None:
    text = """SUPERVISOR: S
GOAL: "g"
HANDOFF:
  - TO: Income_Capture_Agent
    WHEN: annual_income IS NOT SET
    CONTEXT:
      pass: []
      summary: "Collect the applicant income, then return."
      history:
        mode: last_n
        count: 4
    RETURN: true
    ON_RETURN:
      action: resume_intent
      RESUME_WITH: latest_child_user_utterance
      MAP: {annual_income: annual_income}
"""
    route = load_document(text, "x.abl").agents[0].handoffs[0]
    assert route.passes == []
    assert route.summary is not None and route.summary.text == "Collect the applicant income, then return."
    assert route.history is not None and (route.history.resolved_mode, route.history.resolved_count) == ("last_n", 4)
    assert route.on_return is not None and route.on_return.resume_with is not None
    assert route.on_return.resume_with.text == "latest_child_user_utterance"
    assert [(m.child.text, m.parent.text) for m in route.on_return.map] == [("annual_income", "annual_income")]


def test_handler_and_set_variations() -> None:
    text = """SUPERVISOR: S
GOAL: "g"
MEMORY:
  session:
    - income_note
HANDOFF:
  - TO: Income_Capture_Agent
    WHEN: annual_income IS NOT SET
    EXPECT_RETURN: true
    ON_RETURN:
      handler: income_done
      action: continue
      MAP:
        annual_income: annual_income
      SET:
        income_note: "Income collected by the income agent."
RETURN_HANDLERS:
  income_done:
    RESUME_INTENT: true
    RESPOND: "Back"
"""
    agent = load_document(text, "x.abl").agents[0]
    on_return = agent.handoffs[0].on_return
    assert on_return is not None and on_return.handler is not None and on_return.handler.text == "income_done"
    assert [a.target.text for a in on_return.set] == ["income_note"]
    handler = agent.return_handlers[0]
    assert handler.name.text == "income_done" and handler.flag(handler.resume_intent)
    assert handler.respond is not None and handler.respond.text == "Back"


def test_tools_signatures_imports_and_flow() -> None:
    text = (Path(__file__).parents[1] / "syntax" / "cases" / "forms.abl").read_text()
    agent = load_document(text, "forms.agent.abl").agents[0]
    tool = agent.tools[0]
    assert tool.name.text == "verify"
    assert [(p.name, p.type, p.optional, p.default) for p in tool.params] == [
        ("routing_number", "string", False, None),
        ("account_number", "string", True, None),
        ("limit", "number", True, "10"),
    ]
    assert tool.returns == "{status: string, holder: string}"
    assert agent.tool_imports[0].path.text == "./tools/hotels.tools.abl"
    assert [n.text for n in agent.tool_imports[0].names] == ["search_hotels", "get_hotel"]
    assert agent.on_start is not None and [a.target.text for a in agent.on_start.set] == ["status", "request_id"]
    assert ("ON_FAIL", "Live_Agent") in [(w, n.text) for w, n in agent.other_handoff_refs]


def test_flow_steps_written_at_column_zero_are_read_as_steps() -> None:
    text = """AGENT: Fee_Calculator
GOAL: "Calculate fees"
FLOW:
  steps: [compute, report]
compute:
  REASONING: false
  SET:
    fee = 10
  THEN: report
report:
  REASONING: false
  RESPOND: "Fee {{fee}}"
"""
    doc = load_document(text, "x.abl")
    agent = doc.agents[0]
    assert [s.text for s in agent.flow.steps] == ["compute", "report"]  # type: ignore[union-attr]
    assert [n.key for _, n in doc.column_zero_steps] == ["compute", "report"]
    assert "fee" in produced_fields(agent)


def test_garbage_lowers_without_raising() -> None:
    for text in ["", "\x00\x01", "HANDOFF:\n  - TO:\n    WHEN:\n", "AGENT:\nAGENT: B\nHANDOFF: [a", "- - -\n  : :"]:
        doc = load_document(text, "x.abl")
        assert doc.source.to_text() == text
