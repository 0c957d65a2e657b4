"""Open documents kept in the protocol's lines, with incremental changes applied in time
independent of the file's length.

pygls's `TextDocument` counts lines with `str.splitlines`, which also breaks at VT, FF, FS, GS,
RS, U+0085, U+2028 and U+2029: after one of those is typed, every change below it lands on the
wrong line, and the server's copy drifts from the editor's. It also applies a change by walking
every line of the document in Python. Here a change is spliced into the text at the offsets of
its range, found from the text's `ProtocolLines` (line starts counted once, then moved by each
change), and the range's characters are converted by pygls's position codec on the lines the
range touches.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types as lsp
from pygls.workspace import TextDocument, Workspace

from abl.ide import Position, ProtocolLines


class SplicedTextDocument(TextDocument):
    _lines_model: ProtocolLines | None = None

    def _apply_incremental_change(self, change: lsp.TextDocumentContentChangePartial) -> None:
        model = self.protocol_lines()
        text = model.text
        start = self._offset(change.range.start)
        end = max(start, self._offset(change.range.end))
        self._source = text[:start] + change.text + text[end:]
        self._lines_model = model.spliced(start, end, change.text, self._source)

    def protocol_lines(self) -> ProtocolLines:
        text = self.source
        if self._lines_model is None or self._lines_model.text is not text:
            self._lines_model = ProtocolLines(text)
        return self._lines_model

    @property
    def lines(self) -> Sequence[str]:
        """The lines with their breaks, as the protocol counts them (for pygls's own helpers)."""
        model = self.protocol_lines()
        text = model.text
        starts = [model.line_start(i) for i in range(model.line_count)]
        return tuple(text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True) if a < b)

    def _offset(self, position: lsp.Position) -> int:
        model = self.protocol_lines()
        if position.line >= model.line_count:
            return len(model.text)  # past the end: where the client appends
        content = model.line_text(position.line)
        # A column at or past the end of the line means the end of the line (LSP), never the
        # next line (pygls's codec clamps such a column to the last character instead).
        if position.character >= self._position_codec.client_num_units(content):
            character = len(content)
        else:
            client = lsp.Position(0, position.character)
            character = self._position_codec.position_from_client_units([content], client).character
        return model.offset(Position(position.line, character))


class SplicingWorkspace(Workspace):
    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return SplicedTextDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )


def splice_changes(workspace: Workspace) -> None:
    """Make `workspace` open its documents as `SplicedTextDocument`s. pygls builds its workspace
    inside `initialize` and offers no factory for documents, so the class is switched there."""
    workspace.__class__ = SplicingWorkspace
