"""The language server over LSP: the only package that imports pygls and lsprotocol."""

from __future__ import annotations

from abl.lsp.server import AblServer


def create_server() -> AblServer:
    """A server with every feature registered."""
    from abl.lsp import commands, features, graph, lifecycle, presentation, runs, structure

    server = AblServer()
    lifecycle.register(server)
    features.register(server)
    structure.register(server)
    presentation.register(server)
    graph.register(server)
    runs.register(server)
    commands.register(server)
    return server


__all__ = ["AblServer", "create_server"]
