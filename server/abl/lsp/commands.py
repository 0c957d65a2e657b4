"""The code lens commands, carried out by the server for editors that do not implement them.

An editor lists the commands it implements itself in `initializationOptions.clientCommands`
(the VS Code extension: `abl.runAgent`, `abl.showHandoffsIn`). Every other editor runs a lens
by sending `workspace/executeCommand` back to the server, which does what the lens says:
`abl.showHandoffsIn` opens the one route that leads to the agent (`window/showDocument`), or
asks which of several to open (`window/showMessageRequest`). The "Run agent" lens is sent only to
an editor that says it implements `abl.runAgent`: a run needs a panel to hold the conversation.
Likewise "Debug agent" goes only to an editor that lists `abl.debugAgent`, which it carries out by
starting a debug session with `abl dap`.
"""

from __future__ import annotations

import os
from typing import Any

from lsprotocol import types as lsp

from abl.lsp.convert import uri_to_path
from abl.lsp.handlers import command
from abl.lsp.server import AblServer

# The commands the code lenses name.
RUN_AGENT = "abl.runAgent"
DEBUG_AGENT = "abl.debugAgent"
SHOW_HANDOFFS_IN = "abl.showHandoffsIn"


def client_commands(options: Any) -> frozenset[str]:
    """The commands an editor says it implements, from its `initializationOptions`."""
    listed = options.get("clientCommands") if isinstance(options, dict) else None
    if not isinstance(listed, list):
        return frozenset()
    return frozenset(c for c in listed if isinstance(c, str))


@command(SHOW_HANDOFFS_IN, list)
async def show_handoffs_in(ls: AblServer, *arguments: Any) -> list[Any]:
    """Arguments as the lens sends them: `[uri, position of the name, locations, agent]`;
    answers the locations, for an editor that wants to list them itself."""
    uri = arguments[0] if arguments else ""
    listed = arguments[2] if len(arguments) > 2 and isinstance(arguments[2], list) else []
    locations = [_location(ls, item) for item in listed]
    found = [loc for loc in locations if loc is not None]
    agent = arguments[3] if len(arguments) > 3 and isinstance(arguments[3], str) else "this agent"
    if not found:
        ls.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Info, f"No handoff leads to {agent}."))
        return []
    if not _shows_documents(ls):  # say where they are instead
        here = os.path.dirname(uri_to_path(str(uri)) or "")
        where = ", ".join(_title(here, loc) for loc in found)
        ls.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Info, f"Handoffs to {agent}: {where}"))
        return [ls.protocol._converter.unstructure(loc) for loc in found]
    chosen = found[0] if len(found) == 1 else await _choose(ls, str(uri), agent, found)
    if chosen is not None:
        await ls.window_show_document_async(lsp.ShowDocumentParams(chosen.uri, take_focus=True, selection=chosen.range))
    return [ls.protocol._converter.unstructure(loc) for loc in found]


def _shows_documents(ls: AblServer) -> bool:
    window = ls.client_capabilities.window
    show = window.show_document if window is not None else None
    return bool(show is not None and show.support)


def _location(ls: AblServer, raw: Any) -> lsp.Location | None:
    try:
        return ls.protocol._converter.structure(raw, lsp.Location)
    except Exception:  # a lens argument the client changed: leave that one out
        return None


async def _choose(ls: AblServer, uri: str, agent: str, found: list[lsp.Location]) -> lsp.Location | None:
    here = os.path.dirname(uri_to_path(uri) or "")
    titles = [_title(here, loc) for loc in found]
    answer = await ls.window_show_message_request_async(
        lsp.ShowMessageRequestParams(
            lsp.MessageType.Info,
            f"{len(found)} handoffs lead to {agent}. Open which?",
            actions=[lsp.MessageActionItem(t) for t in titles],
        )
    )
    if answer is None or answer.title not in titles:
        return None
    return found[titles.index(answer.title)]


def _title(here: str, loc: lsp.Location) -> str:
    path = uri_to_path(loc.uri)
    name = os.path.relpath(path, here) if path is not None and here else loc.uri
    return f"{name}:{loc.range.start.line + 1}"
