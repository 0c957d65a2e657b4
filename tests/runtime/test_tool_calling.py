"""Reasoning agents choose their tools through the model: an OpenAI-compatible endpoint's tool
calls, and the embedded model's lexical choice with its confidence."""

from __future__ import annotations

import json

from chat_endpoint import request_kind, serve
from engine_support import of_type, project_text, texts

from abl.runtime import RuntimeOptions, start_session
from abl.runtime.models import ChatMessage, EmbeddedModel, ToolParamSpec, ToolRequest, ToolSpec

TRACKER = """AGENT: Parcel_Tracker
GOAL: "Tell customers where their parcel is"

TOOLS:
  track(code: string) -> {status: string}
    description: "Find where a parcel is by its tracking code"
"""

TOOLS = (
    ToolSpec("track", "Find where a parcel is by its tracking code", (ToolParamSpec("code"),)),
    ToolSpec("refund", "Refund an order", (ToolParamSpec("order_id"),)),
)


def test_an_endpoint_chooses_a_tool_and_then_answers_with_its_result() -> None:
    def answer(body: dict) -> dict:
        if request_kind(body) != "tools":
            return {"content": json.dumps({"intent": None})}
        if not any(m["role"] == "tool" for m in body["messages"]):
            call = {"id": "c1", "type": "function", "function": {"name": "track", "arguments": '{"code": "GB123"}'}}
            return {"content": None, "tool_calls": [call]}
        return {"content": "Your parcel is out for delivery."}

    with serve(answer) as endpoint:
        options = RuntimeOptions(
            model="openai",
            model_options={"base_url": endpoint.url, "model": "m", "api_key": "k"},
            mocks={"track": {"status": "out for delivery"}},
            trace_level="debug",
        )
        session = start_session(project_text(TRACKER), "Parcel_Tracker", options)
        turn = session.send("where is GB123?")
    assert texts(turn) == ["Your parcel is out for delivery."]
    call = of_type(turn.events, "tool_call")[0]
    assert (call.get("tool"), call.get("input")) == ("track", {"code": "GB123"})
    first, second = endpoint.of_kind("tools")
    assert first["tools"][0]["function"]["name"] == "track"
    assert first["tools"][0]["function"]["parameters"]["required"] == ["code"]
    assert first["messages"][-1] == {"role": "user", "content": "where is GB123?"}
    called, result = second["messages"][-2:]
    assert called["tool_calls"][0]["function"] == {"name": "track", "arguments": '{"code":"GB123"}'}
    assert result == {
        "role": "tool",
        "tool_call_id": called["tool_calls"][0]["id"],
        "content": '{"status":"out for delivery"}',
    }


def test_the_embedded_model_picks_the_tool_the_request_is_about() -> None:
    model = EmbeddedModel()
    request = ToolRequest("Desk", "Help", TOOLS, messages=(ChatMessage("user", "where is my parcel GB123?"),))
    decision = model.choose_tool(request)
    assert decision.call is not None
    assert decision.call.name == "track" and decision.call.arguments == {"code": "GB123"}
    assert 0.35 <= decision.call.confidence <= 1.0
    (record,) = model.take_calls()
    assert record.purpose == "tool_choice" and record.result["confidence"] == decision.call.confidence


def test_the_embedded_model_calls_nothing_for_small_talk_or_once_it_has_called() -> None:
    model = EmbeddedModel()
    assert model.choose_tool(ToolRequest("Desk", "Help", TOOLS, messages=(ChatMessage("user", "hello!"),))).call is None
    again = ToolRequest(
        "Desk", "Help", TOOLS, messages=(ChatMessage("user", "where is my parcel GB123?"),), called=("track",)
    )
    assert model.choose_tool(again).call is None


def test_a_missing_argument_is_asked_for_instead_of_calling() -> None:
    model = EmbeddedModel()
    decision = model.choose_tool(ToolRequest("Desk", "Help", TOOLS, messages=(ChatMessage("user", "track my parcel"),)))
    assert decision.call is None and decision.reply == "(Desk) To use track I need: code."


def test_a_known_value_fills_an_argument() -> None:
    model = EmbeddedModel()
    request = ToolRequest(
        "Desk", "Help", TOOLS, messages=(ChatMessage("user", "track my parcel"),), values={"code": "GB777"}
    )
    decision = model.choose_tool(request)
    assert decision.call is not None and decision.call.arguments == {"code": "GB777"}
