"""Code lenses run in every editor: a plain client (VS Code's and Neovim's recorded capabilities,
without the extension) executes each lens it is shown through the server and sees it do what its
title says; a client that implements the commands itself (the extension) also gets "Run agent" and,
when it lists `abl.debugAgent`, "Debug agent"."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import CHILD, SERVER, SUPERVISOR, capabilities, change_document, open_document, start, write_workspace

pytestmark = pytest.mark.asyncio

EXTENSION_COMMANDS = {"clientCommands": ["abl.runAgent", "abl.debugAgent", "abl.showHandoffsIn"]}
RUNS_ONLY = {"clientCommands": ["abl.runAgent", "abl.showHandoffsIn"]}


@pytest_lsp.fixture(config=SERVER, params=["visual-studio-code", "neovim"])
async def plain(lsp_client: LanguageClient, request, tmp_path: Path):
    root = tmp_path / "loan"
    write_workspace(root, {"supervisor.abl": SUPERVISOR, "income.abl": CHILD})
    lsp_client.root = root  # type: ignore[attr-defined]
    lsp_client.asked = []  # type: ignore[attr-defined]

    @lsp_client.feature(lsp.WINDOW_SHOW_MESSAGE_REQUEST)
    def choose(params: lsp.ShowMessageRequestParams) -> lsp.MessageActionItem | None:
        lsp_client.asked.append(params)  # type: ignore[attr-defined]
        return params.actions[-1] if params.actions else None

    await start(lsp_client, root, capabilities(request.param))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def extension(lsp_client: LanguageClient, tmp_path: Path):
    root = tmp_path / "loan"
    write_workspace(root, {"supervisor.abl": SUPERVISOR, "income.abl": CHILD})
    lsp_client.root = root  # type: ignore[attr-defined]
    await start(lsp_client, root, capabilities("visual-studio-code"), EXTENSION_COMMANDS)
    yield
    await lsp_client.shutdown_session()


async def lenses(client: LanguageClient, name: str) -> list[lsp.CodeLens]:
    uri = open_document(client, client.root / name)  # type: ignore[attr-defined]
    found = await client.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))
    assert found, "code lenses over the agent"
    return found


async def execute(client: LanguageClient, command: lsp.Command):
    return await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command.command, list(command.arguments or []))
    )


async def test_every_lens_a_plain_client_is_shown_runs_on_the_server(plain: LanguageClient):
    provided = plain.server_capabilities.execute_command_provider  # type: ignore[attr-defined]
    for name in ("income.abl", "supervisor.abl"):
        for lens in await lenses(plain, name):
            assert lens.command is not None
            assert lens.command.command in provided.commands, "the server runs every lens it sends"
            shown, told = len(plain.shown_documents), len(plain.messages)
            await execute(plain, lens.command)
            assert len(plain.shown_documents) + len(plain.messages) > shown + told, lens.command.title


async def test_one_handoff_in_opens_the_route(plain: LanguageClient):
    [lens] = await lenses(plain, "income.abl")
    assert lens.command is not None and lens.command.title == "1 handoff in"
    answer = await execute(plain, lens.command)
    [shown] = plain.shown_documents
    assert shown.uri.endswith("supervisor.abl") and shown.selection is not None
    assert shown.selection.start.line == 3, "the `TO: Income_Agent` line"
    assert [a["uri"] for a in answer] == [shown.uri]


async def test_several_handoffs_in_ask_which_to_open(plain: LanguageClient):
    uri = open_document(plain, plain.root / "supervisor.abl")  # type: ignore[attr-defined]
    second = SUPERVISOR + "  - TO: Income_Agent\n    WHEN: wants_loan == false\n"
    change_document(plain, uri, 2, second)
    [lens] = await lenses(plain, "income.abl")
    assert lens.command is not None and lens.command.title == "2 handoffs in"
    await execute(plain, lens.command)
    [asked] = plain.asked  # type: ignore[attr-defined]
    assert [a.title for a in asked.actions or []] == ["supervisor.abl:4", "supervisor.abl:13"]
    [shown] = plain.shown_documents
    assert shown.selection is not None and shown.selection.start.line == 12, "the one chosen"


async def test_no_handoff_in_says_so(plain: LanguageClient):
    [lens] = await lenses(plain, "supervisor.abl")
    assert lens.command is not None and lens.command.title == "0 handoffs in"
    assert await execute(plain, lens.command) == []
    assert plain.messages[-1].message == "No handoff leads to Loan_Supervisor."
    assert not plain.shown_documents


async def test_the_extension_gets_run_lenses_and_runs_them_itself(extension: LanguageClient):
    found = await lenses(extension, "income.abl")
    commands = {lens.command.command: lens.command for lens in found if lens.command is not None}
    uri = (extension.root / "income.abl").as_uri()  # type: ignore[attr-defined]
    assert list(commands["abl.runAgent"].arguments or []) == [uri, "Income_Agent"]
    assert commands["abl.showHandoffsIn"].title == "1 handoff in"


async def test_the_extension_gets_a_debug_lens_beside_the_run_lens(extension: LanguageClient):
    found = await lenses(extension, "supervisor.abl")
    titles = [(lens.command.title, lens.command.command) for lens in found if lens.command is not None]
    assert titles == [
        ("▶ Run agent", "abl.runAgent"),
        ("Debug agent", "abl.debugAgent"),
        ("0 handoffs in", "abl.showHandoffsIn"),
    ]
    debug = found[1]
    uri = (extension.root / "supervisor.abl").as_uri()  # type: ignore[attr-defined]
    assert debug.command is not None and list(debug.command.arguments or []) == [uri, "Loan_Supervisor"]
    assert debug.range == found[0].range, "on the agent's header, beside the run lens"


@pytest_lsp.fixture(config=SERVER)
async def runs_only(lsp_client: LanguageClient, tmp_path: Path):
    root = tmp_path / "loan"
    write_workspace(root, {"supervisor.abl": SUPERVISOR, "income.abl": CHILD})
    lsp_client.root = root  # type: ignore[attr-defined]
    await start(lsp_client, root, capabilities("visual-studio-code"), RUNS_ONLY)
    yield
    await lsp_client.shutdown_session()


async def test_a_client_that_does_not_list_debug_agent_gets_no_debug_lens(runs_only: LanguageClient):
    found = await lenses(runs_only, "supervisor.abl")
    commands = [lens.command.command for lens in found if lens.command is not None]
    assert commands == ["abl.runAgent", "abl.showHandoffsIn"]


@pytest_lsp.fixture(config=SERVER)
async def emacs(lsp_client: LanguageClient, tmp_path: Path):
    root = tmp_path / "loan"
    write_workspace(root, {"supervisor.abl": SUPERVISOR, "income.abl": CHILD})
    lsp_client.root = root  # type: ignore[attr-defined]
    await start(lsp_client, root, capabilities("emacs"))  # eglot: no window/showDocument
    yield
    await lsp_client.shutdown_session()


async def test_a_client_that_cannot_show_documents_is_told_where_the_handoffs_are(emacs: LanguageClient):
    [lens] = await lenses(emacs, "income.abl")
    assert lens.command is not None
    await execute(emacs, lens.command)
    assert emacs.messages[-1].message == "Handoffs to Income_Agent: supervisor.abl:4"
    assert not emacs.shown_documents
