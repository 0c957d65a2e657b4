"""ABL's null-safe coercion (reference section 4.3): one row per rule."""

import pytest

from abl.expr import UNDEFINED, evaluate_text, truthy

SCOPE = {
    "unset_is_missing_here": None,
    "nothing": None,
    "zero": 0,
    "one": 1,
    "num_text": "42",
    "float_text": "3.50",
    "word": "Gold",
    "blank": "",
    "false_text": "false",
    "yes": True,
    "no": False,
    "items": [1, 2, 3],
    "no_items": [],
    "obj": {"a": 1},
    "no_obj": {},
    "parent": {"child": None},
}


@pytest.mark.parametrize(
    "rule, condition, holds",
    [
        # == : null and undefined equal each other
        ("undefined == null", "missing == null", True),
        ("null == undefined", "nothing == missing", True),
        ("undefined == undefined", "missing == other_missing", True),
        ("undefined equals nothing else", "missing == 0", False),
        ("unset equality is simply false", 'missing == "x"', False),
        # == : strings are case-sensitive
        ("strings case-sensitive", 'word == "Gold"', True),
        ("strings case-sensitive (differs)", 'word == "gold"', False),
        # == : numbers parsed from strings
        ("number vs numeric string", "num_text == 42", True),
        ("numeric string vs number", "42 == num_text", True),
        ("float text", "float_text == 3.5", True),
        ("non-numeric text is not a number", "word == 0", False),
        # != : true if either side null/undefined
        ("unset != true (auth gate)", "is_authenticated != true", True),
        ("unset != empty string", 'annual_income != ""', True),
        ("null != value", "nothing != 1", True),
        ("value != unset", "1 != missing", True),
        ("set value != itself", 'word != "Gold"', False),
        # (`!=` is the negation of `==`, as when missing paths are padded with null for CEL)
        ("unset != null is false", "missing != null", False),
        # == : booleans equal only booleans (no "true" text, no 1)
        ("true vs text", 'yes == "true"', False),
        ("true vs 1", "yes == 1", False),
        ("true vs true", "yes == true", True),
        # ordering: strings -> numbers
        ("numeric string ordered as number", "num_text > 5", True),
        ("numeric strings ordered as numbers", '"10" > "9"', True),
        # ordering: booleans -> 0/1
        ("true > 0", "yes > 0", True),
        ("false < 1", "no < 1", True),
        # ordering: arrays -> length
        ("array length", "items > 2", True),
        ("empty array length", "no_items < 1", True),
        # ordering: undefined -> 0
        ("undefined is 0", "missing < 1", True),
        ("undefined is 0 (>=)", "missing >= 0", True),
        ("undefined is not above 0", "missing > 0", False),
        # ordering: text that is not a number
        ("texts compare as text", '"2024-01-31" < "2024-02-01"', True),
        ("text vs number has no order", "word > 1", False),
        # falsy values
        ("false is falsy", "NOT no", True),
        ("0 is falsy", "NOT zero", True),
        ('"" is falsy', "NOT blank", True),
        ('"false" is falsy', "NOT false_text", True),
        ("null is falsy", "NOT nothing", True),
        ("undefined is falsy", "NOT missing", True),
        ("[] is falsy", "NOT no_items", True),
        ("{} is falsy", "NOT no_obj", True),
        ("non-empty values are truthy", "one AND word AND items AND obj AND num_text", True),
        # IS SET: not null/undefined; the empty string counts as set
        ("empty string is set", "blank IS SET", True),
        ("null is not set", "nothing IS NOT SET", True),
        ("undefined is not set", "missing IS NOT SET", True),
        ("zero is set", "zero IS SET", True),
        # any null segment makes the path undefined
        ("null segment", "parent.child.grand IS NOT SET", True),
        ("null segment == null", "parent.child.grand == null", True),
        # division / modulo by zero: the condition does not hold
        ("division by zero", "one / 0 > 0", False),
        ("even when negated", "NOT (one / 0 > 0)", False),
        ("modulo by zero", "one % zero == 0", False),
    ],
)
def test_rule(rule: str, condition: str, holds: bool) -> None:
    result = evaluate_text(condition, SCOPE)
    assert result.truthy is holds, (rule, result)


@pytest.mark.parametrize(
    "value, expected",
    [
        (False, False),
        (0, False),
        (0.0, False),
        ("", False),
        ("false", False),
        (None, False),
        (UNDEFINED, False),
        ([], False),
        ({}, False),
        (True, True),
        (1, True),
        ("0", True),
        ("no", True),
        ([0], True),
        ({"a": None}, True),
        (float("nan"), False),
    ],
)
def test_truthy(value: object, expected: bool) -> None:
    assert truthy(value) is expected


def test_division_by_zero_reports_why():
    result = evaluate_text("a / 0 > 1", {"a": 4})
    assert result.value is UNDEFINED and not result.truthy
    assert result.errors[0].message.startswith("division by zero")
