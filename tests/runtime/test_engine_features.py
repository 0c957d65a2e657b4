"""The rest of RUNTIME.md: ON_START, GATHER validation and sensitive values, COMPLETE, context
passing, route order, DELEGATE, ESCALATE, tools with mocks, trace levels, state views."""

from __future__ import annotations

import json

import pytest
from engine_support import of_type, one, project_text, texts, thread_of, types

from abl.runtime import RuntimeOptions, start_session
from abl.runtime.tools import call_tool
from abl.runtime.trace import REDACTED


def session_of(text: str, agent: str, **options):
    return start_session(project_text(text), agent, RuntimeOptions(**options))


# --- ON_START and tools --------------------------------------------------------------------------

GREETER = """
AGENT: Greeter
GOAL: "Greet and look up the customer"

MEMORY:
  session:
    - greeting_name
    - visits
      INITIAL: 0

TOOLS:
  lookup_customer() -> {name: string}
    description: "Find the customer"

ON_START:
  SET:
    greeting_name = "friend"
    visits = visits + 1
  CALL: lookup_customer
  RESPOND: "Hello {{greeting_name}}, visit {{visits}}; you are {{last_lookup_customer_result.name}}."
"""


def test_on_start_sets_calls_and_greets_once() -> None:
    session = session_of(GREETER, "Greeter", mocks={"lookup_customer": {"name": "Ada"}})
    assert [(r.agent, r.text) for r in session.greeting] == [("Greeter", "Hello friend, visit 1; you are Ada.")]
    calls = of_type(session.trace, "tool_call", "tool_result")
    assert [e.type for e in calls] == ["tool_call", "tool_result"]
    assert calls[1].get("output") == {"name": "Ada"} and calls[1].get("mocked") is True
    assert calls[0].get("callId") == calls[1].get("callId")
    assert session.state().values["last_lookup_customer_result"] == {"name": "Ada"}
    history = thread_of(session, "Greeter").history
    assert [(e.role, e.tool_call_id is not None) for e in history] == [
        ("assistant", True),
        ("tool", True),
        ("assistant", False),
    ]
    session.send("hi")
    assert len(session.greeting) == 1
    assert len(of_type(session.trace, "tool_call")) == 1


def test_a_missing_mock_is_a_failed_tool_result_not_a_crash() -> None:
    session = session_of(GREETER, "Greeter")
    result = one(session.trace, "tool_result")
    assert result.get("success") is False
    assert "no mock result for tool `lookup_customer`" in result.get("error")
    assert session.greeting[0].text == "Hello friend, visit 1; you are ."


def test_mock_lists_are_used_in_turn() -> None:
    session = session_of(GREETER, "Greeter", mocks={"lookup_customer": [{"name": "A"}, {"name": "B"}]})
    engine = session._engine
    thread = engine.data.active_thread
    outputs = [call_tool(engine, thread, "lookup_customer", {}, None).value for _ in range(2)]
    assert outputs == [{"name": "B"}, {"name": "B"}]  # the greeting used the first; the last repeats


# --- GATHER --------------------------------------------------------------------------------------

BOOKING = """
AGENT: Booking_Agent
GOAL: "Book a table"

GATHER:
  party_size:
    PROMPT: "For how many people?"
    RETRY_PROMPT: "Please give a number of people between 1 and 12."
    TYPE: number
    VALIDATE: "min(1) max(12)"
  seating:
    PROMPT: "Inside or terrace?"
    TYPE: enum
    OPTIONS: [Inside, Terrace]
  note:
    PROMPT: "Anything else?"
    TYPE: string
    REQUIRED: false

COMPLETE:
  - WHEN: party_size IS SET AND seating IS SET
    RESPOND: "Booked for {{party_size}}, {{seating}}."
"""


def test_gather_validates_and_re_asks_with_the_retry_prompt() -> None:
    session = session_of(BOOKING, "Booking_Agent")
    assert texts(session.send("hello")) == ["For how many people?"]
    too_many = session.send("40")
    gather = one(too_many.events, "gather")
    assert (gather.get("value"), gather.get("valid")) == (40, False)
    assert "above the maximum 12" in gather.get("reason")
    assert texts(too_many) == ["Please give a number of people between 1 and 12."]
    four = session.send("4")
    assert texts(four) == ["Inside or terrace?"]
    done = session.send("terrace please")
    assert texts(done) == ["Booked for 4, Terrace."]
    assert done.ended


def test_gather_takes_several_fields_from_one_message() -> None:
    session = session_of(BOOKING, "Booking_Agent")
    turn = session.send("a party of 3 on the terrace")
    assert [(e.get("field"), e.get("value")) for e in of_type(turn.events, "gather")] == [
        ("party_size", 3),
        ("seating", "Terrace"),
    ]
    assert texts(turn) == ["Booked for 3, Terrace."]


def test_an_option_outside_the_list_is_invalid() -> None:
    from abl.runtime.gather import validate
    from abl.workspace import Project

    project = project_text(BOOKING)
    assert isinstance(project, Project)
    seating = project.agent("Booking_Agent").gather_field("seating")
    assert validate(seating, "inside") == ("Inside", None)
    _, problem = validate(seating, "garden")
    assert problem == "`garden` is not one of the options: Inside, Terrace"


PIN_PROJECT = """
SUPERVISOR: Bank_Hub
GOAL: "Route banking requests"

INTENTS:
  balance: "Check an account balance."
  card: "Questions about a card."

HANDOFF:
  - TO: Pin_Agent
    WHEN: intent.category == "balance" AND pin_ok IS NOT SET
    HISTORY: full
    RETURN: true
    ON_RETURN:
      action: resume_intent
      MAP:
        verified: pin_ok

  - TO: Card_Agent
    WHEN: intent.category == "card"
    HISTORY: full
    RETURN: false

MEMORY:
  session:
    - pin_ok

AGENT: Pin_Agent
GOAL: "Verify the customer's PIN"

GATHER:
  pin:
    PROMPT: "Please enter your 4-digit PIN."
    TYPE: string
    SENSITIVE: true

COMPLETE:
  - WHEN: pin IS SET
    SET:
      verified = true
    RESPOND: "PIN accepted."

AGENT: Card_Agent
GOAL: "Answer card questions"
"""


def test_sensitive_values_are_redacted_everywhere_and_their_messages_stay_out_of_full_history() -> None:
    session = session_of(PIN_PROJECT, "Bank_Hub", trace_level="debug")
    assert texts(session.send("I want to check my balance")) == ["Please enter your 4-digit PIN."]
    turn = session.send("4821")
    gather = one(turn.events, "gather")
    assert gather.get("value") == REDACTED
    assert texts(turn)[0] == "PIN accepted."
    exported = session.trace_log.to_jsonl()
    assert "4821" not in exported
    assert thread_of(session, "Pin_Agent").values["pin"] == "4821"  # the engine still has it
    assert session.state().threads[1].values["pin"] == REDACTED
    assert "4821" not in json.dumps(session.to_dict())
    card = session.send("I have a question about my card")
    handoff = one(card.events, "handoff")
    assert handoff.get("to") == "Card_Agent"
    card_history = [e.text for e in thread_of(session, "Card_Agent").history]
    assert "4821" not in card_history and "Please enter your 4-digit PIN." not in card_history
    assert "I want to check my balance" in card_history
    assert "4821" not in session.trace_log.to_jsonl()


# --- COMPLETE ------------------------------------------------------------------------------------

FEEDBACK = """
AGENT: Survey_Agent
GOAL: "Ask for a rating"

GATHER:
  rating:
    PROMPT: "How would you rate us from 1 to 5?"
    TYPE: number

COMPLETE:
  - WHEN: rating IS SET AND rating < 3
    RESPOND: "Sorry to hear that."
  - WHEN: rating IS SET
    RESPOND: "Thanks for rating us {{rating}}."
    TERMINAL: false
"""


def test_the_first_true_rule_wins_and_terminal_false_keeps_the_session_open() -> None:
    session = session_of(FEEDBACK, "Survey_Agent")
    session.send("hi")
    turn = session.send("5")
    assert texts(turn) == ["Thanks for rating us 5."]
    complete = one(turn.events, "complete")
    assert complete.get("rule") == {"index": 1, "condition": "rating IS SET"}
    assert complete.get("terminal") is False
    assert not turn.ended
    later = session.send("anything else?")
    assert not of_type(later.events, "complete")  # a non-terminal rule is shown once
    assert texts(later) == ["(Survey_Agent) I can help with: Ask for a rating."]

    unhappy = session_of(FEEDBACK, "Survey_Agent")
    unhappy.send("hi")
    low = unhappy.send("2")
    assert one(low.events, "complete").get("rule")["index"] == 0
    assert low.ended


# --- context on a handoff ------------------------------------------------------------------------

CONTEXT = """
SUPERVISOR: Front_Desk
GOAL: "Route"

MEMORY:
  session:
    - customer_name
      INITIAL: "Ada"
    - account_id

HANDOFF:
  - TO: Specialist
    WHEN: true
    PASS: [customer_name, account_id]
    SUMMARY: "{{customer_name}} needs help with an invoice."
    SET:
      priority = "high"
    HISTORY: none
    RETURN: false

AGENT: Specialist
GOAL: "Help with invoices"
"""


def test_pass_summary_and_set_reach_the_target_and_unset_fields_are_not_passed() -> None:
    session = session_of(CONTEXT, "Front_Desk")
    turn = session.send("I have a question about an invoice")
    handoff = one(turn.events, "handoff")
    assert handoff.get("passed") == ["customer_name"]  # account_id has no value
    values = thread_of(session, "Specialist").values
    assert values["customer_name"] == "Ada"
    assert "account_id" not in values
    assert values["_handoff_summary"] == "Ada needs help with an invoice."
    assert values["priority"] == "high"
    assert values["_handoff_from"] == "Front_Desk"


ORDERED = """
SUPERVISOR: Router
GOAL: "Route"

HANDOFF:
  - TO: Fallback
    WHEN: true
    RETURN: false
  - TO: Second
    WHEN: topic == "x"
    PRIORITY: 2
    RETURN: false
  - TO: First
    WHEN: topic == "x"
    PRIORITY: 1
    RETURN: false

MEMORY:
  session:
    - topic
      INITIAL: "x"

AGENT: Fallback
GOAL: "Fallback"

AGENT: First
GOAL: "First"

AGENT: Second
GOAL: "Second"
"""


def test_priority_orders_routes_and_when_true_is_the_fallback() -> None:
    session = session_of(ORDERED, "Router")
    turn = session.send("hello")
    checks = of_type(turn.events, "handoff_condition_check")
    assert [c.get("target") for c in checks] == ["First"]
    assert one(turn.events, "handoff").get("to") == "First"


SEMANTIC = """
SUPERVISOR: Router
GOAL: "Route"

HANDOFF:
  - TO: Refunds
    WHEN: "the customer asks for a refund"
    RETURN: false

AGENT: Refunds
GOAL: "Refunds"
"""


def test_a_natural_language_condition_is_judged_by_the_model_with_a_confidence() -> None:
    session = session_of(SEMANTIC, "Router")
    miss = session.send("hello there")
    check = one(miss.events, "handoff_condition_check")
    assert (check.get("whenOutcome"), check.get("result")) == ("semantic_no_match", False)
    assert check.get("condition") == '"the customer asks for a refund"'
    hit = session.send("I want my money back")
    check = one(hit.events, "handoff_condition_check")
    assert (check.get("whenOutcome"), check.get("result")) == ("semantic_match", True)
    assert 0 < check.get("confidence") <= 1


# --- DELEGATE and ESCALATE -------------------------------------------------------------------

DELEGATING = """
SUPERVISOR: Orchestrator
GOAL: "Quote a price"

BEHAVIOR:
  role: orchestrator

MEMORY:
  session:
    - amount
      INITIAL: 120
    - quote

DELEGATE:
  - AGENT: Pricing_Agent
    WHEN: quote IS NOT SET
    PURPOSE: "Price {{amount}}"
    INPUT:
      base: amount
    RETURNS:
      total: quote

COMPLETE:
  - WHEN: quote IS SET
    RESPOND: "Your quote is {{quote}}."

AGENT: Pricing_Agent
GOAL: "Compute a total"

GATHER:
  base:
    PROMPT: "Base amount?"
    TYPE: number

COMPLETE:
  - WHEN: base IS SET
    SET:
      total = base * 2
    RESPOND: "Total computed."
"""


def test_a_delegate_runs_without_the_customer_and_maps_its_returns() -> None:
    session = session_of(DELEGATING, "Orchestrator")
    turn = session.send("how much?")
    start, done = one(turn.events, "delegate_start"), one(turn.events, "delegate_complete")
    assert (start.get("to"), start.get("purpose"), start.get("input")) == ("Pricing_Agent", "Price 120", ["base"])
    assert (done.get("success"), done.get("returned"), done.get("result")) == (True, ["quote"], "Total computed.")
    assert texts(turn) == ["Your quote is 240."]


def test_a_delegate_that_would_need_the_customer_fails_cleanly() -> None:
    text = DELEGATING.replace("    INPUT:\n      base: amount\n", "")
    session = session_of(text, "Orchestrator")
    turn = session.send("how much?")
    done = one(turn.events, "delegate_complete")
    assert done.get("success") is False
    assert "needs `base` from the customer" in done.get("error")


ESCALATING = """
AGENT: Support
GOAL: "Help"

ESCALATE:
  triggers:
    - WHEN: "the customer asks for a human"
      REASON: "Customer requested a human"
      PRIORITY: high
"""


def test_an_escalation_trigger_hands_over_and_ends_the_session() -> None:
    session = session_of(ESCALATING, "Support")
    assert not session.send("hello").ended
    turn = session.send("let me talk to a real person")
    escalate = one(turn.events, "escalate")
    assert (escalate.get("reason"), escalate.get("priority")) == ("Customer requested a human", "high")
    assert texts(turn) == ["Escalating to human agent. Reason: Customer requested a human"]
    assert turn.ended


# --- views ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "has_checks", "has_model_calls"),
    [("minimal", False, False), ("standard", True, False), ("verbose", True, True), ("debug", True, True)],
)
def test_turn_events_follow_the_trace_level_and_the_session_keeps_everything(
    level, has_checks, has_model_calls
) -> None:
    from engine_support import loan

    session = loan(trace_level=level)
    turn = session.send("I want a loan offer")
    assert ("handoff" in types(turn)) is True
    assert ("handoff_condition_check" in types(turn)) is has_checks
    session.send("85000")
    assert ("model_call" in types(session.send("hello"))) is has_model_calls
    everything = [e.type for e in session.trace]
    assert "handoff_condition_check" in everything and "model_call" in everything


def test_state_shows_threads_stack_and_the_customer_history() -> None:
    from engine_support import loan

    session = loan()
    session.send("I want a loan offer")
    state = session.state()
    assert state.active_agent == "Income_Capture_Agent"
    assert [(t.id, t.agent, t.status, t.history_length) for t in state.threads] == [
        ("thread-1", "Loan_Supervisor", "waiting", 1),
        ("thread-2", "Income_Capture_Agent", "active", 2),
    ]
    assert [(m.role, m.agent, m.text) for m in session.history] == [
        ("user", "Loan_Supervisor", "I want a loan offer"),
        ("assistant", "Income_Capture_Agent", "What is your annual income?"),
    ]


CALLER = """
AGENT: Caller
GOAL: "Look things up"

MEMORY:
  session:
    - customer_id
      INITIAL: "C-7"

TOOLS:
  lookup(id: string, verbose: boolean = false) -> {tier: string}
    description: "Find a customer"
  count_orders(id: number) -> number
    description: "Count orders"

ON_START:
  CALL: lookup(id = customer_id, verbose = true)
  CALL: lookup
  WITH:
    id: customer_id
  AS: profile
  CALL: count_orders(id = customer_id)
  RESPOND: "Tier {{profile.tier}}."
"""


def test_on_start_calls_pass_arguments_store_results_and_check_types() -> None:
    session = session_of(CALLER, "Caller", mocks={"lookup": {"tier": "gold"}, "count_orders": 3})
    calls = of_type(session.trace, "tool_call")
    assert [c.get("input") for c in calls] == [{"id": "C-7", "verbose": True}, {"id": "C-7"}, {"id": "C-7"}]
    results = of_type(session.trace, "tool_result")
    assert [r.get("success") for r in results] == [True, True, False]
    assert results[2].get("error") == "argument `id` should be number, not text"
    assert session.greeting[0].text == "Tier gold."
    assert session.state().values["profile"] == {"tier": "gold"}


NESTED = """
SUPERVISOR: Top
GOAL: "Sell a policy"

MEMORY:
  session:
    - age
    - quote

HANDOFF:
  - TO: Quote_Agent
    WHEN: quote IS NOT SET
    HISTORY: full
    RETURN: true
    ON_RETURN:
      action: continue
      MAP:
        quote: quote
        age: age

AGENT: Quote_Agent
GOAL: "Quote a price"

MEMORY:
  session:
    - age
    - quote

HANDOFF:
  - TO: Age_Agent
    WHEN: age IS NOT SET
    HISTORY: none
    RETURN: true
    ON_RETURN:
      action: continue
      MAP:
        age: age

  - TO: Pricing_Desk
    WHEN: age IS SET
    PASS: [age]
    RETURN: false

AGENT: Age_Agent
GOAL: "Ask the age"

GATHER:
  age:
    PROMPT: "How old are you?"
    TYPE: number

COMPLETE:
  - WHEN: age IS SET
    RESPOND: "Noted."

AGENT: Pricing_Desk
GOAL: "Price by age"

MEMORY:
  session:
    - quote

COMPLETE:
  - WHEN: age IS SET
    SET:
      quote = age * 10
    RESPOND: "Your quote is {{quote}}."
"""


def test_nested_returnable_handoffs_unwind_one_level_at_a_time() -> None:
    session = session_of(NESTED, "Top")
    first = session.send("I need a policy")
    assert texts(first) == ["How old are you?"]
    assert session.state().stack == ["Top", "Quote_Agent"]
    turn = session.send("42")
    # Age_Agent returns to Quote_Agent (continue); on the next message Quote_Agent routes on.
    assert texts(turn) == ["Noted."]
    assert session.state().stack == ["Top"]
    assert turn.active_agent == "Quote_Agent"
    nxt = session.send("so how much?")
    # Quote_Agent hands off for good to Pricing_Desk, which completes and returns to Top:
    # the permanent successor of a returnable child returns in its place.
    handler = [e for e in of_type(nxt.events, "handoff_return_handler")]
    assert [(h.get("from"), h.get("to"), h.get("mappedFields")) for h in handler] == [
        ("Pricing_Desk", "Top", ["quote", "age"])
    ]
    assert texts(nxt) == ["Your quote is 420."]
    assert session.state().values["quote"] == 420
    assert session.state().stack == []
    assert nxt.active_agent == "Top"


def test_enabled_when_false_blocks_the_route() -> None:
    text = CONTEXT.replace("    HISTORY: none\n", "    HISTORY: none\n    ENABLED_WHEN: account_id IS SET\n")
    session = session_of(text, "Front_Desk")
    turn = session.send("hello")
    completed = one(turn.events, "handoff_completed")
    assert (completed.get("outcome"), completed.get("code")) == ("blocked", "disabled")
    assert turn.active_agent == "Front_Desk"
