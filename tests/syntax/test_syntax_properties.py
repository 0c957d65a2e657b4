"""Properties that hold for any input: the parser never raises and never loses a byte."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abl.syntax import parse
from abl.syntax.scanner import _closing_quote
from abl.syntax.values import ValueKind, quote, read_value, unquote

HERE = Path(__file__).parent
SEEDS = [p.read_bytes().decode("utf-8") for p in sorted((HERE / "cases").glob("*.abl"))]

# Pieces that make the scanner work hard: indentation, dashes, colons, quotes, brackets, pipes.
FRAGMENTS = st.sampled_from(
    [
        "AGENT: A\n",
        "GOAL: x\n",
        "  ",
        "\t",
        "- ",
        "-",
        ":",
        ": ",
        "#",
        " # c",
        "//",
        '"',
        "'",
        "[",
        "]",
        "{",
        "}",
        ",",
        "|",
        "|-\n",
        ">\n",
        "\n",
        "\r\n",
        "\r",
        "\ufeff",
        "TO: B",
        "HISTORY:\n",
        "    mode: last_n\n",
        'WHEN: a == "b" // c\n',
        "x = 1\n",
        "f(a: string) -> {b: c}\n",
        "\x00",
        "\udcff".encode("utf-8", "surrogatepass").decode("utf-8", "replace"),
        "é",
        "漢",
    ]
)
DOCUMENTS = st.lists(FRAGMENTS, max_size=60).map("".join)


def _check(text: str) -> None:
    tree = parse(text)
    assert tree.to_text() == text
    for node in tree.walk():
        node.range()  # every node can say where it is
    for d in tree.diagnostics:
        assert d.range.start <= d.range.end


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS)
def test_generated_documents_round_trip(text: str) -> None:
    _check(text)


@settings(max_examples=300)
@given(st.text(max_size=300))
def test_arbitrary_text_round_trips(text: str) -> None:
    _check(text)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS), st.data())
def test_mutated_real_files_round_trip(seed: str, data: st.DataObject) -> None:
    text = seed
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(text)))
        action = data.draw(st.sampled_from(["insert", "delete", "duplicate"]))
        if action == "insert":
            text = text[:at] + data.draw(FRAGMENTS) + text[at:]
        elif action == "delete":
            text = text[:at] + text[at + data.draw(st.integers(1, 8)) :]
        else:
            text = text[:at] + text[at : at + 20] + text[at:]
    _check(text)


@settings(max_examples=300)
@given(st.text(alphabet="[]{},:\"' abc\n", max_size=40))
def test_inline_values_never_raise(raw: str) -> None:
    value = read_value(raw)
    assert value.start <= value.end


_ITEMS = st.one_of(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_.]{0,8}", fullmatch=True),
    st.from_regex(r'"[A-Za-z ,.]{0,8}"', fullmatch=True),
)


@settings(max_examples=300)
@given(st.lists(_ITEMS, max_size=6), st.sampled_from([", ", ",", " , "]), st.sampled_from(["", " "]))
def test_simple_lists_read_by_hand_match_the_grammar(items: list[str], sep: str, pad: str) -> None:
    from abl.syntax.values import _read_flow

    raw = "[" + pad + sep.join(items) + pad + "]"
    fast, slow = read_value(raw, 5), _read_flow(raw, 5)
    assert fast.error is None and slow.error is None
    assert [(i.kind, i.text, i.start, i.end) for i in fast.items] == [
        (i.kind, i.text, i.start, i.end) for i in slow.items
    ]


def test_split_top_level_keeps_brackets_and_quotes_whole() -> None:
    from abl.syntax.values import split_top_level

    assert split_top_level('a, f(b, c), "d, e", [x, y]') == ["a", " f(b, c)", ' "d, e"', " [x, y]"]
    assert split_top_level("") == [""]


# Text a fix may write between quotes: what an author typed, backslashes and quotes included.
_LINE_TEXT = st.text(alphabet=st.characters(blacklist_characters="\r\n\x85\u2028\u2029", blacklist_categories=("Cs",)))


@given(_LINE_TEXT)
def test_quoted_text_reads_back_as_itself(text: str) -> None:
    written = quote(text)
    assert unquote(written) == (text, True)
    value = read_value(written)
    assert (value.kind, value.text) == (ValueKind.QUOTED, text)
    source = parse(f"AGENT: A\nGOAL: {written}\n")
    assert not [d for d in source.diagnostics if d.code == "SYNTAX_ERROR"], written


@given(st.text(alphabet="ab \\\"'#", max_size=24), st.data())
def test_a_quote_closes_at_the_first_unescaped_quote_like_it(text: str, data: st.DataObject) -> None:
    quotes = [i for i, c in enumerate(text) if c in "\"'"]
    if not quotes:
        return
    at = data.draw(st.sampled_from(quotes))
    end = data.draw(st.integers(at, len(text)))
    expected, i = -1, at + 1  # read one character at a time, a backslash taking the next one
    while i < end:
        if text[i] == "\\":
            i += 2
        elif text[i] == text[at]:
            expected = i
            break
        else:
            i += 1
    assert _closing_quote(text, at, end) == expected
