"""Failures never escape `send`: model errors, loops, deep chains, ended sessions, bad projects."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from engine_support import of_type, one, project_dir, project_text, retail, texts

from abl.launch import LaunchRefused, launch
from abl.runtime import RuntimeOptions, SessionError, start_session
from abl.runtime.models import (
    ConditionDecision,
    EmbeddedModel,
    Extraction,
    FieldSpec,
    IntentDecision,
    IntentOption,
    ModelContext,
    ModelError,
    ReplyRequest,
    ScriptedModel,
)


def test_a_scripted_model_error_becomes_an_error_event_and_the_session_continues() -> None:
    model = ScriptedModel()  # no answers and no fallback: every question raises ScriptExhausted
    session = start_session(project_dir("retail"), "Retail_Hub", RuntimeOptions(model=model))
    turn = session.send("Hi there")
    errors = of_type(turn.events, "error")
    assert [e.get("purpose") for e in errors] == ["extract", "intent"]
    assert all(e.get("code") == "model_error" for e in errors)
    assert texts(turn)[0].startswith("[error] the model endpoint did not answer: the scripted model has no extract")
    assert texts(turn)[1:] == ["What is your order number?"]  # one error reply per turn, then the agent goes on
    model.queue_extraction({"order_id": "ORD-1"})
    model.queue_intent("order_status")
    done = session.send("where is ORD-1?")
    assert texts(done) == ["Order ORD-1 is on its way."]
    assert not of_type(done.events, "error")


class _Offline(EmbeddedModel):
    """Answers like the embedded model, except that free replies time out."""

    def reply(self, request: ReplyRequest) -> str:
        raise ModelError("timed out after 30 s (http://localhost:11434/v1)")


def test_an_endpoint_timeout_on_a_reply_is_reported_and_the_turn_ends_cleanly() -> None:
    session = start_session(project_dir("retail"), "Retail_Hub", RuntimeOptions(model=_Offline()))
    session.send("ORD-20931")  # gathered: the hub now answers with a free reply
    turn = session.send("thanks")
    error = one(turn.events, "error")
    assert error.get("purpose") == "reply"
    assert texts(turn) == [
        "[error] the model endpoint did not answer: timed out after 30 s (http://localhost:11434/v1)"
    ]
    assert not turn.ended
    assert texts(session.send("where is my order?")) == ["Order ORD-20931 is on its way."]


def _chain(length: int) -> str:
    parts = []
    for i in range(1, length + 1):
        part = f'AGENT: Step_{i}\nGOAL: "Step {i}"\n'
        if i < length:
            part += f"\nHANDOFF:\n  - TO: Step_{i + 1}\n    WHEN: true\n    RETURN: false\n"
        parts.append(part)
    return "\n".join(parts)


def test_a_handoff_chain_deeper_than_ten_stops_with_an_error_event() -> None:
    session = start_session(project_text(_chain(14)), "Step_1")
    turn = session.send("go")
    handoffs = of_type(turn.events, "handoff")
    assert len(handoffs) == 10  # Step_1 to Step_2, ..., Step_10 to Step_11: ten nested handoffs
    error = one(turn.events, "error")
    assert error.get("code") == "handoff_depth_limit"
    failed = [e for e in of_type(turn.events, "handoff_completed") if e.get("outcome") != "success"]
    assert [(e.get("to"), e.get("code")) for e in failed] == [("Step_12", "depth_limit")]
    assert turn.active_agent == "Step_11"
    assert texts(turn) == ["(Step_11) I can help with: Step 11."]


def test_a_route_back_to_the_caller_in_the_same_turn_is_refused_not_looped() -> None:
    ping_pong = """
AGENT: Ping
GOAL: "Ping"
HANDOFF:
  - TO: Pong
    WHEN: true
    RETURN: false

AGENT: Pong
GOAL: "Pong"
HANDOFF:
  - TO: Ping
    WHEN: true
    RETURN: false
"""
    session = start_session(project_text(ping_pong), "Ping")
    turn = session.send("hello")
    refused = [e for e in of_type(turn.events, "handoff_completed") if e.get("outcome") == "rejected"]
    assert [(e.get("to"), e.get("code")) for e in refused] == [("Ping", "recursion")]
    assert turn.active_agent == "Pong"


def test_a_completed_conversation_reopens_with_the_same_agent() -> None:
    session = retail()
    session.send("ORD-20931")
    done = session.send("where is my order?")
    assert done.ended and session.state().completed and not session.state().ended
    after = session.send("hello?")
    assert not after.ended and after.active_agent == "Order_Status_Agent"
    assert one(after.events, "session_reopened").get("after") == "complete"
    # The rule that completed the agent does not fire again; the agent answers instead.
    assert of_type(after.events, "complete") == []
    assert [r.agent for r in after.replies] == ["Order_Status_Agent"]


def test_stop_ends_the_session() -> None:
    session = retail()
    session.stop()
    assert session.state().ended
    assert texts(session.send("hello")) == ["[session ended] the conversation is over (stopped)"]


def test_an_unknown_agent_is_a_session_error() -> None:
    with pytest.raises(SessionError) as caught:
        start_session(project_dir("retail"), "Nobody")
    assert "unknown agent `Nobody`" in caught.value.problems[0]
    assert "Retail_Hub" in caught.value.problems[0]


def test_a_project_with_errors_cannot_be_launched() -> None:
    text = """
AGENT: Hub
GOAL: "Route"
HANDOFF:
  - TO: Other
    WHEN: true
    HISTORY:
      mode: last_n

AGENT: Other
GOAL: "Other"
"""
    with pytest.raises(LaunchRefused) as caught:
        launch(project_text(text), "Hub")
    assert any("error[E331]" in p for p in caught.value.problems)


def test_an_unknown_trace_level_is_a_session_error() -> None:
    with pytest.raises(SessionError):
        start_session(project_dir("retail"), "Retail_Hub", RuntimeOptions(trace_level="loud"))


def test_an_unknown_model_provider_is_a_session_error() -> None:
    with pytest.raises(SessionError) as caught:
        start_session(project_dir("retail"), "Retail_Hub", RuntimeOptions(model="psychic"))
    assert "psychic" in str(caught.value)


class _Recorder(EmbeddedModel):
    """The embedded model, counting the questions it gets."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def classify_intent(self, message: str, intents: Sequence[IntentOption], context: ModelContext) -> IntentDecision:
        self.asked.append("intent")
        return super().classify_intent(message, intents, context)

    def judge_condition(self, condition: str, message: str, context: ModelContext) -> ConditionDecision:
        self.asked.append("condition")
        return super().judge_condition(condition, message, context)

    def extract(self, fields: Sequence[FieldSpec], message: str, context: ModelContext) -> dict[str, Extraction]:
        self.asked.append("extract")
        return super().extract(fields, message, context)


def test_every_model_question_is_a_model_call_event() -> None:
    model = _Recorder()
    session = start_session(project_dir("retail"), "Retail_Hub", RuntimeOptions(model=model, trace_level="verbose"))
    session.send("Hi there")
    session.send("ORD-20931")
    calls = [e.get("purpose") for e in session.trace if e.type == "model_call"]
    assert calls == ["extract", "intent", "extract", "intent", "reply"]
    assert model.asked == ["extract", "intent", "extract", "intent"]
    for event in session.trace:
        if event.type == "model_call":
            assert event.get("provider") == "embedded"
            assert "count" in event.get("messages")


def test_a_flow_with_buttons_runs_them_and_warns_about_nothing() -> None:
    text = """AGENT: Wizard
GOAL: "Walk the customer through a form"
FLOW:
  ask:
    REASONING: false
    RESPOND: "Step one"
    ACTIONS:
      - id: "yes"
        type: button
        label: "Yes"
    THEN: COMPLETE
"""
    session = start_session(project_text(text), "Wizard")
    first = session.send("hello")
    assert [(r.text, r.choices) for r in first.replies] == [("Step one", (("yes", "Yes"),))]
    assert not of_type(first.events, "warning")
    chosen = session.send("Yes")
    assert one(chosen.events, "action_handler_executed").get("action") == "yes"
    assert chosen.ended
