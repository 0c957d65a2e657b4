"""The language server over LSP: the only package that imports pygls and lsprotocol."""

from __future__ import annotations

from abl.lsp.server import AblServer


def create_server() -> AblServer:
    """A server with every feature registered: the handlers each module declares on import."""
    from abl.lsp import commands, features, graph, handlers, lifecycle, presentation, runs, structure  # noqa: F401

    server = AblServer()
    handlers.install(server)
    return server


__all__ = ["AblServer", "create_server"]
