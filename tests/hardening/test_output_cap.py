"""What `abl check` prints for one diagnostic is bounded, however long the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from abl.cli.main import main
from abl.cli.report import MAX_EXCERPT, excerpt

HUB = """SUPERVISOR: Hub
GOAL: "Route"
HANDOFF:
  - TO: Helper
    WHEN: true
    HISTORY: full
    ON_FAILURE: continue
    PASS: [{names}]
AGENT: Helper
GOAL: "Help"
"""


def test_a_long_pass_list_prints_little(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = ", ".join(f"name_{i}" for i in range(8000))
    path = tmp_path / "hub.agent.abl"
    path.write_text(HUB.format(names=names), encoding="utf-8")
    assert path.stat().st_size > 50_000
    code = main(["check", str(path)])
    out, _ = capsys.readouterr()
    findings = out.count("\n |") or 1
    per_line = max(len(line) for line in out.splitlines())
    assert per_line < MAX_EXCERPT + 1200  # header with its message, or an excerpt: never the whole line
    assert len(out) < 3_000 * max(1, out.count("error[") + out.count("warning[") + out.count("hint["))
    assert len(out) < 40 * 1024 * 1024 and findings >= 0 and code in (0, 1)


@pytest.mark.parametrize("start", [0, 5, 150, 4000, 9990])
def test_excerpt_keeps_the_range_visible(start: int) -> None:
    source = "".join(chr(ord("a") + i % 26) for i in range(10_000))
    shown, s, e = excerpt(source, start, start + 3)
    assert len(shown) <= MAX_EXCERPT + 2
    assert shown[s:e] == source[start : start + 3][: e - s]
    assert e > s


def test_short_lines_are_shown_whole() -> None:
    assert excerpt("GOAL: x", 6, 7) == ("GOAL: x", 6, 7)
