"""The protocol handlers, declared once at module level.

A module declares each handler with `@handler(method, fallback)` (or `@command(name,
fallback)`); the declaration wraps it in `guarded`, so no handler can be registered without
it, and `install` registers every declared handler on a new server. The handlers live at
module level, where a test can list them, and keep whatever they remember between requests
on the server they are given, never in a closure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from abl.lsp.server import AblServer, Handler, guarded


@dataclass(frozen=True, slots=True)
class Declared:
    method: str
    options: Any  # the capability's options (lsprotocol), or None
    function: Callable[..., Any]  # already guarded
    is_command: bool = False


DECLARED: list[Declared] = []


def handler(method: str, fallback: Callable[[], Any], options: Any = None) -> Callable[[Handler], Handler]:
    """Declare a request or notification handler; a failure answers `fallback()`."""

    def declare(function: Handler) -> Handler:
        wrapped = guarded(fallback)(function)
        DECLARED.append(Declared(method, options, wrapped))
        return wrapped

    return declare


def command(name: str, fallback: Callable[[], Any]) -> Callable[[Handler], Handler]:
    """Declare a `workspace/executeCommand` command handler."""

    def declare(function: Handler) -> Handler:
        wrapped = guarded(fallback)(function)
        DECLARED.append(Declared(name, None, wrapped, is_command=True))
        return wrapped

    return declare


SETUP: list[Callable[[AblServer], None]] = []


def on_install(setup: Callable[[AblServer], None]) -> Callable[[AblServer], None]:
    """Declare what a module does to each new server beyond its handlers (a listener)."""
    SETUP.append(setup)
    return setup


def install(server: AblServer) -> None:
    """Register every declared handler on `server`, then run each module's setup."""
    for declared in DECLARED:
        if declared.is_command:
            server.command(declared.method)(declared.function)
        elif declared.options is None:
            server.feature(declared.method)(declared.function)
        else:
            server.feature(declared.method, declared.options)(declared.function)
    for setup in SETUP:
        setup(server)
