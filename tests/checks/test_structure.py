"""The structure rules follow the keyword catalogue, and their quick fixes produce the right text."""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from pathlib import Path

import pytest

from abl.checks.context import AGENT_RULES, BLOCK_RULES, DOCUMENT_RULES
from abl.checks.engine import CheckOptions, check_project
from abl.checks.fixes import apply_edits
from abl.diagnostics import Diagnostic
from abl.schema import lookup
from abl.schema.types import Key, Section, ValueKind
from abl.workspace import Project

CHECKS = Path(__file__).resolve().parents[2] / "server" / "abl" / "checks"
SCHEMA_DRIVEN = ("rules/structure.py", "rules/sections.py", "layout.py")


def diagnostics(text: str, path: str = "/main.agent.abl") -> list[Diagnostic]:
    project = Project("/")
    project.update(path, textwrap.dedent(text).lstrip("\n"))
    return check_project(project, CheckOptions(strict_rules=True))[path]


def codes(text: str) -> list[str]:
    return [d.code for d in diagnostics(text)]


# --- the catalogue decides ------------------------------------------------------------------------

TRACKER = """
    AGENT: Parcel_Tracker
    GOAL: "Tell the customer where their parcel is"

    GATHER:
      tracking_code:
        PROMPT: "What is your tracking code?"
        VENDOR_NOTE: "internal"
    """


def _with_extra_field_key(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Adds `name` to the keys of a GATHER field, as an edit of the catalogue would."""
    original = lookup.section

    def section(written: str, document=None):
        found = original(written, document)
        if found is None or found.section.name != "GATHER" or found.section.key.entry is None:
            return found
        key = found.section.key
        entry = dataclasses.replace(
            key.entry, children=(*key.entry.children, Key(name, ValueKind.STRING, "A note for the team."))
        )
        patched = Section(dataclasses.replace(key, entry=entry), found.section.documents, found.section.opens)
        return dataclasses.replace(found, section=patched)

    monkeypatch.setattr(lookup, "section", section)


def test_a_key_the_catalogue_does_not_know_is_reported() -> None:
    assert "UNKNOWN_KEY" in codes(TRACKER)


def test_adding_the_key_to_the_catalogue_removes_the_report(monkeypatch: pytest.MonkeyPatch) -> None:
    _with_extra_field_key(monkeypatch, "VENDOR_NOTE")
    assert "UNKNOWN_KEY" not in codes(TRACKER)


def test_a_section_added_to_the_catalogue_is_no_longer_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    text = """
        AGENT: Parcel_Tracker
        GOAL: "Tell the customer where their parcel is"
        COUNTRY_RULES:
          uk: "Royal Mail"
        """
    assert "UNKNOWN_SECTION" in codes(text)
    original = lookup.section
    extra = Section(Key("COUNTRY_RULES", ValueKind.MAP, "Carriers per country."), frozenset(lookup.DocumentKind))

    def section(written: str, document=None):
        if written.upper() == "COUNTRY_RULES":
            return lookup.SectionMatch(extra, written, "COUNTRY_RULES", lookup.MatchKind.NAME, written.isupper(), True)
        return original(written, document)

    monkeypatch.setattr(lookup, "section", section)
    assert "UNKNOWN_SECTION" not in codes(text)


def test_allowed_words_come_from_the_catalogue() -> None:
    text = """
        AGENT: Parcel_Tracker
        GOAL: "Tell the customer where their parcel is"
        GATHER:
          tracking_code:
            PROMPT: "What is your tracking code?"
            TYPE: {word}
        """
    field_type = lookup.key_at("GATHER.tracking_code.type")
    assert field_type is not None and field_type.values
    for word in field_type.values:
        assert "INVALID_VALUE" not in codes(text.format(word=word)), word
    assert "INVALID_VALUE" in codes(text.format(word="strng"))


def _string_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


@pytest.mark.parametrize("module", SCHEMA_DRIVEN)
def test_structure_rules_name_no_keyword(module: str) -> None:
    """The schema is the one place a keyword is described; these rules only consult it."""
    spellings = {s.upper() for sec in lookup.all_sections() for s in sec.key.spellings}
    named = {c for c in _string_constants(CHECKS / module) if c.strip().upper() in spellings}
    assert not named, f"{module} names keywords directly: {sorted(named)}"


def test_every_module_in_the_rules_folder_registers_a_rule() -> None:
    """Helpers the rules share live beside `rules/`, so that the folder lists only rules."""
    registered = {rule.__module__ for _, rule in (*AGENT_RULES, *BLOCK_RULES, *DOCUMENT_RULES)}
    modules = {f"abl.checks.rules.{path.stem}" for path in (CHECKS / "rules").glob("*.py") if path.stem != "__init__"}
    assert modules and not modules - registered, f"no rule registered in {sorted(modules - registered)}"


# --- quick fixes ------------------------------------------------------------------------------------

FIXES = [
    pytest.param(
        "FLOW_STEP_AT_COLUMN_ZERO",
        """
        AGENT: Fee_Calculator
        GOAL: "Work out the fee"
        FLOW:
          steps: [quote]
        quote:
          REASONING: false
          RESPOND: |
            The fee is 2 EUR.
          THEN: COMPLETE
        """,
        """
        AGENT: Fee_Calculator
        GOAL: "Work out the fee"
        FLOW:
          steps: [quote]
          quote:
            REASONING: false
            RESPOND: |
              The fee is 2 EUR.
            THEN: COMPLETE
        """,
        id="indent-column-zero-step",
    ),
    pytest.param(
        "REMOVED_KEYWORD",
        """
        AGENT: Parcel_Tracker
        GOAL: "Tell the customer where their parcel is"
        MODEL: "gpt-4o-mini"
        """,
        """
        AGENT: Parcel_Tracker
        GOAL: "Tell the customer where their parcel is"
        EXECUTION:
          model: "gpt-4o-mini"
        """,
        id="model-to-new-execution",
    ),
    pytest.param(
        "REMOVED_KEYWORD",
        """
        AGENT: Parcel_Tracker
        GOAL: "Tell the customer where their parcel is"
        EXECUTION:
          temperature: 0.2
        MODEL: "gpt-4o-mini"
        """,
        """
        AGENT: Parcel_Tracker
        GOAL: "Tell the customer where their parcel is"
        EXECUTION:
          model: "gpt-4o-mini"
          temperature: 0.2
        """,
        id="model-into-existing-execution",
    ),
    pytest.param(
        "DUPLICATE_KEY",
        """
        AGENT: Parcel_Tracker
        GOAL: "Tell the customer where their parcel is"
        GATHER:
          tracking_code:
            PROMPT: "Old question?"
            TYPE: string
            PROMPT: "New question?"
        """,
        """
        AGENT: Parcel_Tracker
        GOAL: "Tell the customer where their parcel is"
        GATHER:
          tracking_code:
            TYPE: string
            PROMPT: "New question?"
        """,
        id="delete-ignored-key",
    ),
    pytest.param(
        "SECTION_KEYWORD_CASE",
        """
        AGENT: Parcel_Tracker
        Goal: "Tell the customer where their parcel is"
        """,
        """
        AGENT: Parcel_Tracker
        GOAL: "Tell the customer where their parcel is"
        """,
        id="uppercase-section",
    ),
    pytest.param(
        "SECTION_OUTSIDE_AGENT",
        """
        PERSONA: "Brief"
        AGENT: Parcel_Tracker
        GOAL: "Tell the customer where their parcel is"
        """,
        """
        AGENT: Parcel_Tracker
        PERSONA: "Brief"
        GOAL: "Tell the customer where their parcel is"
        """,
        id="move-below-header",
    ),
    pytest.param(
        "INVALID_TIMEOUT_SYNTAX",
        """
        SUPERVISOR: Desk
        GOAL: "Route"
        HANDOFF:
          - TO: Card_Agent
            WHEN: "the customer lost a card"
            HISTORY: full
            ON_FAILURE: continue
            RETURN: true
            TIMEOUT: "2 hours"
        AGENT: Card_Agent
        GOAL: "Help with cards"
        """,
        """
        SUPERVISOR: Desk
        GOAL: "Route"
        HANDOFF:
          - TO: Card_Agent
            WHEN: "the customer lost a card"
            HISTORY: full
            ON_FAILURE: continue
            RETURN: true
            TIMEOUT: "120m"
        AGENT: Card_Agent
        GOAL: "Help with cards"
        """,
        id="spelled-out-duration",
    ),
    pytest.param(
        "INVALID_AGENT_NAME",
        """
        SUPERVISOR: Desk
        GOAL: "Route"
        HANDOFF:
          - TO: Card-Agent
            WHEN: "the customer lost a card"
            HISTORY: full
            ON_FAILURE: continue
        AGENT: Card-Agent
        GOAL: "Help with cards"
        """,
        """
        SUPERVISOR: Desk
        GOAL: "Route"
        HANDOFF:
          - TO: Card_Agent
            WHEN: "the customer lost a card"
            HISTORY: full
            ON_FAILURE: continue
        AGENT: Card_Agent
        GOAL: "Help with cards"
        """,
        id="rename-agent-in-file",
    ),
]


@pytest.mark.parametrize(("code", "before", "after"), FIXES)
def test_quick_fix(code: str, before: str, after: str) -> None:
    text = textwrap.dedent(before).lstrip("\n")
    found = [d for d in diagnostics(text) if d.code == code]
    assert found, f"{code} does not fire"
    edits = [edit for d in found[:1] for edit in d.fixes[0].edits]
    fixed, applied = apply_edits(text, edits)
    assert applied == len(edits)
    assert fixed == textwrap.dedent(after).lstrip("\n")
    assert code not in codes(fixed)


def test_fix_safety() -> None:
    """Keeping how the file is read is safe; making text take effect, or changing it, is not."""
    text = textwrap.dedent(
        """
        AGENT: Parcel_Tracker
        Goal: "Tell the customer where their parcel is"
        LIMITATION:
          - "Cannot change addresses"
        GATHER:
          code:
            PROMPT: "Code?"
            TYPE: strng
        """
    ).lstrip("\n")
    safety = {d.code: d.fixes[0].safe for d in diagnostics(text) if d.fixes}
    assert safety == {"SECTION_KEYWORD_CASE": True, "UNKNOWN_SECTION": False, "INVALID_VALUE": False}


# --- condition syntax ---------------------------------------------------------------------------------


def test_condition_error_points_at_the_bad_token() -> None:
    text = """
        AGENT: Parcel_Tracker
        GOAL: "Tell the customer where their parcel is"
        GATHER:
          code:
            PROMPT: "Code?"
        COMPLETE:
          - WHEN: code = "x"
            RESPOND: "Done"
        """
    errors = [d for d in diagnostics(text) if d.code == "SYNTAX_ERROR"]
    assert len(errors) == 1
    line = textwrap.dedent(text).lstrip("\n").splitlines()[errors[0].range.start.line]
    assert line[errors[0].range.start.character : errors[0].range.end.character] == "="
    assert "write `==`" in errors[0].message
