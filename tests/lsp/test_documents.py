"""Incremental changes spliced into an open document give exactly the text the editor holds,
in every position encoding, whatever characters the text holds: lines break at `\\n`, `\\r\\n`
and `\\r` only, as in the protocol (pygls's own document counts `str.splitlines` lines)."""

from __future__ import annotations

import random

import pytest
from fuzz.editor import ClientBuffer, typed_edits
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec

from abl.lsp.documents import SplicedTextDocument
from abl.text import LineIndex, ProtocolLines

# The characters Python's `str.splitlines` breaks lines at and the protocol does not.
NOT_LINE_BREAKS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]

_PIECES = st.sampled_from(
    ["a", "é", "😀", "收", " ", "\n", "\r\n", "\r", "GOAL: x\n", "  - TO: B\n", "", *NOT_LINE_BREAKS]
)
_TEXTS = st.lists(_PIECES, max_size=40).map("".join)
_ENCODINGS = [lsp.PositionEncodingKind.Utf16, lsp.PositionEncodingKind.Utf8, lsp.PositionEncodingKind.Utf32]


def _documents(text: str, encoding: lsp.PositionEncodingKind) -> tuple[TextDocument, TextDocument]:
    kinds = {"sync_kind": lsp.TextDocumentSyncKind.Incremental, "position_codec": PositionCodec(encoding)}
    return TextDocument("file:///a.abl", text, **kinds), SplicedTextDocument("file:///a.abl", text, **kinds)


@settings(max_examples=300, deadline=None)
@given(_TEXTS, st.integers(0, 2**32))
def test_the_server_copy_equals_the_editors_after_typed_changes(text, seed) -> None:
    client, ours = ClientBuffer(text), _documents(text, lsp.PositionEncodingKind.Utf16)[1]
    rng = random.Random(seed)
    for _ in range(30):
        change = typed_edits(client, rng)
        client.apply(change)
        ours.apply_change(change)
        assert ours.source == client.text
        # The line starts, moved by the change, are those of the text counted afresh.
        assert ours.protocol_lines()._starts == ProtocolLines(ours.source)._starts


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES.filter(lambda piece: "\r" not in piece), max_size=40).map("".join), st.integers(0, 2**32))
def test_line_starts_moved_by_each_change_equal_those_counted_afresh(text, seed) -> None:
    """Without a `\r` anywhere, a change moves the line starts instead of counting them again."""
    client, ours = ClientBuffer(text), _documents(text, lsp.PositionEncodingKind.Utf16)[1]
    rng = random.Random(seed)
    for _ in range(30):
        change = typed_edits(client, rng)
        if isinstance(change, lsp.TextDocumentContentChangePartial) and "\r" in change.text:
            continue
        client.apply(change)
        ours.apply_change(change)
        assert ours.source == client.text
        assert ours.protocol_lines()._starts == ProtocolLines(ours.source)._starts


@pytest.mark.parametrize("character", NOT_LINE_BREAKS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_change_below_a_character_splitlines_breaks_at_lands_on_its_line(character) -> None:
    """The issue's case: `an` typed before `_income` on the line below the character."""
    text = f'AGENT: A\nGOAL: "x{character}y"\nGATHER:\n  _income:\n'
    theirs, ours = _documents(text, lsp.PositionEncodingKind.Utf16)
    at = lsp.Position(3, 2)
    change = lsp.TextDocumentContentChangePartial(range=lsp.Range(at, at), text="an")
    ours.apply_change(change)
    assert ours.source == text.replace("  _income", "  an_income")
    assert ours.lines[3] == "  an_income:\n"
    theirs.apply_change(change)
    assert theirs.source != ours.source  # pygls's own document puts it a line too high


def test_a_column_past_the_end_of_a_line_means_its_end() -> None:
    _, ours = _documents("GOAL: a\nTO: B\n", lsp.PositionEncodingKind.Utf16)
    past = lsp.Position(0, 40)
    ours.apply_change(lsp.TextDocumentContentChangePartial(range=lsp.Range(past, past), text="!"))
    assert ours.source == "GOAL: a!\nTO: B\n"
    ours.apply_change(
        lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(9, 0), lsp.Position(9, 3)), text="# end")
    )
    assert ours.source == "GOAL: a!\nTO: B\n# end"


def test_a_change_in_a_long_document_is_spliced_where_it_belongs() -> None:
    text = "".join(f'AGENT: A{i}\nGOAL: "g 😀 {i}"\n' for i in range(5_000))
    theirs, ours = _documents(text, lsp.PositionEncodingKind.Utf16)
    change = lsp.TextDocumentContentChangePartial(
        range=lsp.Range(lsp.Position(8_001, 10), lsp.Position(8_001, 10)), text="x"
    )
    theirs.apply_change(change)
    ours.apply_change(change)
    assert ours.source == theirs.source and 'GOAL: "g 😀x 4000"' in ours.source


@given(_TEXTS)
def test_a_line_is_measured_as_long_as_its_text(text) -> None:
    # Measured without copying it out of the text (positions for the wire): the same length.
    for lines in (LineIndex(text), ProtocolLines(text)):
        for line in range(lines.line_count + 1):
            assert lines.line_length(line) == len(lines.line_text(line)), (text, line)
