"""The registry of diagnostic codes against the catalogue, its examples and its docs pages."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from abl.checks import docs
from abl.checks.code import Code, FixSafety, Group
from abl.checks.registry import BY_CODE, CODES, docs_url, lookup
from abl.diagnostics import Severity
from abl.syntax.parser import parse
from checking import bad_example_bytes

DOCS_DIR = Path(__file__).resolve().parents[2] / "docs" / "diagnostics"

E, W, H = Severity.ERROR, Severity.WARNING, Severity.HINT

# Transcribed from spec/DIAGNOSTICS.md, part A: the reference compiler's codes and severities.
PLATFORM_CODES = {
    "E330": E,
    "E331": E,
    "W801": W,
    "UNKNOWN_HANDOFF_RETURN_FIELD": E,
    "HANDOFF_ON_RETURN_WITHOUT_RETURN": W,
    "HANDOFF_ON_RETURN_ACTION_AND_HANDLER": E,
    "UNSUPPORTED_HANDOFF_ON_RETURN_ACTION": W,
    "UNKNOWN_HANDOFF_ON_RETURN_HANDLER": E,
    "RETURN_HANDLER_NAME_COLLISION": E,
    "LEGACY_HANDOFF_ON_RETURN_SHORTHAND": W,
    "HANDOFF_SUMMARY_ONLY_WITHOUT_SUMMARY": W,
    "INVALID_HANDOFF_TARGET": E,
    "SELF_HANDOFF_TARGET": E,
    "INVALID_DELEGATE_TARGET": E,
    "SELF_DELEGATE_TARGET": E,
    "UNKNOWN_DELEGATE_RETURN_FIELD": W,
    "INVALID_HANDOFF_FAILURE_ACTION": E,
    "INVALID_HANDOFF_TIMEOUT_ACTION": E,
    "INVALID_TIMEOUT_SYNTAX": E,
    "LEGACY_HANDOFF_GRANT_MEMORY_SHORTHAND": E,
    "UNDEFINED_CONDITION_VAR": W,
    "MIXED_ROUTING_CONDITION_STATE": W,
    "PLAIN_ENGLISH_COMPLETE_WHEN": E,
    "AGENT_RETURNED_WORK_REQUIRES_ORCHESTRATOR": E,
    "INVALID_DEPENDS_ON_REF": E,
    "CIRCULAR_DEPENDS_ON": E,
    "RESERVED_VARIABLE_NAME": W,
    "W822": W,
    # ABL-REFERENCE §5.1.
    "DELEGATE_CHILD_GATHER_INPUT_UNMAPPED": E,
}

# Part B (syntax and structure), plus the structural codes the parser and the model add.
SYNTAX_CODES = {
    "SYNTAX_ERROR": E,
    "UNKNOWN_SECTION": E,
    "UNKNOWN_KEY": W,
    "DUPLICATE_SECTION": E,
    "DUPLICATE_KEY": W,
    "DUPLICATE_AGENT_NAME": E,
    "INVALID_AGENT_NAME": E,
    "MISSING_GOAL": E,
    "REMOVED_KEYWORD": E,
    "SECTION_KEYWORD_CASE": W,
    "INVALID_VALUE": E,
    "ROUTING_NOT_EXECUTED": W,
    "TAB_INDENTATION": W,
    # A line nested under a key that holds a value: read by nothing.
    "KEY_UNDER_VALUE": W,
    "NESTING_TOO_DEEP": E,
    "LIMIT_EXCEEDED": E,
    "RULE_FAILED": E,
    "INVALID_ENCODING": E,
    "SECTION_OUTSIDE_AGENT": E,
    "FLOW_STEP_AT_COLUMN_ZERO": W,
    "MISSING_HANDOFF_TARGET": E,
    # Un-coded validator rules of the reference (§5.2): a step must declare reasoning; an
    # undefined step reference.
    "MISSING_REASONING": E,
    "UNKNOWN_FLOW_STEP": E,
    # Behavior-profile import errors (§3.22, §5.2).
    "INCOMPLETE_BEHAVIOR_PROFILE": E,
    "UNKNOWN_BEHAVIOR_PROFILE": E,
    # "Unknown tool reference" (§5.2, CLI sample messages).
    "UNKNOWN_TOOL": E,
    # Execution roles the compiler refuses (§3.23).
    "INVALID_EXECUTION_ROLE": E,
}

# Part C (silent traps), plus the two template and map codes the model adds.
LINT_CODES = {
    "HISTORY_FALLS_BACK_TO_FULL": W,
    "HISTORY_LAST_ZERO": H,
    "RETURN_NOT_LOWERCASE_TRUE": W,
    "CONTEXT_KEY_IGNORED": W,
    "EMPTY_STRING_COMPARISON": W,
    "RETURN_VALUE_NOT_MAPPED": W,
    "MAP_DIRECTION_REVERSED": W,
    "HISTORY_NONE_WITHOUT_CONTEXT": W,
    "RETURNABLE_TARGET_CANNOT_RETURN": W,
    "UNREACHABLE_AGENT": W,
    "HANDOFF_CYCLE": W,
    "UNREACHABLE_ROUTE": W,
    "PASS_FIELD_UNKNOWN": W,
    "TEMPLATE_VARIABLE_UNKNOWN": W,
    "HISTORY_NOT_SET": H,
    "ON_FAILURE_NOT_SET": H,
    "RETURN_PATH_WITHOUT_ON_RETURN_MAP_HANDLER": W,
    "LEGACY_TOP_LEVEL_MAP": W,
    "TEMPLATE_SINGLE_BRACE": H,
    # Writes into the parent that the runtime refuses (seed 004, troubleshooting).
    "RETURN_TARGET_NOT_DECLARED": W,
    "RETURN_TARGET_NOT_WRITABLE": W,
    # An author's pattern that backtracks for ever on what a customer types.
    "PATTERN_BACKTRACKS": W,
    # A deterministic action on a reasoning FLOW step, which never runs it (spec 3.8).
    "REASONING_STEP_KEY_IGNORED": W,
    # A reasoning key on a deterministic step, which never reads it (reference 3.9).
    "DETERMINISTIC_STEP_KEY_IGNORED": W,
}

# Suppression comments that hide nothing or cannot be read.
SUPPRESSION_CODES = {
    "UNUSED_SUPPRESSION": W,
    "INVALID_SUPPRESSION": W,
}

CATALOGUE = {
    **{code: (sev, Group.PLATFORM) for code, sev in PLATFORM_CODES.items()},
    **{code: (sev, Group.SYNTAX) for code, sev in SYNTAX_CODES.items()},
    **{code: (sev, Group.LINT) for code, sev in LINT_CODES.items()},
    **{code: (sev, Group.SUPPRESSION) for code, sev in SUPPRESSION_CODES.items()},
}

IDS = [c.code for c in CODES]


# --- the set of codes ---------------------------------------------------------------------


def test_codes_are_unique() -> None:
    names = [c.code for c in CODES]
    assert len(names) == len(set(names))
    assert list(BY_CODE) == names


def test_registry_holds_exactly_the_catalogue() -> None:
    registered = {c.code: (c.severity, c.group) for c in CODES}
    assert set(registered) - set(CATALOGUE) == set(), "registered but not in the catalogue"
    assert set(CATALOGUE) - set(registered) == set(), "in the catalogue but not registered"


@pytest.mark.parametrize("code", sorted(PLATFORM_CODES))
def test_platform_code_severity_matches_the_reference_compiler(code: str) -> None:
    assert BY_CODE[code].severity is PLATFORM_CODES[code]
    assert BY_CODE[code].group is Group.PLATFORM


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_severity_and_group(code: str) -> None:
    assert (BY_CODE[code].severity, BY_CODE[code].group) == CATALOGUE[code]


def test_codes_are_upper_snake_case() -> None:
    bad = [c.code for c in CODES if not re.fullmatch(r"[A-Z][A-Z0-9_]*", c.code)]
    assert bad == []


# --- lookup and links ---------------------------------------------------------------------


def test_lookup_returns_the_entry() -> None:
    assert lookup("E330") is BY_CODE["E330"]


@pytest.mark.parametrize("name", ["E999", "e330", "", "HISTORY"])
def test_lookup_of_an_unregistered_code_raises(name: str) -> None:
    with pytest.raises(KeyError, match="not a registered diagnostic code"):
        lookup(name)


def test_docs_url_is_relative_by_default() -> None:
    assert docs_url("W801") == "docs/diagnostics/W801.md"


def test_docs_url_with_a_base() -> None:
    base = "https://example.org/abl-tools/blob/main/"
    assert docs_url("W801", base) == "https://example.org/abl-tools/blob/main/docs/diagnostics/W801.md"


def test_docs_url_of_an_unregistered_code_raises() -> None:
    with pytest.raises(KeyError):
        docs_url("NOT_A_CODE")


@pytest.mark.parametrize("entry", CODES, ids=IDS)
def test_docs_url_points_at_an_existing_page(entry: Code) -> None:
    assert (DOCS_DIR.parents[1] / docs_url(entry.code)).is_file()


# --- documentation fields -----------------------------------------------------------------


@pytest.mark.parametrize("entry", CODES, ids=IDS)
def test_every_field_is_written(entry: Code) -> None:
    for name in ("title", "summary", "explanation", "bad_example", "good_example", "fix", "runtime"):
        value = getattr(entry, name)
        assert value.strip(), f"{entry.code}.{name} is empty"


@pytest.mark.parametrize("entry", CODES, ids=IDS)
def test_title_is_short(entry: Code) -> None:
    assert len(entry.title) <= 60
    assert "\n" not in entry.title and not entry.title.endswith(".")


@pytest.mark.parametrize("entry", CODES, ids=IDS)
def test_summary_is_one_sentence(entry: Code) -> None:
    assert "\n" not in entry.summary
    assert entry.summary.endswith(".")
    # A sentence break is a full stop followed by a capital letter.
    assert not re.search(r"\.\s+[A-Z]", entry.summary), entry.summary


@pytest.mark.parametrize("entry", CODES, ids=IDS)
def test_fix_text_agrees_with_its_safety(entry: Code) -> None:
    text = entry.fix.lower()
    if entry.fix_safety is FixSafety.NONE:
        assert text.startswith("no quick fix"), entry.fix
    elif entry.fix_safety is FixSafety.SOMETIMES_SAFE:
        assert "unsafe" in text and re.search(r"\bsafe\b", text), f"{entry.code}: say when the fix is safe and when not"
    else:
        assert not text.startswith("no quick fix")
        assert entry.fix_safety.value in text, f"{entry.code}: the fix text does not say it is {entry.fix_safety.value}"


@pytest.mark.parametrize("entry", CODES, ids=IDS)
def test_cross_references_are_registered(entry: Code) -> None:
    for other in (*entry.see_also, *entry.also_fires):
        assert other in BY_CODE, f"{entry.code} refers to unregistered {other}"
        assert other != entry.code


# --- examples -----------------------------------------------------------------------------


@pytest.mark.parametrize("entry", CODES, ids=IDS)
def test_examples_differ(entry: Code) -> None:
    assert bad_example_bytes(entry) != entry.good_example.encode("utf-8")


@pytest.mark.parametrize("entry", CODES, ids=IDS)
@pytest.mark.parametrize("which", ["bad_example", "good_example"])
def test_example_layout(entry: Code, which: str) -> None:
    """Examples are files as an author would write them: 2-space indents, no stray blanks."""
    text: str = getattr(entry, which)
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert not text.startswith((" ", "\n"))
    for number, line in enumerate(text.split("\n"), 1):
        assert line == line.rstrip(), f"{entry.code} {which} line {number} has trailing blanks"
        if line.startswith("\t") and entry.code == "TAB_INDENTATION" and which == "bad_example":
            continue
        indent = len(line) - len(line.lstrip(" "))
        assert indent % 2 == 0 and not line[indent:].startswith("\t"), f"{entry.code} {which} line {number}"


@pytest.mark.parametrize("entry", CODES, ids=IDS)
def test_every_document_in_an_example_has_a_header(entry: Code) -> None:
    """Each example is a project: it opens with an `AGENT:` or `SUPERVISOR:` document (a
    misplaced section before it is the point of SECTION_OUTSIDE_AGENT)."""
    for text in (entry.bad_example, entry.good_example):
        headers = re.findall(r"^(AGENT|SUPERVISOR): (\S+)$", text, flags=re.M)
        assert headers, entry.code
        if entry.code != "SECTION_OUTSIDE_AGENT" or text is entry.good_example:
            assert text.startswith(("AGENT: ", "SUPERVISOR: ")), entry.code


@pytest.mark.parametrize("entry", CODES, ids=IDS)
def test_good_example_reads_cleanly(entry: Code) -> None:
    source = parse(entry.good_example)
    assert [(d.code, d.message) for d in source.diagnostics] == []


@pytest.mark.parametrize("entry", CODES, ids=IDS)
def test_bad_example_reads_with_only_its_own_codes(entry: Code) -> None:
    allowed = {entry.code, *entry.also_fires}
    source = parse(entry.bad_example)
    stray = [(d.code, d.message) for d in source.diagnostics if d.code not in allowed]
    assert stray == []


@pytest.mark.parametrize("code", ["SYNTAX_ERROR", "TAB_INDENTATION"])
def test_parser_codes_fire_on_their_bad_example(code: str) -> None:
    found = [d for d in parse(BY_CODE[code].bad_example).diagnostics if d.code == code]
    assert found, f"the parser does not report {code} on its example"


def test_parser_reports_codes_with_their_registered_severity() -> None:
    """The syntax layer cannot import the registry; this keeps the two in step."""
    compared = 0
    for entry in CODES:
        for d in parse(entry.bad_example).diagnostics:
            assert d.severity is lookup(d.code).severity, d.code
            compared += 1
    assert compared, "no example gives a parser diagnostic to compare"


def test_encoding_example_is_not_utf8_until_fixed() -> None:
    entry = BY_CODE["INVALID_ENCODING"]
    with pytest.raises(UnicodeDecodeError):
        bad_example_bytes(entry).decode("utf-8")
    assert entry.good_example.encode("utf-8").decode("utf-8") == entry.good_example
    assert "\ufffd" in bad_example_bytes(entry).decode("utf-8", errors="replace")


def test_only_the_encoding_example_needs_another_encoding() -> None:
    assert [c.code for c in CODES if c.bad_example_encoding != "utf-8"] == ["INVALID_ENCODING"]


# --- docs pages ---------------------------------------------------------------------------


def test_every_code_has_a_page_and_every_page_a_code() -> None:
    pages = {p.stem for p in DOCS_DIR.glob("*.md") if p.name != docs.INDEX_NAME}
    assert pages == set(BY_CODE)


@pytest.mark.parametrize("entry", CODES, ids=IDS)
def test_page_is_up_to_date(entry: Code) -> None:
    page = DOCS_DIR / f"{entry.code}.md"
    assert page.read_text(encoding="utf-8") == docs.render_page(entry.code), (
        f"{page.name} is stale; run `python -m abl.checks.docs --write docs/diagnostics`"
    )


def test_index_is_up_to_date() -> None:
    assert (DOCS_DIR / docs.INDEX_NAME).read_text(encoding="utf-8") == docs.render_index()


def test_index_lists_every_code_once_in_registry_order() -> None:
    listed = re.findall(r"^\| \[([A-Z0-9_]+)\]\(\1\.md\) \| (\w+) \|", docs.render_index(), flags=re.M)
    assert listed == [(c.code, c.severity.value) for c in CODES]


@pytest.mark.parametrize("entry", CODES, ids=IDS)
def test_page_has_every_section(entry: Code) -> None:
    page = docs.render_page(entry.code)
    assert page.startswith(docs.GENERATED_MARKER)
    assert f"# {entry.code}: {entry.title}\n" in page
    assert f"**Severity:** {entry.severity.value}" in page
    headings = re.findall(r"^## (.+)$", page, flags=re.M)
    expected = ["Why", "Example", "Fix", "What the runtime does", "Quick fix"]
    assert headings[: len(expected)] == expected
    assert entry.bad_example.rstrip("\n") in page and entry.good_example.rstrip("\n") in page


def test_page_of_an_unregistered_code_raises() -> None:
    with pytest.raises(KeyError):
        docs.render_page("NOT_A_CODE")


def test_page_mentions_codes_that_fire_together() -> None:
    page = docs.render_page("MAP_DIRECTION_REVERSED")
    assert "also gives UNKNOWN_HANDOFF_RETURN_FIELD, W801" in page


def test_page_of_the_encoding_code_names_the_encoding() -> None:
    assert "saved as latin-1" in docs.render_page("INVALID_ENCODING")


# --- the docs script ----------------------------------------------------------------------


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return docs.main(list(argv), out=out), out.getvalue()


def test_check_fails_on_an_empty_directory(tmp_path: Path) -> None:
    code, out = _run("--check", str(tmp_path))
    assert code == 1
    assert "E330.md: missing" in out and "README.md: missing" in out


def test_write_then_check_is_clean(tmp_path: Path) -> None:
    target = tmp_path / "diagnostics"
    code, out = _run("--write", str(target))
    assert code == 0 and f"{len(CODES) + 1} pages written" in out
    assert _run("--check", str(target)) == (0, "")
    code, out = _run("--write", str(target))
    assert code == 0 and "0 pages written, 0 removed" in out


def test_check_reports_a_stale_page(tmp_path: Path) -> None:
    _run("--write", str(tmp_path))
    page = tmp_path / "W801.md"
    page.write_text(page.read_text(encoding="utf-8").replace("population source", "source"), encoding="utf-8")
    code, out = _run("--check", str(tmp_path))
    assert code == 1 and "W801.md: stale" in out
    _run("--write", str(tmp_path))
    assert _run("--check", str(tmp_path))[0] == 0


def test_write_removes_generated_orphans_and_keeps_hand_written_files(tmp_path: Path) -> None:
    _run("--write", str(tmp_path))
    (tmp_path / "OLD_CODE.md").write_text(docs.GENERATED_MARKER + "\n\n# OLD_CODE\n", encoding="utf-8")
    (tmp_path / "notes.md").write_text("# Notes kept by hand\n", encoding="utf-8")
    code, out = _run("--check", str(tmp_path))
    assert code == 1 and "OLD_CODE.md: not a registered code" in out and "notes.md" in out
    code, out = _run("--write", str(tmp_path))
    assert code == 0 and "1 removed" in out and "notes.md: not generated" in out
    assert not (tmp_path / "OLD_CODE.md").exists()
    assert (tmp_path / "notes.md").read_text(encoding="utf-8") == "# Notes kept by hand\n"


def test_script_requires_a_mode() -> None:
    with pytest.raises(SystemExit) as exc:
        docs.main([], out=io.StringIO())
    assert exc.value.code == 2
