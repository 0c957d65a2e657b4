"""Fixture texts with inline expectations, shared by the data-driven tests.

A fixture is ABL text, optionally split into files by `#- /path/name.abl` header lines, with
annotation lines under the text they point at:

    HISTORY:
      mode: recent
    #       ^^^^^^ E330

An annotation line is a line whose first non-blank characters are `^` or `# ^`. Its carets mark
columns of the nearest line above that is not an annotation; the code follows, then an
optional fragment the message must contain. Annotation lines are removed before the text is
parsed, so they never change what is checked. `$0` marks a cursor and is removed too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

_ANNOTATION = re.compile(r"^(\s*#?\s*)(\^+)\s+([A-Z][A-Z0-9_]*)(?:\s+(.*))?$")
_FILE = re.compile(r"^#-\s+(\S+)\s*$")


@dataclass(frozen=True)
class Expectation:
    path: str
    line: int  # 0-based, in the stripped text
    start: int
    end: int
    code: str
    message: str


@dataclass
class Fixture:
    files: dict[str, str] = field(default_factory=dict)
    expectations: list[Expectation] = field(default_factory=list)
    cursor: tuple[str, int, int] | None = None  # (path, line, character)

    @property
    def main(self) -> str:
        return next(iter(self.files))


def parse_fixture(text: str, default_path: str = "/main.abl") -> Fixture:
    fx = Fixture()
    path = default_path
    lines: list[str] = []

    def flush() -> None:
        if lines or path not in fx.files:
            fx.files[path] = "".join(lines)

    raw_lines = text.lstrip("\n").splitlines(keepends=True)
    started = False
    for raw in raw_lines:
        m = _FILE.match(raw.rstrip("\r\n"))
        if m is not None:
            if started:
                flush()
            path = m.group(1)
            lines = []
            started = True
            continue
        started = True
        a = _ANNOTATION.match(raw.rstrip("\r\n"))
        if a is not None and lines:
            start = len(a.group(1))
            end = start + len(a.group(2))
            fx.expectations.append(
                Expectation(path, len(lines) - 1, start, end, a.group(3), (a.group(4) or "").strip())
            )
            continue
        if "$0" in raw:
            fx.cursor = (path, len(lines), raw.index("$0"))
            raw = raw.replace("$0", "", 1)
        lines.append(raw)
    flush()
    return fx


def read_fixture_file(path: Path) -> Fixture:
    return parse_fixture(path.read_text(encoding="utf-8"), default_path="/" + path.name)
