"""Snapshot tests of the tree for tricky lexical forms.

Each `cases/NAME.abl` is parsed and dumped; the dump must equal `snapshots/NAME.txt`.
Set ABL_UPDATE_SNAPSHOTS=1 to rewrite the snapshots, then review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from abl.syntax import parse
from abl.syntax.dump import dump

HERE = Path(__file__).parent
CASES = sorted((HERE / "cases").glob("*.abl"))


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_tree_matches_snapshot(case: Path) -> None:
    text = case.read_bytes().decode("utf-8")
    tree = parse(text)
    assert tree.to_text() == text
    got = dump(tree)
    snap = HERE / "snapshots" / f"{case.stem}.txt"
    if os.environ.get("ABL_UPDATE_SNAPSHOTS") == "1" or not snap.exists():
        snap.write_text(got, encoding="utf-8")
        if os.environ.get("ABL_UPDATE_SNAPSHOTS") != "1":
            pytest.fail(f"new snapshot written to {snap}; review it and run again")
    assert got == snap.read_text(encoding="utf-8")
