"""Every real ABL file from the platform's documentation reads without a syntax error."""

from __future__ import annotations

from pathlib import Path

import pytest

from abl.syntax import parse

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "spec" / "examples"
FILES = sorted(EXAMPLES.glob("*.abl")) if EXAMPLES.is_dir() else []


@pytest.mark.skipif(not FILES, reason=f"the shared examples folder {EXAMPLES} is not present")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_shared_example_parses_cleanly(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tree = parse(text)
    assert tree.to_text() == text
    assert [d for d in tree.diagnostics if d.code == "SYNTAX_ERROR"] == []
