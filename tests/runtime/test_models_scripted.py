"""The scripted model and the provider factory."""

from __future__ import annotations

import re

import pytest

from abl.runtime.models import (
    ConditionDecision,
    EmbeddedModel,
    Extraction,
    FieldSpec,
    IntentDecision,
    IntentOption,
    Model,
    ModelContext,
    ModelError,
    ReplyRequest,
    ScriptedModel,
    ScriptExhausted,
    create_model,
)
from abl.runtime.trace import REDACTED

CONTEXT = ModelContext(agent="Retail_Hub")
INTENTS = [IntentOption("order_status", "Where an order is."), IntentOption("return_item", "Returns.")]


def test_queued_intents_are_used_in_order() -> None:
    scripted = ScriptedModel(intents=["return_item", None])
    first = scripted.classify_intent("anything", INTENTS, CONTEXT)
    assert first == IntentDecision("return_item", 1.0, [("return_item", 1.0), ("order_status", 0.0)], False)
    second = scripted.classify_intent("anything else", INTENTS, CONTEXT)
    assert (second.name, second.confidence) == (None, 0.0)
    with pytest.raises(
        ScriptExhausted, match=r"no intent answer for message 'third' \(2 scripted intent answers used so far\)"
    ):
        scripted.classify_intent("third", INTENTS, CONTEXT)


def test_mapping_answers_are_reusable_and_keyed_by_message() -> None:
    scripted = ScriptedModel(intents={"where is it?": "order_status"})
    for _ in range(2):
        assert scripted.classify_intent("where is it?", INTENTS, CONTEXT).name == "order_status"
    with pytest.raises(ScriptExhausted):
        scripted.classify_intent("something else", INTENTS, CONTEXT)


def test_full_intent_decision_passes_through() -> None:
    decision = IntentDecision("order_status", 0.55, [("order_status", 0.55), ("return_item", 0.5)], True)
    assert ScriptedModel(intents=[decision]).classify_intent("x", INTENTS, CONTEXT) is decision


@pytest.mark.parametrize("answer", ["complaint", IntentDecision("complaint", 1.0, [], False)])
def test_intent_outside_the_offered_set_is_an_error(answer: object) -> None:
    with pytest.raises(
        ModelError, match="scripted intent 'complaint' is not one of the offered intents: order_status, return_item"
    ):
        ScriptedModel(intents=[answer]).classify_intent("x", INTENTS, CONTEXT)


def test_conditions_by_queue_condition_or_pair() -> None:
    scripted = ScriptedModel(
        conditions={
            "the customer is angry": True,
            ("the customer is angry", "fine thanks"): ConditionDecision(False, 0.9),
        }
    )
    assert scripted.judge_condition("the customer is angry", "this is awful", CONTEXT) == ConditionDecision(True, 1.0)
    assert scripted.judge_condition("the customer is angry", "fine thanks", CONTEXT) == ConditionDecision(False, 0.9)
    queued = ScriptedModel(conditions=[False])
    assert queued.judge_condition("anything", "x", CONTEXT).result is False
    with pytest.raises(ModelError, match="must be true or false"):
        ScriptedModel(conditions=["yes"]).judge_condition("c", "m", CONTEXT)


def test_extractions_check_field_names_and_redact_sensitive_ones() -> None:
    fields = [FieldSpec("pin", sensitive=True), FieldSpec("amount", "number")]
    scripted = ScriptedModel(extractions=[{"pin": "4921", "amount": Extraction(85000, 0.7, "85k")}])
    found = scripted.extract(fields, "pin 4921, 85k", CONTEXT)
    assert found == {"pin": Extraction("4921", 1.0, "4921"), "amount": Extraction(85000, 0.7, "85k")}
    (record,) = scripted.take_calls()
    assert record.result["pin"]["value"] == REDACTED
    assert record.secrets == ("4921",)
    with pytest.raises(ModelError, match=r"names order_id, which was not asked for \(asked: pin, amount\)"):
        ScriptedModel(extractions=[{"order_id": "x"}]).extract(fields, "m", CONTEXT)


def test_replies_by_agent_name() -> None:
    scripted = ScriptedModel(replies={"Offer_Agent": "Here are your offers."})
    assert scripted.reply(ReplyRequest("Offer_Agent", "goal")) == "Here are your offers."
    with pytest.raises(ScriptExhausted, match="no reply answer for agent 'Other'"):
        scripted.reply(ReplyRequest("Other", "goal"))


def test_answers_can_be_queued_turn_by_turn_and_leftovers_reported() -> None:
    scripted = ScriptedModel()
    scripted.queue_intent("order_status")
    scripted.queue_condition(True)
    scripted.queue_extraction({"amount": 3})
    scripted.queue_reply("ok")
    assert scripted.unused() == {"intent": 1, "condition": 1, "extract": 1, "reply": 1}
    scripted.classify_intent("x", INTENTS, CONTEXT)
    scripted.reply(ReplyRequest("A", "g"))
    assert scripted.unused() == {"condition": 1, "extract": 1}


def test_fallback_answers_unscripted_questions_and_keeps_call_order() -> None:
    scripted = ScriptedModel(intents={"scripted": "return_item"}, fallback=EmbeddedModel())
    assert scripted.classify_intent("scripted", INTENTS, CONTEXT).name == "return_item"
    assert scripted.classify_intent("where is my order?", INTENTS, CONTEXT).name == "order_status"
    assert scripted.classify_intent("scripted", INTENTS, CONTEXT).name == "return_item"
    assert [r.provider for r in scripted.take_calls()] == ["scripted", "embedded", "scripted"]


def test_script_must_be_a_list_or_mapping() -> None:
    with pytest.raises(TypeError, match="must be a list or a mapping"):
        ScriptedModel(intents="order_status")


@pytest.mark.parametrize(
    ("name", "provider"), [("embedded", "embedded"), ("Embedded", "embedded"), ("scripted", "scripted")]
)
def test_create_model(name: str, provider: str) -> None:
    created = create_model(name)
    assert isinstance(created, Model)
    assert created.provider == provider


def test_create_model_passes_options() -> None:
    created = create_model("embedded", threshold=0.9)
    assert isinstance(created, EmbeddedModel) and created.threshold == 0.9
    assert create_model().provider == "embedded"


def test_create_model_rejects_unknown_names() -> None:
    with pytest.raises(ModelError, match="unknown model provider 'gpt'; choose one of: embedded, scripted, openai"):
        create_model("gpt")


def test_openai_provider_needs_a_model_name() -> None:
    with pytest.raises(ModelError, match=re.escape("needs a model name: pass model=... or set ABL_OPENAI_MODEL")):
        create_model("openai", environ={})


def test_a_failed_question_leaves_one_error_record() -> None:
    scripted = ScriptedModel()
    with pytest.raises(ScriptExhausted) as caught:
        scripted.judge_condition("c", "hello", CONTEXT)
    (record,) = scripted.take_calls()
    assert (record.purpose, record.provider, record.result) == ("condition", "scripted", {"error": str(caught.value)})
    assert record.messages[0].content == "hello"


def test_a_failing_fallback_is_recorded_once() -> None:
    scripted = ScriptedModel(fallback=ScriptedModel())
    with pytest.raises(ScriptExhausted):
        scripted.reply(ReplyRequest("A", "g"))
    assert [r.result.keys() == {"error"} for r in scripted.take_calls()] == [True]
