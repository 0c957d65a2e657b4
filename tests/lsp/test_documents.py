"""Incremental changes spliced into an open document give exactly the text pygls's own
line-by-line application gives, in every position encoding."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec

from abl.lsp.documents import SplicedTextDocument

_PIECES = st.sampled_from(["a", "é", "😀", "收", " ", "\n", "\r\n", "\r", "GOAL: x\n", "  - TO: B\n", ""])
_TEXTS = st.lists(_PIECES, max_size=40).map("".join)
_ENCODINGS = [lsp.PositionEncodingKind.Utf16, lsp.PositionEncodingKind.Utf8, lsp.PositionEncodingKind.Utf32]


def _documents(text: str, encoding: lsp.PositionEncodingKind) -> tuple[TextDocument, TextDocument]:
    kinds = {"sync_kind": lsp.TextDocumentSyncKind.Incremental, "position_codec": PositionCodec(encoding)}
    return TextDocument("file:///a.abl", text, **kinds), SplicedTextDocument("file:///a.abl", text, **kinds)


@settings(max_examples=300, deadline=None)
@given(
    _TEXTS,
    st.sampled_from(_ENCODINGS),
    st.lists(st.tuples(st.integers(0, 12), st.integers(0, 14), st.integers(0, 12), st.integers(0, 14), _TEXTS)),
)
def test_spliced_changes_equal_pygls_changes(text, encoding, changes) -> None:
    """Within the lines (pygls mishandles a column past a line's end: see the test below)."""
    theirs, ours = _documents(text, encoding)
    codec = PositionCodec(encoding)
    for start_line, start_char, end_line, end_char, new_text in changes:
        start, end = (
            _inside(ours.source, codec, start_line, start_char),
            _inside(ours.source, codec, end_line, end_char),
        )
        if (end.line, end.character) < (start.line, start.character):
            start, end = end, start
        change = lsp.TextDocumentContentChangePartial(range=lsp.Range(start, end), text=new_text)
        theirs.apply_change(change)
        ours.apply_change(change)
        assert ours.source == theirs.source


def _inside(text: str, codec: PositionCodec, line: int, character: int) -> lsp.Position:
    """The position clamped to the document's lines and to its line's characters."""
    lines = text.splitlines() or [""]
    if text.endswith(("\n", "\r")):
        lines.append("")
    line = min(line, len(lines) - 1)
    return lsp.Position(line, min(character, codec.client_num_units(lines[line])))


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
