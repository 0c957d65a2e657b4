"""Hover, completion and navigation: LSP requests answered from `abl.ide`.

Each handler converts the request to plain positions, asks one `ide` function and converts
the answer back; no handler knows anything about ABL beyond that.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from abl.ide import completion as ide_completion
from abl.ide import navigation
from abl.ide.edits import WorkspaceEdit
from abl.ide.hover import hover as ide_hover
from abl.lsp.convert import Positions, path_to_uri, text_edit, uri_to_path
from abl.lsp.server import AblServer, guarded
from abl.text import Position
from abl.workspace import Project

COMPLETION_TRIGGERS = [":", " ", "-", "."]

_COMPLETION_KIND = {
    ide_completion.ItemKind.SECTION: lsp.CompletionItemKind.Module,
    ide_completion.ItemKind.KEY: lsp.CompletionItemKind.Property,
    ide_completion.ItemKind.VALUE: lsp.CompletionItemKind.EnumMember,
    ide_completion.ItemKind.AGENT: lsp.CompletionItemKind.Class,
    ide_completion.ItemKind.VARIABLE: lsp.CompletionItemKind.Variable,
    ide_completion.ItemKind.HANDLER: lsp.CompletionItemKind.Function,
    ide_completion.ItemKind.TOOL: lsp.CompletionItemKind.Function,
    ide_completion.ItemKind.OPERATOR: lsp.CompletionItemKind.Operator,
    ide_completion.ItemKind.SNIPPET: lsp.CompletionItemKind.Snippet,
}


def at(ls: AblServer, doc: lsp.TextDocumentIdentifier, pos: lsp.Position) -> tuple[Project, str, Position] | None:
    """The project, path and code-point position of a request, or None for an unknown file."""
    path = uri_to_path(doc.uri)
    if path is None:
        return None
    analysis = ls.analysis()
    project = analysis.project(path)
    if project is None or path not in project.documents:
        return None
    return project, path, ls.positions(path, analysis).from_client(pos)


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


def register(server: AblServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @guarded(lambda: None)
    def hover(ls: AblServer, params: lsp.HoverParams) -> lsp.Hover | None:
        where = at(ls, params.text_document, params.position)
        if where is None:
            return None
        project, path, pos = where
        found = ide_hover(project, path, pos)
        if found is None:
            return None
        return lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=found.markdown),
            range=ls.positions(path).range_to_client(found.range),
        )

    @server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION,
        lsp.CompletionOptions(trigger_characters=COMPLETION_TRIGGERS, resolve_provider=True),
    )
    @guarded(lambda: lsp.CompletionList(is_incomplete=False, items=[]))
    def completion(ls: AblServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        where = at(ls, params.text_document, params.position)
        if where is None:
            return lsp.CompletionList(is_incomplete=False, items=[])
        project, path, pos = where
        positions = ls.positions(path)
        items = []
        for rank, item in enumerate(ide_completion.complete(project, path, pos)):
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

    @server.feature(lsp.COMPLETION_ITEM_RESOLVE)
    @guarded(lambda: None)
    def completion_resolve(ls: AblServer, item: lsp.CompletionItem) -> lsp.CompletionItem:
        data = item.data if isinstance(item.data, dict) else {}
        text = data.get("documentation")
        if isinstance(text, str) and text:
            item.documentation = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text)
        return item

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @guarded(lambda: None)
    def definition(ls: AblServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        return _locations(ls, params.text_document, params.position, navigation.definition)

    @server.feature(lsp.TEXT_DOCUMENT_DECLARATION)
    @guarded(lambda: None)
    def declaration(ls: AblServer, params: lsp.DeclarationParams) -> list[lsp.Location] | None:
        return _locations(ls, params.text_document, params.position, navigation.definition)

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    @guarded(lambda: None)
    def references(ls: AblServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
        include = params.context.include_declaration
        return _locations(
            ls, params.text_document, params.position, lambda p, f, pos: navigation.references(p, f, pos, include)
        )

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    @guarded(lambda: None)
    def highlight(ls: AblServer, params: lsp.DocumentHighlightParams) -> list[lsp.DocumentHighlight] | None:
        where = at(ls, params.text_document, params.position)
        if where is None:
            return None
        project, path, pos = where
        positions = ls.positions(path)
        return [
            lsp.DocumentHighlight(
                positions.range_to_client(h.range),
                lsp.DocumentHighlightKind.Write if h.write else lsp.DocumentHighlightKind.Read,
            )
            for h in navigation.highlights(project, path, pos)
        ]

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    @guarded(lambda: None)
    def prepare_rename(ls: AblServer, params: lsp.PrepareRenameParams) -> lsp.PrepareRenamePlaceholder | None:
        where = at(ls, params.text_document, params.position)
        if where is None:
            return None
        project, path, pos = where
        try:
            where_range, name = navigation.prepare_rename(project, path, pos)
        except navigation.RenameError as err:
            raise JsonRpcInvalidParams(str(err)) from None
        return lsp.PrepareRenamePlaceholder(range=ls.positions(path).range_to_client(where_range), placeholder=name)

    @server.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
    @guarded(lambda: None)
    def rename(ls: AblServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        where = at(ls, params.text_document, params.position)
        if where is None:
            return None
        project, path, pos = where
        try:
            folders = [f for f in (uri_to_path(w.uri) for w in ls.workspace.folders.values()) if f is not None]
            folders = folders or [project.root]  # a lone file's folder, when the editor opened no folder
            edit = navigation.rename(project, path, pos, params.new_name, folders)
        except navigation.RenameError as err:
            raise JsonRpcInvalidParams(str(err)) from None
        return workspace_edit(ls, edit)


def _locations(
    ls: AblServer,
    doc: lsp.TextDocumentIdentifier,
    pos: lsp.Position,
    find: Callable[[Project, str, Position], list[navigation.Location]],
) -> list[lsp.Location] | None:
    where = at(ls, doc, pos)
    if where is None:
        return None
    project, path, code_point = where
    found = find(project, path, code_point)
    return [lsp.Location(path_to_uri(loc.path), ls.positions(loc.path).range_to_client(loc.range)) for loc in found]
