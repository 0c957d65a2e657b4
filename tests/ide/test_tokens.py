"""Semantic tokens: snapshots of real-looking files, and properties that hold for any text.

Snapshots: each `cases/tokens/NAME.abl` is tokenised and rendered one token a line as
`line:start-end type[.modifiers] "text"` (0-based lines, code-point columns), then compared with
`snapshots/tokens/NAME.txt`. Run with `UPDATE_SNAPSHOTS=1` to write the snapshots afresh after
an intended change, and read the diff before keeping it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abl.ide.tokens import (
    MAX_TOKENS,
    TOKEN_MODIFIERS,
    TOKEN_TYPES,
    SemanticTokens,
    Token,
    semantic_tokens,
)
from abl.lsp.token_encoding import delta, encode
from abl.text import LineIndex, Position, Range
from abl.workspace import Project

HERE = Path(__file__).parent
CASES = sorted((HERE / "cases" / "tokens").glob("*.abl"))
SNAPSHOTS = HERE / "snapshots" / "tokens"
ROOT = HERE.parent.parent
CORPUS = sorted([*(ROOT / "tests" / "corpus").rglob("*.abl"), *(ROOT / "examples").rglob("*.abl")])
SEEDS = [p.read_bytes().decode("utf-8", "replace") for p in CORPUS]

# The names VS Code (and the LSP specification) predefine; themes colour these.
STANDARD_TYPES = {
    "namespace",
    "type",
    "class",
    "enum",
    "interface",
    "struct",
    "typeParameter",
    "parameter",
    "variable",
    "property",
    "enumMember",
    "event",
    "function",
    "method",
    "macro",
    "keyword",
    "modifier",
    "comment",
    "string",
    "number",
    "regexp",
    "operator",
    "decorator",
    "label",
}
STANDARD_MODIFIERS = {
    "declaration",
    "definition",
    "readonly",
    "static",
    "deprecated",
    "abstract",
    "async",
    "modification",
    "documentation",
    "defaultLibrary",
}


def tokens_of(text: str, path: str = "/main.abl", **options) -> SemanticTokens:
    project = Project("/")
    project.update(path, text)
    return semantic_tokens(project, path, **options)


def render(text: str, tokens) -> str:
    index = LineIndex(text)
    out = []
    for t in tokens:
        mods = "".join(f".{m}" for m in t.modifiers)
        piece = index.line_text(t.line)[t.start : t.end]
        out.append(f"{t.line}:{t.start}-{t.end} {t.type}{mods} {json.dumps(piece, ensure_ascii=False)}")
    return "\n".join(out) + "\n"


def decode(data: list[int]) -> list[Token]:
    """The inverse of `encode`, written out independently."""
    out: list[Token] = []
    line = start = 0
    for i in range(0, len(data), 5):
        d_line, d_start, length, kind, mods = data[i : i + 5]
        line += d_line
        start = start + d_start if d_line == 0 else d_start
        out.append(Token(line, start, length, kind, mods))
    return out


def assert_well_formed(text: str, tokens) -> None:
    index = LineIndex(text)
    previous: Token | None = None
    for t in tokens:
        assert t.length > 0, t
        assert t.start >= 0 and t.end <= len(index.line_text(t.line)), t
        assert 0 <= t.type_index < len(TOKEN_TYPES)
        assert 0 <= t.modifier_bits < 1 << len(TOKEN_MODIFIERS)
        if previous is not None:
            assert (previous.line, previous.end) <= (t.line, t.start), (previous, t)
        previous = t
    assert decode(encode(tokens)) == list(tokens)


# --- snapshots --------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_snapshot(case: Path) -> None:
    text = case.read_bytes().decode("utf-8")
    tokens = tokens_of(text, str(case))
    assert_well_formed(text, tokens)
    rendered = render(text, tokens)
    snapshot = SNAPSHOTS / f"{case.stem}.txt"
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_text(rendered, encoding="utf-8")
    assert snapshot.exists(), f"no snapshot for {case.name}; run with UPDATE_SNAPSHOTS=1 to write it"
    assert rendered == snapshot.read_text(encoding="utf-8")


def test_there_is_a_snapshot_for_every_case_and_a_case_for_every_snapshot() -> None:
    assert {p.stem for p in CASES} == {p.stem for p in SNAPSHOTS.glob("*.txt")}


def test_non_ascii_columns_count_code_points() -> None:
    text = 'AGENT: A\nGOAL: "日本 🚀 x"  # ☕ c\n'
    found = {(t.line, t.start, t.type): t.length for t in tokens_of(text)}
    assert found[(1, 6, "string")] == len('"日本 🚀 x"')
    assert found[(1, 6 + len('"日本 🚀 x"  '), "comment")] == len("# ☕ c")


# --- the legend and the API -------------------------------------------------------------------


def test_legend_uses_standard_names_once_each() -> None:
    assert set(TOKEN_TYPES) <= STANDARD_TYPES
    assert set(TOKEN_MODIFIERS) <= STANDARD_MODIFIERS
    assert len(set(TOKEN_TYPES)) == len(TOKEN_TYPES)
    assert len(set(TOKEN_MODIFIERS)) == len(TOKEN_MODIFIERS)


@pytest.mark.parametrize(
    "text, piece, expected",
    [
        ("AGENT: A\nHANDOFF:\n  - TO: B\n    MAP:\n      x: y\n", "MAP", "property.deprecated"),
        ("AGENT: A\nMODEL: gpt-4\n", "MODEL", "keyword.deprecated"),
        ("AGENT: A\nHANDOFF:\n  - TO: B\n    WHEN: x IS NOT SET\n", "IS NOT SET", "operator"),
        ("AGENT: A\nHANDOFF:\n  - TO: B\n    HISTORY: summary_only\n", "summary_only", "enumMember"),
        ("AGENT: A\nHANDOFF:\n  - TO: B\n    WHEN: intent.category == 'x'\n", "intent", "variable.defaultLibrary"),
        ("AGENT: A\nCOMPLETE:\n  - RESPOND: 'Hi {{ name }}!'\n", "{{ ", "macro"),
        ("AGENT: A\nGATHER:\n  name:\n    TYPE: string\n", "name", "variable.declaration"),
        ("AGENT: A\nHANDOFF:\n  - TO: B\n", "B", "class"),
        ("AGENT: A\n", "A", "class.declaration"),
    ],
)
def test_chosen_tokens(text: str, piece: str, expected: str) -> None:
    index = LineIndex(text)
    found = {}
    for t in tokens_of(text):
        found.setdefault(index.line_text(t.line)[t.start : t.end], ".".join((t.type, *t.modifiers)))
    assert found.get(piece) == expected, found


def test_encode_is_relative() -> None:
    tokens = [Token(1, 2, 3, 0, 0), Token(1, 8, 2, 1, 2), Token(4, 1, 1, 2, 0)]
    assert encode(tokens) == [1, 2, 3, 0, 0, 0, 6, 2, 1, 2, 3, 1, 1, 2, 0]


def test_unknown_path_has_no_tokens() -> None:
    assert len(semantic_tokens(Project("/"), "/nowhere.abl")) == 0


def test_the_limit_truncates_and_says_so() -> None:
    text = "AGENT: A\n" + "".join(f"K{i}: {i}\n" for i in range(50))
    whole = tokens_of(text)
    assert not whole.truncated and len(whole) > 10
    cut = tokens_of(text, limit=10)
    assert cut.truncated and list(cut) == list(whole)[:10]
    assert MAX_TOKENS >= 100_000


def test_within_keeps_only_the_lines_asked_for() -> None:
    text = "AGENT: A\nGOAL: 'x'\nPERSONA: 'y'\n"
    some = tokens_of(text, within=Range(Position(1, 0), Position(1, 99)))
    assert {t.line for t in some} == {1}


def test_delta_examples() -> None:
    a = [0, 0, 5, 0, 0, 1, 0, 3, 1, 0]
    assert delta(a, a) == []
    assert delta([], a) == [(0, 0, a)]
    assert delta(a, []) == [(0, 10, [])]
    b = [0, 0, 5, 0, 0, 1, 0, 4, 1, 0]
    assert delta(a, b) == [(5, 5, [1, 0, 4, 1, 0])]


# --- properties -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_corpus_file_gives_well_formed_tokens(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", "replace")
    assert_well_formed(text, tokens_of(text, str(path)))


FRAGMENTS = st.sampled_from(
    [
        "AGENT: A\n",
        "HANDOFF:\n",
        "  - TO: B\n",
        "    WHEN: x IS SET AND y > 2\n",
        "  ",
        "\t",
        "- ",
        ":",
        "#",
        " # c",
        '"',
        "'",
        "[",
        "]",
        "{{",
        "}}",
        "|\n",
        "\n",
        "\r\n",
        "\ufeff",
        "漢",
        "🚀",
        "é",
        "x = 1\n",
        "f(a: string) -> {b: c}\n",
        "REQUIRE a BEFORE calling f\n",
        "IF x: COMPLETE\n",
        "file: './t.tools.abl' [a]\n",
    ]
)


def mutate(data: st.DataObject, text: str) -> str:
    for _ in range(data.draw(st.integers(1, 5))):
        at = data.draw(st.integers(0, len(text)))
        action = data.draw(st.sampled_from(["insert", "delete", "duplicate"]))
        if action == "insert":
            text = text[:at] + data.draw(FRAGMENTS) + text[at:]
        elif action == "delete":
            text = text[:at] + text[at + data.draw(st.integers(1, 12)) :]
        else:
            text = text[:at] + text[at : at + 30] + text[at:]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_any_text_gives_well_formed_tokens(text: str) -> None:
    assert_well_formed(text, tokens_of(text))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(FRAGMENTS, max_size=40).map("".join))
def test_generated_documents_give_well_formed_tokens(text: str) -> None:
    assert_well_formed(text, tokens_of(text))


def apply_delta(data: Sequence[int], edits: Iterable[tuple[int, int, Sequence[int]]]) -> list[int]:
    """`data` with the delta's edits applied as a client applies them (each start counts in the
    original data)."""
    out = list(data)
    for start, delete, inserted in sorted(edits, key=lambda e: e[0], reverse=True):
        out[start : start + delete] = list(inserted)
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(SEEDS), st.data())
def test_mutated_files_give_well_formed_tokens_and_deltas_that_apply(seed: str, data: st.DataObject) -> None:
    text = mutate(data, seed)
    before, after = encode(tokens_of(seed)), encode(tokens_of(text))
    assert_well_formed(text, decode(after))
    edits = delta(before, after)
    assert apply_delta(before, edits) == after
    assert all(start % 5 == 0 and deleted % 5 == 0 and len(inserted) % 5 == 0 for start, deleted, inserted in edits)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=30), st.lists(st.integers(0, 4), max_size=30))
def test_delta_applied_to_the_old_data_gives_the_new(a: list[int], b: list[int]) -> None:
    edits = delta(a, b)
    assert apply_delta(a, edits) == b
    assert len(edits) <= 1


def test_nesting_deeper_than_the_recursion_limit() -> None:
    depth = 3000
    text = "AGENT: A\nX:\n" + "".join("  " * (i + 1) + f"k{i}: 1\n" for i in range(depth))
    tokens = tokens_of(text)
    assert_well_formed(text, tokens)
    assert len(tokens) > 2 * depth
