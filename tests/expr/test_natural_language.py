"""Quoted text without an operator is a semantic (model-judged) condition; everything else parses."""

import pytest

from abl.expr import parse_condition, show


@pytest.mark.parametrize(
    "text",
    [
        '"the customer asks about something other than income"',
        "'the user wants to change a booking'",
        '"the user is interested in a loan"',  # `in` here is prose: the text does not parse
        '"the message contains a complaint about delivery"',
        '"help me, please!"',
        '"billing"',  # one plain word, quoted
        '"the user asks about X AND Y"',  # uppercase AND is not a listed operator
        '  "the customer is upset"  // routed by the model',
    ],
)
def test_natural_language(text: str) -> None:
    parsed = parse_condition(text)
    assert parsed.natural_language
    assert parsed.quoted
    assert parsed.expr is None
    assert parsed.errors == ()
    assert parsed.content == text[slice(*parsed.content_span)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("\"transfer_type == 'international'\"", '(== transfer_type "international")'),
        ("'amount > 100'", "(> amount 100)"),
        ('"order_id IS SET"', "(IS_SET order_id)"),
        ('"a IS NOT SET"', "(IS_NOT_SET a)"),
        ('"a && b"', "(AND a b)"),
        ('"a || b"', "(OR a b)"),
        ('"!done"', "(NOT done)"),
        ("\"tier in ['gold', 'silver']\"", '(IN tier ["gold" "silver"])'),
        ("\"input contains 'refund'\"", '(contains input "refund")'),
        ("\"input matches '^\\\\d+$'\"", '(matches input "^\\\\d+$")'),
        ("\"name startsWith 'A'\"", '(startsWith name "A")'),
        ("\"name endsWith 'z'\"", '(endsWith name "z")'),
        ('"LENGTH(items) > 0"', "(> (call LENGTH items) 0)"),
        ('"is_vip(customer)"', "(call is_vip customer)"),
        ('"x == \\"a\\""', '(== x "a")'),
        ('"true"', "true"),
        ('"order.total_due"', "order.total_due"),
    ],
)
def test_quoted_expression_is_unwrapped(text: str, expected: str) -> None:
    parsed = parse_condition(text)
    assert not parsed.natural_language
    assert parsed.quoted
    assert parsed.errors == ()
    assert show(parsed.expr) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("annual_income IS NOT SET", "(IS_NOT_SET annual_income)"),
        (
            'intent.category == "order_status" AND order_id IS SET',
            '(AND (== intent.category "order_status") (IS_SET order_id))',
        ),
        ("is_authenticated != true", "(!= is_authenticated true)"),
        ("true", "true"),
        ("booking.ready", "booking.ready"),
    ],
)
def test_unquoted_text_is_an_expression(text: str, expected: str) -> None:
    parsed = parse_condition(text)
    assert not parsed.natural_language and not parsed.quoted
    assert show(parsed.expr) == expected


def test_spans_of_unwrapped_text_point_into_the_original():
    text = "  \"transfer_type == 'international'\""
    parsed = parse_condition(text)
    left = parsed.expr.left
    assert text[slice(*left.span)] == "transfer_type"
    assert text[slice(*parsed.expr.right.span)] == "'international'"


def test_spans_survive_escaped_quotes():
    text = '"x == \\"a b\\" AND y"'
    parsed = parse_condition(text)
    assert show(parsed.expr) == '(AND (== x "a b") y)'
    literal = parsed.expr.left.right
    assert text[slice(*literal.span)] == '\\"a b\\"'
    assert text[slice(*parsed.expr.right.span)] == "y"


def test_quoted_text_with_a_symbol_operator_that_fails_explains_why():
    parsed = parse_condition('"the total is > than expected"')
    assert not parsed.natural_language
    assert parsed.expr is None
    assert any("read as an expression" in e.message for e in parsed.errors)


def test_unquoted_prose_is_flagged():
    parsed = parse_condition("user asks about flight availability")
    assert parsed.expr is None and parsed.errors
    assert parsed.unquoted_prose
    assert not parsed.natural_language


@pytest.mark.parametrize("text", ["x IS EMPTY now", "a b", "a == 1 2"])
def test_broken_expressions_are_not_called_prose(text: str) -> None:
    assert not parse_condition(text).unquoted_prose


@pytest.mark.parametrize("text", ['""', "''", '"   "'])
def test_empty_quoted_condition_is_an_error(text: str) -> None:
    parsed = parse_condition(text)
    assert not parsed.natural_language and parsed.expr is None
    assert parsed.errors[0].message == "the quoted condition is empty"


def test_quoted_string_that_does_not_span_the_whole_value_is_not_a_quoted_condition():
    parsed = parse_condition('"a" == "b"')
    assert not parsed.quoted
    assert show(parsed.expr) == '(== "a" "b")'
