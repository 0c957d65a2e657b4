"""Benchmark: re-checking a project after a small edit, incrementally versus from scratch.

    .venv/bin/python bench/incremental.py [--lines 5000] [--edits 200] [--per-file 20] [--seed 1]

On a generated project (`generate.py`), laid out once as a single file and once as files of
`--per-file` agents, it times:

- from scratch: parse, lower and check every file (a new `Project`, no cache);
- incremental: `Project.edit` of one file (reparse + relower of the changed blocks) and
  `check_project` with a `CheckCache`, for `--edits` edits that each change one character inside
  one agent's `GOAL` text (rows do not move), and the same for edits that insert a comment line
  inside an agent (every block below moves down a row).

It prints the median and 95th percentile of each, and the ratio of the from-scratch median to
the incremental median. Every tenth edit, the incremental result is compared with a check from
scratch; a difference stops the run.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "server"))
sys.path.insert(0, str(HERE))

from abl.checks.cache import CheckCache  # noqa: E402
from abl.checks.engine import check_project  # noqa: E402
from abl.workspace import Project  # noqa: E402
from generate import agent_text, agents_for_lines  # noqa: E402


def layout(n_agents: int, per_file: int) -> dict[str, str]:
    """The project's files: agents `per_file` at a time (all in one file when per_file >= n)."""
    files = {}
    for start in range(0, n_agents, per_file):
        names = range(start, min(n_agents, start + per_file))
        files[f"/bench/agents_{start:05d}.agent.abl"] = "\n".join(agent_text(i, n_agents) for i in names)
    return files


def from_scratch(files: dict[str, str]) -> dict:
    project = Project("/bench")
    for path, text in files.items():
        project.update(path, text)
    return check_project(project)


def percentile(xs: list[float], q: float) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


Edit = Callable[[random.Random, str], str]


def change_goal_character(rnd: random.Random, text: str) -> str:
    """Replace one letter of one agent's GOAL text with another letter."""
    goals = [i for i in range(len(text)) if text.startswith('GOAL: "', i)]
    at = rnd.choice(goals) + len('GOAL: "') + rnd.randrange(6)
    letter = rnd.choice([c for c in "abcdefghijklmnopqrstuvwxyz" if c != text[at]])
    return text[:at] + letter + text[at + 1 :]


def insert_comment_line(rnd: random.Random, text: str) -> str:
    """Insert a comment line just after one agent's `GATHER:` line (every line below moves)."""
    spots = [i + len("GATHER:\n") for i in range(len(text)) if text.startswith("GATHER:\n", i)]
    at = rnd.choice(spots)
    return text[:at] + f"  # note {rnd.randrange(10**6)}\n" + text[at:]


def run_edits(files: dict[str, str], edit: Edit, count: int, seed: int) -> tuple[list[float], list[float]]:
    """(total times, times of `Project.edit` alone) of `count` edits, each followed by a check."""
    rnd = random.Random(seed)
    project = Project("/bench")
    for path, text in files.items():
        project.update(path, text)
    cache = CheckCache()
    check_project(project, cache=cache)
    current = dict(files)
    times: list[float] = []
    edits: list[float] = []
    for k in range(count):
        path = rnd.choice(sorted(current))
        current[path] = edit(rnd, current[path])
        gc.collect()
        t0 = time.perf_counter()
        project.edit(path, current[path])
        t1 = time.perf_counter()
        result = check_project(project, cache=cache)
        times.append(time.perf_counter() - t0)
        edits.append(t1 - t0)
        if k % 10 == 0 and result != from_scratch(current):
            raise SystemExit(f"edit {k}: the incremental check differs from a check from scratch")
    return times, edits


def timed(fn: Callable[[], object], reps: int) -> list[float]:
    times = []
    for _ in range(reps):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=5_000)
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--per-file", type=int, default=20)
    ap.add_argument("--reps", type=int, default=15, help="from-scratch repetitions")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    n_agents = agents_for_lines(args.lines)
    print(f"{n_agents} agents, about {args.lines} lines; {args.edits} edits per row; times in milliseconds\n")
    header = f"{'layout':<22} {'what':<44} {'median':>8} {'p95':>8} {'speed-up':>9}   {'of which reparse + relower (median)'}"
    print(header)
    print("-" * len(header))
    for label, per_file in (("one file", n_agents), (f"files of {args.per_file} agents", args.per_file)):
        files = layout(n_agents, per_file)
        full = timed(partial(from_scratch, files), args.reps)
        full_median = statistics.median(full)
        rows: list[tuple[str, list[float], list[float] | None]] = [("parse + lower + check, from scratch", full, None)]
        for what, edit in (
            ("one character in one agent, incremental", change_goal_character),
            ("a new line in one agent, incremental", insert_comment_line),
        ):
            times, edits = run_edits(files, edit, args.edits, args.seed)
            rows.append((what, times, edits))
        for what, times, edits in rows:
            median = statistics.median(times)
            speed = f"{full_median / median:>8.1f}x" if edits is not None else f"{'':>9}"
            part = f"   {statistics.median(edits) * 1e3:.1f}" if edits is not None else ""
            print(f"{label:<22} {what:<44} {median * 1e3:>8.1f} {percentile(times, 0.95) * 1e3:>8.1f} {speed}{part}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
