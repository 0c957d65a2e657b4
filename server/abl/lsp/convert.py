"""Conversions between the analysis's plain data and LSP types.

Below this layer characters count code points; the client counts in the position encoding
negotiated at `initialize` (UTF-16 unless it offers another). `Positions` converts one file's
positions both ways, line by line, and is the only place that knows about encodings.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from abl.ide import BY_CODE, Diagnostic, LineIndex, Position, Range, Severity, TextEdit, docs_uri


def uri_to_path(uri: str) -> str | None:
    """The file path of a `file:` URI (None for any other scheme)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if parsed.netloc and parsed.netloc != "localhost":
        path = f"//{parsed.netloc}{path}"
    return str(Path(path))


def path_to_uri(path: str) -> str:
    return Path(path).absolute().as_uri()


class Positions:
    """Converts positions of one text between the analysis's (the parser's lines, code points)
    and the client's (the protocol's lines, the negotiated encoding). The two line models are
    the same unless the text holds a lone `\\r` (see `LineIndex`); then a position goes through
    its offset in the text."""

    __slots__ = ("_encoding", "_index", "_protocol")

    def __init__(self, text: str | LineIndex, encoding: str) -> None:
        self._index = text if isinstance(text, LineIndex) else LineIndex(text)
        self._protocol = self._index.protocol_lines()
        # The enum's value, not `str()` of it: that gives the member's name for an lsprotocol enum.
        self._encoding = str(getattr(encoding, "value", encoding))

    @property
    def index(self) -> LineIndex:
        return self._index

    @property
    def is_plain(self) -> bool:
        """Whether a position reads the same to the client: the text is ASCII (one unit per
        character in every encoding) and the client's lines are the analysis's."""
        return self._protocol is None and self._index.text.isascii()

    @property
    def client_line_count(self) -> int:
        lines = self._protocol or self._index
        return lines.line_count

    def _units(self, text: str) -> int:
        if self._encoding == lsp.PositionEncodingKind.Utf32:
            return len(text)
        if self._encoding == lsp.PositionEncodingKind.Utf8:
            return len(text.encode("utf-8", errors="surrogatepass"))
        return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)

    def _client_place(self, pos: Position) -> Position:
        """The protocol line and code point of an analysis position."""
        if self._protocol is None:
            return pos
        return self._protocol.position(self._index.offset(pos))

    def to_client(self, pos: Position) -> lsp.Position:
        return lsp.Position(*self.client_place(pos))

    def client_place(self, pos: Position) -> tuple[int, int]:
        """The client's line and character (in its units) of an analysis position."""
        place = self._client_place(pos)
        return place.line, self._characters_to_units(place.line, place.character)

    def line_to_client(self, line: int, *, end: bool = False) -> int:
        """The client's line number of the start (or the `end`) of an analysis line."""
        if self._protocol is None:
            return line
        return self._client_place(Position(line, len(self._index.line_text(line)) if end else 0)).line

    def from_client(self, pos: lsp.Position) -> Position:
        """A client position in analysis terms; out-of-range lines and characters are clamped,
        negative ones read as 0."""
        lines = self._protocol or self._index
        line_no = max(0, min(pos.line, lines.line_count - 1))
        character = max(0, pos.character)
        if pos.line > line_no:
            place = Position(line_no, len(lines.line_text(line_no)))
        else:
            place = Position(line_no, self._units_to_characters(lines.line_text(line_no), character))
        if self._protocol is None:
            return place
        return self._index.position(self._protocol.offset(place))

    def _units_to_characters(self, line: str, units: int) -> int:
        if self._encoding == lsp.PositionEncodingKind.Utf32:
            return min(units, len(line))
        counted = 0
        for i, ch in enumerate(line):
            if counted >= units:
                return i
            counted += self._units(ch)
        return len(line)

    def character_to_client(self, line: int, character: int) -> int:
        if self._protocol is not None:
            return self.to_client(Position(line, character)).character
        return self._characters_to_units(line, character)

    def _characters_to_units(self, line: int, character: int) -> int:
        """Code points into a client line, in the client's units (a place past its end is its
        end, in every encoding)."""
        lines = self._protocol or self._index
        # `isascii` is O(1) in CPython: an ASCII text (the usual one) has one unit per
        # character in every encoding, and its line need not be copied out to be measured.
        if self._encoding == lsp.PositionEncodingKind.Utf32 or lines.text.isascii():
            return min(character, lines.line_length(line))
        text = lines.line_text(line)
        if text.isascii():
            return min(character, len(text))
        return self._units(text[:character])

    def range_to_client(self, r: Range) -> lsp.Range:
        return lsp.Range(self.to_client(r.start), self.to_client(r.end))

    def range_from_client(self, r: lsp.Range) -> Range:
        return Range(self.from_client(r.start), self.from_client(r.end))


_SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.HINT: lsp.DiagnosticSeverity.Hint,
}
# Codes whose text has no effect at runtime: editors fade it (`Unnecessary`).
_UNNECESSARY = frozenset({"ROUTING_NOT_EXECUTED", "UNREACHABLE_ROUTE", "CONTEXT_KEY_IGNORED"})
# Codes about spellings the platform still reads but is moving away from.
_DEPRECATED = frozenset(
    {
        "LEGACY_HANDOFF_GRANT_MEMORY_SHORTHAND",
        "LEGACY_HANDOFF_ON_RETURN_SHORTHAND",
        "LEGACY_TOP_LEVEL_MAP",
        "REMOVED_KEYWORD",
    }
)


# `Positions` for any file, by path: where one file's result points into another.
PositionsFor = Callable[[str], Positions]


def diagnostic(d: Diagnostic, positions: Positions, other: PositionsFor) -> lsp.Diagnostic:
    code = BY_CODE.get(d.code)
    tags = []
    if d.code in _UNNECESSARY:
        tags.append(lsp.DiagnosticTag.Unnecessary)
    if d.code in _DEPRECATED:
        tags.append(lsp.DiagnosticTag.Deprecated)
    link = docs_uri(f"diagnostics/{d.code}.md")
    related = [
        lsp.DiagnosticRelatedInformation(lsp.Location(path_to_uri(path), other(path).range_to_client(where)), note)
        for path, where, note in d.related
    ]
    return lsp.Diagnostic(
        range=positions.range_to_client(d.range),
        message=d.message,
        severity=_SEVERITY[d.severity],
        code=d.code,
        code_description=lsp.CodeDescription(href=link) if link else None,
        source="abl",
        tags=tags or None,
        related_information=related or None,
        data={"fixes": len(d.fixes), "title": code.title if code else ""},
    )


def text_edit(edit: TextEdit, positions: Positions) -> lsp.TextEdit:
    return lsp.TextEdit(positions.range_to_client(edit.range), edit.new_text)
