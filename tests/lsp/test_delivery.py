"""How diagnostics reach each kind of client, over real stdio: pulled only by a client that can
be told to pull again, pushed to every other, for open and never-opened files alike; a change in
one file updates every file it affects without another edit; a file deleted on disk shows
nothing; no client gets the same diagnostics both ways."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import (
    CHILD,
    SERVER,
    SUPERVISOR,
    WAIT_S,
    capabilities,
    codes,
    open_document,
    pull_capabilities,
    start,
    write_workspace,
)

pytestmark = pytest.mark.asyncio

# Each shape of client: VS Code (pulls, and can be told to pull again), Neovim 0.11 (pulls,
# cannot be told), Emacs (never pulls).
SHAPES = {
    "pull+refresh": pull_capabilities,
    "pull without refresh": lambda: capabilities("neovim"),
    "push only": lambda: capabilities("emacs"),
}
FIXED_CHILD = CHILD + '  salary:\n    type: number\n    prompt: "And your salary?"\n'
RETURN_FIELD = "UNKNOWN_HANDOFF_RETURN_FIELD"


@pytest_lsp.fixture(config=SERVER, params=list(SHAPES))
async def client(lsp_client: LanguageClient, request, tmp_path: Path):
    root = tmp_path / "loan"
    write_workspace(root, {"supervisor.abl": SUPERVISOR, "income.abl": CHILD})
    lsp_client.root = root  # type: ignore[attr-defined]
    lsp_client.shape = request.param  # type: ignore[attr-defined]
    lsp_client.pulled = {}  # type: ignore[attr-defined]  # uri -> (result id, items), as a pulling client keeps them
    lsp_client.refreshes_seen = 0  # type: ignore[attr-defined]
    await start(lsp_client, root, SHAPES[request.param]())
    if pulls(lsp_client):
        await pull_workspace(lsp_client)  # as VS Code does once it starts
    yield
    await lsp_client.shutdown_session()


def pulls(client: LanguageClient) -> bool:
    return client.server_capabilities.diagnostic_provider is not None  # type: ignore[attr-defined]


async def pull_workspace(client: LanguageClient) -> None:
    client.refreshes_seen = client.diagnostic_refresh_count  # type: ignore[attr-defined]
    kept = client.pulled  # type: ignore[attr-defined]
    previous = [lsp.PreviousResultId(uri, result_id) for uri, (result_id, _) in kept.items()]
    report = await client.workspace_diagnostic_async(lsp.WorkspaceDiagnosticParams(previous_result_ids=previous))
    for item in report.items:
        if item.kind == "full":
            kept[item.uri] = (item.result_id, list(item.items))


def shown(client: LanguageClient, uri: str) -> list[lsp.Diagnostic] | None:
    """What the client shows for a file: None when nothing ever arrived."""
    if pulls(client):
        kept = client.pulled.get(uri)  # type: ignore[attr-defined]
        return kept[1] if kept is not None else None
    return client.diagnostics.get(uri)


async def until_shown(
    client: LanguageClient, uri: str, ready: Callable[[list[lsp.Diagnostic]], bool]
) -> list[lsp.Diagnostic]:
    """Wait, doing nothing the client would not do by itself, until the file shows `ready`."""

    async def wait() -> list[lsp.Diagnostic]:
        while (now := shown(client, uri)) is None or not ready(now):
            if pulls(client) and client.diagnostic_refresh_count > client.refreshes_seen:  # type: ignore[attr-defined]
                await pull_workspace(client)  # told to pull again
                continue
            await asyncio.sleep(0.02)
        return now

    try:
        return await asyncio.wait_for(wait(), WAIT_S)
    except TimeoutError:
        raise AssertionError(f"{uri} shows {shown(client, uri)}") from None


def uri_of(client: LanguageClient, name: str) -> str:
    return (client.root / name).as_uri()  # type: ignore[attr-defined]


async def test_pulls_only_where_the_client_can_be_told_to_pull_again(client: LanguageClient):
    assert pulls(client) == (client.shape == "pull+refresh")  # type: ignore[attr-defined]


async def test_a_never_opened_files_problems_reach_the_client(client: LanguageClient):
    diags = await until_shown(client, uri_of(client, "supervisor.abl"), lambda d: RETURN_FIELD in codes(d))
    assert "E330" in codes(diags)


async def test_an_edit_in_one_file_updates_the_other_open_file(client: LanguageClient):
    """The child gets the field the parent maps: the parent's problem goes, with no edit of it."""
    supervisor = open_document(client, client.root / "supervisor.abl")  # type: ignore[attr-defined]
    child = open_document(client, client.root / "income.abl")  # type: ignore[attr-defined]
    await until_shown(client, supervisor, lambda d: RETURN_FIELD in codes(d))
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=2, uri=child),
            [lsp.TextDocumentContentChangeWholeDocument(text=FIXED_CHILD)],
        )
    )
    diags = await until_shown(client, supervisor, lambda d: RETURN_FIELD not in codes(d))
    assert "E330" in codes(diags)


async def test_a_file_deleted_on_disk_while_closed_shows_nothing(client: LanguageClient):
    path = client.root / "supervisor.abl"  # type: ignore[attr-defined]
    await until_shown(client, path.as_uri(), lambda d: RETURN_FIELD in codes(d))
    path.unlink()
    client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams([lsp.FileEvent(path.as_uri(), lsp.FileChangeType.Deleted)])
    )
    await until_shown(client, path.as_uri(), lambda d: not d)  # an empty report, not none


async def test_no_client_gets_diagnostics_both_ways(client: LanguageClient):
    await until_shown(client, uri_of(client, "supervisor.abl"), lambda d: RETURN_FIELD in codes(d))
    if pulls(client):
        assert not client.diagnostics, "a client that pulls is not also pushed to"
    else:
        assert client.diagnostic_refresh_count == 0
