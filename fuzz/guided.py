"""Coverage-guided fuzzing with atheris (libFuzzer for Python): the checker's code is
instrumented, and inputs that reach new branches are kept and mutated further.

    python -m fuzz.guided --target check -- -max_total_time=600 -jobs=1 fuzz/guided-corpus
    python -m fuzz.guided --target ide -- -runs=100000

The input bytes are one file of a project (for the runtime loaders, one file of theirs; for the
runtime, a whole case: the project's files and `/conversation.jsonl` after `#- /path` lines, as
`tests/hardening/regressions/` keeps them). The corpus folder given to libFuzzer is seeded with
the repository's ABL files (for the runtime, its conversation tests) on the first run.
A failure is an exception escaping a target, which libFuzzer reports with the input it saved.
Needs `pip install atheris` (a binary wheel exists for CPython 3.11 on x86-64 Linux).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _seed(corpus: Path, target: str) -> None:
    """Put the repository's ABL files (for the runtime, its conversation tests as cases) into an
    empty corpus folder, so libFuzzer starts from real files rather than from nothing."""
    from fuzz.conversations import repository_runs
    from fuzz.corpus import repository_projects
    from fuzz.runner import write_case

    corpus.mkdir(parents=True, exist_ok=True)
    if any(corpus.iterdir()):
        return
    if target == "run":
        for i, files in enumerate(repository_runs()):
            write_case(corpus / f"seed-{i:04d}", files)
        return
    for i, files in enumerate(repository_projects()):
        for j, data in enumerate(files.values()):
            (corpus / f"seed-{i:04d}-{j}").write_bytes(data)


def main() -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz.guided", description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="check", help="parse, lower, check, fix, ide, session, mocks, test_file, run")
    ap.add_argument("libfuzzer", nargs=argparse.REMAINDER, help="after --: libFuzzer's own options and corpus")
    args = ap.parse_args()
    try:
        import atheris
    except ImportError:
        print("python -m fuzz.guided: atheris is not installed (pip install atheris)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT / "server"))
    with atheris.instrument_imports(include=["abl"]):
        from fuzz.runner import split_case
        from fuzz.targets import TARGETS
    if args.target not in TARGETS:
        print(f"python -m fuzz.guided: unknown target {args.target!r}; known: {', '.join(TARGETS)}", file=sys.stderr)
        return 2
    target = TARGETS[args.target]
    name = "/project/main.agent.abl" if args.target not in ("session", "mocks", "test_file") else "/input/file.yaml"
    options = [a for a in args.libfuzzer if a != "--"]
    for option in options:
        if not option.startswith("-"):
            _seed(Path(option), args.target)

    def one_input(data: bytes) -> None:
        target(split_case(data) if args.target == "run" else {name: data})

    atheris.Setup([sys.argv[0], *options], one_input)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
