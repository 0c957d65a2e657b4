"""`abl explain CODE`: the documentation page of one diagnostic code, rendered for a terminal.

The page is the Markdown of `docs/diagnostics/<CODE>.md` (without its generated-file marker),
rendered with headings, lists and highlighted code blocks; in colour only on a terminal, so
piped output stays plain text.
"""

from __future__ import annotations

import argparse
import io
import shutil
import sys

from abl.checks.docs import GENERATED_MARKER, render_page
from abl.checks.registry import BY_CODE, CODES
from abl.cli.terminal import add_color_option, wants_color
from abl.suggest import did_you_mean

_USAGE = "abl explain CODE (for example `abl explain E330`), or `abl explain --list`"
# Wide enough for the examples' longest lines; narrower terminals wrap.
_PIPE_WIDTH = 100


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "explain", help="explain a diagnostic code", description="Print the documentation of a diagnostic code."
    )
    p.add_argument("code", nargs="?", metavar="CODE", help="for example E330 or HISTORY_FALLS_BACK_TO_FULL")
    p.add_argument("--list", action="store_true", help="list every code with its severity and title")
    add_color_option(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.list:
        for entry in CODES:
            print(f"{entry.code:<45} {entry.severity.value:<8} {entry.title}")
        return 0
    if not args.code:
        print(f"abl explain: error: name a code to explain; usage: {_USAGE}", file=sys.stderr)
        return 2
    code = args.code.strip().upper()
    if code not in BY_CODE:
        close = did_you_mean(code, BY_CODE)
        hint = f"; did you mean {close}?" if close else "; `abl explain --list` shows every code"
        print(f"abl explain: error: unknown code {args.code}{hint}", file=sys.stderr)
        return 2
    color = wants_color(args.color)
    sys.stdout.write(render_for_terminal(code, color=color))
    return 0


def render_for_terminal(code: str, *, color: bool, width: int | None = None) -> str:
    """The page of `code` as terminal text: styled when `color`, plain (no trailing blanks) otherwise."""
    from rich.console import Console
    from rich.markdown import Markdown

    page = render_page(code).removeprefix(GENERATED_MARKER).lstrip("\n")
    if width is None:
        width = shutil.get_terminal_size((_PIPE_WIDTH, 24)).columns if color else _PIPE_WIDTH
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        force_terminal=color,
        color_system="auto" if color else None,
        highlight=False,
    )
    console.print(Markdown(page, code_theme="ansi_dark", hyperlinks=False))
    text = buffer.getvalue()
    if color:
        return text
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
