"""Evaluation of every operator, paths, captures, unresolved paths and the safety limits."""

from datetime import datetime, timezone

import pytest

from abl.expr import (
    UNDEFINED,
    Binary,
    ChainScope,
    DictScope,
    Environment,
    Literal,
    evaluate,
    evaluate_text,
    parse_condition,
)
from abl.expr.evaluate import MAX_CALL_DEPTH

SCOPE = {
    "intent": {"category": "order_status", "confidence": 0.9},
    "order_id": "A-100",
    "input": "Please call me at 555-1234",
    "tier": "gold",
    "amount": 120,
    "price": "19.5",
    "tags": ["vip", "returning"],
    "cart": {"items": [{"sku": "X1", "qty": 2}, {"sku": "Y2", "qty": 1}]},
    "profile": {"email": None},
    "flags": {"beta": True},
    "i": 1,
}


@pytest.mark.parametrize(
    "condition, value",
    [
        ('intent.category == "order_status" AND order_id IS SET', True),
        ('intent.category == "complaint"', False),
        ("amount > 100 AND amount <= 120", True),
        ("amount >= 121 OR tier == 'gold'", True),
        ("NOT flags.beta", False),
        ("!flags.beta || amount < 0", False),
        ("flags.beta IMPLIES amount > 100", True),
        ("flags.beta IMPLIES amount > 500", False),
        ("missing IMPLIES amount > 500", True),
        ("tier IN ['gold', 'silver']", True),
        ("tier NOT IN ['gold', 'silver']", False),
        ("'vip' in tags", True),
        ("'intent' IN SCOPE_KEYS", False),
        ('"ord" IN order_id', False),
        ('"A-" IN order_id', True),
        ("'category' IN intent", True),
        ('input contains "555"', True),
        ('tags contains "vip"', True),
        ('intent contains "category"', True),
        ('missing contains "x"', False),
        ('order_id startsWith "A-"', True),
        ('order_id endsWith "100"', True),
        ('missing startsWith ""', False),
        ("input matches /\\d{3}-\\d{4}/", True),
        ("input matches /CALL/i", True),
        ("input matches /CALL/", False),
        ('input matches "^Please"', True),
        ("amount + 5 == 125", True),
        ("price * 2 == 39", True),
        ("amount / 8 == 15", True),
        ("amount % 7 == 1", True),
        ("-amount < 0", True),
        ('"Order " + order_id == "Order A-100"', True),
        ("missing + 1 == 1", True),
        ("[1] + [2] == [1, 2]", True),
        ("cart.items[0].sku == 'X1'", True),
        ("cart.items[i].sku == 'Y2'", True),
        ('cart["items"][1]["qty"] == 1', True),
        ("cart.items.0.sku == 'X1'", True),
        ("cart.items[5].sku IS NOT SET", True),
        ("profile.email IS NOT SET", True),
        ("profile.email.domain IS NOT SET", True),
        ("EXISTS order_id", True),
        ("EXISTS profile.email", False),
        ("EMPTY profile.email AND EMPTY '' AND EMPTY [] AND EMPTY {}", True),
        ("EMPTY tags", False),
        ("amount is_number AND price is_number", True),
        ("tier is_number", False),
        ("flags.beta ? 'on' : 'off'", "on"),
        ("missing ? 'on' : 'off'", "off"),
        ("{a: amount, b: [tier]}", {"a": 120, "b": ["gold"]}),
        ("(amount)", 120),
        ("has(intent.category) AND NOT has(intent.other)", True),
        ('input.contains("call")', True),
        ('order_id.startsWith("A")', True),
        ('order_id.endsWith("A")', False),
        ("tags.size() == 2", True),
        ("order_id.lowerAscii()", "a-100"),
        ("tier.upper()", "GOLD"),
        ('input.matches("\\\\d+")', True),
        ("FIRST_NON_EMPTY(profile.email, '', tier).size()", 4),
    ],
)
def test_value(condition: str, value: object) -> None:
    result = evaluate_text(condition, SCOPE)
    assert result.errors == [], result.errors
    assert result.value == value


def test_a_bad_regex_never_matches_and_says_so():
    result = evaluate_text("order_id matches /(/", SCOPE)
    assert result.value is False
    assert result.errors[0].message == "invalid regular expression '('"


def test_captures_of_matches_are_returned_and_readable():
    result = evaluate_text("input matches /(?P<area>\\d{3})-(\\d{4})/ AND match.2 == '1234'", SCOPE)
    assert result.truthy
    assert result.captures == {"0": "555-1234", "1": "555", "2": "1234", "area": "555"}


def test_no_captures_without_a_match():
    assert evaluate_text("input matches /zzz/", SCOPE).captures == {}


def test_unresolved_paths_are_listed_once_in_order():
    result = evaluate_text("a == 1 OR b.c == 2 OR a == 3 OR amount > 1", SCOPE)
    assert result.truthy
    assert result.unresolved == ["a", "b.c"]


def test_existence_checks_do_not_count_as_unresolved():
    result = evaluate_text("annual_income IS NOT SET AND NOT EXISTS x AND EMPTY y AND NOT has(z)", {})
    assert result.truthy
    assert result.unresolved == []


def test_short_circuit_skips_the_right_side():
    result = evaluate_text("amount < 0 AND nope == 1", SCOPE)
    assert result.value is False and result.unresolved == []


def test_scope_protocol_and_chain():
    session = DictScope({"a": 1})
    persistent = DictScope({"a": 2, "b": 3})
    result = evaluate_text("a == 1 AND b == 3", ChainScope(session, persistent))
    assert result.truthy


def test_dotted_flat_keys_are_found():
    assert evaluate_text('intent.category == "x"', {"intent.category": "x"}).truthy


def test_custom_scope_object():
    class Recorder:
        def __init__(self) -> None:
            self.asked: list[tuple] = []

        def lookup(self, path):
            self.asked.append(tuple(path))
            return "yes" if path[0] == "known" else UNDEFINED

    scope = Recorder()
    result = evaluate_text('known == "yes" AND unknown.x IS NOT SET', scope)
    assert result.truthy
    assert scope.asked == [("known",), ("unknown", "x")]


def test_natural_language_is_truthy_and_flagged():
    result = evaluate_text('"the customer wants a refund"', {})
    assert result.natural_language and result.truthy
    assert result.value == "the customer wants a refund"


def test_parse_errors_come_back_as_errors():
    result = evaluate_text("a ==", {})
    assert not result.truthy and result.value is UNDEFINED
    assert result.errors[0].message == "expected a value after `==`"


def test_evaluate_none_is_an_error():
    result = evaluate(None, {})
    assert not result.truthy and result.errors


@pytest.mark.parametrize(
    "condition, message",
    [
        ("tier * 2 > 1", "`*` needs numbers, not the text 'gold' and number"),
        ("-tier", "cannot negate the text 'gold'"),
        ("1 / 0", "division by zero: the condition does not hold"),
        ("amount % 0 == 0", "division by zero: the condition does not hold"),
        ("1e308 * 10 > 0", "the number is out of range"),
    ],
)
def test_conditions_that_cannot_hold(condition: str, message: str) -> None:
    result = evaluate_text(condition, SCOPE)
    assert not result.truthy and result.value is UNDEFINED
    assert result.errors[-1].message == message


def test_function_nesting_is_limited():
    text = "UPPER(" * (MAX_CALL_DEPTH + 1) + "'x'" + ")" * (MAX_CALL_DEPTH + 1)
    result = evaluate_text(text, {})
    assert result.value is UNDEFINED
    assert "nested more than 32" in result.errors[-1].message
    ok = "UPPER(" * MAX_CALL_DEPTH + "'x'" + ")" * MAX_CALL_DEPTH
    assert evaluate_text(ok, {}).value == "X"


def test_hand_built_deep_tree_is_refused_not_crashing():
    node = Literal((0, 1), 1)
    for _ in range(5000):
        node = Binary((0, 1), "+", node, Literal((0, 1), 1), (0, 1))
    result = evaluate(node, {})
    assert result.value is UNDEFINED and "nested more than" in result.errors[0].message


def test_long_chains_still_evaluate():
    text = " AND ".join(f"v{n} IS NOT SET" for n in range(300))
    parsed = parse_condition(text)
    assert parsed.errors == ()
    assert evaluate(parsed.expr, {}).truthy
    either = " OR ".join(f"v{n} == {n}" for n in range(300))
    result = evaluate(parse_condition(either).expr, {"v299": 299})
    assert result.truthy and len(result.unresolved) == 299


def test_string_results_are_capped():
    result = evaluate_text("REPEAT('ab', 100000) + 'x'", {})
    assert len(result.value) == 100_000
    assert any("cut to" in e.message for e in result.errors)


def test_environment_supplies_time_and_ids():
    env = Environment(now=lambda: datetime(2025, 3, 4, 5, 6, 7, 890000, tzinfo=timezone.utc), make_id=lambda n: "7" * n)
    result = evaluate_text("NOW() + ' ' + UNIQUE_ID() + ' ' + UNIQUE_ID(3)", {}, env=env)
    assert result.value == "2025-03-04T05:06:07.890Z 777777 777"
    assert evaluate_text("NOW_MS()", {}, env=env).value == 1741064767890
