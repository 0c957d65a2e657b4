"""Benchmark: building the handoff graph of a large workspace, from scratch and after an edit.

    .venv/bin/python bench/graph.py [--files 200] [--lines 20000] [--edits 100] [--seed 1]

Writes a generated project (`generate.py`'s `write_project`) of at least `--lines` lines in
`--files` files of equal size, loads it, and times:

- from scratch: `build_graph` over every agent (edges, hand-backs, reachability, cycles);
- after an edit: `Project.edit` of one file (one agent's route made returnable or permanent in
  turn, so the graph really changes), then `Project.graph()`, which re-reads the edges of the
  edited agents only and redoes the analyses; only the graph build is timed;
- `abl/graph`'s work on top: the problems on each edge and the JSON export
  (`graph_view` + `to_json`, with the project's diagnostics computed beforehand).

It prints the median and 95th percentile of each. Every tenth edit, the graph is compared with
one built from scratch; a difference stops the run.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "server"))
sys.path.insert(0, str(HERE))

from abl.checks.engine import check_project  # noqa: E402
from abl.ide.graph import graph_view, to_json  # noqa: E402
from abl.workspace import load_projects  # noqa: E402
from abl.workspace.graph import build_graph  # noqa: E402
from generate import agents_for_lines, write_project  # noqa: E402


def timed(fn) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = fn()
    return (time.perf_counter() - start) * 1000, result


def report(name: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(f"| {name} | {statistics.median(samples):.1f} | {p95:.1f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    # Exactly `--files` files of equal size, at least `--lines` lines in all.
    per_file = max(1, -(-agents_for_lines(args.lines) // args.files))
    n_agents = per_file * args.files
    with tempfile.TemporaryDirectory() as folder:
        paths = write_project(Path(folder) / "project", n_agents, per_file)
        projects, problems = load_projects([str(Path(folder) / "project")])
        assert not problems and len(projects) == 1
        project = projects[0]
        lines = sum(text.count("\n") + 1 for text in project.texts.values())
        print(f"{n_agents} agents, {len(paths)} files, {lines} lines\n")

        gc.disable()  # as in the server while it analyses: no collection inside a timing
        agents = [ref.agent for ref in project.all_agents()]
        scratch = [timed(lambda: build_graph(agents))[0] for _ in range(10)]

        rng = random.Random(args.seed)
        after_edit: list[float] = []
        for i in range(args.edits):
            path = str(rng.choice(paths))
            text = project.texts[path]
            flip = (
                ("    RETURN: false\n", "    RETURN: true\n")
                if i % 2 == 0
                else ("    RETURN: true\n", "    RETURN: false\n")
            )
            at = text.find(flip[0])
            if at < 0:
                flip = flip[::-1]
                at = text.find(flip[0])
            project.edit(path, text[:at] + flip[1] + text[at + len(flip[0]) :])
            ms, graph = timed(project.graph)
            after_edit.append(ms)
            if i % 10 == 0:
                fresh = build_graph(ref.agent for ref in project.all_agents())
                if fresh.fingerprint() != graph.fingerprint():  # type: ignore[attr-defined]
                    print("the graph after an edit differs from one built from scratch", file=sys.stderr)
                    return 1

        diagnostics = check_project(project)
        export = [timed(lambda: to_json(graph_view(project.graph(), diagnostics)))[0] for _ in range(10)]
        gc.enable()

    print("| graph | median ms | p95 ms |")
    print("|---|---|---|")
    report("from scratch", scratch)
    report("after an edit (one file re-read, analyses redone)", after_edit)
    report("problems per edge + JSON export", export)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
