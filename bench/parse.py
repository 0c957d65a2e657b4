"""Benchmark: parser and `abl check` against PyYAML on the same content, in one run.

    .venv/bin/python bench/parse.py [--lines 50000] [--reps 5]

Prints lines/second for: our parser alone (text → lossless tree with positions), parse + lower
to the model, `abl check` in-process with every rule on, `abl check` as a subprocess end to end
(interpreter start-up included), and PyYAML's C and pure-Python loaders on the same content
rendered as YAML. Ratios are against PyYAML measured in the same run, so they travel between
machines better than seconds do.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "server"))
sys.path.insert(0, str(HERE))

from abl.checks.engine import check_project  # noqa: E402
from abl.gcpause import paused_gc  # noqa: E402
from abl.model import load_document  # noqa: E402
from abl.syntax import parse  # noqa: E402
from abl.workspace import Project, load_project  # noqa: E402
from generate import agents_for_lines, project, project_yaml, write_project  # noqa: E402


def timed(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=50_000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()

    n_agents = agents_for_lines(args.lines)
    text = project(n_agents)
    lines = text.count("\n")
    yaml_text = project_yaml(n_agents)
    print(
        f"{n_agents} agents, {lines} lines of ABL ({len(text) / 1e6:.2f} MB); YAML rendering {yaml_text.count(chr(10))} lines"
    )

    rows: list[tuple[str, float]] = []
    rows.append(("parser (lossless tree, positions)", timed(lambda: parse(text), args.reps)))
    rows.append(("parse + lower to model", timed(lambda: load_document(text, "bench.abl"), args.reps)))

    def check_in_process() -> None:
        with paused_gc():  # as `abl check` does
            p = Project("/bench")
            p.update("/bench/agents.abl", text)
            check_project(p)

    rows.append(("abl check, in process, all rules", timed(check_in_process, args.reps)))

    with tempfile.TemporaryDirectory() as tmp:
        write_project(Path(tmp), n_agents)
        cmd = [sys.executable, "-m", "abl", "check", "--format", "json", tmp]
        env = {"PYTHONPATH": str(HERE.parent / "server")}
        import os

        env = {**os.environ, **env}
        rows.append(
            (
                "abl check, subprocess end to end",
                timed(lambda: subprocess.run(cmd, env=env, capture_output=True), max(1, args.reps // 2)),
            )
        )
        project_on_disk, _ = load_project([tmp])
        del project_on_disk

    import yaml

    if getattr(yaml, "__with_libyaml__", False):
        rows.append(("PyYAML CSafeLoader (C)", timed(lambda: yaml.load(yaml_text, Loader=yaml.CSafeLoader), args.reps)))
    rows.append(
        (
            "PyYAML SafeLoader (pure Python)",
            timed(lambda: yaml.load(yaml_text, Loader=yaml.SafeLoader), max(1, args.reps // 2)),
        )
    )

    pure = dict(rows)["PyYAML SafeLoader (pure Python)"]
    print(f"\n{'what':<38} {'seconds':>9} {'lines/s':>10} {'vs pure PyYAML':>15}")
    for name, secs in rows:
        print(f"{name:<38} {secs:>9.3f} {lines / secs:>10,.0f} {pure / secs:>14.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
