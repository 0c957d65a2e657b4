"""Semantic tokens (full, delta and range), folding ranges, selection ranges, document links and
formatting: LSP requests answered from `abl.ide`."""

from __future__ import annotations

import itertools
from weakref import WeakKeyDictionary

from lsprotocol import types as lsp

from abl.ide import COMMENT, IMPORTS, TOKEN_MODIFIERS, TOKEN_TYPES, FormatOptions, SemanticTokens, Token
from abl.lsp.convert import Positions, path_to_uri, text_edit, uri_to_path
from abl.lsp.features import opened
from abl.lsp.handlers import handler
from abl.lsp.server import AblServer
from abl.lsp.token_encoding import delta, encode

LEGEND = lsp.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=list(TOKEN_MODIFIERS))
_FOLD_KIND = {COMMENT: lsp.FoldingRangeKind.Comment, IMPORTS: lsp.FoldingRangeKind.Imports}


class TokenHistory:
    """The last tokens sent for each file, so a delta request can send only what changed."""

    def __init__(self) -> None:
        self._sent: dict[str, tuple[str, list[int]]] = {}
        self._ids = itertools.count(1)

    def remember(self, uri: str, data: list[int]) -> str:
        result_id = str(next(self._ids))
        self._sent[uri] = (result_id, data)
        return result_id

    def previous(self, uri: str, result_id: str) -> list[int] | None:
        sent = self._sent.get(uri)
        return sent[1] if sent is not None and sent[0] == result_id else None


# The tokens last sent to each server's client (a server's state, not a closure's).
_HISTORIES: WeakKeyDictionary[AblServer, TokenHistory] = WeakKeyDictionary()


def _history(ls: AblServer) -> TokenHistory:
    found = _HISTORIES.get(ls)
    if found is None:
        found = _HISTORIES[ls] = TokenHistory()
    return found


def client_tokens(found: SemanticTokens, positions: Positions) -> list[int]:
    """Encode tokens with starts and lengths in the client's position units."""
    converted = []
    for t in found:
        start, end = positions.to_client(t.range.start), positions.to_client(t.range.end)
        if start.line != end.line:
            continue  # split by a lone `\r`, a line break to the client: a token holds one line
        converted.append(
            Token(start.line, start.character, end.character - start.character, t.type_index, t.modifier_bits)
        )
    return encode(converted)


def _current(ls: AblServer, uri: str, within: lsp.Range | None = None) -> list[int] | None:
    path = uri_to_path(uri)
    analysis = ls.analysis()
    if path is None or analysis.project(path) is None:
        return None
    positions = ls.positions(path, analysis)
    scope = positions.range_from_client(within) if within is not None else None
    return client_tokens(analysis.semantic_tokens(path, scope), positions)


@handler(
    lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
    lambda: None,
    lsp.SemanticTokensRegistrationOptions(
        legend=LEGEND, full=lsp.SemanticTokensFullDelta(delta=True), range=True, document_selector=None
    ),
)
def semantic_tokens_full(ls: AblServer, params: lsp.SemanticTokensParams) -> lsp.SemanticTokens | None:
    data = _current(ls, params.text_document.uri)
    if data is None:
        return None
    return lsp.SemanticTokens(data=data, result_id=_history(ls).remember(params.text_document.uri, data))


@handler(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL_DELTA, lambda: None)
def semantic_tokens_delta(
    ls: AblServer, params: lsp.SemanticTokensDeltaParams
) -> lsp.SemanticTokens | lsp.SemanticTokensDelta | None:
    uri = params.text_document.uri
    data = _current(ls, uri)
    if data is None:
        return None
    previous = _history(ls).previous(uri, params.previous_result_id)
    result_id = _history(ls).remember(uri, data)
    if previous is None:
        return lsp.SemanticTokens(data=data, result_id=result_id)
    edits = [lsp.SemanticTokensEdit(start, count, list(new)) for start, count, new in delta(previous, data)]
    return lsp.SemanticTokensDelta(edits=edits, result_id=result_id)


@handler(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, lambda: None)
def semantic_tokens_range(ls: AblServer, params: lsp.SemanticTokensRangeParams) -> lsp.SemanticTokens | None:
    data = _current(ls, params.text_document.uri, params.range)
    return lsp.SemanticTokens(data=data) if data is not None else None


@handler(lsp.TEXT_DOCUMENT_FOLDING_RANGE, lambda: None)
def folding_range(ls: AblServer, params: lsp.FoldingRangeParams) -> list[lsp.FoldingRange] | None:
    where = opened(ls, params.text_document.uri)
    if where is None:
        return None
    analysis, path, positions = where
    return [
        lsp.FoldingRange(
            start_line=positions.line_to_client(f.start_line),
            end_line=positions.line_to_client(f.end_line, end=True),
            kind=_FOLD_KIND.get(f.kind, lsp.FoldingRangeKind.Region),
        )
        for f in analysis.folding(path)
    ]


@handler(lsp.TEXT_DOCUMENT_SELECTION_RANGE, lambda: None)
def selection_range(ls: AblServer, params: lsp.SelectionRangeParams) -> list[lsp.SelectionRange] | None:
    where = opened(ls, params.text_document.uri)
    if where is None:
        return None
    analysis, path, positions = where
    found = analysis.selection_ranges(path, [positions.from_client(p) for p in params.positions])
    out = []
    for chain in found:
        converted: lsp.SelectionRange | None = None
        for r in reversed(chain.chain()):
            converted = lsp.SelectionRange(range=positions.range_to_client(r), parent=converted)
        assert converted is not None
        out.append(converted)
    return out


@handler(lsp.TEXT_DOCUMENT_DOCUMENT_LINK, lambda: None, lsp.DocumentLinkOptions(resolve_provider=False))
def document_link(ls: AblServer, params: lsp.DocumentLinkParams) -> list[lsp.DocumentLink] | None:
    path = uri_to_path(params.text_document.uri)
    analysis = ls.analysis()
    if path is None or analysis.project(path) is None:
        return None
    positions = ls.positions(path, analysis)
    return [
        lsp.DocumentLink(range=positions.range_to_client(link.range), target=path_to_uri(link.target_path))
        for link in analysis.document_links(path)
    ]


@handler(lsp.TEXT_DOCUMENT_FORMATTING, lambda: None)
def formatting(ls: AblServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
    return _format(ls, params.text_document.uri, params.options, None)


@handler(lsp.TEXT_DOCUMENT_RANGE_FORMATTING, lambda: None)
def range_formatting(ls: AblServer, params: lsp.DocumentRangeFormattingParams) -> list[lsp.TextEdit] | None:
    return _format(ls, params.text_document.uri, params.options, params.range)


def _format(
    ls: AblServer, uri: str, options: lsp.FormattingOptions, within: lsp.Range | None
) -> list[lsp.TextEdit] | None:
    path = uri_to_path(uri)
    analysis = ls.analysis()
    if path is None or analysis.text(path) is None:
        return None
    positions = ls.positions(path, analysis)
    lines = positions.range_from_client(within) if within is not None else None
    indent = options.tab_size if options.insert_spaces and 1 <= options.tab_size <= 8 else 2
    edits = analysis.formatting(path, lines, FormatOptions(indent=indent))
    return [text_edit(e, positions) for e in edits]
