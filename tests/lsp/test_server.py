"""The language server end to end, over real stdio, with VS Code's and Neovim's recorded
client capabilities: diagnostics across files, hover, completion, quick fixes, rename."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import (
    CHILD,
    SUPERVISOR,
    apply_text_edits,
    change_document,
    codes,
    open_document,
    wait_for_diagnostics,
    write_workspace,
)

pytestmark = pytest.mark.asyncio


def supervisor_uri(client: LanguageClient) -> str:
    return (client.root / "supervisor.abl").as_uri()  # type: ignore[attr-defined]


async def test_indexing_reports_cross_file_problems_in_unopened_files(client: LanguageClient):
    diags = await wait_for_diagnostics(client, supervisor_uri(client), lambda d: "E330" in codes(d))
    assert {"E330", "UNKNOWN_HANDOFF_RETURN_FIELD"} <= codes(diags)
    unknown = next(d for d in diags if d.code == "UNKNOWN_HANDOFF_RETURN_FIELD")
    assert unknown.source == "abl"
    assert unknown.code_description is not None and unknown.code_description.href.endswith(
        "UNKNOWN_HANDOFF_RETURN_FIELD.md"
    )
    assert unknown.related_information, "the target agent is named as related information"
    assert unknown.related_information[0].location.uri.endswith("income.abl")


async def test_fixing_the_other_file_on_disk_clears_the_diagnostic(client: LanguageClient):
    uri = supervisor_uri(client)
    await wait_for_diagnostics(client, uri, lambda d: "UNKNOWN_HANDOFF_RETURN_FIELD" in codes(d))
    child = client.root / "income.abl"  # type: ignore[attr-defined]
    child.write_text(CHILD.replace("annual_income:\n    type", "salary:\n    type"))
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams([lsp.FileEvent(child.as_uri(), lsp.FileChangeType.Changed)])
    )
    diags = await wait_for_diagnostics(client, uri, lambda d: "UNKNOWN_HANDOFF_RETURN_FIELD" not in codes(d))
    assert "E330" in codes(diags)


async def test_editing_pushes_versioned_diagnostics(client: LanguageClient):
    uri = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    await wait_for_diagnostics(client, uri, lambda d: "E330" in codes(d))
    change_document(client, uri, 2, SUPERVISOR.replace("mode: recent", "mode: last_n\n      count: 3"))
    diags = await wait_for_diagnostics(client, uri, lambda d: "E330" not in codes(d))
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" in codes(diags)


async def test_hover_on_history_explains_the_keyword(client: LanguageClient):
    uri = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    hover = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(6, 6)))
    assert hover is not None
    assert "HISTORY" in hover.contents.value and "full" in hover.contents.value


async def test_completion_after_history_lists_the_modes(client: LanguageClient):
    text = SUPERVISOR.replace("    HISTORY:\n      mode: recent\n", "    HISTORY: \n")
    uri = open_document(client, client.root / "supervisor.abl", text)  # type: ignore[attr-defined]
    line = text.splitlines().index("    HISTORY: ")
    result = await client.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 13))
    )
    labels = {item.label for item in result.items}
    assert {"full", "none", "summary_only", "auto", "last_5"} <= labels


async def test_completion_inside_on_return_offers_its_keys(client: LanguageClient):
    text = SUPERVISOR.replace("      action: resume_intent\n      MAP:\n        salary: annual_income\n", "      \n")
    uri = open_document(client, client.root / "supervisor.abl", text)  # type: ignore[attr-defined]
    line = text.splitlines().index("    ON_RETURN:") + 1
    result = await client.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 6))
    )
    labels = {item.label for item in result.items}
    assert {"action", "handler", "resume_with", "MAP", "SET"} <= labels
    assert "TO" not in labels


async def test_quick_fix_turns_capital_true_into_true(client: LanguageClient):
    text = SUPERVISOR.replace("RETURN: true", "RETURN: True")
    uri = open_document(client, client.root / "supervisor.abl", text)  # type: ignore[attr-defined]
    diags = await wait_for_diagnostics(client, uri, lambda d: "RETURN_NOT_LOWERCASE_TRUE" in codes(d))
    target = next(d for d in diags if d.code == "RETURN_NOT_LOWERCASE_TRUE")
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(lsp.TextDocumentIdentifier(uri), target.range, lsp.CodeActionContext(diagnostics=[target]))
    )
    fix = next(a for a in actions if "`true`" in a.title)
    assert fix.edit is not None and fix.edit.changes is not None
    fixed = apply_text_edits(text, fix.edit.changes[uri])
    assert "RETURN: true" in fixed and "RETURN: True" not in fixed
    change_document(client, uri, 2, fixed)
    await wait_for_diagnostics(client, uri, lambda d: "RETURN_NOT_LOWERCASE_TRUE" not in codes(d))


async def test_rename_an_agent_across_files(client: LanguageClient):
    uri = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    position = lsp.Position(3, 10)  # on `Income_Agent` after `TO:`
    prepared = await client.text_document_prepare_rename_async(
        lsp.PrepareRenameParams(lsp.TextDocumentIdentifier(uri), position)
    )
    assert prepared is not None
    edit = await client.text_document_rename_async(
        lsp.RenameParams(lsp.TextDocumentIdentifier(uri), position, "Salary_Agent")
    )
    assert edit is not None and edit.changes is not None
    child_uri = (client.root / "income.abl").as_uri()  # type: ignore[attr-defined]
    assert set(edit.changes) == {uri, child_uri}
    assert apply_text_edits(CHILD, edit.changes[child_uri]).startswith("AGENT: Salary_Agent\n")


async def test_rename_an_agent_renames_it_in_the_conversation_tests(client: LanguageClient):
    test_file = client.root / "loan.abltest.yaml"  # type: ignore[attr-defined]
    tests = "project: .\nagent: Loan_Supervisor  # é\ntests:\n  - name: income\n    turns:\n      - user: hi\n"
    tests += "        agent: 'Income_Agent'\n"
    test_file.write_text(tests, encoding="utf-8")
    uri = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    edit = await client.text_document_rename_async(
        lsp.RenameParams(lsp.TextDocumentIdentifier(uri), lsp.Position(3, 10), "Salary_Agent")
    )
    assert edit is not None and edit.changes is not None
    renamed = apply_text_edits(tests, edit.changes[test_file.as_uri()])
    assert renamed == tests.replace("'Income_Agent'", "'Salary_Agent'")


async def test_rename_refuses_keywords(client: LanguageClient):
    uri = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    with pytest.raises(Exception, match="only names can be renamed"):
        await client.text_document_prepare_rename_async(
            lsp.PrepareRenameParams(lsp.TextDocumentIdentifier(uri), lsp.Position(2, 2))
        )


async def test_definition_of_a_route_target_opens_the_agent(client: LanguageClient):
    uri = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    found = await client.text_document_definition_async(
        lsp.DefinitionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(3, 10))
    )
    assert found and found[0].uri.endswith("income.abl") and found[0].range.start.line == 0


async def test_a_request_right_after_an_edit_sees_the_edit(client: LanguageClient):
    """No waiting between the change and the request: the answer must come from the new text."""
    uri = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    renamed = SUPERVISOR.replace("Income_Agent", "Missing_Agent")
    change_document(client, uri, 2, renamed)
    hover = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(3, 10))
    )
    assert hover is not None and "Missing_Agent" in hover.contents.value


async def test_semantic_tokens_full_and_delta(client: LanguageClient):
    uri = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    doc = lsp.TextDocumentIdentifier(uri)
    full = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc))
    assert full is not None and full.data and len(full.data) % 5 == 0 and full.result_id
    change_document(client, uri, 2, SUPERVISOR.replace("Route loan requests", "Route every loan request"))
    delta = await client.text_document_semantic_tokens_full_delta_async(
        lsp.SemanticTokensDeltaParams(doc, full.result_id)
    )
    assert delta is not None and delta.result_id != full.result_id


async def test_folding_selection_and_outline(client: LanguageClient):
    uri = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    doc = lsp.TextDocumentIdentifier(uri)
    folds = await client.text_document_folding_range_async(lsp.FoldingRangeParams(doc))
    assert any(f.start_line == 2 for f in folds), "the HANDOFF block folds"
    [chain] = await client.text_document_selection_range_async(lsp.SelectionRangeParams(doc, [lsp.Position(3, 10)]))
    assert chain.parent is not None
    outline = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc))
    assert [s.name for s in outline] == ["Loan_Supervisor"]


async def test_formatting_reindents(client: LanguageClient):
    # Four spaces a level instead of two, and stray spaces after a value.
    messy = "".join(
        " " * (2 * (len(line) - len(line.lstrip(" ")))) + line.lstrip(" ") for line in CHILD.splitlines(keepends=True)
    ).replace('"Collect the annual income"', '"Collect the annual income"   ')
    uri = open_document(client, client.root / "income.abl", messy)  # type: ignore[attr-defined]
    edits = await client.text_document_formatting_async(
        lsp.DocumentFormattingParams(
            lsp.TextDocumentIdentifier(uri), lsp.FormattingOptions(tab_size=2, insert_spaces=True)
        )
    )
    assert edits
    assert apply_text_edits(messy, edits) == CHILD


async def test_pull_diagnostics_document_and_workspace(pull_client: LanguageClient):
    uri = supervisor_uri(pull_client)
    assert pull_client.server_capabilities.diagnostic_provider is not None  # type: ignore[attr-defined]
    diags = await wait_for_diagnostics(pull_client, uri, lambda d: "E330" in codes(d))
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" in codes(diags)
    first = await pull_client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier(uri))
    )
    assert first.result_id
    again = await pull_client.text_document_diagnostic_async(
        lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier(uri), previous_result_id=first.result_id)
    )
    assert again.kind == "unchanged"
    workspace = await pull_client.workspace_diagnostic_async(lsp.WorkspaceDiagnosticParams(previous_result_ids=[]))
    by_uri = {report.uri: report for report in workspace.items}
    child_uri = (pull_client.root / "income.abl").as_uri()  # type: ignore[attr-defined]
    assert {uri, child_uri} <= set(by_uri)
    assert "E330" in codes(list(by_uri[uri].items))
    assert not pull_client.diagnostics, "a client that pulls is not also pushed to"


async def test_a_second_workspace_folder_is_indexed(client: LanguageClient, tmp_path):
    second = tmp_path / "second"
    write_workspace(second, {"other.abl": 'AGENT: Other_Agent\nGOAL: "x"\nHANDOFF:\n  - TO: Nobody_Here\n'})
    client.workspace_did_change_workspace_folders(
        lsp.DidChangeWorkspaceFoldersParams(
            lsp.WorkspaceFoldersChangeEvent(added=[lsp.WorkspaceFolder(second.as_uri(), "second")], removed=[])
        )
    )
    diags = await wait_for_diagnostics(
        client, (second / "other.abl").as_uri(), lambda d: "INVALID_HANDOFF_TARGET" in codes(d)
    )
    assert diags


async def test_diagnostics_follow_an_edit_that_a_request_read_first(client: LanguageClient):
    uri = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    await wait_for_diagnostics(client, uri, lambda d: "E330" in codes(d))
    change_document(client, uri, 2, SUPERVISOR.replace("mode: recent", "mode: none"))
    await client.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(3, 10))
    )
    diags = await wait_for_diagnostics(client, uri, lambda d: "E330" not in codes(d))
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" in codes(diags)


async def test_every_new_version_of_an_open_file_gets_its_diagnostics(client: LanguageClient):
    if client.server_capabilities.diagnostic_provider is not None:  # type: ignore[attr-defined]
        return  # pull clients ask for them
    uri = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    await wait_for_diagnostics(client, uri, lambda d: "E330" in codes(d))
    published = record_publishes(client)
    change_document(client, uri, 2, SUPERVISOR.replace("Route loan requests", "Route every loan request"))
    for _ in range(1000):  # the same diagnostics, published again for version 2
        again = [p for p in published if p.uri == uri and p.version == 2]
        if again:
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError(f"no publish for version 2 within 10 s; got {[(p.uri, p.version) for p in published]}")
    assert "E330" in codes(again[0].diagnostics)


def record_publishes(client: LanguageClient) -> list[lsp.PublishDiagnosticsParams]:
    """Every publishDiagnostics from now on. Waiting for one notification at a time can miss
    one that arrives together with the one waited for; this re-arms from the callback itself."""
    seen: list[lsp.PublishDiagnosticsParams] = []

    def arm(params: lsp.PublishDiagnosticsParams | None = None) -> None:
        if params is not None:
            seen.append(params)
        client.protocol.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, arm)  # type: ignore[attr-defined]

    arm()
    return seen


async def test_inlay_hints_and_call_hierarchy(client: LanguageClient):
    uri = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    doc = lsp.TextDocumentIdentifier(uri)
    hints = await client.text_document_inlay_hint_async(
        lsp.InlayHintParams(doc, lsp.Range(lsp.Position(0, 0), lsp.Position(20, 0)))
    )
    assert any(h.label == "returnable" for h in hints)
    [item] = await client.text_document_prepare_call_hierarchy_async(
        lsp.CallHierarchyPrepareParams(doc, lsp.Position(0, 14))
    )
    outgoing = await client.call_hierarchy_outgoing_calls_async(lsp.CallHierarchyOutgoingCallsParams(item))
    assert [call.to.name for call in outgoing] == ["Income_Agent"]
