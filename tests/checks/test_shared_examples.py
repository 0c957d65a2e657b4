"""The platform's own example files read cleanly: no syntax or structure errors, and exactly the
platform-code findings each example really deserves.

Each file of the shared `spec/examples/` folder (ABL copied from the platform's documentation)
is checked on its own, as a one-file project. Structure codes must not fire at all; platform
codes may fire only where the example is really wrong, and each such finding is listed below
with the reason. Lint codes (advice such as `PASS_FIELD_UNKNOWN`) are not compared here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from abl.checks.engine import CheckOptions, check_project
from abl.checks.registry import BY_CODE, Group
from abl.diagnostics import Severity
from abl.workspace import Project

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "spec" / "examples"
FILES = sorted(EXAMPLES.glob("*.abl")) if EXAMPLES.is_dir() else []

NEVER = ("SYNTAX_ERROR", "UNKNOWN_SECTION")

# (code, 1-based line, the text the diagnostic points at), per file. Every entry is a real
# mistake in the documentation's example, not a limitation of the checker.
EXPECTED: dict[str, set[tuple[str, int, str]]] = {
    # The delegate target is described in prose on the page but not part of this file.
    "choose-single-agent-or-specialists-1.abl": {
        ("INVALID_DELEGATE_TARGET", 13, "Fee_Calculator"),
    },
    "full-specification-1.abl": {
        # Declared session variables that nothing in the file gathers, sets or maps.
        ("W801", 45, "search_results"),
        ("W801", 46, "selected_hotel"),
        ("W801", 47, "reservation_draft"),
        # `booking` and `reservation` are never declared (the memory holds `reservation_draft`).
        ("UNDEFINED_CONDITION_VAR", 57, "booking"),
        ("UNDEFINED_CONDITION_VAR", 79, "booking"),
        ("UNDEFINED_CONDITION_VAR", 87, "reservation"),
        # The delegate and handoff targets live in other files of the documented project.
        ("INVALID_DELEGATE_TARGET", 78, "Loyalty_Lookup"),
        ("INVALID_HANDOFF_TARGET", 86, "Payment_Agent"),
        ("INVALID_HANDOFF_TARGET", 93, "Support_Agent"),
    },
    "multi-agent-and-supervisor-1.abl": {
        # The page shows only the supervisor; its targets are not in the file.
        ("INVALID_HANDOFF_TARGET", 11, "Live_Agent"),
        ("INVALID_HANDOFF_TARGET", 18, "Sales_Agent"),
        ("INVALID_HANDOFF_TARGET", 35, "Live_Agent"),
        # Neither `routing_failures` nor `handoff_successful` is declared or a runtime variable.
        ("UNDEFINED_CONDITION_VAR", 27, "routing_failures"),
        ("UNDEFINED_CONDITION_VAR", 38, "handoff_successful"),
    },
    "multi-agent-orchestration-1.abl": {
        ("INVALID_HANDOFF_TARGET", 24, "Sales_Agent"),
        ("INVALID_HANDOFF_TARGET", 30, "Booking_Manager"),
        ("INVALID_HANDOFF_TARGET", 36, "Live_Agent_Transfer"),
        ("UNDEFINED_CONDITION_VAR", 44, "handoff_successful"),
    },
}


def _findings(path: Path) -> list[tuple[str, int, str, str]]:
    text = path.read_text(encoding="utf-8")
    project = Project("/")
    project.update("/" + path.name, text)
    lines = text.splitlines()
    out = []
    for d in check_project(project, CheckOptions(strict_rules=True))["/" + path.name]:
        if d.severity is Severity.HINT:
            continue
        line = lines[d.range.start.line] if d.range.start.line < len(lines) else ""
        end = d.range.end.character if d.range.end.line == d.range.start.line else len(line)
        out.append((d.code, d.range.start.line + 1, line[d.range.start.character : end], d.message))
    return out


@pytest.mark.skipif(not FILES, reason=f"the shared examples folder {EXAMPLES} is not present")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_example_reads_cleanly(path: Path) -> None:
    findings = _findings(path)
    broken = [f for f in findings if f[0] in NEVER]
    assert not broken, "\n".join(f"{c} line {n} `{t}`: {m}" for c, n, t, m in broken)


@pytest.mark.skipif(not FILES, reason=f"the shared examples folder {EXAMPLES} is not present")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_example_has_only_the_expected_platform_findings(path: Path) -> None:
    compared = [f for f in _findings(path) if BY_CODE[f[0]].group is not Group.LINT]
    got = {(code, line, text) for code, line, text, _ in compared}
    want = EXPECTED.get(path.name, set())
    messages = {(c, n, t): m for c, n, t, m in compared}
    extra = "\n".join(f"  unexpected {c} line {n} `{t}`: {messages[(c, n, t)]}" for c, n, t in sorted(got - want))
    missing = "\n".join(f"  missing {c} line {n} `{t}`" for c, n, t in sorted(want - got))
    assert got == want, f"{path.name}:\n{extra}\n{missing}"


@pytest.mark.skipif(not FILES, reason=f"the shared examples folder {EXAMPLES} is not present")
def test_expectations_name_existing_files() -> None:
    names = {p.name for p in FILES}
    assert set(EXPECTED) <= names, f"expected findings for missing files: {sorted(set(EXPECTED) - names)}"
