"""Published diagnostics reuse their JSON text across edits: what goes on the wire must equal
a fresh serialisation, in every position encoding, whatever the edit did to the lines."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp
from lsprotocol.converters import get_converter

from abl.diagnostics import Diagnostic, Fix, Severity, TextEdit
from abl.lsp.convert import Positions
from abl.lsp.wire import DiagnosticWire
from abl.text import Position, Range

PATH = "/project/agents.abl"
LINES = [
    "AGENT: Intake",
    'GOAL: "greet 😀 and ask"',
    "PERSONA: |",
    "  收入 and income",
    "HANDOFF:",
    "  - TO: Billing  # 路由",
    "    HISTORY: none",
    "",
]
ENCODINGS = [lsp.PositionEncodingKind.Utf16, lsp.PositionEncodingKind.Utf8, lsp.PositionEncodingKind.Utf32]
PIECES = st.sampled_from(["x", "😀", "收", "\n", "\r\n", "  ", '"', "TO: X\n", ""])


def _diagnostics(lines: list[str]) -> list[Diagnostic]:
    """One diagnostic over the second half of each non-empty line."""
    return [
        Diagnostic("UNKNOWN_KEY", Severity.WARNING, f"line {row}", Range.on_line(row, len(line) // 2, len(line)))
        for row, line in enumerate(lines)
        if line
    ]


def _edited(text: str, at: int, cut: int, piece: str) -> str:
    at = min(at, len(text))
    return text[:at] + piece + text[at + cut :]


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(ENCODINGS),
    st.lists(st.tuples(st.integers(0, 200), st.integers(0, 3), PIECES, st.booleans()), min_size=1, max_size=8),
)
# Lines removed under a diagnostic kept from before: its rows are past the new end.
@example(lsp.PositionEncodingKind.Utf16, [(9, 3, "\n", True), (109, 3, "x", False), (9, 3, "x", False)])
# A kept finding past the end of its (now empty) line, above a `\r` that comes apart from its
# `\n`: read through the client's other lines or not, it ends at the line's end (UTF-32 too).
@example(lsp.PositionEncodingKind.Utf32, [(3, 0, "\r\n", False), (0, 0, "\n", False), (5, 0, "x", False)])
# A character typed between `\r` and `\n`: the client's lines below move, the analysis's do not.
@example(lsp.PositionEncodingKind.Utf16, [(0, 0, "\r\n", False), (1, 0, "x", False)])
def test_reused_fragments_equal_a_fresh_serialisation(encoding, edits):
    unstructure = get_converter().unstructure
    wire = DiagnosticWire(unstructure)
    text = "\n".join(LINES)
    diags = _diagnostics(text.split("\n"))
    wire.fragments(PATH, diags, Positions(text, encoding), lambda _: Positions(text, encoding))
    for at, cut, piece, recompute in edits:
        text = _edited(text, at, cut, piece)
        # The analysis keeps an untouched finding as the same object; a re-read one is new. Here
        # the same objects are kept even on edited lines: the wire must not trust them there.
        if recompute:
            diags = _diagnostics(text.split("\n"))
        here = Positions(text, encoding)
        got = wire.fragments(PATH, diags, here, lambda _, here=here: here)
        fresh = DiagnosticWire(unstructure).fragments(PATH, diags, here, lambda _, here=here: here)
        assert got == fresh


def test_a_diagnostic_on_an_edited_line_is_measured_again():
    unstructure = get_converter().unstructure
    wire = DiagnosticWire(unstructure)
    before = 'GOAL: "abc"\nTO: X\n'
    kept = Diagnostic("UNKNOWN_KEY", Severity.WARNING, "m", Range(Position(0, 7), Position(0, 10)))
    utf16 = lsp.PositionEncodingKind.Utf16
    wire.fragments(PATH, [kept], Positions(before, utf16), lambda _: Positions(before, utf16))
    after = 'GOAL: "😀bc"\nTO: X\n'  # one code point, two UTF-16 units
    here = Positions(after, utf16)
    (fragment,) = wire.fragments(PATH, [kept], here, lambda _, here=here: here)
    assert '"character": 11' in fragment  # the end moved one unit to the right


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(ENCODINGS), st.lists(st.tuples(st.integers(0, 7), PIECES), min_size=1, max_size=6))
def test_findings_made_again_on_moved_rows_equal_a_fresh_serialisation(encoding, edits):
    """A line added above findings makes each one anew, the same but for its rows: the text
    written for it then reuses what follows the range of the one it replaces."""
    unstructure = get_converter().unstructure
    wire = DiagnosticWire(unstructure)
    lines = list(LINES)

    def findings() -> list[Diagnostic]:
        # The same codes and messages wherever the lines are; every other one offers a fix.
        return [
            Diagnostic(
                "E330" if i % 2 else "UNKNOWN_KEY",
                Severity.ERROR if i % 3 == 0 else Severity.WARNING,
                f"about `{line.strip()}`",
                Range.on_line(row, len(line) // 2, len(line)),
                (Fix("fix it", (TextEdit(Range.on_line(row, 0, 0), "x"),), True),) if i % 2 else (),
            )
            for i, (row, line) in enumerate((r, text) for r, text in enumerate(lines) if text.strip())
        ]

    text = "\n".join(lines)
    wire.fragments(PATH, findings(), Positions(text, encoding), lambda _: Positions(text, encoding))
    for row, piece in edits:
        lines.insert(min(row, len(lines)), piece.replace("\n", "").replace("\r", ""))
        text = "\n".join(lines)
        here = Positions(text, encoding)
        diags = findings()
        got = wire.fragments(PATH, diags, here, lambda _, here=here: here)
        assert got == DiagnosticWire(unstructure).fragments(PATH, diags, here, lambda _, here=here: here)
