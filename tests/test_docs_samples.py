"""The sample outputs in README.md and docs/*.md are true excerpts of real runs.

A fenced `text` or `console` block whose lines start with `$ abl ...` (or `$ pytest ...`) is a
sample: the lines after each command must appear, in order, in what that command prints today,
run from the repository root. A sample line ending in `...` stands for a line that starts with
what comes before it (`...` alone: any line); timings (`in 0.31s`) match any timing. A block of `abl run` with
`you> ` lines is played as a script, and its replies and trace lines are checked the same way.
Edit a sample by running its command and pasting a part of what it prints.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```(?:text|console)\n(.*?)^```", re.M | re.S)
_TIMING = re.compile(r"\bin \d+(?:\.\d+)?s\b")
_RUNNERS = {"abl": [sys.executable, "-m", "abl"], "pytest": [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]}


@dataclass(frozen=True)
class Sample:
    page: str
    command: str
    shown: tuple[str, ...]  # the lines printed after the command in the page
    script: tuple[str, ...]  # the `you> ` messages of an `abl run` sample

    @property
    def id(self) -> str:
        return f"{self.page}: {self.command}"


def _samples() -> list[Sample]:
    found = []
    for page in PAGES:
        for block in _BLOCK.findall(page.read_text(encoding="utf-8")):
            found.extend(_split(page.name, block.splitlines()))
    return found


def _split(page: str, lines: list[str]) -> list[Sample]:
    samples = []
    command: str | None = None
    shown: list[str] = []
    for line in [*lines, "$ "]:
        if line.startswith("$ "):
            if command is not None and shown:
                script = tuple(s.removeprefix("you> ") for s in shown if s.startswith("you> "))
                samples.append(Sample(page, command, tuple(s for s in shown if not s.startswith("you> ")), script))
            written = line[2:].split("  #", 1)[0].strip()
            command = written if written.split(" ", 1)[0] in _RUNNERS else None
            shown = []
        elif command is not None:
            shown.append(line)
    return samples


SAMPLES = _samples()


def _output(sample: Sample, tmp_path: Path) -> list[str]:
    words = shlex.split(sample.command)
    argv = _RUNNERS[words[0]] + words[1:]
    if sample.script:
        script = tmp_path / "script.txt"
        script.write_text("".join(m + "\n" for m in sample.script), encoding="utf-8")
        argv += ["--script", str(script), "--trace"]
    return _run(argv, ROOT)


def _run(argv: list[str], cwd: Path) -> list[str]:
    """What a terminal shows: standard output and error, interleaved as they are written."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    done = subprocess.run(
        argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300, env=env
    )
    return done.stdout.splitlines()


def _same(shown: str, real: str) -> bool:
    shown, real = _normal(shown), _normal(real)
    if shown.endswith("..."):
        return real.startswith(shown[:-3].rstrip())
    return shown == real


def _normal(line: str) -> str:
    """A line as compared: timings made equal, runs of blanks (padding to the terminal's width)
    made one, and the live trace's `·` bullet (a chat shows it, a script does not) left out."""
    return re.sub(r"\s+", " ", _TIMING.sub("in <t>s", line)).strip(" ·")


def test_the_pages_have_samples() -> None:
    assert {s.page for s in SAMPLES} >= {"README.md", "conversation-tests.md"}
    assert any(s.command.startswith("abl check") for s in SAMPLES)


def _assert_excerpt(label: str, shown: Iterable[str], real: list[str]) -> None:
    at = 0
    for line in shown:
        if not line.strip():
            continue
        while at < len(real) and not _same(line, real[at]):
            at += 1
        assert at < len(real), f"{label}: not printed (in this order): {line!r}\nreal output:\n" + "\n".join(real)
        at += 1


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.id for s in SAMPLES])
def test_sample_is_an_excerpt_of_the_real_output(sample: Sample, tmp_path: Path) -> None:
    _assert_excerpt(sample.id, sample.shown, _output(sample, tmp_path))


def test_the_failure_sample_is_what_a_broken_expectation_prints(tmp_path: Path) -> None:
    """docs/conversation-tests.md shows the diff of the loan supervisor's first test with the
    second handoff expected to be returnable: break the copy the same way and compare."""
    page = (ROOT / "docs" / "conversation-tests.md").read_text(encoding="utf-8")
    shown = next(b for b in _BLOCK.findall(page) if b.startswith("FAIL new customer")).splitlines()
    shutil.copytree(ROOT / "examples" / "loan-supervisor", tmp_path / "examples" / "loan-supervisor")
    test_file = tmp_path / "examples" / "loan-supervisor" / "loan-supervisor.abltest.yaml"
    text = test_file.read_text(encoding="utf-8")
    expectation = "            to: Offer_Agent\n            returnExpected: false\n"
    assert expectation in text
    test_file.write_text(text.replace(expectation, expectation.replace("false", "true"), 1), encoding="utf-8")
    argv = [*_RUNNERS["abl"], "test", "examples/loan-supervisor/loan-supervisor.abltest.yaml"]
    _assert_excerpt("the failure sample", shown, _run(argv, tmp_path))
