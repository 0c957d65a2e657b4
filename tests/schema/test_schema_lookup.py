"""Looking keywords up the way the platform reads them: case, aliases, documents, case rules."""

from __future__ import annotations

import pytest

from abl.schema import (
    DocumentKind,
    Key,
    MatchKind,
    child,
    child_names,
    key_at,
    section,
    suggest_child,
    suggest_section,
    suggest_value,
    value_allowed,
)


def _key(path: str) -> Key:
    key = key_at(path)
    assert key is not None, path
    return key


# --- sections -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "canonical", "canonical_case"),
    [
        ("HANDOFF", "HANDOFF", True),
        ("handoff", "HANDOFF", False),
        ("Handoff", "HANDOFF", False),
        ("USE BEHAVIOR_PROFILE", "USE BEHAVIOR_PROFILE", True),
        ("USE   BEHAVIOR_PROFILE", "USE BEHAVIOR_PROFILE", True),
        ("use behavior_profile", "USE BEHAVIOR_PROFILE", False),
    ],
)
def test_sections_match_without_regard_to_case(written: str, canonical: str, canonical_case: bool) -> None:
    found = section(written)
    assert found is not None
    assert found.section.name == canonical
    assert found.canonical_case is canonical_case
    assert found.written == written


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [("USE_BEHAVIOR_PROFILE", "USE BEHAVIOR_PROFILE"), ("FORMATS", "RICH_CONTENT")],
)
def test_section_aliases(alias: str, canonical: str) -> None:
    found = section(alias)
    assert found is not None and found.section.name == canonical
    assert found.kind is MatchKind.ALIAS and found.spelling == alias and found.canonical_case


@pytest.mark.parametrize("name", ["GOLA", "HANDOF", "", "AGENT_X"])
def test_unknown_sections_are_none(name: str) -> None:
    assert section(name) is None


@pytest.mark.parametrize(
    ("name", "document", "allowed"),
    [
        ("HANDOFF", DocumentKind.AGENT, True),
        ("HANDOFF", DocumentKind.SUPERVISOR, True),
        ("HANDOFF", DocumentKind.BEHAVIOR_PROFILE, False),
        ("AGENTS", DocumentKind.SUPERVISOR, True),
        ("AGENTS", DocumentKind.AGENT, False),
        ("WHEN", DocumentKind.BEHAVIOR_PROFILE, True),
        ("WHEN", DocumentKind.AGENT, False),
        ("PRIORITY", DocumentKind.BEHAVIOR_PROFILE, True),
        ("INSTRUCTIONS", DocumentKind.BEHAVIOR_PROFILE, True),
        ("TOOLS", DocumentKind.TOOLS_LIBRARY, True),
        ("GOAL", DocumentKind.TOOLS_LIBRARY, False),
        ("TESTS", DocumentKind.TOOLS_LIBRARY, True),
    ],
)
def test_sections_know_their_documents(name: str, document: DocumentKind, allowed: bool) -> None:
    found = section(name, document)
    assert found is not None and found.allowed is allowed


def test_shape_depends_on_the_document() -> None:
    agent_gather = section("GATHER", DocumentKind.AGENT)
    profile_gather = section("GATHER", DocumentKind.BEHAVIOR_PROFILE)
    library_tools = section("TOOLS", DocumentKind.TOOLS_LIBRARY)
    profile_tools = section("TOOLS", DocumentKind.BEHAVIOR_PROFILE)
    assert agent_gather is not None and agent_gather.section.key.free_keys
    assert profile_gather is not None and child(profile_gather.section, "FIELD_OVERRIDES") is not None
    assert library_tools is not None and child(library_tools.section, "base_url") is not None
    assert profile_tools is not None and child(profile_tools.section, "HIDE") is not None
    # Without a document the agent shape is used.
    default = section("TOOLS")
    assert default is not None and child(default.section, "base_url") is None


# --- keys inside blocks ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parent", "written", "canonical"),
    [
        ("HANDOFF", "RETURN", "RETURN"),
        ("HANDOFF", "EXPECT_RETURN", "RETURN"),
        ("HANDOFF", "ON_FAIL", "ON_FAILURE"),
        ("HANDOFF", "ON_FAILURE", "ON_FAILURE"),
        ("DELEGATE", "ON_FAILURE", "ON_FAIL"),
        ("DELEGATE", "TO", "AGENT"),
        ("DELEGATE", "PASS", "INPUT"),
        ("DELEGATE", "SUMMARY", "PURPOSE"),
        ("COMPLETE", "FORMATS", "RICH_CONTENT"),
        ("MEMORY.session", "initial_value", "INITIAL"),
        ("MEMORY.persistent", "DEFAULT", "DEFAULT_VALUE"),
        ("CONSTRAINTS.any_label", "ON_FAILURE", "ON_FAIL"),
        ("FLOW.any_step", "ON_FAILURE", "ON_FAIL"),
        ("FLOW.any_step", "SAY", "RESPOND"),
    ],
)
def test_key_aliases_resolve(parent: str, written: str, canonical: str) -> None:
    found = child(parent, written)
    assert found is not None and found.key.name == canonical
    expected = MatchKind.NAME if written == canonical else MatchKind.ALIAS
    assert found.kind is expected


@pytest.mark.parametrize(
    ("parent", "written", "canonical", "case_ok"),
    [
        ("HANDOFF.CONTEXT", "pass", "pass", True),
        ("HANDOFF.CONTEXT", "PASS", "pass", False),
        ("HANDOFF.CONTEXT", "Summary", "summary", False),
        ("HANDOFF.CONTEXT", "HISTORY", "history", False),
        ("RETURN_HANDLERS.income_done", "RESUME_INTENT", "RESUME_INTENT", True),
        ("RETURN_HANDLERS.income_done", "respond", "RESPOND", False),
        ("RETURN_HANDLERS.income_done", "Clear", "CLEAR", False),
        ("HANDOFF", "to", "TO", True),
        ("GATHER.order_id", "PROMPT", "prompt", True),
        ("MEMORY", "SESSION", "session", True),
    ],
)
def test_case_rules(parent: str, written: str, canonical: str, case_ok: bool) -> None:
    found = child(parent, written)
    assert found is not None and found.key.name == canonical
    assert found.case_ok is case_ok
    assert found.exact is (written == canonical)


def test_context_and_return_handlers_explain_their_case_rule() -> None:
    context = key_at("HANDOFF.CONTEXT")
    handler = key_at("RETURN_HANDLERS.x")
    assert context is not None and "ignores" in context.case_note
    assert handler is not None and "uppercase" in handler.case_note


def test_free_keys_answer_with_their_entry_schema() -> None:
    field = child("GATHER", "annual_income")
    assert field is not None and field.kind is MatchKind.FREE_KEY and field.key.name == "<field>"
    assert child(field.key, "TYPE") is not None
    intent = child("INTENTS", "billing")
    fixed = child("INTENTS", "lexical_fallback")
    assert intent is not None and intent.kind is MatchKind.FREE_KEY
    assert fixed is not None and fixed.kind is MatchKind.NAME and fixed.key.name == "LEXICAL_FALLBACK"


@pytest.mark.parametrize(("name", "reserved"), [("continue", True), ("Resume_Intent", True), ("income_done", False)])
def test_reserved_return_handler_names(name: str, reserved: bool) -> None:
    found = child("RETURN_HANDLERS", name)
    assert found is not None and found.reserved is reserved


def test_camel_case_spellings_only_where_the_block_allows_them() -> None:
    queue = child("EXECUTION", "maxQueueDepth")
    assert queue is not None and queue.key.name == "max_queue_depth" and queue.kind is MatchKind.CAMEL_CASE
    snake = child("EXECUTION.pipeline.parentReturn", "min_confidence")
    assert snake is not None and snake.key.name == "minConfidence"
    assert child("HANDOFF", "expectReturn") is None


def test_unknown_keys_are_none_and_open_blocks_say_so() -> None:
    assert child("HANDOFF", "GOTO") is None
    assert child("HANDOFF.CONTEXT", "history_mode") is None
    step = key_at("FLOW.some_step")
    assert step is not None and step.open and child(step, "ANYTHING_AT_ALL") is None
    handoff = key_at("HANDOFF")
    assert handoff is not None and not handoff.open


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("HANDOFF.ON_RETURN.resume_with", "resume_with"),
        ("HANDOFF.CONTEXT.history.count", "count"),
        ("handoff.context.HISTORY.mode", "mode"),
        ("GATHER.order_id.type", "type"),
        ("RETURN_HANDLERS.done.CONTINUE", "CONTINUE"),
        ("EXECUTION.models.extraction", "extraction"),
        ("EXECUTION.models.my_custom_operation", "<operation>"),
        ("MEMORY.recall.ACTION", "ACTION"),
        ("ESCALATE.triggers.PRIORITY", "PRIORITY"),
    ],
)
def test_key_paths(path: str, name: str) -> None:
    key = key_at(path)
    assert key is not None and key.name == name


@pytest.mark.parametrize("path", ["NOPE", "HANDOFF.NOPE", "HANDOFF.CONTEXT.history.nope", ""])
def test_unknown_key_paths(path: str) -> None:
    assert key_at(path) is None


def test_child_names_include_aliases() -> None:
    names = child_names(_key("HANDOFF"))
    assert "RETURN" in names and "EXPECT_RETURN" in names and "ON_FAIL" in names


# --- did you mean ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typo", "expected"),
    [
        ("GOLA", "GOAL"),
        ("HANDOF", "HANDOFF"),
        ("gather", "GATHER"),
        ("RETURN_HANDLER", "RETURN_HANDLERS"),
        ("xyzzy", None),
    ],
)
def test_section_suggestions(typo: str, expected: str | None) -> None:
    assert suggest_section(typo) == expected


def test_value_and_key_suggestions() -> None:
    type_key = key_at("GATHER.f.type")
    mode = key_at("HANDOFF.HISTORY.mode")
    assert type_key is not None and suggest_value(type_key, "strng") == "string"
    assert mode is not None and suggest_value(mode, "last") == "last_n"
    assert suggest_child(_key("HANDOFF"), "EXPECT_RETRUN") == "EXPECT_RETURN"
    assert suggest_child(_key("HANDOFF.ON_RETURN"), "resume_wiht") == "resume_with"


def test_unknown_words_get_no_suggestion() -> None:
    # The scoring itself is tested in tests/test_suggest.py; here, only that the catalogue's
    # own lookups stay quiet when nothing is close.
    type_key = key_at("GATHER.f.type")
    assert type_key is not None and suggest_value(type_key, "xyzzy") is None
    assert suggest_child(_key("HANDOFF"), "xyzzy") is None


# --- values ---------------------------------------------------------------------------------


# Seed 000, "How the compiler reads the value": the one-line spellings the compiler accepts.
@pytest.mark.parametrize(
    ("value", "allowed"),
    [
        ("last_5", True),
        ("last_0", True),
        ("FULL", True),
        ('"none"', True),
        ("summary_only", True),
        ("Auto", True),
        ("last_n", False),
        ("recent", False),
        ("last_", False),
        ("last_5x", False),
    ],
)
def test_one_line_history_values(value: str, allowed: bool) -> None:
    key = key_at("HANDOFF.HISTORY")
    assert key is not None and value_allowed(key, value) is allowed


@pytest.mark.parametrize(("value", "allowed"), [("last_n", True), ("full", True), ("recent", False), ("last_5", False)])
def test_block_history_modes(value: str, allowed: bool) -> None:
    key = key_at("HANDOFF.HISTORY.mode")
    assert key is not None and value_allowed(key, value) is allowed


@pytest.mark.parametrize(
    ("value", "allowed"),
    [
        ("15s", True),
        ('"10s"', True),
        ("30000", True),
        ("2m", True),
        ("500ms", True),
        ("1h", False),
        ("soon", False),
    ],
)
def test_timeout_syntax(value: str, allowed: bool) -> None:
    key = key_at("HANDOFF.TIMEOUT")
    assert key is not None and value_allowed(key, value) is allowed


def test_open_value_sets_accept_anything() -> None:
    goal = key_at("GOAL")
    assert goal is not None and value_allowed(goal, "anything at all")


@pytest.mark.parametrize(
    ("path", "value", "allowed"),
    [
        ("HANDOFF.ON_FAILURE", 'RESPOND "I cannot collect your income details right now."', True),
        ("HANDOFF.ON_FAILURE", "continue", True),
        ("HANDOFF.ON_FAILURE", "ESCALATE", True),
        ("HANDOFF.ON_FAILURE", "retry", False),
        ("HANDOFF.ON_TIMEOUT", "respond:Still working on it", True),
        ("HANDOFF.ON_TIMEOUT", "wait", False),
        ("DELEGATE.ON_FAIL", "retry", True),
        ("FLOW.step.THEN", 'ESCALATE with REASON: "Transfer submission failed"', True),
        ("FLOW.step.THEN", "collect_amount", True),
        ("FLOW.step.THEN", "two words", False),
        ("ON_ERROR.tool_error.THEN", "HANDOFF Live_Agent", True),
        ("ON_ERROR.tool_error.THEN", "backtrack", True),
        ("ON_ERROR.tool_error.THEN", "restart", False),
        ("CONSTRAINTS.limits.ON_FAIL", '"I need the tracking code first."', True),
        ("CONSTRAINTS.limits.ON_FAIL", "|", True),
        ("CONSTRAINTS.limits.ON_FAIL", "BLOCK", True),
        ("ESCALATE.triggers.PRIORITY", "critical", True),
        ("ESCALATE.triggers.PRIORITY", "3", True),
        ("ESCALATE.triggers.PRIORITY", "urgent", False),
    ],
)
def test_action_phrases_and_mixed_values(path: str, value: str, allowed: bool) -> None:
    key = key_at(path)
    assert key is not None and value_allowed(key, value) is allowed
