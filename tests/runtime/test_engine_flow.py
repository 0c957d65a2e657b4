"""FLOW steps in the embedded runtime: gather, check, branches, input branches, completion,
the per-turn step bound, and saving a session in the middle of a flow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from engine_support import of_type, project_text, texts

from abl.runtime import RuntimeOptions, Session, start_session

# The platform's documented example, from the shared examples folder next to the project.
FUNDS_TRANSFER = Path(__file__).resolve().parents[3] / "shared" / "spec" / "examples" / "scripting-constructs-1.abl"
needs_example = pytest.mark.skipif(not FUNDS_TRANSFER.is_file(), reason=f"{FUNDS_TRANSFER} is not present")

WIZARD = """AGENT: Signup
GOAL: "Sign the customer up"
FLOW:
  entry_point: ask_age
  ask_age:
    REASONING: false
    RESPOND: "Let's get you signed up."
    GATHER:
      - age: required
        type: number
        prompt: "How old are you?"
    CHECK: age >= 18
    ON_FAIL: too_young
    THEN: plan
  too_young:
    REASONING: false
    RESPOND: "Sorry, you must be 18 or older."
    THEN: COMPLETE
  plan:
    REASONING: false
    SET:
      tier = age >= 65 ? "senior" : "standard"
    ON_RESULT:
      - IF: tier == "senior"
        RESPOND: "You qualify for the senior plan."
        THEN: done
      - ELSE:
        RESPOND: "You get the standard plan."
        THEN: done
  done:
    REASONING: false
    RESPOND: "All set, {{tier}} member."
    THEN: COMPLETE
"""

TRANSFER_MOCKS: dict[str, Any] = {
    "verify_recipient": {"status": "valid", "account_holder": "Dana Reyes"},
    "get_balance": {"available": 500},
    "create_transfer": {"status": "submitted", "transfer_id": "TR-77", "error": ""},
}


def transfer_session() -> Session:
    project = project_text(FUNDS_TRANSFER.read_text(encoding="utf-8"))
    options = RuntimeOptions(mocks=TRANSFER_MOCKS, initial_values={"account_id": "ACC-1"})
    return start_session(project, "Funds_Transfer", options)


def steps_entered(session: Session) -> list[str]:
    return [e.get("step") for e in session.trace if e.type == "flow_step" and e.get("action") == "enter"]


@pytest.mark.parametrize(
    ("age", "expected"),
    [
        ("30", ["You get the standard plan.", "All set, standard member."]),
        ("70", ["You qualify for the senior plan.", "All set, senior member."]),
        ("12", ["Sorry, you must be 18 or older."]),
    ],
)
def test_a_wizard_gathers_checks_branches_and_completes(age: str, expected: list[str]) -> None:
    session = start_session(project_text(WIZARD), "Signup")
    first = session.send("hi")
    assert texts(first) == ["Let's get you signed up.", "How old are you?"]
    assert not first.ended
    last = session.send(age)
    assert texts(last) == expected
    assert last.ended
    assert of_type(last.events, "complete")
    assert not [e for e in session.trace if e.type == "warning"]


def test_flow_steps_are_traced_at_standard_level() -> None:
    session = start_session(project_text(WIZARD), "Signup")
    turn = session.send("hi")
    actions = [(e.get("step"), e.get("action"), e.get("to")) for e in of_type(turn.events, "flow_step")]
    assert actions == [("ask_age", "enter", None), ("ask_age", "wait", None)]
    quiet = start_session(project_text(WIZARD), "Signup", RuntimeOptions(trace_level="minimal"))
    assert not of_type(quiet.send("hi").events, "flow_step")


@needs_example
def test_funds_transfer_happy_path_reaches_completion() -> None:
    session = transfer_session()
    assert texts(session.send("I want to send money")) == ["Please provide: routing_number"]
    assert texts(session.send("021000021")) == ["Please provide: account_number"]
    assert texts(session.send("12345678")) == ["Transferring to Dana Reyes.", "Please provide: raw_amount"]
    confirm = session.send("$120")
    assert confirm.replies[-1].text.startswith("Transfer ")
    assert "Dana Reyes" in confirm.replies[-1].text
    done = session.send("yes")
    assert texts(done) == ["Transfer submitted: TR-77.", "Your transfer request is complete."]
    assert done.ended
    values = session.state().values
    assert values["status"] == "complete" and values["amount"] == 120
    calls = [e.get("tool") for e in session.trace if e.type == "tool_call"]
    assert calls == ["verify_recipient", "get_balance", "create_transfer"]
    # The flow's global digression is run too: nothing is left out, so nothing is warned about.
    assert not [e for e in session.trace if e.type == "warning"]


@needs_example
def test_a_failed_check_goes_to_its_on_fail_step_and_asks_again() -> None:
    session = transfer_session()
    for message in ("I want to send money", "021000021", "12345678"):
        session.send(message)
    too_much = session.send("$900")
    assert texts(too_much) == [
        "The requested amount exceeds your available balance.",
        "Transferring to Dana Reyes.",
        "Please provide: raw_amount",
    ]
    assert not too_much.ended


@needs_example
@pytest.mark.parametrize(
    ("answer", "expected_step", "reply"),
    [
        ("no", "cancelled", "The transfer was cancelled."),
        ("change", "collect_amount", "Please provide: raw_amount"),
        ("maybe", "confirm", "Please reply yes, no, or change."),
    ],
)
def test_on_input_branches_on_the_next_message(answer: str, expected_step: str, reply: str) -> None:
    session = transfer_session()
    for message in ("I want to send money", "021000021", "12345678", "$120"):
        session.send(message)
    before = len(steps_entered(session))
    turn = session.send(answer)
    assert steps_entered(session)[before] == expected_step
    assert reply in texts(turn)
    assert [e.get("tool") for e in session.trace if e.type == "tool_call"] == ["verify_recipient", "get_balance"]


def test_a_flow_that_loops_without_waiting_stops_with_an_error() -> None:
    text = """AGENT: Spinner
GOAL: "Spin"
FLOW:
  ping:
    REASONING: false
    SET:
      count = (count ?? 0) + 1
    THEN: pong
  pong:
    REASONING: false
    THEN: ping
"""
    session = start_session(project_text(text), "Spinner")
    turn = session.send("go")
    errors = [e for e in of_type(turn.events, "error") if e.get("code") == "flow_step_limit"]
    assert len(errors) == 1
    assert not turn.ended
    again = session.send("go")
    assert [e for e in of_type(again.events, "error") if e.get("code") == "flow_step_limit"]


def test_a_reasoning_step_answers_freely_until_its_exit_condition() -> None:
    text = """AGENT: Helper
GOAL: "Help"
FLOW:
  chat:
    REASONING: true
    GOAL: "Chat with the customer"
    MAX_TURNS: 2
    THEN: bye
  bye:
    REASONING: false
    RESPOND: "Goodbye."
    THEN: COMPLETE
"""
    session = start_session(project_text(text), "Helper")
    first = session.send("hello")
    assert len(first.replies) == 1 and not first.ended
    second = session.send("thanks")
    assert second.replies[-1].text == "Goodbye." and second.ended


@needs_example
def test_save_and_load_in_the_middle_of_a_flow_behaves_the_same(tmp_path: Path) -> None:
    straight = transfer_session()
    resumed = transfer_session()
    for message in ("I want to send money", "021000021", "12345678"):
        straight.send(message)
        resumed.send(message)
    path = tmp_path / "session.json"
    resumed.save(path)
    options = RuntimeOptions(mocks=TRANSFER_MOCKS, initial_values={"account_id": "ACC-1"})
    loaded = Session.load(project_text(FUNDS_TRANSFER.read_text(encoding="utf-8")), path, options)
    for message in ("$120", "yes"):
        a, b = straight.send(message), loaded.send(message)
        assert texts(a) == texts(b)
        assert [(e.type, e.fields) for e in a.events] == [(e.type, e.fields) for e in b.events]
    assert b.ended and loaded.state().values == straight.state().values
    assert texts(b)[-1] == "Your transfer request is complete."


PARCEL = Path(__file__).parent / "scenarios" / "turn-order" / "parcel.agent.abl"


def test_a_session_saved_while_a_cleared_field_is_asked_again_asks_and_fills_it_after_loading(
    tmp_path: Path,
) -> None:
    project = project_text(PARCEL.read_text(encoding="utf-8"))
    straight = start_session(project, "Parcel_Desk", RuntimeOptions())
    resumed = start_session(project, "Parcel_Desk", RuntimeOptions())
    for message in ("hi", "AB1", "P-1", "sorry, actually the postcode is AB2"):
        straight.send(message)
        last = resumed.send(message)
    assert texts(last) == ["What is the parcel number?"]
    path = tmp_path / "session.json"
    resumed.save(path)
    loaded = Session.load(project, path, RuntimeOptions())
    for message in ("P-2", "yes"):
        a, b = straight.send(message), loaded.send(message)
        assert texts(a) == texts(b)
        assert [(e.type, e.fields) for e in a.events] == [(e.type, e.fields) for e in b.events]
    assert texts(b) == ["Parcel P-2 goes to AB2."]
    assert b.ended


SHIPPING_WITH_AGENT_GATHER = """
AGENT: Shipping_Desk
GOAL: "Ship a parcel a returning customer registered before"

GATHER:
  parcel:
    PROMPT: "Which parcel number is it now?"
    TYPE: string
    EXTRACTION_PATTERN: "\\\\b(P-\\\\d+)\\\\b"
    DEPENDS_ON: [postcode]

FLOW:
  steps: [where, confirm, sent]

  where:
    REASONING: false
    GATHER:
      - postcode: required
        prompt: "Which postcode?"
        extraction_pattern: "\\\\b([A-Z]{2}\\\\d)\\\\b"
    CORRECTIONS: true
    THEN: confirm

  confirm:
    REASONING: false
    RESPOND: "Ship {{parcel}} to {{postcode}}?"
    ON_INPUT:
      - IF: input == "yes"
        THEN: sent

  sent:
    REASONING: false
    RESPOND: "Shipped {{parcel}} to {{postcode}}."
    THEN: COMPLETE
"""


def test_a_field_of_the_agents_own_gather_cleared_by_a_correction_is_asked_again() -> None:
    project = project_text(SHIPPING_WITH_AGENT_GATHER)
    session = start_session(
        project, "Shipping_Desk", RuntimeOptions(initial_values={"parcel": "P-1"}, trace_level="debug")
    )
    session.send("hi")
    assert texts(session.send("AB1")) == ["Ship P-1 to AB1?"]
    corrected = session.send("sorry, actually the postcode is AB2")
    assert [(e.type, e.get("field")) for e in of_type(corrected.events, "correction", "correction_invalidation")] == [
        ("correction", "postcode"),
        ("correction_invalidation", "parcel"),
    ]
    assert texts(corrected) == ["Which parcel number is it now?"]
    assert texts(session.send("P-5")) == ["Ship P-5 to AB2?"]
    done = session.send("yes")
    assert texts(done) == ["Shipped P-5 to AB2."]
    assert done.ended
