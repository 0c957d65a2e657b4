"""Hover, completion and navigation: LSP requests answered from the analysis's features.

Each handler converts the request to plain positions, asks one `Analysis` method and converts
the answer back; no handler knows anything about ABL beyond that.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from abl.ide import Analysis, ItemKind, Location, Position, RenameError, WorkspaceEdit
from abl.lsp.convert import Positions, path_to_uri, text_edit, uri_to_path
from abl.lsp.handlers import handler
from abl.lsp.server import AblServer

COMPLETION_TRIGGERS = [":", " ", "-", "."]

_COMPLETION_KIND = {
    ItemKind.SECTION: lsp.CompletionItemKind.Module,
    ItemKind.KEY: lsp.CompletionItemKind.Property,
    ItemKind.VALUE: lsp.CompletionItemKind.EnumMember,
    ItemKind.AGENT: lsp.CompletionItemKind.Class,
    ItemKind.VARIABLE: lsp.CompletionItemKind.Variable,
    ItemKind.HANDLER: lsp.CompletionItemKind.Function,
    ItemKind.TOOL: lsp.CompletionItemKind.Function,
    ItemKind.OPERATOR: lsp.CompletionItemKind.Operator,
    ItemKind.SNIPPET: lsp.CompletionItemKind.Snippet,
}


def opened(ls: AblServer, uri: str) -> tuple[Analysis, str, Positions] | None:
    """The analysis, path and position converter of a request's document, or None for a file
    the analysis does not hold (another scheme, an unknown file)."""
    path = uri_to_path(uri)
    if path is None:
        return None
    analysis = ls.analysis()
    if analysis.document(path) is None:
        return None
    return analysis, path, ls.positions(path, analysis)


def at(ls: AblServer, doc: lsp.TextDocumentIdentifier, pos: lsp.Position) -> tuple[Analysis, str, Position] | None:
    """The analysis, path and code-point position of a request, or None for an unknown file."""
    found = opened(ls, doc.uri)
    if found is None:
        return None
    analysis, path, positions = found
    return analysis, path, positions.from_client(pos)


def workspace_edit(ls: AblServer, edit: WorkspaceEdit) -> lsp.WorkspaceEdit:
    analysis = ls.analysis()
    changes = {}
    for path in edit.paths:
        # A file outside the analysis (a conversation test) is converted from its text on disk.
        positions = ls.positions(path, analysis) if analysis.text(path) is not None else _on_disk(ls, path)
        changes[path_to_uri(path)] = [text_edit(e, positions) for e in edit.changes[path]]
    return lsp.WorkspaceEdit(changes=changes)


def _on_disk(ls: AblServer, path: str) -> Positions:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    return Positions(text, ls.workspace.position_encoding or lsp.PositionEncodingKind.Utf16)


@handler(lsp.TEXT_DOCUMENT_HOVER, lambda: None)
def hover(ls: AblServer, params: lsp.HoverParams) -> lsp.Hover | None:
    where = at(ls, params.text_document, params.position)
    if where is None:
        return None
    analysis, path, pos = where
    found = analysis.hover(path, pos)
    if found is None:
        return None
    return lsp.Hover(
        contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=found.markdown),
        range=ls.positions(path).range_to_client(found.range),
    )


@handler(
    lsp.TEXT_DOCUMENT_COMPLETION,
    lambda: lsp.CompletionList(is_incomplete=False, items=[]),
    lsp.CompletionOptions(trigger_characters=COMPLETION_TRIGGERS, resolve_provider=True),
)
def completion(ls: AblServer, params: lsp.CompletionParams) -> lsp.CompletionList:
    where = at(ls, params.text_document, params.position)
    if where is None:
        return lsp.CompletionList(is_incomplete=False, items=[])
    analysis, path, pos = where
    positions = ls.positions(path)
    items = []
    for rank, item in enumerate(analysis.completion(path, pos)):
        snippet = item.snippet is not None and ls.snippets
        text = item.snippet if snippet and item.snippet is not None else item.insert_text
        edit = lsp.TextEdit(positions.range_to_client(item.replace), text) if item.replace is not None else None
        items.append(
            lsp.CompletionItem(
                label=item.label,
                kind=_COMPLETION_KIND[item.kind],
                detail=item.detail or None,
                sort_text=f"{item.sort_group}{rank:04d}",
                filter_text=item.label if edit is None else None,
                text_edit=edit,
                insert_text=None if edit is not None else text,
                insert_text_format=lsp.InsertTextFormat.Snippet if snippet else lsp.InsertTextFormat.PlainText,
                insert_text_mode=lsp.InsertTextMode.AdjustIndentation if "\n" in text else None,
                tags=[lsp.CompletionItemTag.Deprecated] if item.deprecated else None,
                data={"documentation": item.documentation} if item.documentation else None,
            )
        )
    return lsp.CompletionList(is_incomplete=False, items=items)


@handler(lsp.COMPLETION_ITEM_RESOLVE, lambda: None)
def completion_resolve(ls: AblServer, item: lsp.CompletionItem) -> lsp.CompletionItem:
    data = item.data if isinstance(item.data, dict) else {}
    text = data.get("documentation")
    if isinstance(text, str) and text:
        item.documentation = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text)
    return item


@handler(lsp.TEXT_DOCUMENT_DEFINITION, lambda: None)
def definition(ls: AblServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
    return _locations(ls, params.text_document, params.position, Analysis.definition)


@handler(lsp.TEXT_DOCUMENT_DECLARATION, lambda: None)
def declaration(ls: AblServer, params: lsp.DeclarationParams) -> list[lsp.Location] | None:
    return _locations(ls, params.text_document, params.position, Analysis.definition)


@handler(lsp.TEXT_DOCUMENT_REFERENCES, lambda: None)
def references(ls: AblServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
    include = params.context.include_declaration
    return _locations(ls, params.text_document, params.position, lambda a, f, pos: a.references(f, pos, include))


@handler(lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT, lambda: None)
def highlight(ls: AblServer, params: lsp.DocumentHighlightParams) -> list[lsp.DocumentHighlight] | None:
    where = at(ls, params.text_document, params.position)
    if where is None:
        return None
    analysis, path, pos = where
    positions = ls.positions(path)
    return [
        lsp.DocumentHighlight(
            positions.range_to_client(h.range),
            lsp.DocumentHighlightKind.Write if h.write else lsp.DocumentHighlightKind.Read,
        )
        for h in analysis.highlights(path, pos)
    ]


@handler(lsp.TEXT_DOCUMENT_PREPARE_RENAME, lambda: None)
def prepare_rename(ls: AblServer, params: lsp.PrepareRenameParams) -> lsp.PrepareRenamePlaceholder | None:
    where = at(ls, params.text_document, params.position)
    if where is None:
        return None
    analysis, path, pos = where
    try:
        found = analysis.prepare_rename(path, pos)
    except RenameError as err:
        raise JsonRpcInvalidParams(str(err)) from None
    if found is None:
        return None
    where_range, name = found
    return lsp.PrepareRenamePlaceholder(range=ls.positions(path).range_to_client(where_range), placeholder=name)


@handler(lsp.TEXT_DOCUMENT_RENAME, lambda: None, lsp.RenameOptions(prepare_provider=True))
def rename(ls: AblServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
    where = at(ls, params.text_document, params.position)
    if where is None:
        return None
    analysis, path, pos = where
    try:
        # With no folder open, the analysis searches the project's own folder.
        folders = [f for f in (uri_to_path(w.uri) for w in ls.workspace.folders.values()) if f is not None]
        edit = analysis.rename(path, pos, params.new_name, folders)
    except RenameError as err:
        raise JsonRpcInvalidParams(str(err)) from None
    return workspace_edit(ls, edit) if edit is not None else None


def _locations(
    ls: AblServer,
    doc: lsp.TextDocumentIdentifier,
    pos: lsp.Position,
    find: Callable[[Analysis, str, Position], list[Location]],
) -> list[lsp.Location] | None:
    where = at(ls, doc, pos)
    if where is None:
        return None
    analysis, path, code_point = where
    found = find(analysis, path, code_point)
    return [lsp.Location(path_to_uri(loc.path), ls.positions(loc.path).range_to_client(loc.range)) for loc in found]
