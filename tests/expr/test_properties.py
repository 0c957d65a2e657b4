"""Whatever the text, parsing and evaluating never raise, and spans stay inside the text."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abl.expr import evaluate, evaluate_text, names, parse_condition, show, walk
from abl.expr.parse import parse_condition_uncached

# Fragments of real conditions, so that random texts often get deep into the grammar.
_PIECES = [
    "a",
    "b.c",
    "items[0]",
    "x",
    "intent.category",
    "==",
    "!=",
    ">",
    "<=",
    "AND",
    "OR",
    "NOT",
    "&&",
    "||",
    "!",
    "IS SET",
    "IS NOT SET",
    "is_number",
    "IN",
    "NOT IN",
    "contains",
    "matches",
    "startsWith",
    "endsWith",
    "IMPLIES",
    "EXISTS",
    "EMPTY",
    "?",
    ":",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    "+",
    "-",
    "*",
    "/",
    "%",
    "0",
    "1.5",
    "-3",
    '"s"',
    "'t'",
    '""',
    "true",
    "null",
    "/re+/",
    "UPPER(",
    "abl.upper(",
    "x.contains(",
    "DIV(1, 0)",
    "//",
    "#",
    '"',
    "'",
    "\\",
    "=",
    "&",
    "|",
    "@",
    "\n",
    " ",
    "é",
    "😀",
]
SCOPE = {"a": 1, "b": {"c": "two"}, "items": ["p", None], "x": "", "intent": {"category": "q"}}

condition_texts = st.one_of(
    st.text(max_size=80),
    st.lists(st.sampled_from(_PIECES), max_size=24).map(" ".join),
    st.lists(st.sampled_from(_PIECES), max_size=24).map("".join),
    st.lists(st.sampled_from(_PIECES), max_size=16).map(lambda p: '"' + " ".join(p) + '"'),
)

FAST = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(condition_texts)
def test_parse_never_raises_and_spans_are_inside(text: str) -> None:
    parsed = parse_condition_uncached(text)
    assert parsed.expr is None or not parsed.natural_language
    for span, message in parsed.errors:
        assert 0 <= span[0] <= span[1] <= len(text)
        assert message
    if parsed.expr is not None:
        for node in walk(parsed.expr):
            assert 0 <= node.span[0] <= node.span[1] <= len(text)
        for ref in names(parsed.expr):
            assert text[slice(*ref.root_span)] == ref.root
        show(parsed.expr)


@FAST
@given(condition_texts)
def test_evaluate_never_raises(text: str) -> None:
    result = evaluate_text(text, SCOPE)
    assert isinstance(result.truthy, bool)
    parsed = parse_condition(text)
    if parsed.expr is not None:
        assert evaluate(parsed.expr, {}).truthy in (True, False)


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=10))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)),
    max_leaves=12,
)

_OPERATIONS = [
    "v == w",
    "v != w",
    "v < w",
    "v >= w",
    "v + w",
    "v - w",
    "v * w",
    "v / w",
    "v % w",
    "v IN w",
    "v contains w",
    "v startsWith w",
    "v matches w",
    "-v",
    "v IS SET",
    "EMPTY v",
    "v is_number",
    "LENGTH(v)",
    "UPPER(v)",
    "ROUND(v, w)",
    "SUBSTRING(v, w)",
    "JOIN(v, w)",
    "SPLIT(v, w)",
    "MASK(v, w)",
    "FORMAT_CURRENCY(v, w)",
    "FORMAT_DATE(v, w)",
    "ORDINAL(v)",
    "TO_NUMBER(v)",
    "ARRAY_FIND(v, 'k', w)",
    "OBJECT_MERGE(v, w)",
    "REPEAT(v, w)",
    "PAD_START(v, w)",
    "REGEX_EXTRACT(v, w)",
    "MIN(v, w)",
    "ADD(v, w)",
    "v.size()",
    "v[w]",
    "v.k",
    "v ? w : v",
]


@FAST
@given(st.sampled_from(_OPERATIONS), values, values)
def test_operators_and_functions_accept_any_values(operation: str, v: object, w: object) -> None:
    result = evaluate_text(operation, {"v": v, "w": w})
    assert isinstance(result.truthy, bool)
