"""Folding ranges and selection ranges, from inline fixtures, plus properties over the corpus.

Folds are written `first-last kind` (0-based lines). A selection chain is written as the text
each range covers, innermost first; `$0` in a fixture marks the position asked about.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abl.ide.folding import COMMENT, IMPORTS, REGION, folding_ranges, selection_ranges
from abl.model import load_document
from abl.text import LineIndex, Position, Range
from fixture import parse_fixture

ROOT = Path(__file__).resolve().parent.parent.parent
CORPUS = sorted([*(ROOT / "tests" / "corpus").rglob("*.abl"), *(ROOT / "examples").rglob("*.abl")])
SEEDS = [p.read_bytes().decode("utf-8", "replace") for p in CORPUS]


def folds_of(text: str) -> list[str]:
    return [f"{f.start_line}-{f.end_line} {f.kind}" for f in folding_ranges(load_document(text, "/main.abl"))]


def covered(text: str, r: Range) -> str:
    index = LineIndex(text)
    return text[index.offset(r.start) : index.offset(r.end)]


def chain_at(fixture_text: str) -> list[str]:
    fx = parse_fixture(fixture_text)
    assert fx.cursor is not None
    text = fx.files[fx.main]
    _, line, character = fx.cursor
    [selection] = selection_ranges(load_document(text, "/main.abl"), [Position(line, character)])
    return [covered(text, r) for r in selection.chain()]


# --- folding ----------------------------------------------------------------------------------

ROUTES = """\
AGENT: A
GOAL: "x"

HANDOFF:
  - TO: B
    WHEN: x
    ON_RETURN:
      MAP:
        a: b

  - TO: C
    RETURN: true


# one
# two
# three

COMPLETE:
  - RESPOND: |
      Hello

      there

"""

FOLD_CASES = {
    "blocks, routes, comment runs and pipe text": (
        ROUTES,
        [
            "3-11 region",
            "4-8 region",
            "6-8 region",
            "7-8 region",
            "10-11 region",
            "14-16 comment",
            "18-22 region",
            "19-22 region",
        ],
    ),
    "line endings do not matter": (
        ROUTES.replace("\n", "\r\n"),
        [
            "3-11 region",
            "4-8 region",
            "6-8 region",
            "7-8 region",
            "10-11 region",
            "14-16 comment",
            "18-22 region",
            "19-22 region",
        ],
    ),
    "tool imports": (
        'AGENT: A\nTOOLS:\n  file: "./a.tools.abl" [x]\n  file: "./b.tools.abl"\n  f(a: string) -> {b: c}\n'
        '    description: "d"\n',
        ["1-5 region", "2-3 imports", "4-5 region"],
    ),
    "each agent of a file with several": (
        'AGENT: A\nGOAL: "x"\n\nAGENT: B\nGOAL: "y"\n# the end\n',
        ["0-1 region", "3-4 region"],
    ),
    "a bracket value over several lines": (
        'AGENT: A\nLIMITATIONS: [\n  "a",\n  "b"\n  ]\n',
        ["1-4 region"],
    ),
    "nothing to fold": ('AGENT: A\nGOAL: "x"\n# one comment\n', []),
    "comments split by a blank line are two runs": ("# a\n# b\n\n# c\n# d\nAGENT: A\n", ["0-1 comment", "3-4 comment"]),
    "an empty file": ("", []),
}


@pytest.mark.parametrize("name", list(FOLD_CASES))
def test_folds(name: str) -> None:
    text, expected = FOLD_CASES[name]
    assert folds_of(text) == expected


# --- selection ranges -------------------------------------------------------------------------

ROUTE_FILE = """\
AGENT: A
GOAL: "Help the cu$0stomer"
HANDOFF:
  - TO: B
    WHEN: order_id IS SET
"""

SELECTION_CASES = {
    "a word in a quoted value": (
        ROUTE_FILE,
        [
            "customer",
            "Help the customer",
            '"Help the customer"',
            'GOAL: "Help the customer"',
            ROUTE_FILE.replace("$0", "").rstrip("\n"),
            ROUTE_FILE.replace("$0", ""),
        ],
    ),
    "a name in a condition": (
        "AGENT: A\nHANDOFF:\n  - TO: B\n    WHEN: order_$0id IS SET\n",
        [
            "order_id",
            "order_id IS SET",
            "WHEN: order_id IS SET",
            "- TO: B\n    WHEN: order_id IS SET",
            "HANDOFF:\n  - TO: B\n    WHEN: order_id IS SET",
            "AGENT: A\nHANDOFF:\n  - TO: B\n    WHEN: order_id IS SET",
            "AGENT: A\nHANDOFF:\n  - TO: B\n    WHEN: order_id IS SET\n",
        ],
    ),
    "a key": (
        "AGENT: A\nHISTORY:\n  mo$0de: last_5\n  count: 3\n",
        [
            "mode",
            "mode: last_5",
            "HISTORY:\n  mode: last_5\n  count: 3",
            "AGENT: A\nHISTORY:\n  mode: last_5\n  count: 3",
            "AGENT: A\nHISTORY:\n  mode: last_5\n  count: 3\n",
        ],
    ),
    "pipe text": (
        "AGENT: A\nGOAL: |\n  Hel$0lo there\n  and bye\nPERSONA: x\n",
        [
            "Hello",
            "Hello there",
            "Hello there\n  and bye",
            "GOAL: |\n  Hello there\n  and bye",
            "AGENT: A\nGOAL: |\n  Hello there\n  and bye\nPERSONA: x",
            "AGENT: A\nGOAL: |\n  Hello there\n  and bye\nPERSONA: x\n",
        ],
    ),
    "a comment": (
        "# first\n# second $0line\nAGENT: A\n",
        ["line", "# second line", "# first\n# second line", "# first\n# second line\nAGENT: A\n"],
    ),
    "a trailing comment": (
        "AGENT: A  # the na$0me\n",
        ["name", "# the name", "AGENT: A  # the name\n"],
    ),
    "a blank line inside a block": (
        "AGENT: A\nHANDOFF:\n  - TO: B\n\n    $0\n    WHEN: x\n",
        [
            "- TO: B\n\n    \n    WHEN: x",
            "HANDOFF:\n  - TO: B\n\n    \n    WHEN: x",
            "AGENT: A\nHANDOFF:\n  - TO: B\n\n    \n    WHEN: x",
            "AGENT: A\nHANDOFF:\n  - TO: B\n\n    \n    WHEN: x\n",
        ],
    ),
    "non-ASCII text": (
        'AGENT: A\nGOAL: "抹茶 🍵 tea$0time"\n',
        [
            "teatime",
            "抹茶 🍵 teatime",
            '"抹茶 🍵 teatime"',
            'GOAL: "抹茶 🍵 teatime"',
            'AGENT: A\nGOAL: "抹茶 🍵 teatime"',
            'AGENT: A\nGOAL: "抹茶 🍵 teatime"\n',
        ],
    ),
}


@pytest.mark.parametrize("name", list(SELECTION_CASES))
def test_selection_chain(name: str) -> None:
    fixture_text, expected = SELECTION_CASES[name]
    assert chain_at(fixture_text) == expected


def test_one_answer_per_position_even_outside_the_text() -> None:
    document = load_document("AGENT: A\n", "/main.abl")
    answers = selection_ranges(document, [Position(0, 0), Position(99, 99), Position(0, 500)])
    assert len(answers) == 3
    assert all(a.chain()[-1] == Range(Position(0, 0), Position(1, 0)) for a in answers)


def test_an_empty_file_still_answers() -> None:
    [answer] = selection_ranges(load_document("", "/main.abl"), [Position(0, 0)])
    assert answer.chain() == [Range(Position(0, 0), Position(0, 0))]


# --- properties -------------------------------------------------------------------------------


def assert_folds_well_formed(text: str) -> None:
    document = load_document(text, "/main.abl")
    lines = document.source.index.line_count
    folds = folding_ranges(document)
    for fold in folds:
        assert 0 <= fold.start_line < fold.end_line < lines, fold
        assert fold.kind in (REGION, COMMENT, IMPORTS)
    assert folds == sorted(folds, key=lambda f: (f.start_line, -f.end_line, f.kind))
    index = document.source.index
    for fold in folds:
        assert index.line_text(fold.end_line).strip(), f"{fold} ends on a blank line"


def assert_chains_grow(text: str, positions: list[Position]) -> None:
    document = load_document(text, "/main.abl")
    for position, answer in zip(positions, selection_ranges(document, positions), strict=True):
        chain = answer.chain()
        for inner, outer in pairwise(chain):
            assert outer.start <= inner.start and inner.end <= outer.end and inner != outer, (position, chain)
        assert chain[0].start <= chain[0].end


def positions_in(text: str) -> list[Position]:
    """On every line: the start, the first non-blank character, the middle and the end."""
    index = LineIndex(text)
    out = []
    for row in range(index.line_count):
        line = index.line_text(row)
        indent = len(line) - len(line.lstrip())
        out += [Position(row, c) for c in sorted({0, indent, (indent + len(line)) // 2, len(line)})]
    return out


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_corpus_folds_and_selections(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", "replace")
    assert_folds_well_formed(text)
    assert_chains_grow(text, positions_in(text))


FRAGMENTS = st.sampled_from(
    [
        "AGENT: A\n",
        "HANDOFF:\n",
        "  - TO: B\n",
        "    WHEN: x\n",
        "  ",
        "\t",
        "- ",
        "-",
        ":",
        "#",
        "# c\n",
        " # c",
        '"',
        "'",
        "[",
        "]",
        "|\n",
        "|-\n",
        "\n",
        "\r\n",
        "\ufeff",
        "漢",
        "🚀",
        "  file: 'a'\n",
    ]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=200), st.lists(FRAGMENTS, max_size=40).map("".join)), st.data())
def test_any_text_folds_and_selects(text: str, data: st.DataObject) -> None:
    assert_folds_well_formed(text)
    line = data.draw(st.integers(0, text.count("\n") + 1))
    character = data.draw(st.integers(0, 40))
    assert_chains_grow(text, [Position(line, character)])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(SEEDS), st.data())
def test_mutated_files_fold_and_select(seed: str, data: st.DataObject) -> None:
    text = seed
    for _ in range(data.draw(st.integers(1, 5))):
        at = data.draw(st.integers(0, len(text)))
        if data.draw(st.booleans()):
            text = text[:at] + data.draw(FRAGMENTS) + text[at:]
        else:
            text = text[:at] + text[at + data.draw(st.integers(1, 12)) :]
    assert_folds_well_formed(text)
    line = data.draw(st.integers(0, text.count("\n")))
    character = data.draw(st.integers(0, 60))
    assert_chains_grow(text, [Position(line, character)])


def test_nesting_deeper_than_the_recursion_limit() -> None:
    depth = 3000
    text = "AGENT: A\nX:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(depth))
    document = load_document(text, "/main.abl")
    # Past MAX_NESTING_DEPTH the parser reads deeper lines as siblings (NESTING_TOO_DEEP).
    from abl.syntax.limits import MAX_NESTING_DEPTH

    assert len(folding_ranges(document)) == MAX_NESTING_DEPTH
    [deepest] = selection_ranges(document, [Position(depth + 1, 2 * depth + 2)])
    assert len(deepest.chain()) > MAX_NESTING_DEPTH
