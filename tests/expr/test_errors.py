"""Broken conditions give one clear message with the span of the offending text."""

import pytest

from abl.expr import parse_condition


@pytest.mark.parametrize(
    "text, message, underlined",
    [
        ("a ==", "expected a value after `==`", "=="),
        ("a == 1 AND", "expected a value after `AND`", "AND"),
        ("a IN", "expected a value after `IN`", "IN"),
        ("x contains", "expected a value after `contains`", "contains"),
        ("NOT", "expected a value after `NOT`", "NOT"),
        ("(a", "unclosed `(`: add `)`", "("),
        ("(a == 1 AND (b OR c)", "unclosed `(`: add `)`", "("),
        ("a IN [1,", "unclosed `[`: add `]`", "["),
        ("a IN [1, 2", "unclosed `[`: add `]`", "["),
        ("f(a, b", "unclosed `(`: add `)`", "("),
        ("{a: 1", "unclosed `{`: add `}`", "{"),
        ("a == )", "expected a value after `==`, found `)`", ")"),
        ("a AND OR b", "expected a value after `AND`, found `OR`", "OR"),
        ("f(,)", "expected a value after `(`, found `,`", ","),
        ("a)", "`)` closes nothing", ")"),
        ("(a]", "expected `)` to close `(`, found `]`", "]"),
        ("a b", "expected an operator such as `==`, `AND` or `OR` before `b`", "b"),
        ("a == 1 b == 2", "expected an operator such as `==`, `AND` or `OR` before `b`", "b"),
        ("x IS EMPTY", "`IS` must be followed by `SET` or `NOT SET`", "IS"),
        ("a = 1", "`=` does not compare; write `==`", "="),
        ("a & b", "`&` alone is not an operator; write `&&`", "&"),
        ("a | b", "`|` alone is not an operator; write `||`", "|"),
        ('a == "open', 'unclosed string: add the closing "', '"open'),
        ("a == 'open", "unclosed string: add the closing '", "'open"),
        ("input matches /abc", "unclosed regular expression: add the closing /", "/abc"),
        ("a == 1 @", "unexpected character `@`", "@"),
        ("", "expected a condition", ""),
        ("   // only a comment", "expected a condition", "   // only a comment"),
        ("AND b", "expected a value, found `AND`", "AND"),
        ("a == 1 OR in", "expected a value after `OR`, found `in`", "in"),
        ("(a)(b)", "only a function or method name can be called", "(a)"),
    ],
)
def test_error_message_and_span(text: str, message: str, underlined: str) -> None:
    parsed = parse_condition(text)
    assert parsed.expr is None
    assert parsed.errors, "expected an error"
    error = parsed.errors[0]
    assert error.message == message
    assert text[slice(*error.span)] == underlined


def test_errors_are_span_message_pairs():
    ((span, message),) = parse_condition("a ==").errors
    assert span == (2, 4) and "after `==`" in message


def test_unexpected_token_lists_what_would_fit():
    parsed = parse_condition("a ? b")
    assert parsed.errors[0].message.startswith("the condition ends too early; expected")
    assert "`:`" in parsed.errors[0].message


def test_error_spans_in_a_quoted_condition_point_into_the_original():
    text = '"a == "'
    parsed = parse_condition(text)
    assert text[slice(*parsed.errors[0].span)] == "=="


def test_too_deep_nesting_is_refused():
    text = "(" * 150 + "a" + ")" * 150
    parsed = parse_condition(text)
    assert parsed.expr is None
    assert "nested more than" in parsed.errors[0].message


def test_non_text_input_is_an_error_not_an_exception():
    parsed = parse_condition(None)  # type: ignore[arg-type]
    assert parsed.expr is None and parsed.errors
