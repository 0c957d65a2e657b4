"""Parsing: every operator, precedence, literals, paths, calls, and spans."""

import typing

import pytest

from abl.expr import (
    Call,
    Compare,
    Group,
    In,
    IsSet,
    Literal,
    Path,
    TextOp,
    Unary,
    ast,
    parse_condition,
    show,
    walk,
)


def tree(text: str) -> str:
    parsed = parse_condition(text)
    assert parsed.errors == (), parsed.errors
    assert not parsed.natural_language
    return show(parsed.expr)


@pytest.mark.parametrize(
    "text, expected",
    [
        # comparisons
        ("a == 1", "(== a 1)"),
        ("a != 'x'", '(!= a "x")'),
        ("a > 1", "(> a 1)"),
        ("a < 1", "(< a 1)"),
        ("a >= 1.5", "(>= a 1.5)"),
        ("a <= -2", "(<= a -2)"),
        # membership
        ("a IN [1, 2, 3]", "(IN a [1 2 3])"),
        ("a in ['x', 'y',]", '(IN a ["x" "y"])'),
        ("a NOT IN [1]", "(NOT_IN a [1])"),
        ("a not  in [1]", "(NOT_IN a [1])"),
        ("a IN allowed_values", "(IN a allowed_values)"),
        # text operators, any case
        ('input contains "refund"', '(contains input "refund")'),
        ('input CONTAINS "refund"', '(contains input "refund")'),
        ("input matches /^\\d+$/", "(matches input /^\\d+$/)"),
        ("input matches /yes|yep/i", "(matches input /yes|yep/i)"),
        ('input matches "^[0-9]+$"', '(matches input "^[0-9]+$")'),
        ('name startsWith "A"', '(startsWith name "A")'),
        ('name endswith "z"', '(endsWith name "z")'),
        # logic, words and symbols, any case
        ("a AND b", "(AND a b)"),
        ("a and b", "(AND a b)"),
        ("a && b", "(AND a b)"),
        ("a OR b", "(OR a b)"),
        ("a or b", "(OR a b)"),
        ("a || b", "(OR a b)"),
        ("NOT a", "(NOT a)"),
        ("not a", "(NOT a)"),
        ("!a", "(NOT a)"),
        ("a IMPLIES b", "(IMPLIES a b)"),
        # postfix and prefix tests
        ("order_id IS SET", "(IS_SET order_id)"),
        ("order_id is set", "(IS_SET order_id)"),
        ("annual_income IS NOT SET", "(IS_NOT_SET annual_income)"),
        ("amount is_number", "(is_number amount)"),
        ("EXISTS user.email", "(EXISTS user.email)"),
        ("EMPTY cart.items", "(EMPTY cart.items)"),
        # ternary, arithmetic
        ("vip ? 1 : 2", "(? vip 1 2)"),
        ("a ? b : c ? d : e", "(? a b (? c d e))"),
        ("a + b * c", "(+ a (* b c))"),
        ("(a + b) * c", "(* (+ a b) c)"),
        ("a - b - c", "(- (- a b) c)"),
        ("a / b % c", "(% (/ a b) c)"),
        ("-a * b", "(* (- a) b)"),
        ("- 3", "-3"),
        ('"Policy " + policy_id', '(+ "Policy " policy_id)'),
        # literals
        ("true", "true"),
        ("TRUE", "true"),
        ("False", "false"),
        ("NULL", "null"),
        ("null", "null"),
        ("42", "42"),
        ("3.25", "3.25"),
        ("1e3", "1000.0"),
        # (a whole quoted text is a quoted condition, so string literals sit on a right side)
        ("x == 'it\\'s'", '(== x "it\'s")'),
        ('x == "a\\"b"', '(== x "a\\"b")'),
        ('x == "line\\nnext"', '(== x "line\\nnext")'),
        ('x == "tab\\there \\u00e9"', '(== x "tab\\there é")'),
        ('x matches "\\d{3}"', '(matches x "\\\\d{3}")'),
        ("[]", "[]"),
        ("{}", "{}"),
        ("{a: 1, 'b c': [x], d}", "{a: 1, b c: [x], d: d}"),
        # paths
        ("a.b.c", "a.b.c"),
        ("items[0].name", "items[0].name"),
        ('a["k"]', "a.k"),
        ('a["two words"]', 'a["two words"]'),
        ("match.0", "match.0"),
        ("a[i]", "([] a i)"),
        ("a[i].b", "(. ([] a i) b)"),
        ("true_value", "true_value"),
        ("android", "android"),
        ("nothing", "nothing"),
        ("contains", "contains"),
        ("index", "index"),
        ("order_status", "order_status"),
        # calls
        ("UPPER(name)", "(call UPPER name)"),
        ("now()", "(call now)"),
        ("COALESCE(a, b, 'x')", '(call COALESCE a b "x")'),
        ("abl.upper(x)", "(call abl.upper x)"),
        ('x.contains("y")', '(method contains x "y")'),
        ('input.startsWith("hi")', '(method startsWith input "hi")'),
        ("a.b.size()", "(method size a.b)"),
        ("FIRST(xs).id", "(. (call FIRST xs) id)"),
        ("f(x).g(1)", "(method g (call f x) 1)"),
        ("OBJECT_MERGE({a: 1}, b)", "(call OBJECT_MERGE {a: 1} b)"),
        ("IF(a > 1, 'big', 'small')", '(call IF (> a 1) "big" "small")'),
    ],
)
def test_parses_to(text: str, expected: str) -> None:
    assert tree(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        # () > unary > comparison > AND > OR  (reference section 4.2)
        ("a OR b AND c", "(OR a (AND b c))"),
        ("(a OR b) AND c", "(AND (OR a b) c)"),
        ("a AND b OR c AND d", "(OR (AND a b) (AND c d))"),
        ("a == 1 AND b == 2 OR c", "(OR (AND (== a 1) (== b 2)) c)"),
        ("NOT a AND b", "(AND (NOT a) b)"),
        ("NOT a == b", "(== (NOT a) b)"),
        ("NOT (a == b)", "(NOT (== a b))"),
        ("NOT x IS SET", "(NOT (IS_SET x))"),
        ("!x IS NOT SET || y", "(OR (NOT (IS_NOT_SET x)) y)"),
        ("a IS SET AND b IS NOT SET", "(AND (IS_SET a) (IS_NOT_SET b))"),
        ("a + 1 > b * 2", "(> (+ a 1) (* b 2))"),
        ("a + 1 IS SET", "(IS_SET (+ a 1))"),
        ("a IMPLIES b OR c", "(IMPLIES a (OR b c))"),
        ("a IMPLIES b IMPLIES c", "(IMPLIES a (IMPLIES b c))"),
        ("a OR b ? c : d", "(? (OR a b) c d)"),
        ("x IN [1] AND y NOT IN [2]", "(AND (IN x [1]) (NOT_IN y [2]))"),
        ('input contains "a" OR input contains "b"', '(OR (contains input "a") (contains input "b"))'),
        ("a == b == c", "(== (== a b) c)"),
        ("-x.y", "(- x.y)"),
        ("-f(x)", "(- (call f x))"),
    ],
)
def test_precedence(text: str, expected: str) -> None:
    assert tree(text) == expected


def _spans(text: str) -> dict[str, tuple[int, int]]:
    expr = parse_condition(text).expr
    assert expr is not None
    return {text[n.span[0] : n.span[1]]: n.span for n in walk(expr)}


@pytest.mark.parametrize(
    "text, pieces",
    [
        (
            'intent.category == "order_status" AND order_id IS SET',
            [
                "intent.category",
                '"order_status"',
                'intent.category == "order_status"',
                "order_id",
                "order_id IS SET",
                'intent.category == "order_status" AND order_id IS SET',
            ],
        ),
        ("  a  ==  1  ", ["a", "1", "a  ==  1"]),
        ("(a OR b) AND c", ["(a OR b)", "a OR b", "(a OR b) AND c"]),
        ("items[0].name > 3", ["items[0].name", "items[0].name > 3"]),
        ('abl.upper(x) == "A"', ["abl.upper(x)", "x"]),
        ('x.contains("y")', ['x.contains("y")', "x", '"y"']),
        ("NOT a", ["NOT a", "a"]),
        ("-5 < x", ["-5", "x"]),
        ("[1, 2]", ["[1, 2]", "1", "2"]),
        ("{k: v}", ["{k: v}", "v"]),
        ("input matches /a+/", ["/a+/", "input matches /a+/"]),
        ("c ? a : b", ["c ? a : b", "c", "a", "b"]),
    ],
)
def test_every_node_span_covers_its_text(text: str, pieces: list[str]) -> None:
    spans = _spans(text)
    for piece in pieces:
        assert piece in spans, (piece, sorted(spans))


def test_operator_and_segment_spans():
    text = 'user.email == "" AND x NOT IN [1]'
    expr = parse_condition(text).expr
    compare = next(n for n in walk(expr) if isinstance(n, Compare))
    assert text[slice(*compare.op_span)] == "=="
    path = next(n for n in walk(expr) if isinstance(n, Path) and n.root == "user")
    assert [text[slice(*s)] for s in path.segment_spans] == ["user", "email"]
    membership = next(n for n in walk(expr) if isinstance(n, In))
    assert text[slice(*membership.op_span)] == "NOT IN" and membership.negated


def test_call_name_spans():
    text = "abl.upper(x) + lower(y) + z.trim()"
    calls = sorted((n for n in walk(parse_condition(text).expr) if isinstance(n, Call)), key=lambda c: c.span)
    assert [text[slice(*c.name_span)] for c in calls] == ["abl.upper", "lower", "trim"]
    assert calls[2].target is not None and text[slice(*calls[2].target.span)] == "z"


def test_nodes_are_typed():
    expr = parse_condition('(x) IS SET AND y contains "a" AND NOT z').expr
    kinds = {type(n) for n in walk(expr)}
    assert {Group, IsSet, TextOp, Unary, Literal, Path} <= kinds


def test_comment_is_stripped_and_recorded():
    text = "annual_income IS SET // set by the child"
    parsed = parse_condition(text)
    assert show(parsed.expr) == "(IS_SET annual_income)"
    assert parsed.comment_span == (21, len(text))
    assert parsed.content == "annual_income IS SET"


@pytest.mark.parametrize(
    "text, expected",
    [
        ('x == "http://example.com"', '(== x "http://example.com")'),
        ("x == 'a//b' // note", '(== x "a//b")'),
        ("input matches /a\\/b/ // note", "(matches input /a\\/b/)"),
        ("a == 1 # trailing hash comment", "(== a 1)"),
        ("a == '#1'", '(== a "#1")'),
    ],
)
def test_comment_markers_inside_quotes_or_regex_are_kept(text: str, expected: str) -> None:
    assert tree(text) == expected


def test_results_are_cached_by_text():
    assert parse_condition("a == 1") is parse_condition("a == 1")


def test_every_kind_of_expression_node_can_be_walked() -> None:
    # `children` looks a node's kind up in a table: a kind added to `Expr` without an entry
    # would make every walk over a condition holding it raise.
    kinds = set(typing.get_args(ast.Expr))
    assert kinds, "Expr lists the node kinds"
    assert kinds == set(ast._CHILDREN_OF)
