"""Pull diagnostics (`textDocument/diagnostic`, `workspace/diagnostic`), for clients that ask.

Result ids name the analysis a report came from, so an unchanged file costs the client nothing.
Only a client that can also be told to pull again (`workspace/diagnostic/refresh`) pulls: any
other gets the same diagnostics pushed (`AblServer.publish`), and never both.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types as lsp

from abl.ide import Analysis
from abl.lsp.convert import path_to_uri, uri_to_path
from abl.lsp.server import AblServer, guarded

IDENTIFIER = "abl"
# The result id of the empty report of a file that is gone.
_GONE = "gone"


def _result_id(ls: AblServer, path: str) -> str:
    analysis = ls.analysis()
    visible = tuple(ls.visible(analysis.diagnostics(path)))
    return f"{analysis.version(path)}:{hash(visible) & 0xFFFFFFFF:x}"


def register_pull(server: AblServer) -> None:
    options = lsp.DiagnosticOptions(identifier=IDENTIFIER, inter_file_dependencies=True, workspace_diagnostics=True)

    @server.feature(lsp.TEXT_DOCUMENT_DIAGNOSTIC, options)
    @guarded(lambda: lsp.RelatedFullDocumentDiagnosticReport(items=[]))
    def document_diagnostic(
        ls: AblServer, params: lsp.DocumentDiagnosticParams
    ) -> lsp.RelatedFullDocumentDiagnosticReport | lsp.RelatedUnchangedDocumentDiagnosticReport:
        path = uri_to_path(params.text_document.uri)
        analysis = ls.analysis()
        if path is None or analysis.document(path) is None:
            return lsp.RelatedFullDocumentDiagnosticReport(items=[])
        result_id = _result_id(ls, path)
        if params.previous_result_id == result_id:
            return lsp.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        items = ls.to_lsp(analysis, path, ls.visible(analysis.diagnostics(path)))
        return lsp.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)

    @server.feature(lsp.WORKSPACE_DIAGNOSTIC)
    @guarded(lambda: lsp.WorkspaceDiagnosticReport(items=[]))
    def workspace_diagnostic(ls: AblServer, params: lsp.WorkspaceDiagnosticParams) -> lsp.WorkspaceDiagnosticReport:
        analysis = ls.analysis()
        previous = {p.uri: p.value for p in params.previous_result_ids}
        reports: list[lsp.WorkspaceDocumentDiagnosticReport] = []
        for path in analysis.paths():
            uri = path_to_uri(path)
            result_id = _result_id(ls, path)
            version = analysis.version(path)
            if previous.get(uri) == result_id:
                reports.append(
                    lsp.WorkspaceUnchangedDocumentDiagnosticReport(uri=uri, version=version, result_id=result_id)
                )
                continue
            items = ls.to_lsp(analysis, path, ls.visible(analysis.diagnostics(path)))
            reports.append(
                lsp.WorkspaceFullDocumentDiagnosticReport(uri=uri, version=version, items=items, result_id=result_id)
            )
        reports.extend(_cleared(analysis, params.previous_result_ids))
        return lsp.WorkspaceDiagnosticReport(items=reports)


def _cleared(
    analysis: Analysis, previous: Sequence[lsp.PreviousResultId]
) -> list[lsp.WorkspaceFullDocumentDiagnosticReport]:
    """Empty reports for files the client holds a report of and the workspace no longer has
    (deleted on disk, or their folder removed): a file left out of the report keeps what it
    showed. Each is cleared once; after that the client's previous id says so."""
    return [
        lsp.WorkspaceFullDocumentDiagnosticReport(uri=p.uri, version=None, items=[], result_id=_GONE)
        for p in previous
        if p.value != _GONE and (path := uri_to_path(p.uri)) is not None and analysis.text(path) is None
    ]
