"""End-to-end fixtures: the real `abl lsp` over stdio, driven by pytest-lsp as an editor would.

Each test gets a fresh workspace folder on disk holding a small two-file project (a supervisor
that hands off to an income agent in another file), and a client initialised with the recorded
capabilities of a real editor. Helpers wait for server notifications with a time limit instead
of sleeping.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SUPERVISOR = """\
SUPERVISOR: Loan_Supervisor
GOAL: "Route loan requests"
HANDOFF:
  - TO: Income_Agent
    WHEN: wants_loan == true
    RETURN: true
    HISTORY:
      mode: recent
    ON_RETURN:
      action: resume_intent
      MAP:
        salary: annual_income
"""

CHILD = """\
AGENT: Income_Agent
GOAL: "Collect the annual income"
GATHER:
  annual_income:
    type: number
    prompt: "What is your annual income?"
"""

WAIT_S = 20.0


def write_workspace(root: Path, files: dict[str, str]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "project.json").write_text("{}\n")
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")


def capabilities(profile: str) -> lsp.ClientCapabilities:
    return client_capabilities(profile)


def pull_capabilities() -> lsp.ClientCapabilities:
    """VS Code's recorded capabilities plus pull diagnostics and their refresh (added to VS Code
    after the recording), so both diagnostic models are exercised."""
    caps = client_capabilities("visual-studio-code")
    assert caps.text_document is not None and caps.workspace is not None
    caps.text_document.diagnostic = lsp.DiagnosticClientCapabilities(
        dynamic_registration=False, related_document_support=True
    )
    caps.workspace.diagnostics = lsp.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    return caps


async def start(
    lsp_client: LanguageClient, root: Path, caps: lsp.ClientCapabilities, options: dict | None = None
) -> None:
    @lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: lsp.RegistrationParams) -> None:
        lsp_client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    lsp_client.registrations = []  # type: ignore[attr-defined]
    result = await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=caps,
            root_uri=root.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(root.as_uri(), root.name)],
            initialization_options=options,
        )
    )
    lsp_client.server_capabilities = result.capabilities  # type: ignore[attr-defined]


SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "abl", "lsp", "--stdio"])


@pytest_lsp.fixture(config=SERVER, params=["visual-studio-code", "neovim"])
async def client(lsp_client: LanguageClient, request, tmp_path: Path):
    root = tmp_path / "loan"
    write_workspace(root, {"supervisor.abl": SUPERVISOR, "income.abl": CHILD})
    lsp_client.root = root  # type: ignore[attr-defined]
    await start(lsp_client, root, capabilities(request.param))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def pull_client(lsp_client: LanguageClient, tmp_path: Path):
    root = tmp_path / "loan"
    write_workspace(root, {"supervisor.abl": SUPERVISOR, "income.abl": CHILD})
    lsp_client.root = root  # type: ignore[attr-defined]
    await start(lsp_client, root, pull_capabilities())
    yield
    await lsp_client.shutdown_session()


def pulls(client: LanguageClient) -> bool:
    """Whether the server chose pull diagnostics for this client (it does when the client
    supports them, and pushes otherwise)."""
    return client.server_capabilities.diagnostic_provider is not None  # type: ignore[attr-defined]


async def wait_for_diagnostics(
    client: LanguageClient, uri: str, ready: Callable[[list[lsp.Diagnostic]], bool]
) -> list[lsp.Diagnostic]:
    """Wait until the diagnostics of `uri` satisfy `ready`: the pushed ones, or for a client
    that pulls, the ones a `textDocument/diagnostic` request returns."""

    async def pushed() -> list[lsp.Diagnostic]:
        while not (uri in client.diagnostics and ready(client.diagnostics[uri])):
            await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return client.diagnostics[uri]

    async def pulled() -> list[lsp.Diagnostic]:
        while True:
            report = await client.text_document_diagnostic_async(
                lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier(uri))
            )
            items = list(getattr(report, "items", []) or [])
            if ready(items):
                return items
            await asyncio.sleep(0.05)  # poll: the next analysis may still be on its way

    return await asyncio.wait_for(pulled() if pulls(client) else pushed(), WAIT_S)


def codes(diags: list[lsp.Diagnostic]) -> set[str]:
    return {str(d.code) for d in diags}


def open_document(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri, "abl", version, text if text is not None else path.read_text())
        )
    )
    return uri


def change_document(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=version, uri=uri),
            [lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def apply_text_edits(text: str, edits) -> str:
    """Apply LSP text edits (UTF-16 positions) to a text, last first."""
    lines = text.splitlines(keepends=True)

    def offset(pos: lsp.Position) -> int:
        before = sum(len(line) for line in lines[: pos.line])
        line = lines[pos.line] if pos.line < len(lines) else ""
        units = 0
        for i, ch in enumerate(line):
            if units >= pos.character:
                return before + i
            units += 2 if ord(ch) > 0xFFFF else 1
        return before + len(line.rstrip("\r\n"))

    spans = sorted(((offset(e.range.start), offset(e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text
