"""Every registered code fires on its own `bad_example` and stays silent on its `good_example`.

The examples are the documentation users read (`abl explain`, the docs pages, hover), so an
example that does not show what it claims is a documentation bug. Each example is one text,
possibly several `AGENT:`/`SUPERVISOR:` documents, checked as a one-file project.
"""

from __future__ import annotations

import pytest

from abl.checks.engine import CheckOptions, check_project
from abl.checks.registry import CODES, Code
from abl.config import DEFAULT
from abl.diagnostics import Diagnostic, Severity
from abl.workspace import Project, decode
from checking import bad_example_bytes

# The structural and reference codes; a good example of any code must not trip these either.
STRUCTURE_CODES = frozenset(
    {
        "SYNTAX_ERROR",
        "UNKNOWN_SECTION",
        "UNKNOWN_KEY",
        "DUPLICATE_SECTION",
        "DUPLICATE_KEY",
        "DUPLICATE_AGENT_NAME",
        "INVALID_AGENT_NAME",
        "MISSING_GOAL",
        "REMOVED_KEYWORD",
        "SECTION_KEYWORD_CASE",
        "INVALID_VALUE",
        "ROUTING_NOT_EXECUTED",
        "SECTION_OUTSIDE_AGENT",
        "FLOW_STEP_AT_COLUMN_ZERO",
        "INVALID_DELEGATE_TARGET",
        "SELF_DELEGATE_TARGET",
        "UNKNOWN_DELEGATE_RETURN_FIELD",
        "INVALID_TIMEOUT_SYNTAX",
        "INVALID_HANDOFF_TIMEOUT_ACTION",
        "UNDEFINED_CONDITION_VAR",
        "MIXED_ROUTING_CONDITION_STATE",
        "PLAIN_ENGLISH_COMPLETE_WHEN",
        "AGENT_RETURNED_WORK_REQUIRES_ORCHESTRATOR",
        "INVALID_DEPENDS_ON_REF",
        "CIRCULAR_DEPENDS_ON",
        "RESERVED_VARIABLE_NAME",
        "W822",
        "TEMPLATE_VARIABLE_UNKNOWN",
    }
)


def diagnostics_for(data: bytes) -> list[Diagnostic]:
    """As `abl check` reports them without a configuration file (suppression comments apply)."""
    source = decode(data)
    project = Project("/")
    project.update("/example.agent.abl", source.text, source.diagnostics)
    found = check_project(project, CheckOptions(strict_rules=True))["/example.agent.abl"]
    return DEFAULT.filter("/example.agent.abl", source.text, found)


def _describe(diags: list[Diagnostic]) -> str:
    return (
        "\n".join(f"  {d.range.start.line + 1}:{d.range.start.character + 1} {d.code} {d.message}" for d in diags)
        or "  (nothing)"
    )


@pytest.mark.parametrize("entry", CODES, ids=[c.code for c in CODES])
def test_bad_example_fires(entry: Code) -> None:
    if entry.code == "RULE_FAILED":
        pytest.skip("no file makes a correct rule fail; tests/hardening registers a failing rule")
    diags = diagnostics_for(bad_example_bytes(entry))
    assert any(d.code == entry.code for d in diags), (
        f"{entry.code} does not fire on its bad example; reported:\n{_describe(diags)}"
    )


@pytest.mark.parametrize("entry", CODES, ids=[c.code for c in CODES])
def test_good_example_is_silent(entry: Code) -> None:
    diags = diagnostics_for(entry.good_example.encode("utf-8"))
    assert not any(d.code == entry.code for d in diags), f"{entry.code} fires on its good example:\n{_describe(diags)}"


@pytest.mark.parametrize("entry", CODES, ids=[c.code for c in CODES])
def test_good_example_is_structurally_clean(entry: Code) -> None:
    """The corrected text is a valid project: no structural or reference problem of any code."""
    diags = diagnostics_for(entry.good_example.encode("utf-8"))
    found = [d for d in diags if d.code in STRUCTURE_CODES and d.severity is not Severity.HINT]
    assert not found, f"the good example of {entry.code} has problems:\n{_describe(found)}"
