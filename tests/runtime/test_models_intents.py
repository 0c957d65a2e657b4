"""Intent classification and natural-language conditions by the embedded model."""

from __future__ import annotations

import pytest

from abl.runtime.models import ChatMessage, EmbeddedModel, IntentOption, ModelContext, ReplyRequest
from abl.runtime.models.lexical import concepts, stem

CONTEXT = ModelContext(agent="Retail_Hub")

# The retail hub from seed 000.
RETAIL_HUB = [
    IntentOption("order_status", "Where an order is, or when it arrives."),
    IntentOption("return_item", "Returns, exchanges, or refunds."),
    IntentOption("complaint", "A complaint about service, product quality, or a past experience."),
]


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        ("where is my package?", "order_status"),
        ("Where's my parcel", "order_status"),
        ("when will my order arrive", "order_status"),
        ("can you track my shipment", "order_status"),
        ("where is my pakage", "order_status"),  # a typo still finds "package"
        ("I want to return these shoes", "return_item"),
        ("I'd like a refund", "return_item"),
        ("can I exchange this for a bigger size", "return_item"),
        ("I want my money back", "return_item"),
        ("I want to return these shoes because they are too small and the colour is wrong", "return_item"),
        ("your service was terrible, I want to complain", "complaint"),
        ("I am very unhappy with the product quality", "complaint"),
        ("I'd like to make a complaint", "complaint"),
        ("hello", None),
        ("what's the weather like", None),
        ("thanks!", None),
        ("", None),
    ],
)
def test_retail_hub_intents(message: str, intent: str | None) -> None:
    decision = EmbeddedModel().classify_intent(message, RETAIL_HUB, CONTEXT)
    assert decision.name == intent
    if intent is None:
        assert decision.confidence < 0.35
    else:
        assert decision.confidence >= 0.35
        assert decision.ranked[0][0] == intent
        assert not decision.ambiguous


def test_ranked_lists_every_intent_best_first() -> None:
    decision = EmbeddedModel().classify_intent("where is my package?", RETAIL_HUB, CONTEXT)
    assert [name for name, _ in decision.ranked] == ["order_status", "return_item", "complaint"]
    scores = [score for _, score in decision.ranked]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= score <= 1.0 for score in scores)


def test_two_close_intents_are_ambiguous() -> None:
    decision = EmbeddedModel().classify_intent("I want to return my order", RETAIL_HUB, CONTEXT)
    assert decision.ambiguous
    assert {decision.ranked[0][0], decision.ranked[1][0]} == {"order_status", "return_item"}


def test_threshold_and_margin_are_configurable() -> None:
    message = "I want to return these shoes because they are too small and the colour is wrong"
    assert EmbeddedModel(threshold=0.9).classify_intent(message, RETAIL_HUB, CONTEXT).name is None
    wide = EmbeddedModel(margin=0.5).classify_intent("I want to return my order", RETAIL_HUB, CONTEXT)
    narrow = EmbeddedModel(margin=0.01).classify_intent("I want to return my order", RETAIL_HUB, CONTEXT)
    assert wide.ambiguous and not narrow.ambiguous


def test_examples_help_an_intent() -> None:
    intents = [
        IntentOption("billing", "Questions about invoices."),
        IntentOption("loyalty", "Points and rewards.", examples=("how many stars do I have",)),
    ]
    assert EmbeddedModel().classify_intent("how many stars have I got", intents, CONTEXT).name == "loyalty"


def test_no_intents_means_no_match() -> None:
    decision = EmbeddedModel().classify_intent("where is my package?", [], CONTEXT)
    assert (decision.name, decision.ranked) == (None, [])


def test_classification_is_deterministic_and_recorded() -> None:
    embedded = EmbeddedModel()
    first = embedded.classify_intent("I want to return these shoes", RETAIL_HUB, CONTEXT)
    second = embedded.classify_intent("I want to return these shoes", RETAIL_HUB, CONTEXT)
    assert first == second
    records = embedded.take_calls()
    assert [r.purpose for r in records] == ["intent", "intent"]
    assert records[0].result == {
        "intent": "return_item",
        "confidence": first.confidence,
        "ambiguous": False,
        "ranked": [[name, score] for name, score in first.ranked],
    }
    assert records[0].trace_fields()["messages"]["count"] == 1


@pytest.mark.parametrize(
    ("condition", "message", "result"),
    [
        ("the customer wants a refund", "I want my money back", True),
        ("the customer wants a refund", "where is my parcel", False),
        ("the customer is unhappy with the service", "this is terrible service", True),
        ("the customer asks to speak to a human", "can I talk to a real person", True),
        ("the customer asks to speak to a human", "what time do you open", False),
        # Seed 004: the child hands back when the customer changes topic.
        ("the customer asks about something other than income", "what is the interest rate?", True),
        ("the customer asks about something other than income", "my salary is about 85k", False),
        ("the customer asks about something other than income", "85k", False),
        ("the customer asks about something other than income", "ok", False),
    ],
)
def test_natural_language_conditions(condition: str, message: str, result: bool) -> None:
    decision = EmbeddedModel().judge_condition(condition, message, CONTEXT)
    assert decision.result is result
    assert 0.0 <= decision.confidence <= 1.0


def test_condition_record() -> None:
    embedded = EmbeddedModel()
    decision = embedded.judge_condition("the customer wants a refund", "I want my money back", CONTEXT)
    (record,) = embedded.take_calls()
    assert record.purpose == "condition"
    assert record.result == {
        "condition": "the customer wants a refund",
        "result": True,
        "confidence": decision.confidence,
    }


@pytest.mark.parametrize(
    ("agent", "goal", "text"),
    [
        (
            "Offer_Agent",
            "Explain loan offers based on the applicant's annual income",
            "(Offer_Agent) I can help with: Explain loan offers based on the applicant's annual income.",
        ),
        (
            "Returns_Agent",
            "Start a return for one order.",
            "(Returns_Agent) I can help with: Start a return for one order.",
        ),
        ("Quiet_Agent", "", "(Quiet_Agent) How can I help?"),
    ],
)
def test_stand_in_reply(agent: str, goal: str, text: str) -> None:
    embedded = EmbeddedModel()
    request = ReplyRequest(agent=agent, goal=goal, messages=(ChatMessage("user", "hi"),))
    assert embedded.reply(request) == text
    (record,) = embedded.take_calls()
    assert (record.purpose, record.result, len(record.messages)) == ("reply", {"text": text}, 1)


@pytest.mark.parametrize(
    ("word", "root"),
    [
        ("returns", "return"),
        ("returned", "return"),
        ("returning", "return"),
        ("arrives", "arriv"),
        ("arrived", "arriv"),
        ("parcels", "parcel"),
        ("shipping", "ship"),
        ("status", "status"),
        ("refunds", "refund"),
    ],
)
def test_stemming_merges_forms(word: str, root: str) -> None:
    assert stem(word) == root


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Where's my package?", ["where", "order"]),
        ("I don't want a refund, I want my money back", ["return"]),
        ("Returns, exchanges, or refunds.", ["return"]),
        ("ORD-20931 and 85k", ["ord"]),
        ("hello there", []),
    ],
)
def test_concepts(text: str, found: list[str]) -> None:
    assert concepts(text) == found
