"""`abl explain CODE`: the documentation page of one diagnostic code."""

from __future__ import annotations

import argparse
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("explain", help="explain a diagnostic code", description="Print the documentation of a diagnostic code.")
    p.add_argument("code", nargs="?", metavar="CODE", help="for example E330 or HISTORY_FALLS_BACK_TO_FULL")
    p.add_argument("--list", action="store_true", help="list every code with its severity and title")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from abl.checks.docs import render_page
    from abl.checks.registry import BY_CODE, CODES
    from abl.suggest import did_you_mean

    if args.list or not args.code:
        for entry in CODES:
            print(f"{entry.code:<45} {entry.severity.value:<8} {entry.title}")
        return 0 if args.list else 2
    code = args.code.strip().upper()
    if code not in BY_CODE:
        close = did_you_mean(code, BY_CODE)
        hint = f"; did you mean {close}?" if close else "; `abl explain --list` shows every code"
        print(f"abl explain: error: unknown code {args.code}{hint}", file=sys.stderr)
        return 2
    sys.stdout.write(render_page(code))
    return 0
