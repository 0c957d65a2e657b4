"""Outline, workspace symbols, inlay hints, code actions, code lenses and the handoff call
hierarchy: LSP requests answered from `abl.ide`."""

from __future__ import annotations

from lsprotocol import types as lsp

from abl.ide import actions, lens, navigation
from abl.ide.inlay import inlay_hints
from abl.ide.symbols import OutlineItem, OutlineKind, document_outline, workspace_symbols
from abl.lsp.convert import path_to_uri, uri_to_path
from abl.lsp.features import at, workspace_edit
from abl.lsp.server import AblServer, guarded
from abl.model.types import AgentKind
from abl.text import Position, Range
from abl.workspace import Project

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


def register(server: AblServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded(lambda: None)
    def document_symbol(ls: AblServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol] | None:
        path = uri_to_path(params.text_document.uri)
        analysis = ls.analysis()
        doc = analysis.document(path) if path is not None else None
        if path is None or doc is None:
            return None
        positions = ls.positions(path, analysis)

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

        return [convert(item) for item in document_outline(doc)]

    @server.feature(lsp.WORKSPACE_SYMBOL)
    @guarded(lambda: None)
    def workspace_symbol(ls: AblServer, params: lsp.WorkspaceSymbolParams) -> list[lsp.WorkspaceSymbol] | None:
        analysis = ls.analysis()
        return [
            lsp.WorkspaceSymbol(
                name=s.name,
                kind=_SYMBOL_KIND[s.kind],
                location=lsp.Location(path_to_uri(s.path), ls.positions(s.path, analysis).range_to_client(s.range)),
                container_name=s.container or None,
            )
            for s in workspace_symbols(analysis.projects(), params.query)
        ]

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintOptions(resolve_provider=False))
    @guarded(lambda: None)
    def inlay_hint(ls: AblServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint] | None:
        if not ls.settings.inlay_hints:
            return []
        path = uri_to_path(params.text_document.uri)
        analysis = ls.analysis()
        doc = analysis.document(path) if path is not None else None
        if path is None or doc is None:
            return None
        positions = ls.positions(path, analysis)
        project = analysis.project(path)
        default = project.default_history if project is not None else "full"
        return [
            lsp.InlayHint(
                position=positions.to_client(h.position),
                label=h.label,
                tooltip=h.tooltip,
                padding_left=h.padding_left,
            )
            for h in inlay_hints(doc, positions.range_from_client(params.range), default)
        ]

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(
            code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.SourceFixAll, actions.FIX_ALL]
        ),
    )
    @guarded(lambda: None)
    def code_action(ls: AblServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
        path = uri_to_path(params.text_document.uri)
        analysis = ls.analysis()
        text = analysis.text(path) if path is not None else None
        if path is None or text is None:
            return None
        positions = ls.positions(path, analysis)
        diagnostics = ls.visible(analysis.diagnostics(path))
        only = params.context.only
        found: list[actions.Action] = []
        if not only or any(k.startswith(lsp.CodeActionKind.QuickFix) for k in only):
            found += actions.quick_fixes(path, diagnostics, positions.range_from_client(params.range))
        if not only or any(actions.FIX_ALL.startswith(k) for k in only):
            every = actions.fix_all(path, text, diagnostics)
            if every is not None:
                found.append(every)
        out = []
        for action in found:
            related = ls.to_lsp(analysis, path, [action.diagnostic]) if action.diagnostic is not None else None
            out.append(
                lsp.CodeAction(
                    title=action.title,
                    kind=lsp.CodeActionKind.QuickFix if action.kind == actions.QUICK_FIX else action.kind,
                    diagnostics=related,
                    is_preferred=action.preferred or None,
                    edit=workspace_edit(ls, action.edit),
                )
            )
        return out

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=False))
    @guarded(lambda: None)
    def code_lens(ls: AblServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens] | None:
        if not ls.settings.code_lens:
            return []
        path = uri_to_path(params.text_document.uri)
        analysis = ls.analysis()
        project = analysis.project(path) if path is not None else None
        if path is None or project is None:
            return None
        positions = ls.positions(path, analysis)
        uri = params.text_document.uri
        out = []
        for item in lens.code_lenses(project, path, can_run=lens.RUN_AGENT in ls.client_commands):
            arguments: list[object]
            if item.command == lens.RUN_AGENT:
                arguments = [uri, item.arguments[0]]
            else:
                start, locations, agent = item.arguments  # what `code_lenses` gives a handoffs lens
                assert isinstance(start, Position) and isinstance(locations, tuple)
                arguments = [
                    uri,
                    positions.to_client(start),
                    [lsp.Location(path_to_uri(p), ls.positions(p, analysis).range_to_client(r)) for p, r in locations],
                    agent,
                ]
            out.append(
                lsp.CodeLens(
                    range=positions.range_to_client(item.range),
                    command=lsp.Command(title=item.title, command=item.command, arguments=arguments),
                )
            )
        return out

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
    @guarded(lambda: None)
    def prepare_call_hierarchy(
        ls: AblServer, params: lsp.CallHierarchyPrepareParams
    ) -> list[lsp.CallHierarchyItem] | None:
        where = at(ls, params.text_document, params.position)
        if where is None:
            return None
        project, path, pos = where
        item = navigation.hierarchy_item(project, path, pos)
        return [_hierarchy_item(ls, item)] if item is not None else None

    @server.feature(lsp.CALL_HIERARCHY_INCOMING_CALLS)
    @guarded(lambda: None)
    def incoming(
        ls: AblServer, params: lsp.CallHierarchyIncomingCallsParams
    ) -> list[lsp.CallHierarchyIncomingCall] | None:
        project = _project_of_item(ls, params.item)
        if project is None:
            return None
        calls = navigation.incoming_calls(project, params.item.name)
        return [
            lsp.CallHierarchyIncomingCall(
                from_=_hierarchy_item(ls, call.agent),
                from_ranges=[ls.positions(call.agent.path).range_to_client(r) for r in call.from_ranges],
            )
            for call in calls
        ]

    @server.feature(lsp.CALL_HIERARCHY_OUTGOING_CALLS)
    @guarded(lambda: None)
    def outgoing(
        ls: AblServer, params: lsp.CallHierarchyOutgoingCallsParams
    ) -> list[lsp.CallHierarchyOutgoingCall] | None:
        project = _project_of_item(ls, params.item)
        if project is None:
            return None
        caller = uri_to_path(params.item.uri)
        calls = navigation.outgoing_calls(project, params.item.name)
        return [
            lsp.CallHierarchyOutgoingCall(
                to=_hierarchy_item(ls, call.agent),
                from_ranges=[ls.positions(caller or call.agent.path).range_to_client(r) for r in call.from_ranges],
            )
            for call in calls
        ]


def _hierarchy_item(ls: AblServer, item: navigation.AgentItem) -> lsp.CallHierarchyItem:
    positions = ls.positions(item.path)
    return lsp.CallHierarchyItem(
        name=item.name,
        kind=_AGENT_SYMBOL[item.kind],
        uri=path_to_uri(item.path),
        range=positions.range_to_client(item.range),
        selection_range=positions.range_to_client(item.selection),
        detail=item.kind.value.replace("_", " "),
    )


def _project_of_item(ls: AblServer, item: lsp.CallHierarchyItem) -> Project | None:
    path = uri_to_path(item.uri)
    return ls.analysis().project(path) if path is not None else None


def _contains(outer: Range, inner: Range) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


def _inside(inner: lsp.Range, outer: lsp.Range) -> bool:
    def key(p: lsp.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(outer.start) <= key(inner.start) and key(inner.end) <= key(outer.end)
