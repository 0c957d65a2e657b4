"""`abl lsp`: the language server, over standard input and output (or TCP, for debugging)."""

from __future__ import annotations

import argparse
import logging
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "lsp",
        help="run the language server",
        description="Run the ABL language server. Editors start it and talk to it over standard input and output.",
    )
    p.add_argument("--stdio", action="store_true", help="talk over standard input and output (the default)")
    p.add_argument("--tcp", action="store_true", help="listen on a TCP port instead, for debugging")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on with --tcp (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=2087, help="port to listen on with --tcp (default: 2087)")
    p.add_argument("--log-file", metavar="FILE", help="write the server's log (with tracebacks) to FILE")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.stdio and args.tcp:
        print("abl lsp: error: choose one of --stdio and --tcp", file=sys.stderr)
        return 2
    _configure_logging(args.log_file, args.log_level)
    from abl.lsp import create_server

    server = create_server()
    if args.tcp:
        server.start_tcp(args.host, args.port)
        return 0
    return server.start_stdio()


def _configure_logging(path: str | None, level: str) -> None:
    """Log to a file when asked, else to standard error (which editors show as the server's
    output); never to standard output, which carries the protocol."""
    handler: logging.Handler
    if path:
        try:
            handler = logging.FileHandler(path, encoding="utf-8")
        except OSError as err:
            print(f"abl lsp: warning: cannot write the log to {path}: {err.strerror}", file=sys.stderr)
            handler = logging.StreamHandler(sys.stderr)
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(getattr(logging, level.upper()))
    logging.getLogger("pygls").setLevel(max(logging.WARNING, root.level))
