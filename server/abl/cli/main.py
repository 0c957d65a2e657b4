"""`abl`: the command-line entry point. Parses arguments and hands off to one module per command."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from abl import __version__


class _Parser(argparse.ArgumentParser):
    """Usage errors: one line on stderr and exit code 2, never a traceback."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="abl", description="Check, format, explain, run and test ABL agents.")
    parser.add_argument("--version", action="version", version=f"abl-tools {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")

    from abl.cli import check, dap, explain, format, graph, lsp, run, test

    check.add_parser(sub)
    format.add_parser(sub)
    explain.add_parser(sub)
    graph.add_parser(sub)
    lsp.add_parser(sub)
    dap.add_parser(sub)
    run.add_parser(sub)
    test.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


# Commands that hold nothing open when they return: after their output is flushed, the process
# can end without tearing down a large heap object by object (on a 50,000-line project that
# teardown takes longer than the check itself).
_FAST_EXIT = frozenset({"check", "explain", "graph"})


def entry() -> None:
    """The console script: `main`, then a fast exit for commands that allow it."""
    argv = sys.argv[1:]
    code = main(argv)
    if argv and argv[0] in _FAST_EXIT:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BrokenPipeError):  # the reader left; nothing more to tell it
                stream.flush()
        os._exit(code)
    raise SystemExit(code)
