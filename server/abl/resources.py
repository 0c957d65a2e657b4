"""Files that ship inside the package: the lark grammars and the documentation pages."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent


@cache
def grammar_dir() -> Path:
    """`abl/grammar` in an installed wheel; the repository's `grammar/` in a source checkout."""
    for candidate in (_HERE / "grammar", _HERE.parent.parent / "grammar"):
        if (candidate / "abl.lark").is_file():
            return candidate
    raise FileNotFoundError("the ABL grammars are missing from this installation")


def grammar_text(name: str) -> str:
    return (grammar_dir() / name).read_text(encoding="utf-8")


@cache
def docs_dir() -> Path | None:
    """`abl/docs` in an installed wheel; the repository's `docs/` in a source checkout."""
    for candidate in (_HERE / "docs", _HERE.parent.parent / "docs"):
        if (candidate / "diagnostics").is_dir():
            return candidate
    return None


@cache
def docs_uri(relative: str) -> str | None:
    """A `file:` link to a documentation page that ships with the tools, or None when the
    page is not installed. Links work offline, in any editor. Cached: the pages that ship do
    not change under a running process, and every published diagnostic carries one."""
    base = docs_dir()
    if base is None or not (base / relative).is_file():
        return None
    return (base / relative).as_uri()
