"""Data-driven diagnostics tests: every `cases/*.abl` fixture, checked by one function.

Naming: `<CODE>.fires*.abl` must contain at least one annotation of CODE; `<CODE>.ok*.abl`
is the corrected text, on which CODE must not fire. Other files are free-form scenarios.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from checking import check_diagnostics
from fixture import parse_fixture

CASES = Path(__file__).parent / "cases"
FILES = sorted(CASES.glob("*.abl"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_fixture(path: Path) -> None:
    data = path.read_bytes()
    try:
        text, encoding = data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        # A fixture about bad encodings: read byte for byte, so the checker sees the same bytes.
        text, encoding = data.decode("latin-1"), "latin-1"
    code, _, kind = path.name.partition(".")
    if kind.startswith("fires"):
        assert any(e.code == code for e in parse_fixture(text).expectations), f"{path.name} annotates no {code}"
    if kind.startswith("ok"):
        assert all(e.code != code for e in parse_fixture(text).expectations), f"{path.name} expects {code}"
    check_diagnostics(text, encoding)


def test_every_code_has_a_firing_and_a_silent_fixture() -> None:
    from abl.checks.registry import CODES

    names = {p.name for p in FILES}
    missing = []
    for entry in CODES:
        if entry.code == "RULE_FAILED":
            continue  # a bug in a rule, not in a file: tests/hardening registers a failing rule
        if not any(n.startswith(f"{entry.code}.fires") for n in names):
            missing.append(f"{entry.code}.fires.abl")
        if not any(n.startswith(f"{entry.code}.ok") for n in names):
            missing.append(f"{entry.code}.ok.abl")
    assert not missing, "fixtures missing: " + ", ".join(missing)
