"""Files that ship inside the package (the lark grammars)."""

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
