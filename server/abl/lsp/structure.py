"""Outline, workspace symbols, inlay hints, code actions, code lenses and the handoff call
hierarchy: LSP requests answered from `abl.ide`."""

from __future__ import annotations

from lsprotocol import types as lsp

from abl.ide import AgentItem, AgentKind, LensKind, OutlineItem, OutlineKind, Range
from abl.lsp.commands import DEBUG_AGENT, RUN_AGENT, SHOW_HANDOFFS_IN
from abl.lsp.convert import path_to_uri, uri_to_path
from abl.lsp.features import at, opened, workspace_edit
from abl.lsp.handlers import handler
from abl.lsp.server import AblServer

# The code action kind of "fix all safe problems in this file".
FIX_ALL = "source.fixAll.abl"

_SYMBOL_KIND = {
    OutlineKind.AGENT: lsp.SymbolKind.Class,
    OutlineKind.SUPERVISOR: lsp.SymbolKind.Interface,
    OutlineKind.PROFILE: lsp.SymbolKind.Struct,
    OutlineKind.SECTION: lsp.SymbolKind.Namespace,
    OutlineKind.ROUTE: lsp.SymbolKind.Event,
    OutlineKind.FIELD: lsp.SymbolKind.Field,
    OutlineKind.VARIABLE: lsp.SymbolKind.Variable,
    OutlineKind.HANDLER: lsp.SymbolKind.Method,
    OutlineKind.TOOL: lsp.SymbolKind.Function,
    OutlineKind.STEP: lsp.SymbolKind.EnumMember,
    OutlineKind.RULE: lsp.SymbolKind.Boolean,
}
_AGENT_SYMBOL = {
    AgentKind.AGENT: lsp.SymbolKind.Class,
    AgentKind.SUPERVISOR: lsp.SymbolKind.Interface,
    AgentKind.BEHAVIOR_PROFILE: lsp.SymbolKind.Struct,
}


@handler(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, lambda: None)
def document_symbol(ls: AblServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol] | None:
    where = opened(ls, params.text_document.uri)
    if where is None:
        return None
    analysis, path, positions = where

    def convert(item: OutlineItem) -> lsp.DocumentSymbol:
        whole = positions.range_to_client(item.range)
        selection = positions.range_to_client(item.selection)
        if not (_inside(selection, whole)):
            selection = lsp.Range(whole.start, whole.start)
        return lsp.DocumentSymbol(
            name=item.name or "?",
            kind=_SYMBOL_KIND[item.kind],
            range=whole,
            selection_range=selection,
            detail=item.detail or None,
            children=[convert(c) for c in item.children if _contains(item.range, c.range)] or None,
        )

    return [convert(item) for item in analysis.symbols(path)]


@handler(lsp.WORKSPACE_SYMBOL, lambda: None)
def workspace_symbol(ls: AblServer, params: lsp.WorkspaceSymbolParams) -> list[lsp.WorkspaceSymbol] | None:
    analysis = ls.analysis()
    return [
        lsp.WorkspaceSymbol(
            name=s.name,
            kind=_SYMBOL_KIND[s.kind],
            location=lsp.Location(path_to_uri(s.path), ls.positions(s.path, analysis).range_to_client(s.range)),
            container_name=s.container or None,
        )
        for s in analysis.workspace_symbols(params.query)
    ]


@handler(lsp.TEXT_DOCUMENT_INLAY_HINT, lambda: None, lsp.InlayHintOptions(resolve_provider=False))
def inlay_hint(ls: AblServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint] | None:
    if not ls.settings.inlay_hints:
        return []
    where = opened(ls, params.text_document.uri)
    if where is None:
        return None
    analysis, path, positions = where
    return [
        lsp.InlayHint(
            position=positions.to_client(h.position),
            label=h.label,
            tooltip=h.tooltip,
            padding_left=h.padding_left,
        )
        for h in analysis.inlay_hints(path, positions.range_from_client(params.range))
    ]


@handler(
    lsp.TEXT_DOCUMENT_CODE_ACTION,
    lambda: None,
    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.SourceFixAll, FIX_ALL]),
)
def code_action(ls: AblServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
    path = uri_to_path(params.text_document.uri)
    analysis = ls.analysis()
    if path is None or analysis.text(path) is None:
        return None
    positions = ls.positions(path, analysis)
    diagnostics = ls.visible(analysis.diagnostics(path))
    only = params.context.only
    found = analysis.code_actions(
        path,
        positions.range_from_client(params.range),
        diagnostics,
        quick_fixes=not only or any(k.startswith(lsp.CodeActionKind.QuickFix) for k in only),
        fix_all=not only or any(FIX_ALL.startswith(k) for k in only),
    )
    out = []
    for action in found:
        related = ls.to_lsp(analysis, path, [action.diagnostic]) if action.diagnostic is not None else None
        out.append(
            lsp.CodeAction(
                title=action.title,
                kind=FIX_ALL if action.fixes_all else lsp.CodeActionKind.QuickFix,
                diagnostics=related,
                is_preferred=action.preferred or None,
                edit=workspace_edit(ls, action.edit),
            )
        )
    return out


@handler(lsp.TEXT_DOCUMENT_CODE_LENS, lambda: None, lsp.CodeLensOptions(resolve_provider=False))
def code_lens(ls: AblServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens] | None:
    if not ls.settings.code_lens:
        return []
    path = uri_to_path(params.text_document.uri)
    analysis = ls.analysis()
    if path is None or analysis.project(path) is None:
        return None
    positions = ls.positions(path, analysis)
    uri = params.text_document.uri
    out = []
    runs, debugs = RUN_AGENT in ls.client_commands, DEBUG_AGENT in ls.client_commands
    for item in analysis.code_lenses(path, can_run=runs, can_debug=debugs):
        arguments: list[object]
        if item.kind is LensKind.RUN_AGENT:
            name, arguments = RUN_AGENT, [uri, item.agent]
        elif item.kind is LensKind.DEBUG_AGENT:
            name, arguments = DEBUG_AGENT, [uri, item.agent]
        else:
            uses = [lsp.Location(path_to_uri(p), ls.positions(p, analysis).range_to_client(r)) for p, r in item.uses]
            name, arguments = SHOW_HANDOFFS_IN, [uri, positions.to_client(item.name_start), uses, item.agent]
        out.append(
            lsp.CodeLens(
                range=positions.range_to_client(item.range),
                command=lsp.Command(title=item.title, command=name, arguments=arguments),
            )
        )
    return out


@handler(lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY, lambda: None)
def prepare_call_hierarchy(ls: AblServer, params: lsp.CallHierarchyPrepareParams) -> list[lsp.CallHierarchyItem] | None:
    where = at(ls, params.text_document, params.position)
    if where is None:
        return None
    analysis, path, pos = where
    item = analysis.call_hierarchy(path, pos)
    return [_hierarchy_item(ls, item)] if item is not None else None


@handler(lsp.CALL_HIERARCHY_INCOMING_CALLS, lambda: None)
def incoming(ls: AblServer, params: lsp.CallHierarchyIncomingCallsParams) -> list[lsp.CallHierarchyIncomingCall] | None:
    path = uri_to_path(params.item.uri)
    if path is None:
        return None
    calls = ls.analysis().incoming_calls(path, params.item.name)
    return [
        lsp.CallHierarchyIncomingCall(
            from_=_hierarchy_item(ls, call.agent),
            from_ranges=[ls.positions(call.path).range_to_client(r) for r in call.from_ranges],
        )
        for call in calls
    ]


@handler(lsp.CALL_HIERARCHY_OUTGOING_CALLS, lambda: None)
def outgoing(ls: AblServer, params: lsp.CallHierarchyOutgoingCallsParams) -> list[lsp.CallHierarchyOutgoingCall] | None:
    caller = uri_to_path(params.item.uri)
    if caller is None:
        return None
    calls = ls.analysis().outgoing_calls(caller, params.item.name)
    return [
        lsp.CallHierarchyOutgoingCall(
            to=_hierarchy_item(ls, call.agent),
            from_ranges=[ls.positions(call.path).range_to_client(r) for r in call.from_ranges],
        )
        for call in calls
    ]


def _hierarchy_item(ls: AblServer, item: AgentItem) -> lsp.CallHierarchyItem:
    positions = ls.positions(item.path)
    return lsp.CallHierarchyItem(
        name=item.name,
        kind=_AGENT_SYMBOL[item.kind],
        uri=path_to_uri(item.path),
        range=positions.range_to_client(item.range),
        selection_range=positions.range_to_client(item.selection),
        detail=item.kind.value.replace("_", " "),
    )


def _contains(outer: Range, inner: Range) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


def _inside(inner: lsp.Range, outer: lsp.Range) -> bool:
    def key(p: lsp.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(outer.start) <= key(inner.start) and key(inner.end) <= key(outer.end)
