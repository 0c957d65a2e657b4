"""The fuzzing loop: starting points from `fuzz.corpus`, mutated by `fuzz.mutate`, run through
the targets of `fuzz.targets` within a time budget.

Targets share the budget by weight (the cheapest ones get through many more inputs). Each run
has a hard time limit (SIGALRM); an input slower than `SLOW_SECONDS_PER_10KB` per 10 KB is
recorded as slow. Every failure (an exception, a broken invariant, a hang, a slow input) is
reduced to a small input that fails the same way and written to the output folder, once per
distinct failure, as `<target>-<kind>-<digest>.abl` (files of a project separated by
`#- /path` lines, the format of `tests/hardening/regressions/`) with a `.txt` beside it saying
what happened.
"""

from __future__ import annotations

import hashlib
import random
import re
import signal
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fuzz import targets
from fuzz.conversations import CONVERSATION, mutate_conversation, mutate_project
from fuzz.corpus import Files, Pool
from fuzz.mutate import mutate, mutate_runtime_file, splice
from fuzz.reduce import reduce_files
from fuzz.targets import ABL_TARGETS, RUN_TARGETS, SLOW_SECONDS_PER_10KB, TARGETS, Broken, Slow

HARD_LIMIT_SECONDS = 20.0
# Share of the budget per target: parsing is cheap and gets many inputs, the editor features
# at every position are dear and get fewer.
WEIGHTS = {
    "parse": 1.0,
    "lower": 1.0,
    "check": 2.0,
    "fix": 1.5,
    "ide": 2.5,
    "edits": 1.5,
    "session": 0.6,
    "mocks": 0.4,
    "test_file": 0.6,
    "run": 2.0,
}
# Targets that hold each request (an editor feature, a turn, an edit) to the time limit
# themselves, rather than the whole run: one input makes many requests.
PER_REQUEST = ("ide", "run", "edits")


class Hang(BaseException):
    """Raised by the alarm inside a run that takes too long (a BaseException, so that the code
    under test cannot swallow it with `except Exception`)."""


@dataclass
class TargetStats:
    inputs: int = 0
    seconds: float = 0.0
    input_bytes: int = 0
    failures: int = 0
    slowest_per_10kb: float = 0.0
    slowest_input: str = ""
    slowest_files: Files = field(default_factory=dict, repr=False)


@dataclass
class Failure:
    target: str
    kind: str  # crash, broken, hang, slow
    signature: str
    detail: str
    files: Files


@dataclass
class Report:
    stats: dict[str, TargetStats] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def inputs(self) -> int:
        return sum(s.inputs for s in self.stats.values())


def per_10kb(seconds: float, files: Files) -> float:
    size = sum(len(data) for data in files.values())
    return seconds / max(1.0, size / 10_240)


def _signature(target: str, error: BaseException) -> str:
    """What makes two failures the same: the target, the exception type and where it was raised."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [f for f in frames if "/abl/" in f.filename] or frames
    where = f"{Path(ours[-1].filename).name}:{ours[-1].lineno}" if ours else "?"
    if isinstance(error, Broken):
        # What was broken, not where: the same range error at two rows is one failure.
        where = re.sub(r"\d+", "N", str(error).split(":")[-1])[:60]
    return f"{target}|{type(error).__name__}|{where}"


def _on_alarm(signum: int, frame: object) -> None:
    raise Hang()


def run_once(target: str, files: Files, limit: float = HARD_LIMIT_SECONDS) -> tuple[float, BaseException | None]:
    """Run one target on one input: its time, and what it raised (None when it held)."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    started = time.perf_counter()
    try:
        TARGETS[target](files)
        problem: BaseException | None = None
    except Hang as hang:
        problem = hang
    except Exception as error:
        problem = error
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return time.perf_counter() - started, problem


def classify(target: str, files: Files, seconds: float, problem: BaseException | None) -> tuple[str, str] | None:
    """(kind, signature) of a failed run, or None when it held and was fast enough."""
    if isinstance(problem, Hang):
        return "hang", f"{target}|hang"
    if isinstance(problem, Slow):
        # As below: one stalled request on a busy machine is not the input's doing unless it happens again.
        if isinstance(run_once(target, files)[1], Slow):
            return "slow", f"{target}|slow"
        return None
    if isinstance(problem, Broken):
        return "broken", _signature(target, problem)
    if problem is not None:
        return "crash", _signature(target, problem)
    if target not in PER_REQUEST and per_10kb(seconds, files) > SLOW_SECONDS_PER_10KB:
        # Timed again, twice: on a busy machine one run can stall; the fastest of three is the input's own.
        fastest = min(seconds, *(run_once(target, files)[0] for _ in range(2)))
        if per_10kb(fastest, files) > SLOW_SECONDS_PER_10KB:
            return "slow", f"{target}|slow"
    return None


def still_fails(target: str, kind: str, signature: str) -> Callable[[Files], bool]:
    def check(files: Files) -> bool:
        seconds, problem = run_once(target, files, limit=HARD_LIMIT_SECONDS if kind != "hang" else 5.0)
        found = classify(target, files, seconds, problem)
        return found is not None and found[0] == kind and (kind in ("hang", "slow") or found[1] == signature)

    return check


def write_case(path: Path, files: Files) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        b"".join(
            b"#- " + name.encode() + b"\n" + data + (b"" if data.endswith(b"\n") else b"\n")
            for name, data in files.items()
        )
    )


def write_failure(folder: Path, failure: Failure) -> Path:
    digest = hashlib.blake2b(failure.signature.encode(), digest_size=5).hexdigest()
    path = folder / f"{failure.target}-{failure.kind}-{digest}.abl"
    write_case(path, failure.files)
    path.with_suffix(".txt").write_text(f"{failure.signature}\n\n{failure.detail}\n", encoding="utf-8")
    return path


def read_case(path: Path) -> Files:
    """A case file written by `write_failure`: `#- /path` lines start each file. The newline
    that `write_failure` adds after a file lacking one is kept; the invariants do not depend on it."""
    return split_case(path.read_bytes())


def split_case(data: bytes) -> Files:
    """The files of a case's text (see `read_case`); text with no `#- /path` line is one file."""
    files: Files = {}
    current: str | None = None
    chunks: list[bytes] = []
    for line in data.splitlines(keepends=True):
        if line.startswith(b"#- /"):
            if current is not None:
                files[current] = b"".join(chunks)
            current = line[3:].strip().decode("utf-8", "replace")
            chunks = []
        else:
            chunks.append(line)
    if current is None:
        return {"/project/main.agent.abl": b"".join(chunks)}
    files[current] = b"".join(chunks)
    return files


class Fuzzer:
    def __init__(self, targets: list[str], seed: int, out: Path | None, reduce_seconds: float = 30.0) -> None:
        self.targets = targets
        self.rng = random.Random(seed)
        self.pool = Pool(self.rng)
        self.out = out
        self.reduce_seconds = reduce_seconds
        self.report = Report({t: TargetStats() for t in targets})
        self.seen: set[str] = set()

    def next_input(self, target: str) -> Files:
        if target in RUN_TARGETS:
            files = self.pool.run()
            if self.rng.random() < 0.8:
                files = {**files, CONVERSATION: mutate_conversation(files[CONVERSATION], self.rng)}
            if self.rng.random() < 0.3:
                files = mutate_project(files, self.rng)
            return files
        if target not in ABL_TARGETS:
            data = self.pool.runtime(target)
            return {f"/input/{target}.yaml": mutate_runtime_file(data, self.rng) if self.rng.random() < 0.9 else data}
        files = dict(self.pool.abl())
        if self.rng.random() < 0.1:
            return files  # some valid projects as they are
        paths = list(files)
        for path in self.rng.sample(paths, self.rng.randint(1, len(paths))):
            data = files[path]
            if self.rng.random() < 0.15:
                donor = self.rng.choice(list(self.pool.abl().values()))
                data = splice(data, self.rng, donor)
            files[path] = mutate(data, self.rng)
        return files

    def pick_target(self) -> str:
        return min(self.targets, key=lambda t: self.report.stats[t].seconds / WEIGHTS.get(t, 1.0))

    def step(self) -> None:
        target = self.pick_target()
        files = self.next_input(target)
        seconds, problem = run_once(target, files)
        stats = self.report.stats[target]
        stats.inputs += 1
        stats.seconds += seconds
        stats.input_bytes += sum(len(d) for d in files.values())
        # The limit of the editor and runtime targets is per request (an input makes many): their figures too.
        per_request = target in PER_REQUEST
        timed = targets.slowest_request if per_request else seconds
        rate = targets.slowest_request_rate if per_request else per_10kb(seconds, files)
        if rate > stats.slowest_per_10kb:
            stats.slowest_per_10kb = rate
            what = (
                {"run": "slowest turn", "edits": "slowest edit"}.get(target, "slowest request")
                if per_request
                else "run"
            )
            stats.slowest_input = f"{sum(len(d) for d in files.values())} bytes, {what} {timed:.3f} s"
            stats.slowest_files = files
        found = classify(target, files, seconds, problem)
        if found is not None:
            self.record(target, found, files, problem)

    def record(self, target: str, found: tuple[str, str], files: Files, problem: BaseException | None) -> None:
        kind, signature = found
        self.report.stats[target].failures += 1
        if signature in self.seen:
            return
        self.seen.add(signature)
        detail = "".join(traceback.format_exception(problem)) if problem is not None else "slow"
        small = reduce_files(files, still_fails(target, kind, signature), self.reduce_seconds)
        failure = Failure(target, kind, signature, detail, small)
        self.report.failures.append(failure)
        if self.out is not None:
            written = write_failure(self.out, failure)
            print(f"  {kind}: {signature} -> {written}", flush=True)

    def run(
        self,
        budget: float,
        max_inputs: int | None = None,
        progress: float = 0.0,
        on_progress: Callable[[Report], None] | None = None,
    ) -> Report:
        """Fuzz for `budget` seconds (or `max_inputs`); every `progress` seconds, print a line
        and hand the report so far to `on_progress` (a long run can be stopped at any time)."""
        started = time.perf_counter()
        next_note = started + progress if progress else float("inf")
        while time.perf_counter() - started < budget:
            if max_inputs is not None and self.report.inputs >= max_inputs:
                break
            self.step()
            if time.perf_counter() >= next_note:
                next_note += progress
                self.report.seconds = time.perf_counter() - started
                self.print_progress(self.report.seconds)
                self.keep_slowest()
                if on_progress is not None:
                    on_progress(self.report)
        self.report.seconds = time.perf_counter() - started
        self.keep_slowest()
        return self.report

    def keep_slowest(self) -> None:
        """The slowest input of each target, written to be timed again on a quiet machine."""
        if self.out is None:
            return
        for target, stats in self.report.stats.items():
            if stats.slowest_files:
                write_case(self.out / f"slowest-{target}.abl", stats.slowest_files)

    def print_progress(self, elapsed: float) -> None:
        parts = ", ".join(f"{t} {s.inputs}" for t, s in self.report.stats.items())
        print(
            f"[{elapsed:7.0f} s] {self.report.inputs} inputs ({parts}); {len(self.report.failures)} distinct failures",
            flush=True,
        )
