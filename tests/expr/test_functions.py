"""Built-in functions (reference section 4.5): names in any case, documented edge cases."""

from datetime import datetime, timezone

import pytest

from abl.expr import UNDEFINED, Environment, evaluate_text, is_known_function

SCOPE = {
    "name": "  Ada Lovelace ",
    "card": "4111111111111111",
    "nums": [3, "7", 1.5],
    "orders": [{"id": "A", "status": "open"}, {"id": "B", "status": "shipped", "meta": {"carrier": "ups"}}],
    "a": {"x": 1, "y": 2},
    "b": {"y": 3},
    "when": "2024-03-05T14:07:09Z",
}
ENV = Environment(now=lambda: datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc), make_id=lambda n: "abcdefghij"[:n])


@pytest.mark.parametrize(
    "call, value",
    [
        # math (string arguments are coerced)
        ("ADD(1, '2', 3.5)", 6.5),
        ("add(2, 2)", 4),
        ("SUB(10, '4')", 6),
        ("MUL(2, 3, 4)", 24),
        ("DIV(9, 3)", 3),
        ("DIV(1, 4)", 0.25),
        ("DIV(1, 0)", None),
        ("ADD('x', 1)", None),
        ("ROUND(2.5)", 3),
        ("ROUND(-2.5)", -3),
        ("ROUND(1.005, 2)", 1.01),
        ("ROUND('3.14159', 3)", 3.142),
        ("ABS(-4)", 4),
        ("MIN(4, 2, '8')", 2),
        ("MAX(nums)", 7),
        ("MIN()", UNDEFINED),  # wrong number of arguments
        ("AVG(2, 4)", 3),
        # strings (null -> "")
        ("UPPER('abc')", "ABC"),
        ("lower('ABC')", "abc"),
        ("TRIM(name)", "Ada Lovelace"),
        ("UPPER(missing)", ""),
        ("SUBSTRING('abcdef', 1, 3)", "bc"),
        ("SUBSTRING('abcdef', 2)", "cdef"),
        ("SUBSTRING('abcdef', 4, 1)", "bcd"),
        ("REPLACE('a-b-c', '-', '+')", "a+b+c"),
        ("SPLIT('a,b,c', ',')", ["a", "b", "c"]),
        ("SPLIT('ab', '')", ["a", "b"]),
        ("SPLIT(missing, ',')", []),
        ("JOIN(['a', 'b'], ' / ')", "a / b"),
        ("JOIN(nums, '|')", "3|7|1.5"),
        ("PAD_START('7', 3, '0')", "007"),
        ("PAD_END('ab', 5, '.')", "ab..."),
        ("REPEAT('ab', 3)", "ababab"),
        ("REGEX_REPLACE('2024-03-05', '(\\\\d+)-(\\\\d+)-(\\\\d+)', '$3/$2/$1')", "05/03/2024"),
        ("REGEX_REPLACE('text', '(', 'x')", "text"),  # a bad pattern returns the text
        ("REGEX_EXTRACT('order 123', '\\\\d+')", "123"),
        ("REGEX_EXTRACT('id: ab-12', '([a-z]+)-(\\\\d+)', 2)", "12"),
        ("REGEX_EXTRACT('id: ab-12', '([a-z]+)-(\\\\d+)')", "ab"),
        ("REGEX_EXTRACT('none', '\\\\d+')", None),
        # formatting
        ("MASK(card)", "************1111"),
        ("MASK(card, 'first4')", "4111************"),
        ("MASK(card, '2*2', '#')", "41############11"),
        ("MASK('abc')", "abc"),
        ("FORMAT_CURRENCY(1234.5, 'USD')", "$1,234.50"),
        ("FORMAT_CURRENCY(-1234.5, 'EUR', 'de-DE')", "-1.234,50 €"),
        ("FORMAT_CURRENCY(1234, 'JPY')", "¥1,234"),
        ("FORMAT_CURRENCY(5, 'XYZ')", "XYZ 5.00"),
        ("FORMAT_CURRENCY('n/a')", None),
        ("FORMAT_DATE(when, 'DD/MM/YYYY HH:mm:ss')", "05/03/2024 14:07:09"),
        ("FORMAT_DATE(when, 'HH:mm', 'America/New_York')", "09:07"),
        ("FORMAT_DATE(when, 'HH:mm', 'Not/AZone')", "14:07"),
        ("FORMAT_DATE('yesterday')", None),
        ("ORDINAL(1)", "1st"),
        ("ORDINAL(2)", "2nd"),
        ("ORDINAL(3)", "3rd"),
        ("ORDINAL(11)", "11th"),
        ("ORDINAL(112)", "112th"),
        ("ORDINAL(23)", "23rd"),
        # types
        ("IS_ARRAY(nums)", True),
        ("IS_ARRAY('x')", False),
        ("IS_NUMBER(1.5)", True),
        ("IS_NUMBER('1.5')", False),
        ("IS_STRING('x')", True),
        ("TO_NUMBER('42')", 42),
        ("TO_NUMBER(' 2.5 ')", 2.5),
        ("TO_NUMBER('abc')", None),
        ("TO_NUMBER(true)", 1),
        ("TO_STRING(missing)", ""),
        ("TO_STRING(2.0)", "2"),
        ("TO_STRING(true)", "true"),
        ("TO_STRING(a)", '{"x": 1, "y": 2}'),
        # arrays
        ("LENGTH(nums)", 3),
        ("LENGTH(42)", 0),
        ("len('abcd')", 4),
        ("length(a)", 2),
        ("size(nums)", 3),
        ("ARRAY_FIND(orders, 'status', 'shipped').id", "B"),
        ("ARRAY_FIND(orders, 'meta.carrier', 'ups').id", "B"),
        ("ARRAY_FIND(orders, 'status', 'lost')", None),
        ("ARRAY_FIND_INDEX(orders, 'id', 'B')", 1),
        ("ARRAY_FIND_INDEX(orders, 'id', 'Z')", -1),
        ("ARRAY_FIND_INDEX(missing, 'id', 'Z')", -1),
        # objects
        ("OBJECT_KEYS(a)", ["x", "y"]),
        ("OBJECT_VALUES(a)", [1, 2]),
        ("OBJECT_KEYS('x')", []),
        ("OBJECT_MERGE(a, b, 'skipped', {z: 0})", {"x": 1, "y": 3, "z": 0}),
        # utility
        ("COALESCE(missing, null, 0, 5)", 0),
        ("COALESCE(missing, false)", False),
        ("COALESCE(missing)", None),
        ("FIRST_NON_EMPTY(missing, '', '  ', 'x')", "x"),
        ("IF(1 > 0, 'yes', 'no')", "yes"),
        ("IF(missing, 'yes', 'no')", "no"),
        ("NOW()", "2024-01-02T03:04:05.000Z"),
        ("UNIQUE_ID()", "abcdef"),
        ("UNIQUE_ID(2)", "ab"),
        # guardrail text helpers, with or without the CEL prefix
        ("abl.word_count('one two  three')", 3),
        ("SENTENCE_COUNT('Hi. How are you? Fine!')", 3),
        ("abl.contains_url('see https://x.io now')", True),
        ("CONTAINS_EMAIL('mail me: ada@example.org')", True),
        ("abl.matches_pattern('AB-12', '^[A-Z]+-\\\\d+$')", True),
        ("NOT_MATCHES_PATTERN('AB-12', '^\\\\d+$')", True),
        # CEL prefix for core functions
        ("abl.upper('x')", "X"),
        ("ABL.LOWER('X')", "x"),
    ],
)
def test_function(call: str, value: object) -> None:
    result = evaluate_text(call, SCOPE, env=ENV)
    assert result.value == value, result
    if value is not UNDEFINED:
        assert result.errors == [], result.errors


@pytest.mark.parametrize(
    "call, message",
    [
        ("NO_SUCH_FN(1)", "unknown function `NO_SUCH_FN`"),
        ("MIN()", "MIN() takes at least 1 argument, not 0"),
        ("SUB(1)", "SUB() takes 2 arguments, not 1"),
        ("ROUND(1, 2, 3)", "ROUND() takes 1 to 2 arguments, not 3"),
        (
            "MATCH_SCORE('a', 'b')",
            "MATCH_SCORE() needs identity matching, which is not available when evaluating locally",
        ),
        ("abl.redact_pii(x)", "abl.redact_pii() needs PII detection, which is not available when evaluating locally"),
        ("x.frobnicate()", "unknown method `frobnicate`"),
        ("has(a, b)", "has() takes exactly one path"),
    ],
)
def test_function_errors(call: str, message: str) -> None:
    result = evaluate_text(call, SCOPE, env=ENV)
    assert result.value is UNDEFINED and not result.truthy
    assert [e.message for e in result.errors] == [message]


def test_contains_call_form_never_matches():
    result = evaluate_text("CONTAINS('abc', 'a')", {})
    assert result.value is False
    assert "write `a contains b`" in result.errors[0].message


def test_error_span_points_at_the_function_name():
    text = "x == 1 OR nope(1)"
    result = evaluate_text(text, {})
    assert text[slice(*result.errors[0].span)] == "nope"


def test_unknown_function_inside_a_condition_makes_it_false_not_crash():
    result = evaluate_text("nope(1) == 1 OR tier == 'gold'", {"tier": "gold"})
    assert result.truthy and result.errors


@pytest.mark.parametrize(
    "name, known",
    [
        ("UPPER", True),
        ("abl.upper", True),
        ("len", True),
        ("has", True),
        ("MATCH_SCORE", True),
        ("abl.contains_pii", True),
        ("frobnicate", False),
        ("CONTAINS", False),
    ],
)
def test_is_known_function(name: str, known: bool) -> None:
    assert is_known_function(name) is known


def test_default_environment_gives_real_time_and_random_ids():
    first = evaluate_text("UNIQUE_ID(12)", {}).value
    assert isinstance(first, str) and len(first) == 12 and first.isalnum()
    assert evaluate_text("NOW()", {}).value.endswith("Z")
