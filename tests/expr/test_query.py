"""Variable references, `== ""` comparisons and mixed routing state, as the checker needs them."""

import pytest

from abl.expr import (
    empty_string_comparisons,
    function_calls,
    mixes_routing_state,
    names,
    parse_condition,
)


def refs(text: str) -> list[str]:
    return [ref.path for ref in names(parse_condition(text).expr)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ('intent.category == "order_status" AND order_id IS SET', ["intent.category", "order_id"]),
        ("annual_income IS NOT SET", ["annual_income"]),
        ("UPPER(name) == 'X'", ["name"]),  # the function name is not a variable
        ("abl.upper(name) == 'X'", ["name"]),
        ('input.contains("yes")', ["input"]),  # the method name is not a variable
        ("OBJECT_MERGE({limit: max_limit}, other)", ["max_limit", "other"]),  # keys are not
        ("{user_id}", ["user_id"]),  # shorthand: the value is the same-named variable
        ("items[0].name > items[i].price", ["items[0].name", "items", "i"]),
        ('a["two words"].b', ['a["two words"].b']),
        ("match.1 == '555'", ["match.1"]),
        ('"the user wants a refund"', []),
        ("a ==", []),
        ("x ? y : z", ["x", "y", "z"]),
    ],
)
def test_names(text: str, expected: list[str]) -> None:
    assert refs(text) == expected


def test_name_ref_carries_root_segments_and_spans():
    text = "  \"order.items[0].sku == 'A'\""
    (ref,) = names(parse_condition(text).expr)
    assert ref.root == "order"
    assert ref.segments == ("order", "items", 0, "sku")
    assert text[slice(*ref.span)] == "order.items[0].sku"
    assert text[slice(*ref.root_span)] == "order"


@pytest.mark.parametrize(
    "text, found",
    [
        ('annual_income != ""', [("!=", 'annual_income != ""', "annual_income")]),
        ("name == ''", [("==", "name == ''", "name")]),
        ('"" != name', [("!=", '"" != name', "name")]),
        ('a != "" AND b == ""', [("!=", 'a != ""', "a"), ("==", 'b == ""', "b")]),
        ('(x) != ("")', [("!=", '(x) != ("")', "(x)")]),
        ('a != " "', []),
        ("a > ''", []),
        ("a IS NOT SET", []),
        ("\"name != ''\"", [("!=", "name != ''", "name")]),
    ],
)
def test_empty_string_comparisons(text: str, found: list[tuple[str, str, str]]) -> None:
    hits = empty_string_comparisons(parse_condition(text).expr)
    got = [(h.operator, text[slice(*h.span)], text[slice(*h.subject.span)]) for h in hits]
    assert got == found
    for hit in hits:
        assert text[slice(*hit.op_span)] == hit.operator


@pytest.mark.parametrize(
    "text, mixed",
    [
        ('routing_intent == "billing" OR intent.category == "billing"', True),
        ('routing_intent.name == "x" AND intent.category.sub == "y"', True),
        ('routing_intent == "billing"', False),
        ('intent.category == "billing"', False),
        ('intent.confidence > 0.5 AND routing_intent == "x"', False),
        ('"routing_intent and intent category"', False),
    ],
)
def test_mixed_routing_state(text: str, mixed: bool) -> None:
    assert mixes_routing_state(parse_condition(text).expr) is mixed


def test_function_calls_in_order():
    calls = function_calls(parse_condition("LOWER(a) == abl.upper(b) AND c.size() > 0").expr)
    assert [c.name for c in calls] == ["LOWER", "abl.upper", "size"]
