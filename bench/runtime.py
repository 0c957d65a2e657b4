"""Benchmark: turns per second and memory per session of the embedded runtime.

    .venv/bin/python bench/runtime.py [--turns 3000] [--sessions 10000]

Runs conversations of three kinds with the embedded model and the trace on, and reports turns
per second on one core for each kind, counted in the process's own CPU time (so that other work
on a shared machine does not count):

- routing: the seeds' scenarios (the loan supervisor's gate-and-return, the retail hub's three
  routes);
- flow: the furniture delivery desk's FLOW (gathering, a correction, a digression, a tool call
  with TRANSFORM, buttons, an answer, completion);
- tools: a reasoning agent that chooses and calls its tools through the model, and a flow's
  reasoning step that exits once its tool was called.

Then it holds many sessions in memory at once (each after one turn) and reports the memory
per session, measured with tracemalloc.

Last, one long conversation as `abl run --session FILE --trace-out FILE` runs it (the CLI's own
driver, the files on disk): 1,250 to 10,000 turns of the retail hub's script, with the time per
turn at each length and the size of both files; then the same with `--record FILE` alone (the
conversation written as a conversation test). Linear means the time per turn stays flat as the
conversation grows (each file is appended to, not rewritten, after each turn).
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))

from abl.cli.driver import Driver  # noqa: E402
from abl.runtime import RuntimeOptions, start_session  # noqa: E402
from abl.runtime.testing.recorder import Recording  # noqa: E402
from abl.workspace import Project, load_project  # noqa: E402

SCENARIOS_DIR = ROOT / "tests" / "runtime" / "scenarios"


@dataclass(frozen=True)
class Scenario:
    folder: Path
    agent: str
    script: tuple[str, ...]
    mocks: dict[str, Any]


SLOTS = {
    "slots": [
        {"day": "Tuesday", "start": "14:00", "period": "afternoon"},
        {"day": "Wednesday", "start": "09:00", "period": "morning"},
        {"day": "Monday", "start": "10:30", "period": "morning"},
    ]
}
POLICY = {"cover": "home contents", "renewal": "2026-09-01"}
CLAIMS = {"claims": [{"claim_id": "C-9", "status": "open"}]}

KINDS: dict[str, tuple[Scenario, ...]] = {
    "routing": (
        Scenario(
            ROOT / "examples" / "loan-supervisor",
            "Loan_Supervisor",
            ("I want a loan offer", "85,000", "what rates can I get?"),
            {},
        ),
        Scenario(
            ROOT / "examples" / "retail-hub",
            "Retail_Hub",
            ("hi there", "I have a question", "where is my order ORD-20931?", "thanks"),
            {},
        ),
    ),
    "flow": (
        Scenario(
            SCENARIOS_DIR / "furniture-delivery",
            "Delivery_Desk",
            (
                "hi",
                "FN-1234 with 2 items",
                "what are your opening hours?",
                "SW1",
                "actually it is 3 items",
                "First morning slot",
                "maybe",
                "yes",
            ),
            {"find_slots": SLOTS, "book_slot": {"booking_id": "BK-77"}},
        ),
    ),
    "tools": (
        Scenario(
            SCENARIOS_DIR / "insurance-assistant",
            "Policy_Assistant",
            ("what does my policy cover?", "P-1001", "and do I have any open claims?", "thanks"),
            {"get_policy": POLICY, "list_claims": CLAIMS},
        ),
        Scenario(
            SCENARIOS_DIR / "insurance-assistant",
            "Claims_Intake",
            ("I want to report a burst pipe", "P-1001", "do I have open claims already?"),
            {"list_claims": CLAIMS},
        ),
    ),
}


def run_turns(projects: dict[Path, Project], scenarios: tuple[Scenario, ...], total: int) -> tuple[int, float, int]:
    turns = 0
    events = 0
    t0 = time.process_time()
    while turns < total:
        for scenario in scenarios:
            session = start_session(projects[scenario.folder], scenario.agent, RuntimeOptions(mocks=scenario.mocks))
            for message in scenario.script:
                session.send(message)
                turns += 1
            events += len(session.trace)
    return turns, time.process_time() - t0, events


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


def long_conversation(
    project: Project, turns: int, folder: Path, record: bool = False
) -> tuple[float, float, list[int]]:
    """(CPU seconds, wall seconds, file sizes in bytes) for `turns` turns with the files kept up
    to date after every turn: the session and the trace, or (`record`) the recorded test alone."""
    script = KINDS["routing"][1].script
    session = start_session(project, "Retail_Hub", RuntimeOptions(trace_level="debug"))
    if record:
        files = [folder / f"{turns}.abltest.yaml"]
        recording = Recording(
            project=folder,
            agent="Retail_Hub",
            greeting=tuple((r.agent, r.text) for r in session.greeting),
            start_events=tuple(e.to_dict() for e in session.trace),
        )
        driver = Driver(session, project, "Retail_Hub", recording=recording, record_path=files[0])
    else:
        files = [folder / f"{turns}.session", folder / f"{turns}.trace.jsonl"]
        driver = Driver(session, project, "Retail_Hub", trace_out=files[1], session_file=files[0])
    driver.persist()
    t0, w0 = time.process_time(), time.perf_counter()
    for index in range(turns):
        driver.send(script[index % len(script)])
    seconds, wall = time.process_time() - t0, time.perf_counter() - w0
    assert not driver.problems, driver.problems
    return seconds, wall, [f.stat().st_size for f in files]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=3000, help="turns per kind")
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--long", type=int, default=10_000, help="turns of the longest conversation with --session")
    ap.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help="the kinds of conversation to run, comma-separated; with --sessions 0 --long 0 nothing else runs "
        "(to count instructions per turn under callgrind, which a busy machine does not change)",
    )
    args = ap.parse_args()
    kinds = [kind.strip() for kind in args.kinds.split(",") if kind.strip()]
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown or not kinds:
        ap.error(f"--kinds: choose among {', '.join(KINDS)} (got {args.kinds!r})")
    folders = {s.folder for kind in kinds for s in KINDS[kind]}
    projects = {folder: load_project([str(folder)])[0] for folder in folders}
    all_turns = all_seconds = 0.0
    for kind in kinds:
        scenarios = KINDS[kind]
        run_turns(projects, scenarios, 50)  # warm caches (parsed conditions, compiled patterns, plans)
        turns, secs, events = run_turns(projects, scenarios, args.turns)
        all_turns += turns
        all_seconds += secs
        print(
            f"{kind:8} {turns} turns in {secs:.2f} CPU s: {turns / secs:,.0f} turns/s with the trace on "
            f"({events / turns:.1f} events per turn)"
        )
    print(f"{'all':8} {all_turns / all_seconds:,.0f} turns/s")
    if args.sessions > 0:
        per = memory_per_session(args.sessions)
        print(
            f"{args.sessions:,} sessions held at once: {per / 1024:.1f} KiB per session "
            f"({per * args.sessions / 2**20:.0f} MiB in all)"
        )
    if args.long <= 0:
        return 0
    hub = projects.get(KINDS["routing"][1].folder) or load_project([str(KINDS["routing"][1].folder)])[0]
    lengths = (args.long // 8, args.long // 4, args.long // 2, args.long)
    with tempfile.TemporaryDirectory() as folder:
        for turns in lengths:
            seconds, wall, (session_bytes, trace_bytes) = long_conversation(hub, turns, Path(folder))
            print(
                f"{turns:>6,} turns with --session and --trace-out: {seconds:6.2f} CPU s ({wall:.2f} s wall), "
                f"{seconds / turns * 1000:.2f} ms per turn; session file {session_bytes / 2**20:.1f} MiB, "
                f"trace file {trace_bytes / 2**20:.1f} MiB"
            )
        for turns in lengths:
            seconds, wall, (test_bytes,) = long_conversation(hub, turns, Path(folder), record=True)
            print(
                f"{turns:>6,} turns with --record: {seconds:6.2f} CPU s ({wall:.2f} s wall), "
                f"{seconds / turns * 1000:.2f} ms per turn; recorded test {test_bytes / 2**20:.1f} MiB"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
