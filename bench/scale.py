"""Benchmark: how `abl check` grows with its input, in time and peak memory.

    .venv/bin/python bench/scale.py                      # both series, in process
    .venv/bin/python bench/scale.py --cli                # also `abl check` as a command, end to end
    .venv/bin/python bench/scale.py --series routes --max-routes 8000

Two series of growing inputs, each point checked in a fresh interpreter so that its peak
memory is its own:

- `realistic`: one file of agents shaped like the documentation's (bench/generate.py: goal,
  persona, gather, memory, returnable and permanent routes, complete), from 1 KB to 10 MB;
- `routes`: one supervisor with 1,000 to 20,000 routes (each with `WHEN`, `PASS`, history,
  `ON_RETURN` with a `MAP`, `ON_FAILURE`) to 50 agents.

For each point: the input's size, the seconds `abl check` takes in process (reading the file,
parsing, lowering, every rule, the report written to /dev/null), the peak memory above the
interpreter's own, and the growth per doubling of the input: 2.0 is linear time, 4.0 quadratic.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "server"))
sys.path.insert(0, str(HERE))

from generate import agent_text  # noqa: E402

KB = 1024
# The largest file `abl check` reads is 10 MiB (`abl.syntax.limits.MAX_FILE_BYTES`).
REALISTIC_SIZES = [KB * 2**i for i in range(0, 14)] + [10_000_000]
ROUTE_COUNTS = [1_000, 2_000, 4_000, 8_000, 16_000, 20_000]
CHILDREN = 50


def realistic(size: int) -> str:
    """Whole agents up to about `size` bytes (at least one)."""
    per_agent = len(agent_text(0, 2)) + 1
    n = max(1, round(size / per_agent))
    return "\n".join(agent_text(i, n) for i in range(n))


def routes(count: int) -> str:
    lines = [
        "SUPERVISOR: Hub",
        'GOAL: "Send every request to the agent that handles it"',
        "GATHER:",
        "  order_id:",
        '    PROMPT: "What is your order number?"',
        "    TYPE: string",
        "HANDOFF:",
    ]
    for i in range(count):
        lines += [
            f"  - TO: Agent_{i % CHILDREN:02d}",
            f'    WHEN: intent.category == "request_{i}"',
            "    PASS: [order_id]",
            f"    HISTORY: {('full', 'last_5', 'summary_only', 'none')[i % 4]}",
            "    RETURN: true",
            "    ON_RETURN:",
            "      action: resume_intent",
            "      MAP:",
            "        order_id: order_id",
            "    ON_FAILURE: continue",
        ]
    for j in range(CHILDREN):
        lines += [
            f"AGENT: Agent_{j:02d}",
            f'GOAL: "Handle requests of family {j}"',
            "GATHER:",
            "  order_id:",
            '    PROMPT: "What is your order number?"',
            "    TYPE: string",
            "COMPLETE:",
            "  - WHEN: order_id IS SET",
            '    RESPOND: "Done with {{order_id}}."',
        ]
    return "\n".join(lines) + "\n"


SERIES = {"realistic": realistic, "routes": routes}


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def measure_point(path: str) -> dict[str, float]:
    """One point, in this process: `abl check` on the file as the CLI runs it."""
    from abl.cli.main import main as abl_main

    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
        # A first, tiny check loads the grammars and the rules: what follows is the input's own cost.
        warm = Path(tmp) / "warm.agent.abl"
        warm.write_text(realistic(1), encoding="utf-8")
        abl_main(["check", "--statistics", str(warm)])
    baseline = _peak_rss_mb()  # the interpreter with `abl` loaded and warm
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = abl_main(["check", "--statistics", path])
    seconds = time.perf_counter() - started
    return {"bytes": Path(path).stat().st_size, "seconds": seconds, "peak_mb": _peak_rss_mb() - baseline, "exit": code}


def measure_cli(path: str) -> dict[str, float]:
    """`abl check` as a command (interpreter start-up included): wall time and peak memory."""
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "server")}
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "abl", "check", "--statistics", path],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, _, usage = os.wait4(child.pid, 0)
    return {"seconds": time.perf_counter() - started, "peak_mb": usage.ru_maxrss / 1024}


def _in_fresh_interpreter(path: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--point", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"measuring {path} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _per_doubling(before: tuple[float, float], after: tuple[float, float]) -> str:
    (x0, y0), (x1, y1) = before, after
    if x1 <= x0 or y0 <= 0 or y1 <= 0:
        return "-"
    return f"{(y1 / y0) ** (1 / math.log2(x1 / x0)):.2f}"


def _size(nbytes: float) -> str:
    if nbytes >= 1_000_000:
        return f"{nbytes / 1e6:.1f} MB"
    return f"{nbytes / 1e3:.0f} KB"


def run_series(series: str, points: list[int], cli: bool) -> None:
    unit = "routes" if series == "routes" else "input"
    head = f"{unit:>8} {'size':>9} {'seconds':>9} {'x/2x':>5} {'peak MB':>8} {'x/2x':>5}"
    if cli:
        head += f" {'CLI s':>7} {'CLI MB':>7}"
    print(f"\n{series}: abl check in process, per point in a fresh interpreter")
    print(head)
    previous: dict[str, float] | None = None
    for point in points:
        with tempfile.TemporaryDirectory() as tmp:
            path = str(Path(tmp) / "input.agent.abl")
            Path(path).write_text(SERIES[series](point), encoding="utf-8")
            row = _in_fresh_interpreter(path)
            whole = measure_cli(path) if cli else None
        label = f"{point:,}" if series == "routes" else _size(point)
        time_growth = mem_growth = "-"
        if previous is not None:
            time_growth = _per_doubling((previous["bytes"], previous["seconds"]), (row["bytes"], row["seconds"]))
            mem_growth = _per_doubling((previous["bytes"], previous["peak_mb"]), (row["bytes"], row["peak_mb"]))
        line = (
            f"{label:>8} {_size(row['bytes']):>9} {row['seconds']:>9.3f} {time_growth:>5} "
            f"{row['peak_mb']:>8.1f} {mem_growth:>5}"
        )
        if whole is not None:
            line += f" {whole['seconds']:>7.2f} {whole['peak_mb']:>7.0f}"
        print(line, flush=True)
        previous = row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--series", choices=[*SERIES, "all"], default="all")
    ap.add_argument("--max-bytes", type=int, default=REALISTIC_SIZES[-1], help="largest realistic input")
    ap.add_argument("--max-routes", type=int, default=ROUTE_COUNTS[-1], help="largest route count")
    ap.add_argument("--cli", action="store_true", help="also time `abl check` as a command")
    ap.add_argument("--point", metavar="FILE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.point:
        print(json.dumps(measure_point(args.point)))
        return 0
    if args.series in ("realistic", "all"):
        run_series("realistic", [s for s in REALISTIC_SIZES if s <= args.max_bytes], args.cli)
    if args.series in ("routes", "all"):
        run_series("routes", [n for n in ROUTE_COUNTS if n <= args.max_routes], args.cli)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
