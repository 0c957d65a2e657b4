"""The protocol edge in process: positions in each encoding, settings from the client, and
diagnostics converted for the wire."""

from __future__ import annotations

import json

import pytest
from lsprotocol import types as lsp

from abl.diagnostics import Diagnostic, Severity
from abl.lsp.convert import Positions, diagnostic, path_to_uri, uri_to_path
from abl.lsp.settings import Settings
from abl.text import Position, Range

TEXT = 'GOAL: "😀 收入"  # x\nTO: Income_Agent\n'


@pytest.mark.parametrize(
    "encoding,character",
    [(lsp.PositionEncodingKind.Utf16, 12), (lsp.PositionEncodingKind.Utf8, 18), (lsp.PositionEncodingKind.Utf32, 11)],
)
def test_positions_after_emoji_and_cjk(encoding, character):
    positions = Positions(TEXT, encoding)
    closing_quote = Position(0, TEXT.index('"', 7))  # code point 11
    assert positions.to_client(closing_quote) == lsp.Position(0, character)
    assert positions.from_client(lsp.Position(0, character)) == closing_quote


def test_out_of_range_client_positions_are_clamped():
    positions = Positions(TEXT, lsp.PositionEncodingKind.Utf16)
    assert positions.from_client(lsp.Position(99, 0)) == Position(2, 0)
    assert positions.from_client(lsp.Position(1, 500)) == Position(1, len("TO: Income_Agent"))


def test_uris_and_paths_round_trip(tmp_path):
    path = str(tmp_path / "a b.abl")
    assert uri_to_path(path_to_uri(path)) == path
    assert uri_to_path("untitled:Untitled-1") is None


def test_settings_from_the_client():
    settings = Settings.read(
        {
            "abl": {
                "diagnostics": {"ignore": ["E330", "NOPE"], "select": [], "hints": False},
                "inlayHints": {"enable": False},
            }
        }
    )
    assert settings.ignore == {"E330", "NOPE"} and settings.select is None  # an empty selection means every code
    assert settings.unknown == ("NOPE",)
    assert not settings.inlay_hints and settings.code_lens
    hint = Diagnostic("HISTORY_NOT_SET", Severity.HINT, "m", Range.on_line(0, 0, 1))
    error = Diagnostic("E330", Severity.ERROR, "m", Range.on_line(0, 0, 1))
    assert not settings.shows(hint) and not settings.shows(error)
    assert Settings.read("not a mapping") == Settings()


def test_a_diagnostic_on_the_wire_has_its_docs_link_and_related_place():
    positions = Positions(TEXT, lsp.PositionEncodingKind.Utf16)
    d = Diagnostic(
        "UNKNOWN_HANDOFF_RETURN_FIELD",
        Severity.ERROR,
        "message",
        Range.on_line(1, 4, 16),
        related=(("/p/child.abl", Range.on_line(0, 7, 19), "declared here"),),
    )
    wire = diagnostic(d, positions, lambda path: positions)
    assert wire.source == "abl" and wire.code == "UNKNOWN_HANDOFF_RETURN_FIELD"
    assert wire.code_description is not None and wire.code_description.href.endswith("UNKNOWN_HANDOFF_RETURN_FIELD.md")
    assert wire.related_information[0].location.uri.endswith("child.abl")
    assert wire.severity is lsp.DiagnosticSeverity.Error


def test_diagnostics_written_by_the_wire_read_as_pygls_would_write_them(tmp_path):
    from pygls.protocol import default_converter

    from abl.lsp.wire import DiagnosticWire, publish_body

    converter = default_converter()
    other_path = str(tmp_path / "other.abl")
    positions = Positions(TEXT, lsp.PositionEncodingKind.Utf16)
    first = Diagnostic("E330", Severity.ERROR, "m 😀", Range.on_line(0, 9, 11))
    second = Diagnostic(
        "UNREACHABLE_ROUTE",
        Severity.WARNING,
        "w",
        Range.on_line(1, 4, 16),
        (),
        ((other_path, Range.on_line(1, 0, 2), "n"),),
    )
    wire = DiagnosticWire(converter.unstructure)
    fragments = wire.fragments("/x.abl", [first, second], positions, lambda _: positions)
    expected = lsp.PublishDiagnosticsParams(
        uri="file:///x.abl",
        diagnostics=[diagnostic(d, positions, lambda _: positions) for d in (first, second)],
        version=7,
    )
    sent = json.loads(publish_body("file:///x.abl", 7, fragments))
    assert sent == {
        "jsonrpc": "2.0",
        "method": "textDocument/publishDiagnostics",
        "params": converter.unstructure(expected),
    }
    assert publish_body("file:///x.abl", 7, fragments).isascii()  # Content-Length counts bytes


def test_the_wire_reuses_a_kept_diagnostic_only_while_its_range_reads_the_same():
    from pygls.protocol import default_converter

    from abl.lsp.wire import DiagnosticWire

    converted: list[object] = []

    def unstructure(value):
        converted.append(value)
        return default_converter().unstructure(value)

    kept = Diagnostic("E330", Severity.ERROR, "m", Range.on_line(0, 13, 14))
    wire = DiagnosticWire(unstructure)
    ascii_text = Positions('GOAL: "ab cd"  # x\n', lsp.PositionEncodingKind.Utf16)
    wire.fragments("/x.abl", [kept], ascii_text, lambda _: ascii_text)
    again = wire.fragments("/x.abl", [kept], ascii_text, lambda _: ascii_text)
    assert len(converted) == 1
    # An emoji typed before the range moves it in UTF-16 units: the kept text is not reused, its
    # range is written anew (the rest of it, the same, is).
    emoji_text = Positions('GOAL: "😀b cd"  # x\n', lsp.PositionEncodingKind.Utf16)
    moved = wire.fragments("/x.abl", [kept], emoji_text, lambda _: emoji_text)
    assert moved != again
    assert json.loads(moved[0])["range"]["start"]["character"] == 14
    assert moved == DiagnosticWire(unstructure).fragments("/x.abl", [kept], emoji_text, lambda _: emoji_text)


@pytest.mark.parametrize("character", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_characters_splitlines_breaks_at_stay_inside_their_line(character):
    text = f'GOAL: "a{character}b"\nTO: X\n'
    positions = Positions(text, lsp.PositionEncodingKind.Utf16)
    assert positions.client_line_count == 3
    assert positions.to_client(Position(1, 4)) == lsp.Position(1, 4)
    assert positions.to_client(Position(0, 10)) == lsp.Position(0, 10)


def test_a_lone_carriage_return_is_a_line_break_to_the_client():
    """The parser reads `a\rb` as one line; the client sees two, and every position names the
    same character in both."""
    text = 'GOAL: "a\rb"\r\nTO: 😀X\n'
    positions = Positions(text, lsp.PositionEncodingKind.Utf16)
    assert (positions.index.line_count, positions.client_line_count) == (3, 4)
    b = Position(0, text.index("b"))
    assert positions.to_client(b) == lsp.Position(1, 0)
    assert positions.from_client(lsp.Position(1, 0)) == b
    x = Position(1, 5)
    assert positions.to_client(x) == lsp.Position(2, 6)
    assert positions.from_client(lsp.Position(2, 6)) == x
    assert positions.from_client(lsp.Position(0, 99)) == Position(0, text.index("\r"))
    assert positions.line_to_client(1) == 2 and positions.line_to_client(0, end=True) == 1
