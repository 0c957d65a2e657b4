"""Benchmark: turns per second and memory per session of the embedded runtime.

    python bench/runtime.py [--turns 3000] [--sessions 10000]

Runs the seeds' scenarios (the loan supervisor's gate-and-return, the retail hub's three
routes) with the embedded model and the trace on, and reports turns per second on one core.
Then it holds many sessions in memory at once (each after one turn) and reports the memory
per session, measured with tracemalloc.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))

from abl.runtime import RuntimeOptions, start_session  # noqa: E402
from abl.workspace import load_project  # noqa: E402

SCENARIOS = {
    "loan-supervisor": ("Loan_Supervisor", ["I want a loan offer", "85,000", "what rates can I get?"]),
    "retail-hub": (
        "Retail_Hub",
        ["hi there", "I have a question", "where is my order ORD-20931?", "thanks"],
    ),
}


def run_turns(projects: dict, total: int) -> tuple[int, float, int]:
    turns = 0
    events = 0
    t0 = time.perf_counter()
    while turns < total:
        for folder, (agent, script) in SCENARIOS.items():
            session = start_session(projects[folder], agent, RuntimeOptions())
            for message in script:
                session.send(message)
                turns += 1
            events += len(session.trace)
    return turns, time.perf_counter() - t0, events


def memory_per_session(count: int) -> float:
    project, _ = load_project([str(ROOT / "examples" / "loan-supervisor")])
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    sessions = []
    for _ in range(count):
        s = start_session(project, "Loan_Supervisor", RuntimeOptions())
        s.send("I want a loan offer")
        sessions.append(s)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(sessions) == count
    return (after - before) / count


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=3000)
    ap.add_argument("--sessions", type=int, default=10_000)
    args = ap.parse_args()
    projects = {folder: load_project([str(ROOT / "examples" / folder)])[0] for folder in SCENARIOS}
    run_turns(projects, 50)  # warm caches (parsed conditions, compiled patterns)
    turns, secs, events = run_turns(projects, args.turns)
    print(f"{turns} turns in {secs:.2f} s: {turns / secs:,.0f} turns/s with the trace on ({events / turns:.1f} events per turn)")
    per = memory_per_session(args.sessions)
    print(f"{args.sessions:,} sessions held at once: {per / 1024:.1f} KiB per session ({per * args.sessions / 2**20:.0f} MiB in all)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
