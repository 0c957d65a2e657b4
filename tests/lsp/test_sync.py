"""The server's copy of a document, over real stdio, after incremental changes below a character
Python's `str.splitlines` breaks lines at (the protocol does not): edits land where the editor
made them, and a revert leaves nothing of the old text behind."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from fuzz.editor import ClientBuffer
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import CHILD, SERVER, SUPERVISOR, capabilities, codes, start, wait_for_diagnostics, write_workspace

pytestmark = pytest.mark.asyncio

NOT_LINE_BREAKS = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
RETURN_FIELD = "UNKNOWN_HANDOFF_RETURN_FIELD"


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, tmp_path: Path):
    root = tmp_path / "loan"
    write_workspace(root, {"supervisor.abl": SUPERVISOR, "income.abl": CHILD})
    lsp_client.root = root  # type: ignore[attr-defined]
    await start(lsp_client, root, capabilities("emacs"))
    yield
    await lsp_client.shutdown_session()


def type_into(client: LanguageClient, buffer: ClientBuffer, uri: str, version: int, start, end, text: str) -> None:
    change = lsp.TextDocumentContentChangePartial(range=lsp.Range(lsp.Position(*start), lsp.Position(*end)), text=text)
    buffer.apply(change)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(lsp.VersionedTextDocumentIdentifier(version=version, uri=uri), [change])
    )


@pytest.mark.parametrize("character", NOT_LINE_BREAKS, ids=lambda c: f"U+{ord(c):04X}")
async def test_edits_below_the_character_land_where_the_editor_made_them(client: LanguageClient, character: str):
    root: Path = client.root  # type: ignore[attr-defined]
    uri, supervisor = (root / "income.abl").as_uri(), (root / "supervisor.abl").as_uri()
    buffer = ClientBuffer(CHILD)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "abl", 1, CHILD)))
    await wait_for_diagnostics(client, supervisor, lambda d: RETURN_FIELD in codes(d))
    type_into(client, buffer, uri, 2, (1, 10), (1, 10), character)  # inside GOAL's text
    type_into(client, buffer, uri, 3, (3, 2), (3, 15), "salary")  # the field the parent maps
    await wait_for_diagnostics(client, supervisor, lambda d: RETURN_FIELD not in codes(d))
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri))
    )
    assert buffer.text == CHILD.replace('GOAL: "Col', f'GOAL: "Col{character}').replace("annual_income", "salary")
    assert "salary" in str(symbols) and "annual_income" not in str(symbols)
    lines = buffer.lines()  # File: Revert, as one change of the whole text
    type_into(client, buffer, uri, 4, (0, 0), (len(lines) - 1, len(lines[-1])), CHILD)
    await wait_for_diagnostics(client, supervisor, lambda d: RETURN_FIELD in codes(d))
    folds = await client.text_document_folding_range_async(lsp.FoldingRangeParams(lsp.TextDocumentIdentifier(uri)))
    assert max(f.end_line for f in folds or []) <= CHILD.count("\n"), "nothing is left below the reverted text"
