"""Typed GATHER extraction by the embedded model."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from abl.runtime.models import EmbeddedModel, FieldSpec, ModelContext, ModelError
from abl.runtime.models.extraction import learn_pattern
from abl.runtime.models.numbers import find_numbers, parse_number
from abl.runtime.trace import REDACTED, FixedClock

CONTEXT = ModelContext(agent="Test_Agent")
# 2026-03-10 is a Tuesday.
TODAY = datetime(2026, 3, 10, 9, 30, tzinfo=timezone.utc)


def model(**options: Any) -> EmbeddedModel:
    return EmbeddedModel(clock=FixedClock(start=TODAY), **options)


def extract_one(spec: FieldSpec, message: str, **options: Any) -> Any:
    found = model(**options).extract([spec], message, CONTEXT)
    return found[spec.name].value if spec.name in found else None


# --- Numbers ----------------------------------------------------------------------------------

NUMBER_FORMS = [
    ("85000", 85000),
    ("85,000", 85000),
    ("85k", 85000),
    ("85K", 85000),
    ("$85,000", 85000),
    ("$85k", 85000),
    ("85,000.50", 85000.5),
    ("1.2m", 1_200_000),
    ("2.5 million", 2_500_000),
    ("85 thousand", 85000),
    ("eighty-five thousand", 85000),
    ("eighty five thousand", 85000),
    ("twenty thousand five hundred", 20500),
    ("one hundred and twenty", 120),
    ("a million", 1_000_000),
    ("forty-two", 42),
    ("nineteen hundred", 1900),
    ("0.75", 0.75),
    ("USD 1,299.99", 1299.99),
    ("40 euros", 40),
]


@pytest.mark.parametrize(("text", "value"), NUMBER_FORMS)
def test_number_forms_alone(text: str, value: float) -> None:
    assert parse_number(text) == value
    assert extract_one(FieldSpec("amount", "number", asked=True), text) == value


@pytest.mark.parametrize(("text", "value"), NUMBER_FORMS)
def test_number_forms_inside_a_sentence(text: str, value: float) -> None:
    spec = FieldSpec("annual_income", "number", asked=True)
    assert extract_one(spec, f"I make about {text} a year") == value


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("five six", [5, 6]),
        ("twenty eleven", [20, 11]),
        ("ORD-20931", []),
        ("call 555-123-4567", []),
        ("A12 and B7", []),
        ("85kg of rice", []),
        ("2 adults and 3 children", [2, 3]),
        ("oh well", []),
        ("a dozen eggs", [12]),
    ],
)
def test_find_numbers_keeps_numbers_apart(text: str, values: list[float]) -> None:
    assert [m.value for m in find_numbers(text)] == values


@pytest.mark.parametrize(
    ("spec", "message", "value"),
    [
        # Asked: any single number counts.
        (FieldSpec("annual_income", "number", asked=True), "around 85k I think", 85000),
        # Not asked: the message is only the number.
        (FieldSpec("annual_income", "number"), "85k", 85000),
        # Not asked: the field's own words are next to the number ("earn" is income).
        (FieldSpec("annual_income", "number"), "I want a loan, I earn 85k", 85000),
        # Not asked and not mentioned: a stray number is not income.
        (FieldSpec("annual_income", "number"), "I want to return 2 items", None),
        # Numbers inside dates, emails, identifiers or times are not offered.
        (FieldSpec("quantity", "integer", asked=True), "order ORD-20931 on 2026-03-03", None),
        (FieldSpec("quantity", "integer", asked=True), "3 boxes, deliver at 10:30", 3),
        # Currency fields prefer an amount with a currency.
        (FieldSpec("budget", "currency"), "for 2 people, up to $300", 300),
        (FieldSpec("price", "float", asked=True), "9.99", 9.99),
    ],
)
def test_number_precision_rules(spec: FieldSpec, message: str, value: Any) -> None:
    assert extract_one(spec, message) == value


def test_two_number_fields_take_the_number_next_to_their_words() -> None:
    fields = [FieldSpec("adults", "integer"), FieldSpec("children", "integer")]
    found = model().extract(fields, "2 adults and 3 children", CONTEXT)
    assert {name: e.value for name, e in found.items()} == {"adults": 2, "children": 3}
    assert found["children"].span == "3"


# --- Yes / no ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "value"),
    [
        ("yes", True),
        ("Yeah", True),
        ("sure", True),
        ("yep, go ahead", True),
        ("of course", True),
        ("that's correct", True),
        ("no", False),
        ("Nope.", False),
        ("nah", False),
        ("that's not right", False),
        ("no thanks", False),
        ("not sure", None),
        ("maybe later", None),
        ("the blue one", None),
    ],
)
def test_yes_no_when_asked(message: str, value: bool | None) -> None:
    assert extract_one(FieldSpec("confirmed", "boolean", asked=True), message) == value


def test_yes_no_needs_a_short_answer_when_not_asked() -> None:
    spec = FieldSpec("confirmed", "boolean")
    assert extract_one(spec, "yes please") is True
    assert extract_one(spec, "no I have no idea where my parcel went") is None


# --- Dates ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "value"),
    [
        ("2026-03-03", "2026-03-03"),
        ("March 3 2026", "2026-03-03"),
        ("on March 3, 2026 please", "2026-03-03"),
        ("3rd of March", "2026-03-03"),
        ("Apr 1", "2026-04-01"),
        ("3/4/2026", "2026-03-04"),
        ("25/12/2026", "2026-12-25"),
        ("today", "2026-03-10"),
        ("tomorrow", "2026-03-11"),
        ("yesterday", "2026-03-09"),
        ("the day after tomorrow", "2026-03-12"),
        ("in 3 days", "2026-03-13"),
        ("in two weeks", "2026-03-24"),
        ("next friday", "2026-03-13"),
        ("tuesday", "2026-03-17"),
        ("31/02/2026", None),
        ("whenever", None),
    ],
)
def test_dates_are_iso_strings_relative_to_the_clock(message: str, value: str | None) -> None:
    assert extract_one(FieldSpec("delivery_date", "date", asked=True), message) == value


def test_day_first_order_is_configurable() -> None:
    spec = FieldSpec("delivery_date", "date", asked=True)
    assert extract_one(spec, "3/4/2026", date_order="DMY") == "2026-04-03"


def test_relative_dates_need_the_field_to_be_asked_or_named() -> None:
    spec = FieldSpec("delivery_date", "date", description="When the parcel should be delivered")
    assert extract_one(spec, "I already called today") is None
    assert extract_one(spec, "please deliver it tomorrow") == "2026-03-11"
    assert extract_one(spec, "I ordered it on 2026-03-01") == "2026-03-01"


def test_datetime_combines_date_and_time() -> None:
    spec = FieldSpec("appointment", "datetime", asked=True)
    assert extract_one(spec, "tomorrow at 5pm") == "2026-03-11T17:00:00"
    assert extract_one(spec, "March 20 17:30") == "2026-03-20T17:30:00"


# --- Emails and phones ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "value"),
    [
        ("ann.lee+shop@example.co.uk", "ann.lee+shop@example.co.uk"),
        ("reach me at Bob_1@mail.example.com, thanks", "Bob_1@mail.example.com"),
        ("my email is ann at example dot com", None),
    ],
)
def test_emails(message: str, value: str | None) -> None:
    assert extract_one(FieldSpec("email", "email"), message) == value


@pytest.mark.parametrize(
    ("message", "value"),
    [
        ("call me on 555-123-4567", "5551234567"),
        ("+44 20 7946 0958", "+442079460958"),
        ("(555) 123 4567", "5551234567"),
        ("my number is 12345", None),
        ("born 2026-03-03", None),
    ],
)
def test_phones(message: str, value: str | None) -> None:
    assert extract_one(FieldSpec("phone", "phone"), message) == value


# --- Enum options -----------------------------------------------------------------------------

CABIN = ["economy", "premium_economy", "business", "first"]


@pytest.mark.parametrize(
    ("message", "asked", "value"),
    [
        ("business please", False, "business"),
        ("Premium Economy", False, "premium_economy"),
        ("premium economy, not business", False, "premium_economy"),
        ("buisness", True, "business"),
        ("frist class", True, "first"),
        ("econmy", True, "economy"),
        ("buisness", False, None),  # typos only count when the field was asked (or very close)
        ("coach", True, None),
        ("I don't mind", True, None),
    ],
)
def test_enum_options_with_fuzzy_matching(message: str, asked: bool, value: str | None) -> None:
    spec = FieldSpec("cabin", "enum", options=CABIN, asked=asked)
    assert extract_one(spec, message) == value


# --- Strings and patterns ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("description", "message", "value"),
    [
        ("Order number, for example ORD-20931.", "my order is ORD-55555", "ORD-55555"),
        ("Order number, for example ORD-20931.", "it's ord-55555", "ORD-55555"),
        ("Order number, for example ORD-20931.", "order ORD 55555 please", "ORD-55555"),
        ("Order number, for example ORD-20931.", "ORD-555555", "ORD-555555"),
        ("Order number, for example ORD-20931.", "ABC-12345", "ABC-12345"),
        ("Order number, for example ORD-20931.", "hello there", None),
        ("Parcel code such as AB123456789GB", "code ab987654321gb", "AB987654321GB"),
        ("Account number, e.g. 12345678", "acct 87654321 thanks", "87654321"),
        ("Booking reference like bk_2291", "ref bk_7710", "bk_7710"),
    ],
)
def test_patterns_learned_from_the_description(description: str, message: str, value: str | None) -> None:
    assert extract_one(FieldSpec("ref", "string", description=description), message) == value


@pytest.mark.parametrize(
    ("description", "example"),
    [
        ("Order number, for example ORD-20931.", "ORD-20931"),
        ("The ticket id (TK-1).", "TK-1"),
        ("e.g. 12345678", "12345678"),
        ("Annual income in 2026, in whole currency units", None),
        ("Amount, for example 3.50", None),
        ("Customer name, for example Sam", None),
        ("", None),
    ],
)
def test_learn_pattern_picks_identifier_examples(description: str, example: str | None) -> None:
    learned = learn_pattern(description)
    assert (learned.example if learned else None) == example


def test_extraction_pattern_with_group() -> None:
    spec = FieldSpec("vat", "string", pattern=r"VAT[: ]*([A-Z]{2}\d{9}GB)")
    assert extract_one(spec, "our VAT: AB123456789GB ok") == "AB123456789GB"
    whole = FieldSpec("vat", "string", pattern=r"[A-Z]{2}\d{9}GB", pattern_group=0)
    assert extract_one(whole, "AB123456789GB") == "AB123456789GB"
    numeric = FieldSpec("amount", "number", pattern=r"total (\S+)")
    assert extract_one(numeric, "the total 1.2k") == 1200


@pytest.mark.parametrize(
    ("pattern", "group", "message"),
    [("([A-Z", None, "is not a valid regular expression"), (r"(\d+)", 3, "extraction_group 3 does not exist")],
)
def test_bad_extraction_patterns_are_model_errors(pattern: str, group: int | None, message: str) -> None:
    with pytest.raises(ModelError, match=message):
        extract_one(FieldSpec("x", "string", pattern=pattern, pattern_group=group), "anything")


def test_plain_strings_take_the_whole_reply_only_when_asked() -> None:
    assert (
        extract_one(FieldSpec("return_reason", "string", asked=True), "  They are too small.  ")
        == "They are too small."
    )
    assert extract_one(FieldSpec("return_reason", "string"), "They are too small.") is None
    assert extract_one(FieldSpec("return_reason", "string", asked=True), "   ") is None


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("I have a question about my stuff", None),  # a sentence is not an order number
        ("hi", None),  # one word, but the example has digits and this has none
        ("20931", "20931"),  # one word with a digit: taken when asked
        ("ORD-20931", "ORD-20931"),
    ],
)
def test_an_asked_field_with_an_example_takes_only_value_like_replies(reply: str, value: str | None) -> None:
    spec = FieldSpec("order_id", "string", description="Order number, for example ORD-20931.", asked=True)
    assert extract_one(spec, reply) == value


def test_whole_reply_does_not_block_typed_fields() -> None:
    fields = [FieldSpec("note", "string", asked=True), FieldSpec("email", "email")]
    found = model().extract(fields, "send it to ann@example.com", CONTEXT)
    assert found["note"].value == "send it to ann@example.com"
    assert found["email"].value == "ann@example.com"


# --- Spans, confidence, records ---------------------------------------------------------------


def test_extractions_carry_span_and_confidence() -> None:
    fields = [
        FieldSpec("order_id", description="Order number, for example ORD-20931."),
        FieldSpec("annual_income", "number", asked=True),
    ]
    found = model().extract(fields, "order ord 55555 and I earn 85k", CONTEXT)
    assert found["order_id"].span == "ord 55555"
    assert found["annual_income"].span == "85k"
    assert all(0 < e.confidence <= 1 for e in found.values())
    assert list(found) == ["order_id", "annual_income"]  # in the order the fields were given


def test_pattern_fields_go_first_and_spans_are_not_shared() -> None:
    fields = [
        FieldSpec("annual_income", "number", asked=True),
        FieldSpec("pin", "string", pattern=r"pin (\d{4})", sensitive=True),
    ]
    found = model().extract(fields, "pin 1234 and I earn 85k", CONTEXT)
    assert (found["pin"].value, found["annual_income"].value) == ("1234", 85000)


def test_extract_record_redacts_sensitive_values() -> None:
    embedded = model()
    fields = [FieldSpec("pin", "string", pattern=r"(\d{4})", sensitive=True), FieldSpec("email", "email")]
    embedded.extract(fields, "pin 4921, ann@example.com", CONTEXT)
    (record,) = embedded.take_calls()
    assert record.purpose == "extract" and record.provider == "embedded"
    assert record.result["pin"] == {"value": REDACTED, "confidence": 0.95}
    assert record.result["email"]["value"] == "ann@example.com"
    assert record.secrets == ("4921",)
    assert embedded.take_calls() == []


def test_a_bad_pattern_leaves_an_error_record() -> None:
    embedded = model()
    with pytest.raises(ModelError) as caught:
        embedded.extract([FieldSpec("x", "string", pattern="([A-Z")], "AB", CONTEXT)
    (record,) = embedded.take_calls()
    assert (record.purpose, record.result) == ("extract", {"error": str(caught.value)})
