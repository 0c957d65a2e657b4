"""`abl dap`: the debug adapter, over standard input and output."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "dap",
        help="run the debug adapter",
        description="Run the ABL debug adapter (Debug Adapter Protocol). Editors start it and talk to it "
        "over standard input and output; the launch configuration names the program, the agent and the "
        "customer's messages.",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from abl.dap import serve_stdio

    return serve_stdio()
