"""Arithmetic on numbers of any size gives a number a session can hold, or makes the condition
not hold with "out of range"; it never raises.

Numbers arrive as text of hundreds of digits (what a customer typed into a text field), as
values set by hand, and as literals. Integers stay exact below `MAX_INT`, larger results become
floats, and a result past the largest float is out of range.
"""

from __future__ import annotations

import itertools
import math

import pytest

from abl.expr import evaluate_text
from abl.expr.values import MAX_INT, in_range, to_text

D154 = "9" * 154  # its square has 308 digits: the largest float holds it, one more digit does not
D160 = "9" * 160
D400 = "9" * 400
SCOPE = {"d154": D154, "d160": D160, "d400": D400, "big": 10**5000, "small": 7, "half": 0.5}
OUT_OF_RANGE = "the number is out of range"


@pytest.mark.parametrize(
    "expression, value",
    [
        ("small * small", 49),
        ("10000000000000 * 10000000000000", 10**26),  # below MAX_INT: exact
        ("1000000000000000 * 1000000000000000", 1e30),  # at MAX_INT: a float
        ("d154 * d154", float(D154) ** 2),
        ("d154 * d154 > 1", True),
        ("d154 * 1.5 > d154", True),
        ("-d160 < 0", True),
        ("d160 / 0.5", float(D160) * 2),
        ("d400 > 1.5", True),
        ("d400 == d400", True),
        ("big > 1e308", True),
        ("ROUND(d160)", float(D160)),
        ("ROUND(d160 * 1.5, 2)", None),  # no decimal amount holds 160 digits: null, as for unreadable input
        ("IS_NUMBER(big)", True),
        ("NOT big", False),
    ],
)
def test_huge_numbers_give_a_number(expression: str, value: object) -> None:
    result = evaluate_text(expression, SCOPE)
    assert not result.errors, result.errors
    assert result.value == value


@pytest.mark.parametrize(
    "expression",
    [
        "d160 * d160",  # 320 digits: past the largest float (the known OverflowError)
        "d160 * d160 > 1",
        "d154 * d154 * d154",
        "d400 * 1.5",
        "d400 - 0.5",
        "d400 - 0.1",
        "-d400",
        "d400 % 1.5",
        "big * small",
        "big / 3",
        "1e308 * 10",
    ],
)
def test_past_the_largest_float_the_condition_does_not_hold(expression: str) -> None:
    result = evaluate_text(expression, SCOPE)
    assert result.truthy is False
    assert [e.message for e in result.errors] == [OUT_OF_RANGE]


@pytest.mark.parametrize(
    "call",
    [
        "MUL(d400, 2)",
        "MUL(d160, d160)",
        "ADD(d400, 0.5)",
        "SUB(d400, 0.5)",
        "DIV(d400, 0.5)",
        "AVG(d400, 1.5)",
        "ABS(big)",
        "MAX(big, 1)",
        "ROUND(d400)",
        "TO_NUMBER(d400)",
    ],
)
def test_a_function_whose_result_is_out_of_range_says_so(call: str) -> None:
    result = evaluate_text(call, SCOPE)
    name = call.split("(")[0]
    assert [e.message for e in result.errors] == [f"{name}() gave a number out of range"]


HOSTILE = ["d154", "d160", "d400", "big", "small", "half", "1e308", "-1e308", "0", "'x'", "[big]", "{k: big}"]
OPERATIONS = ["{a} * {b}", "{a} + {b}", "{a} - {b}", "{a} / {b}", "{a} % {b}", "-{a}", "{a} > {b}", "{a} == {b}"]
FUNCTIONS = ["ROUND({a}, 2)", "ABS({a})", "MUL({a}, {b})", "ADD({a}, {b})", "AVG({a}, {b})", "MIN({a}, {b})"]
MORE = ["TO_NUMBER({a})", "TO_STRING({a})", "FORMAT_CURRENCY({a})", "ORDINAL({a})", "LENGTH(TO_STRING({a}))"]


def _numbers_in(value: object) -> list[object]:
    if isinstance(value, list):
        return [n for item in value for n in _numbers_in(item)]
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers_in(item)]
    return [value] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


@pytest.mark.parametrize("template", [*OPERATIONS, *FUNCTIONS, *MORE])
def test_no_operation_raises_and_every_computed_number_is_in_range(template: str) -> None:
    for a, b in itertools.product(HOSTILE, repeat=2):
        expression = template.format(a=a, b=b)
        result = evaluate_text(expression, SCOPE)
        if isinstance(result.value, (list, dict)):
            continue  # a value read as it is (`[big]`), not computed
        for number in _numbers_in(result.value):
            if number == SCOPE["big"]:
                continue  # `MIN(big, big)` hands the value on as it was given
            assert in_range(number) == number, f"{expression} gave {number!r}"  # type: ignore[arg-type]
        assert isinstance(to_text(result.value), str)


@pytest.mark.parametrize(
    "value, text",
    [
        (10**5000, "[a number of about 5,001 digits]"),
        (-(10**4400), "[a number of about 4,401 digits]"),
        (10**4000, "1" + "0" * 4000),
        ([10**5000], "[an array that cannot be written as text]"),
    ],
    ids=["5001-digits", "negative-4401-digits", "4001-digits", "in-a-list"],
)
def test_an_integer_too_long_for_python_to_write_is_described(value: object, text: str) -> None:
    assert to_text(value) == text


def test_the_bound_is_what_a_saved_session_holds() -> None:
    from abl.runtime.session_file import MAX_INT as SESSION_MAX_INT

    assert SESSION_MAX_INT == MAX_INT
    assert in_range(MAX_INT - 1) == MAX_INT - 1
    assert in_range(MAX_INT) == float(MAX_INT)
    assert in_range(10**400) is None
    assert in_range(math.inf) is None
