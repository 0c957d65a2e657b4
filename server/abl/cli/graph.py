"""`abl graph`: the handoff graph of a project as Mermaid, DOT, JSON or a self-contained HTML page."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from abl.cli.paths import PathRefused, check_inputs, output_path
from abl.gcpause import paused_gc
from abl.ide.graph import (
    GraphView,
    checked_diagnostics,
    find_agent,
    graph_view,
    merge_views,
    project_label,
    to_json,
)
from abl.workspace import load_projects

FORMATS = ("mermaid", "dot", "json", "html")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "graph",
        help="draw the handoff graph of a project",
        description=(
            "Draw the handoff graph: supervisors and agents, returnable and permanent handoffs, delegates, "
            "escalations, tools, and the way back of each returnable child; with the problems on each, "
            "the agents nothing reaches and the loops the runtime refuses."
        ),
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, or folders searched for *.abl")
    p.add_argument("--format", choices=FORMATS, default="mermaid", help="output format (default: mermaid)")
    p.add_argument("--agent", metavar="NAME", help="only the agents and edges around this agent")
    p.add_argument("--depth", metavar="N", type=_depth, help="at most N edges from --agent (or from the supervisors)")
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of standard output")
    p.set_defaults(handler=run)


def _depth(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid depth {text!r}: a whole number of 0 or more") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid depth {text!r}: a whole number of 0 or more")
    return value


def run(args: argparse.Namespace) -> int:
    with paused_gc():  # a short-lived command: collecting cycles would only slow it down
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        check_inputs(args.paths)
        if args.output is not None:
            output_path(args.output, "--output")
    except PathRefused as refused:
        _error(str(refused))
        return 2
    projects, problems = load_projects(args.paths)
    if problems:
        _error(f"cannot read {problems[0]}")
        return 2
    graphs = [(project, project.graph()) for project in projects]
    if args.agent is not None:
        found, suggestion = find_agent((g for _, g in graphs), args.agent)
        if not found:
            hint = f" (did you mean {suggestion}?)" if suggestion else ""
            _error(f"no agent or supervisor named {args.agent}{hint}")
            return 2
    base = os.path.commonpath([p.root for p in projects]) if len(projects) > 1 else ""
    views = []
    for project, graph in graphs:
        if args.agent is not None and graph.node(args.agent) is None:
            continue
        view = graph_view(graph, checked_diagnostics(project), args.agent, args.depth)
        views.append((project_label(project, base), view))
    text = _render(args.format, merge_views(views) if views else None, " ".join(args.paths))
    return _write(text, args.output)


def _render(fmt: str, view: GraphView | None, title: str) -> str:
    view = view if view is not None else GraphView([], [], {}, [], [], [], [])
    if fmt == "json":
        return json.dumps(to_json(view), indent=2, ensure_ascii=False) + "\n"
    if fmt == "html":
        from abl.cli.graph_page import to_html

        return to_html(to_json(view), f"Handoff graph: {title}")
    from abl.cli.graph_text import to_dot, to_mermaid

    return to_dot(view) if fmt == "dot" else to_mermaid(view)


def _write(text: str, output: str | None) -> int:
    if output is None:
        sys.stdout.write(text)
        return 0
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as err:
        _error(f"cannot write {output}: {err.strerror or err}")
        return 2
    return 0


def _error(message: str) -> None:
    print(f"abl graph: error: {message}", file=sys.stderr)
