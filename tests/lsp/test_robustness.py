"""The server stays up and answers sensibly whatever it is sent: unknown files, positions out of
range, closed documents, cancelled requests, broken JSON, a huge document, invalid UTF-8 on
disk; it exits with 0 after `shutdown` and 1 without; positions are converted to the client's
encoding (UTF-16 by default) on lines with emoji and CJK text."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import (
    SERVER,
    SUPERVISOR,
    capabilities,
    codes,
    open_document,
    start,
    wait_for_diagnostics,
    write_workspace,
)

pytestmark = pytest.mark.asyncio


@pytest_lsp.fixture(config=SERVER)
async def vscode(lsp_client: LanguageClient, tmp_path: Path):
    root = tmp_path / "ws"
    write_workspace(root, {"supervisor.abl": SUPERVISOR})
    (root / "broken.abl").write_bytes(b'AGENT: Broken\nGOAL: "caf\xe9"\n')
    lsp_client.root = root  # type: ignore[attr-defined]
    await start(lsp_client, root, capabilities("visual-studio-code"))
    yield
    await lsp_client.shutdown_session()


async def test_requests_for_unknown_files_get_empty_answers(vscode: LanguageClient):
    nowhere = lsp.TextDocumentIdentifier("file:///nowhere/at/all.abl")
    assert await vscode.text_document_hover_async(lsp.HoverParams(nowhere, lsp.Position(0, 0))) is None
    completion = await vscode.text_document_completion_async(lsp.CompletionParams(nowhere, lsp.Position(0, 0)))
    assert completion is not None and list(completion.items) == []
    assert await vscode.text_document_definition_async(lsp.DefinitionParams(nowhere, lsp.Position(0, 0))) is None
    other_scheme = lsp.TextDocumentIdentifier("untitled:Untitled-1")
    assert await vscode.text_document_hover_async(lsp.HoverParams(other_scheme, lsp.Position(0, 0))) is None


@pytest.mark.parametrize("line,character", [(500, 0), (0, 10_000), (3, 999)])
async def test_positions_out_of_range_are_clamped(vscode: LanguageClient, line: int, character: int):
    uri = open_document(vscode, vscode.root / "supervisor.abl")  # type: ignore[attr-defined]
    doc = lsp.TextDocumentIdentifier(uri)
    await vscode.text_document_hover_async(lsp.HoverParams(doc, lsp.Position(line, character)))
    result = await vscode.text_document_completion_async(lsp.CompletionParams(doc, lsp.Position(line, character)))
    assert result is not None
    assert await vscode.text_document_hover_async(lsp.HoverParams(doc, lsp.Position(3, 10))) is not None


async def test_a_closed_document_is_read_from_disk_again(vscode: LanguageClient):
    path = vscode.root / "supervisor.abl"  # type: ignore[attr-defined]
    uri = open_document(vscode, path, SUPERVISOR.replace("Income_Agent", "Typed_Agent"))
    vscode.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
    hover = await vscode.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(3, 10))
    )
    assert hover is not None and "Income_Agent" in hover.contents.value


async def test_invalid_utf8_on_disk_is_a_diagnostic(vscode: LanguageClient):
    uri = (vscode.root / "broken.abl").as_uri()  # type: ignore[attr-defined]
    diags = await wait_for_diagnostics(vscode, uri, lambda d: "INVALID_ENCODING" in codes(d))
    assert next(d for d in diags if d.code == "INVALID_ENCODING").range.start.line == 1


async def test_cancelled_requests_leave_the_server_up(vscode: LanguageClient):
    uri = open_document(vscode, vscode.root / "supervisor.abl")  # type: ignore[attr-defined]
    doc = lsp.TextDocumentIdentifier(uri)
    pending = [
        asyncio.ensure_future(vscode.text_document_hover_async(lsp.HoverParams(doc, lsp.Position(3, 10))))
        for _ in range(20)
    ]
    await asyncio.sleep(0)  # let the requests go out, then cancel them (and some ids never sent)
    for msg_id in [*list(vscode.protocol._request_futures), "no-such-request"]:
        vscode.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id=msg_id))
    await asyncio.gather(*pending, return_exceptions=True)
    hover = await vscode.text_document_hover_async(lsp.HoverParams(doc, lsp.Position(3, 10)))
    assert hover is not None


async def test_a_huge_document_gets_syntax_only_and_one_notice(vscode: LanguageClient):
    body = "".join(f'AGENT: Agent_{i}\nGOAL: "{"x" * 60}"\n' for i in range(40_000))
    assert len(body) > 2_000_000
    uri = open_document(vscode, vscode.root / "huge.abl", body)  # type: ignore[attr-defined]
    await wait_for_diagnostics(vscode, uri, lambda d: True)
    hover = await vscode.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(0, 2)))
    assert hover is not None
    outline = await vscode.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri))
    )
    assert outline is not None and len(outline) == 40_000
    notices = [m.message for m in vscode.messages if "larger than" in m.message]
    assert len(notices) == 1


# --- positions in the client's encoding ---------------------------------------------------------

EMOJI = 'SUPERVISOR: Loan_Supervisor\nGOAL: "😀 收入 loans"\nHANDOFF:\n  - TO: Income_Agent  # 😀😀\n    HISTORY:\n      mode: recent  # 收入 😀\n'


def _caps_with(encodings: list[str]) -> lsp.ClientCapabilities:
    caps = capabilities("visual-studio-code")
    caps.general = lsp.GeneralClientCapabilities(position_encodings=encodings)
    return caps


@pytest_lsp.fixture(config=SERVER, params=["utf-16", "utf-8", "utf-32"])
async def encoded(lsp_client: LanguageClient, request, tmp_path: Path):
    root = tmp_path / "ws"
    write_workspace(root, {"emoji.abl": EMOJI})
    lsp_client.root = root  # type: ignore[attr-defined]
    lsp_client.encoding = request.param  # type: ignore[attr-defined]
    await start(lsp_client, root, _caps_with([request.param]))
    yield
    await lsp_client.shutdown_session()


def _units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


async def test_positions_follow_the_negotiated_encoding(encoded: LanguageClient):
    encoding = encoded.encoding  # type: ignore[attr-defined]
    assert encoded.server_capabilities.position_encoding == encoding  # type: ignore[attr-defined]
    uri = (encoded.root / "emoji.abl").as_uri()  # type: ignore[attr-defined]
    open_document(encoded, encoded.root / "emoji.abl")  # type: ignore[attr-defined]
    diags = await wait_for_diagnostics(encoded, uri, lambda d: "E330" in codes(d))
    e330 = next(d for d in diags if d.code == "E330")
    line = EMOJI.splitlines()[5]
    assert e330.range.start.character == _units(line[: line.index("recent")], encoding)
    # A position after emoji on the same line lands on the right word.
    route_line = EMOJI.splitlines()[3]
    at = _units(route_line[: route_line.index("Income_Agent") + 3], encoding)
    hover = await encoded.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(3, at))
    )
    assert hover is not None and "Income_Agent" in hover.contents.value
    assert hover.range is not None and hover.range.start.character <= at <= hover.range.end.character
