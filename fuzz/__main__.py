"""`python -m fuzz`: run the fuzzer for a time budget and print what it found.

    python -m fuzz --budget 40s                        # the CI-sized run
    python -m fuzz --budget 8h --out fuzz/findings     # a long run, failures kept as files
    python -m fuzz --targets check,ide --seed 7 --budget 10m

Exit status: 0 when every input held, 1 when something failed (each distinct failure is
listed, and written to `--out` when given).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from fuzz.runner import SLOW_SECONDS_PER_10KB, Fuzzer, Report  # noqa: E402
from fuzz.targets import TARGETS  # noqa: E402

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*(s|m|h)?$")


def duration(text: str) -> float:
    match = _DURATION.match(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration such as 40s, 10m or 2h")
    return float(match.group(1)) * {"s": 1, "m": 60, "h": 3600, None: 1}[match.group(2)]


def target_list(text: str) -> list[str]:
    chosen = list(TARGETS) if text == "all" else [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in chosen if t not in TARGETS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown target(s) {', '.join(unknown)}; known: {', '.join(TARGETS)}")
    return chosen


def write_stats(path: Path, report: Report, seed: int) -> None:
    figures = {
        "seed": seed,
        "seconds": report.seconds,
        "inputs": report.inputs,
        "slow_limit_seconds_per_10kb": SLOW_SECONDS_PER_10KB,
        "targets": {
            name: {k: v for k, v in vars(s).items() if k != "slowest_files"} for name, s in report.stats.items()
        },
        "failures": [{"target": f.target, "kind": f.kind, "signature": f.signature} for f in report.failures],
    }
    path.write_text(json.dumps(figures, indent=2), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=duration, default=duration("40s"), help="how long to run (40s, 10m, 2h)")
    ap.add_argument(
        "--targets", type=target_list, default=list(TARGETS), help=f"comma-separated, or all: {', '.join(TARGETS)}"
    )
    ap.add_argument(
        "--seed", type=int, default=0, help="seed of the random choices (which target runs next depends on timings too)"
    )
    ap.add_argument("--max-inputs", type=int, help="stop after this many inputs")
    ap.add_argument("--out", type=Path, help="folder to write each distinct failure to")
    ap.add_argument("--stats", type=Path, help="write the figures of the run as JSON")
    ap.add_argument("--reduce", type=duration, default=duration("30s"), help="time to shrink each failure")
    ap.add_argument("--progress", type=duration, default=0.0, help="print a progress line this often")
    args = ap.parse_args(argv)

    fuzzer = Fuzzer(args.targets, args.seed, args.out, reduce_seconds=args.reduce)

    def keep(report: Report) -> None:
        if args.stats is not None:
            write_stats(args.stats, report, args.seed)

    report = fuzzer.run(args.budget, args.max_inputs, args.progress, keep)
    keep(report)

    print(f"{report.inputs:,} inputs in {report.seconds:.0f} s, seed {args.seed}")
    print(f"{'target':<10} {'inputs':>10} {'KB':>9} {'seconds':>9} {'failures':>9} {'slowest s/10KB':>15}")
    for name, s in report.stats.items():
        print(
            f"{name:<10} {s.inputs:>10,} {s.input_bytes / 1024:>9,.0f} {s.seconds:>9.1f} {s.failures:>9} "
            f"{s.slowest_per_10kb:>15.3f}  {s.slowest_input}"
        )
    for failure in report.failures:
        print(f"FAILED {failure.kind}: {failure.signature}")
    return 1 if report.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
