"""Hover text, completion items and the keyword reference page, all generated from the catalogue."""

from __future__ import annotations

from pathlib import Path

import pytest

from abl.schema import (
    DocumentKind,
    Key,
    all_sections,
    completion_items,
    hover_markdown,
    key_at,
    lookup,
    render_keyword_reference,
    section,
    value_completion_items,
)

REPO = Path(__file__).resolve().parents[2]


def _key(path: str) -> Key:
    key = key_at(path)
    assert key is not None, path
    return key


def test_hover_for_history_shows_values_default_fallback_and_example() -> None:
    text = hover_markdown(_key("HANDOFF.HISTORY"))
    assert text.startswith("**`HISTORY`** · history mode")
    assert "Allowed: `full`, `none`, `summary_only`, `auto`, `last_<n>`" in text
    assert "Default: `full`" in text
    assert "silently becomes `full`" in text
    assert "Keys: `mode`, `count`" in text
    assert "```abl\nHISTORY:\n  mode: last_n\n  count: 6\n```" in text


def test_hover_for_return_explains_lowercase_true_and_the_alias() -> None:
    text = hover_markdown(_key("HANDOFF.RETURN"))
    assert "Only the exact lowercase `true` is true" in text
    assert "Also spelled: `EXPECT_RETURN`" in text
    assert "Default: `false`" in text


def test_hover_for_sections_names_the_documents() -> None:
    found = section("HANDOFF")
    assert found is not None
    assert "In: agent, supervisor" in hover_markdown(found.section)


def test_hover_shows_status_lines() -> None:
    assert "**Removed:**" in hover_markdown(_key("MODE"))
    assert "**Ignored:**" in hover_markdown(_key("TESTS"))
    assert "**Not executed:**" in hover_markdown(_key("ROUTING"))
    assert "**Deprecated:**" in hover_markdown(_key("HANDOFF.MAP"))
    assert "Keys inside: the platform ignores uppercase keys" in hover_markdown(_key("HANDOFF.CONTEXT"))


def test_hover_lists_ranges_and_required() -> None:
    assert "Range: 1 to 10" in hover_markdown(_key("MULTI_INTENT.max_intents"))
    assert "Range: at least 1" in hover_markdown(_key("HANDOFF.HISTORY.count"))
    assert "- Required" in hover_markdown(_key("HANDOFF.TO"))


def test_hover_is_reachable_from_the_lookup_module() -> None:
    assert lookup.hover_markdown is hover_markdown
    missing = "no_such_function"
    with pytest.raises(AttributeError):
        getattr(lookup, missing)


def test_section_completion_for_agents() -> None:
    labels = {item.label for item in completion_items(None, DocumentKind.AGENT)}
    assert {"GOAL", "HANDOFF", "GATHER", "RETURN_HANDLERS", "USE BEHAVIOR_PROFILE"} <= labels
    # Rejected, ignored and never-executed sections are not offered, nor other documents' ones.
    assert not labels & {"MODE", "MODEL", "TESTS", "ROUTING", "WHEN", "PRIORITY", "AGENTS"}


def test_section_completion_for_profiles_and_supervisors() -> None:
    profile = {item.label for item in completion_items(None, DocumentKind.BEHAVIOR_PROFILE)}
    supervisor = {item.label for item in completion_items(None, DocumentKind.SUPERVISOR)}
    assert {"WHEN", "PRIORITY", "TOOLS", "GATHER", "CONVERSATION"} <= profile
    assert "HANDOFF" not in profile
    assert {"AGENTS", "BEHAVIOR", "HANDOFF"} <= supervisor


def test_key_completion_inside_a_handoff_route() -> None:
    items = {item.label: item for item in completion_items(_key("HANDOFF"))}
    assert {"TO", "WHEN", "RETURN", "ON_RETURN", "HISTORY", "CONTEXT"} <= set(items)
    assert "grant_memory" not in items
    assert items["MAP"].deprecated and not items["TO"].deprecated
    assert items["TO"].insert_text == "TO: " and items["TO"].detail == "agent name · required"
    assert items["CONTEXT"].insert_text == "CONTEXT:"
    assert items["RETURN"].documentation == hover_markdown(_key("HANDOFF.RETURN"))


def test_context_completion_offers_lowercase_keys() -> None:
    labels = [item.label for item in completion_items(_key("HANDOFF.CONTEXT"))]
    assert labels == ["pass", "summary", "history", "set", "memory_grants"]


def test_free_key_blocks_offer_their_common_names() -> None:
    items = {item.label: item for item in completion_items(_key("ON_ERROR"))}
    assert {"tool_error", "llm_error", "default", "unknown_error"} <= set(items)
    assert items["tool_error"].insert_text == "tool_error:"
    assert "error type" in items["tool_error"].documentation


def test_history_value_completion() -> None:
    items = value_completion_items(_key("HANDOFF.HISTORY"))
    assert [i.label for i in items] == ["auto", "full", "last_5", "none", "summary_only"]
    assert {i.label for i in items if "(default)" in i.detail} == {"full"}
    assert all(i.kind == "value" for i in items)


def test_boolean_and_enum_value_completion() -> None:
    assert [i.label for i in value_completion_items(_key("HANDOFF.RETURN"))] == ["false", "true"]
    assert [i.label for i in value_completion_items(_key("HANDOFF.ON_RETURN.action"))] == [
        "continue",
        "resume_intent",
    ]


def test_reference_page_is_deterministic_and_covers_every_section() -> None:
    page = render_keyword_reference()
    assert page == render_keyword_reference()
    assert page.startswith("# ABL keyword reference\n")
    for sec in all_sections():
        assert f"## `{sec.name}` (" in page, sec.name
    for row in (
        "`CONTEXT.history.mode`",
        "`ON_RETURN.resume_with`",
        "`RETURN`",
        "`<handler>.RESUME_INTENT`",
    ):
        assert row in page, row


def test_reference_tables_keep_five_columns() -> None:
    rows = [line for line in render_keyword_reference().splitlines() if line.startswith("| `")]
    assert rows, "the reference page has no keyword rows"
    for line in rows:
        unescaped = line.replace("\\|", "")
        assert unescaped.count("|") == 6, line


def test_committed_reference_page_matches_the_catalogue() -> None:
    page = REPO / "docs" / "keywords.md"
    if not page.exists():
        pytest.skip("docs/keywords.md has not been generated yet")
    assert page.read_text(encoding="utf-8") == render_keyword_reference()
