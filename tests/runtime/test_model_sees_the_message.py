"""Every model question carries the customer message it is about, as the conversation's last
message: what an OpenAI-compatible endpoint receives, request by request, and what the embedded
model's `model_call` events show."""

from __future__ import annotations

import json
from pathlib import Path

from chat_endpoint import decisions, serve
from engine_support import LOAN, of_type, project_text

from abl.runtime import RuntimeOptions, start_session

CONCIERGE = """AGENT: Concierge
GOAL: "Answer questions about the hotel"
"""


def openai(endpoint_url: str, **options: object) -> RuntimeOptions:
    return RuntimeOptions(
        model="openai",
        model_options={"base_url": endpoint_url, "model": "m", "api_key": "k"},
        trace_level="debug",
        **options,
    )  # type: ignore[arg-type]


def chat(body: dict) -> list[tuple[str, str]]:
    return [(m["role"], m.get("content") or "") for m in body["messages"]]


def test_each_reply_request_ends_with_the_message_it_answers() -> None:
    with serve(decisions()) as endpoint:
        session = start_session(project_text(CONCIERGE), "Concierge", openai(endpoint.url))
        first = session.send("Is breakfast included?")
        second = session.send("And until what time?")
    assert [r.text for r in first.replies] == ["reply 1"]
    assert [r.text for r in second.replies] == ["reply 2"]
    turn_one, turn_two = endpoint.of_kind("reply")
    assert chat(turn_one)[1:] == [("user", "Is breakfast included?")]
    assert chat(turn_two)[1:] == [
        ("user", "Is breakfast included?"),
        ("assistant", "reply 1"),
        ("user", "And until what time?"),
    ]


def test_the_offer_agent_is_asked_with_the_replayed_request() -> None:
    with serve(decisions({"annual_income": 85000})) as endpoint:
        session = start_session(project_text(LOAN.read_text(encoding="utf-8")), "Loan_Supervisor", openai(endpoint.url))
        session.send("I want a loan offer")
        turn = session.send("85000")
    assert turn.active_agent == "Offer_Agent"
    (offer,) = endpoint.of_kind("reply")
    assert offer["messages"][0]["content"].startswith("You are Offer_Agent")
    assert chat(offer)[-1] == ("user", "I want a loan offer")
    asked = [
        r["messages"][-1]["content"]
        for r in endpoint.of_kind("json")
        if "annual_income" in r["messages"][-1]["content"]
    ]
    assert [prompt.rsplit("Message: ", 1)[-1] for prompt in asked] == ["I want a loan offer", "85000"]


def test_the_embedded_model_call_shows_the_message_too() -> None:
    session = start_session(project_text(CONCIERGE), "Concierge", RuntimeOptions(trace_level="debug"))
    session.send("Is breakfast included?")
    turn = session.send("And until what time?")
    (call,) = [e for e in of_type(turn.events, "model_call") if e.get("purpose") == "reply"]
    items = call.get("messages")["items"]
    assert items[-1] == {"role": "user", "content": "And until what time?"}
    assert [m["role"] for m in items] == ["user", "assistant", "user"]
    assert call.get("contextMessages") == 2


def test_a_saved_session_keeps_each_history_in_the_order_it_was_said(tmp_path: Path) -> None:
    session = start_session(project_text(LOAN.read_text(encoding="utf-8")), "Loan_Supervisor")
    session.send("I want a loan offer")
    session.send("85000")  # the request is replayed and forwarded to the offer agent
    session.save(tmp_path / "s.json")
    saved = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    for thread in saved["state"]["threads"]:
        seqs = [entry["seq"] for entry in thread["history"]]
        assert seqs == sorted(set(seqs)), (thread["agent"], seqs)
    # Seed 000: `full` also brings the customer messages the income agent handled.
    offer = next(t for t in saved["state"]["threads"] if t["agent"] == "Offer_Agent")
    assert [e["text"] for e in offer["history"] if e["role"] == "user"] == ["I want a loan offer", "85000"]
