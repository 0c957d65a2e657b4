"""Seed 000 ("How to pass full, recent, or no conversation history"), its Verification section
and its rules, run on the seed's four files (tests/runtime/projects/retail)."""

from __future__ import annotations

import pytest
from engine_support import of_type, one, project_text, retail, retail_project, texts, thread_of, turn_events

from abl.launch import LaunchRefused, launch
from abl.runtime import RuntimeOptions, start_session
from abl.runtime.models import EmbeddedModel, ScriptedModel

EARLY = ["Hi there", "ORD-20931"]  # two other messages (and the hub's two replies)
LONG = ["Hi there", "ORD-20931", "thanks", "ok", "one more thing"]  # five messages, five replies


def handoff_of(session, turn_index: int):
    return one(turn_events(session, turn_index), "handoff")


def first_model_call(session, agent: str):
    calls = [e for e in session.trace if e.type == "model_call" and e.agent == agent]
    assert calls, f"{agent} made no model call"
    return calls[0]


# --- Verification step 2 and 3: order status gets no history ------------------------------------


def test_order_status_request_after_two_messages_hands_off_with_no_history() -> None:
    session = retail()
    for text in EARLY:
        session.send(text)
    turn = session.send("Where is my order? When will it arrive?")
    handoff = one(turn.events, "handoff")
    assert handoff.get("from") == "Retail_Hub"
    assert handoff.get("to") == "Order_Status_Agent"
    assert handoff.get("history") == {"mode": "none", "count": None}
    assert handoff.get("historyMessages") == 0
    assert handoff.get("passed") == ["order_id"]
    assert texts(turn) == ["Order ORD-20931 is on its way."]
    # The agent knows only the message it was handed and its own answer.
    assert [e.text for e in thread_of(session, "Order_Status_Agent").history] == [
        "Where is my order? When will it arrive?",
        "Order ORD-20931 is on its way.",
    ]


ORDER_STATUS_KEEPS_TALKING = """
AGENT: Order_Status_Agent
GOAL: "Report the status of one order"

GATHER:
  order_id:
    PROMPT: "What is your order number?"
    TYPE: string
    REQUIRED: true

COMPLETE:
  - WHEN: order_id IS SET
    RESPOND: "Order {{order_id}} is on its way."
    TERMINAL: false
"""


def test_the_order_status_agent_does_not_know_what_was_said_earlier() -> None:
    model = ScriptedModel(
        replies={"Order_Status_Agent": "I only know about your current order."}, fallback=EmbeddedModel()
    )
    project = retail_project(**{"order-status-agent.agent.abl": ORDER_STATUS_KEEPS_TALKING})
    session = start_session(project, "Retail_Hub", RuntimeOptions(model=model, trace_level="debug"))
    for text in EARLY:
        session.send(text)
    session.send("Where is my order? When will it arrive?")
    turn = session.send("What did I say earlier?")
    assert texts(turn) == ["I only know about your current order."]
    reply_call = next(e for e in turn.events if e.type == "model_call" and e.get("purpose") == "reply")
    assert reply_call.agent == "Order_Status_Agent"
    seen = [m["content"] for m in reply_call.get("messages")["items"]]
    # The earlier conversation of the order status agent, then the question it answers.
    assert seen == [
        "Where is my order? When will it arrive?",
        "Order ORD-20931 is on its way.",
        "What did I say earlier?",
    ]
    assert not any("ORD-20931" in text and "number" in text for text in seen)
    assert reply_call.get("contextMessages") == 2


def test_the_seed_order_status_agent_answers_after_completing_without_earlier_messages() -> None:
    # The seed's own file: the agent completes as soon as it gets `order_id`, and the customer
    # then asks it what was said earlier. It answers, from a conversation that starts with the
    # request it was handed.
    session = retail(trace_level="debug")
    for text in EARLY:
        session.send(text)
    done = session.send("Where is my order? When will it arrive?")
    assert texts(done) == ["Order ORD-20931 is on its way."] and done.ended
    turn = session.send("What did I say earlier?")
    assert [r.agent for r in turn.replies] == ["Order_Status_Agent"]
    reply_call = next(e for e in turn.events if e.type == "model_call" and e.get("purpose") == "reply")
    seen = [m["content"] for m in reply_call.get("messages")["items"]]
    assert "Hi there" not in seen and "ORD-20931" not in seen
    assert seen[0] == "Where is my order? When will it arrive?"


# --- Verification step 4: the returns agent knows only the latest 6 messages ----------------------


def test_returns_agent_receives_exactly_the_latest_six_messages() -> None:
    session = retail()
    for text in LONG:
        session.send(text)
    hub_before = [e.text for e in thread_of(session, "Retail_Hub").history]
    assert len(hub_before) == 10
    turn = session.send("I want to return my jacket and get a refund")
    handoff = one(turn.events, "handoff")
    assert handoff.get("to") == "Returns_Agent"
    assert handoff.get("history") == {"mode": "last_n", "count": 6}
    assert handoff.get("historyMessages") == 6
    returns = thread_of(session, "Returns_Agent")
    assert [e.text for e in returns.history[:6]] == hub_before[-6:]
    assert returns.history[6].text == "I want to return my jacket and get a refund"
    assert first_model_call(session, "Returns_Agent").get("contextMessages") == 6


def test_returns_agent_in_a_conversation_shorter_than_the_window_gets_all_of_it() -> None:
    session = retail()
    session.send("ORD-20931")
    turn = session.send("I want to return my jacket and get a refund")
    handoff = one(turn.events, "handoff")
    assert handoff.get("to") == "Returns_Agent"
    assert handoff.get("historyMessages") == 2
    assert first_model_call(session, "Returns_Agent").get("contextMessages") == 2


# --- Verification step 5: the complaint agent knows everything ------------------------------------


def test_complaint_agent_receives_the_whole_conversation() -> None:
    session = retail()
    for text in LONG:
        session.send(text)
    hub_before = [e.text for e in thread_of(session, "Retail_Hub").history]
    turn = session.send("I want to complain, the service was terrible")
    handoff = one(turn.events, "handoff")
    assert handoff.get("to") == "Complaint_Agent"
    assert handoff.get("history") == {"mode": "full", "count": None}
    assert handoff.get("historyMessages") == 10
    complaint = thread_of(session, "Complaint_Agent")
    assert [e.text for e in complaint.history[:10]] == hub_before
    assert first_model_call(session, "Complaint_Agent").get("contextMessages") == 10
    assert texts(turn) == ["What outcome do you want?"]
    done = session.send("a full refund")
    assert texts(done) == ["I logged your complaint and noted your requested outcome."]
    assert done.ended


# --- Verification step 6: the first model call of each target matches its route -----------------


@pytest.mark.parametrize(
    ("request_text", "agent", "expected"),
    [
        ("I want to return my jacket and get a refund", "Returns_Agent", 6),
        ("I want to complain, the service was terrible", "Complaint_Agent", 10),
    ],
)
def test_first_model_call_of_each_target_counts_the_routes_messages(request_text, agent, expected) -> None:
    session = retail(trace_level="debug")
    for text in LONG:
        session.send(text)
    session.send(request_text)
    call = first_model_call(session, agent)
    assert call.get("contextMessages") == expected


# --- Rules that apply to every value --------------------------------------------------------------

RESUME_PROJECT = """
SUPERVISOR: Help_Desk
GOAL: "Route refund and delivery questions"

INTENTS:
  refund: "Refunds or money back for an order."
  delivery: "Where a delivery or package is; tracking."

HANDOFF:
  - TO: Refund_Agent
    WHEN: intent.category == "refund"
    HISTORY: last_2
    RETURN: true
    ON_FAILURE: CONTINUE

  - TO: Tracking_Agent
    WHEN: intent.category == "delivery"
    HISTORY: none
    RETURN: true
    ON_FAILURE: CONTINUE

AGENT: Refund_Agent
GOAL: "Collect the refund amount"

GATHER:
  refund_amount:
    PROMPT: "How much should be refunded?"
    RETRY_PROMPT: "Please tell me the amount to refund, for example 40 dollars."
    TYPE: currency

COMPLETE:
  - WHEN: refund_amount IS SET
    RESPOND: "Refund of {{refund_amount}} started."

AGENT: Tracking_Agent
GOAL: "Track a package"

GATHER:
  tracking_number:
    PROMPT: "What is the tracking number?"
    TYPE: string

COMPLETE:
  - WHEN: tracking_number IS SET
    RESPOND: "Package {{tracking_number}} is in transit."
"""


def test_a_waiting_child_resumes_with_its_own_history_and_history_is_not_applied_again() -> None:
    session = start_session(project_text(RESUME_PROJECT), "Help_Desk")
    session.send("hello")
    first = session.send("I want a refund for my order")
    assert one(first.events, "handoff").get("historyMessages") == 2
    assert texts(first) == ["How much should be refunded?"]
    refund_history = [e.text for e in thread_of(session, "Refund_Agent").history]

    # The customer changes topic: the refund agent gives control back and waits.
    away = session.send("where is my package? I need tracking")
    assert [e.type for e in of_type(away.events, "return_to_parent", "resume_intent", "handoff")] == [
        "return_to_parent",
        "resume_intent",
        "handoff",
    ]
    assert texts(away) == ["What is the tracking number?"]
    waiting = thread_of(session, "Refund_Agent")
    assert waiting.status == "waiting"
    waiting_length = len(waiting.history)
    session.send("TRK123")

    back = session.send("back to my refund please")
    handoff = one(back.events, "handoff")
    assert handoff.get("to") == "Refund_Agent"
    # The route's HISTORY is reported as written, but it is not applied again: nothing is copied.
    assert handoff.get("history")["mode"] in ("full", "none", "summary_only", "last_n")
    assert handoff.get("resumed") is True
    assert handoff.get("historyMessages") == 0
    resume = one(back.events, "thread_resume")
    assert resume.agent == "Refund_Agent"
    assert resume.get("preservedHistoryLength") == waiting_length
    resumed = thread_of(session, "Refund_Agent")
    assert resumed is waiting
    assert [e.text for e in resumed.history][: len(refund_history)] == refund_history
    assert texts(back) == ["Please tell me the amount to refund, for example 40 dollars."]
    done = session.send("40 dollars")
    assert texts(done) == ["Refund of 40 started."]


def test_with_none_the_childs_prompts_stay_out_of_the_parent_conversation() -> None:
    session = start_session(project_text(RESUME_PROJECT), "Help_Desk")
    session.send("where is my package")
    session.send("TRK123")
    hub = [e.text for e in thread_of(session, "Help_Desk").history]
    assert "What is the tracking number?" not in hub
    assert "Package TRK123 is in transit." not in hub


def test_with_last_n_the_childs_replies_join_the_parent_conversation() -> None:
    session = start_session(project_text(RESUME_PROJECT), "Help_Desk")
    session.send("I want a refund")
    session.send("40 dollars")
    hub = [e.text for e in thread_of(session, "Help_Desk").history]
    assert hub == ["I want a refund", "How much should be refunded?", "Refund of 40 started."]


# --- How the compiler reads the value: what the runtime then does --------------------------------

TABLE_PROJECT = """
SUPERVISOR: Hub
GOAL: "Route"

HANDOFF:
  - TO: Target
    WHEN: go == true
{route}    RETURN: false

MEMORY:
  session:
    - go

AGENT: Target
GOAL: "Receive the history"
"""

WARM_UP = ["one", "two", "three", "four", "five", "six"]  # twelve earlier messages with the replies


def history_for(route_lines: str) -> dict:
    from abl.runtime import RuntimeOptions

    text = TABLE_PROJECT.format(route=route_lines)
    session = start_session(project_text(text), "Hub", RuntimeOptions())
    for message in WARM_UP:
        session.send(message)
    session._engine.data.active_thread.values["go"] = True
    turn = session.send("now")
    handoff = one(turn.events, "handoff")
    return {
        "mode": handoff.get("history")["mode"],
        "count": handoff.get("history")["count"],
        "messages": handoff.get("historyMessages"),
    }


@pytest.mark.parametrize(
    ("route_lines", "expected"),
    [
        ("    HISTORY: last_5\n", {"mode": "last_n", "count": 5, "messages": 5}),
        ("    HISTORY: last_0\n", {"mode": "none", "count": None, "messages": 0}),
        ("    HISTORY: last_n\n", {"mode": "full", "count": None, "messages": 12}),
        ("    HISTORY:\n      mode: last_n\n      count: 0\n", {"mode": "full", "count": None, "messages": 12}),
        ("    HISTORY: recent\n", {"mode": "full", "count": None, "messages": 12}),
        ("    HISTORY: FULL\n", {"mode": "full", "count": None, "messages": 12}),
        ('    HISTORY: "none"\n', {"mode": "none", "count": None, "messages": 0}),
        ("", {"mode": "full", "count": None, "messages": 12}),  # omitted: the default is full
        ("    HISTORY:\n      mode: last_n\n      count: 3\n", {"mode": "last_n", "count": 3, "messages": 3}),
        ("    HISTORY: auto\n", {"mode": "last_n", "count": 5, "messages": 5}),
        ('    HISTORY: auto\n    SUMMARY: "Why"\n', {"mode": "summary_only", "count": None, "messages": 0}),
        ('    HISTORY: summary_only\n    SUMMARY: "Why"\n', {"mode": "summary_only", "count": None, "messages": 0}),
        ("    CONTEXT:\n      history: last_3\n", {"mode": "last_n", "count": 3, "messages": 3}),
    ],
)
def test_each_spelling_of_history_gives_the_target_what_the_table_says(route_lines: str, expected: dict) -> None:
    assert history_for(route_lines) == expected


@pytest.mark.parametrize(
    ("route_lines", "code"),
    [("    HISTORY:\n      mode: last_n\n", "E331"), ("    HISTORY:\n      mode: recent\n", "E330")],
)
def test_history_blocks_the_compiler_rejects_stop_the_session_from_starting(route_lines: str, code: str) -> None:
    with pytest.raises(LaunchRefused) as caught:
        launch(project_text(TABLE_PROJECT.format(route=route_lines)), "Hub")
    assert any(f"error[{code}]" in problem for problem in caught.value.problems)
