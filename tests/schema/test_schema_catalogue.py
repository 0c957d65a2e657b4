"""The catalogue is complete, self-consistent, and says exactly what the seeds say."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from abl.schema import DocumentKind, Key, Section, ValueKind, all_sections, child, key_at, section
from abl.schema.keywords.common import GATHER_TYPES

# ABL-REFERENCE §3.0: the parser's section table, the AP additions, the other top-level forms,
# and the reserved / rejected keywords.
INVENTORY = (
    "AGENT", "VERSION", "DESCRIPTION", "LANGUAGE", "GOAL", "PERSONA", "LIMITATIONS", "IDENTITY",
    "INSTRUCTIONS", "EXECUTION", "TOOLS", "GATHER", "FLOW", "MEMORY", "CONSTRAINTS", "GUARDRAILS",
    "DELEGATE", "HANDOFF", "ESCALATE", "COMPLETE", "ON_ERROR", "ON_START", "MESSAGES", "TEMPLATES",
    "HOOKS", "NLU", "MULTI_INTENT", "LOOKUP_TABLES", "SYSTEM_PROMPT", "ATTACHMENTS", "INTENTS",
    "ENTITIES", "DESTINATIONS", "TRANSFER_FLOW_POLICIES", "RETURN_HANDLERS", "ACTION_HANDLERS",
    "CONVERSATION", "SUPERVISOR", "BEHAVIOR_PROFILE", "USE BEHAVIOR_PROFILE",
    "USE_BEHAVIOR_PROFILE", "BEHAVIOR_PROFILES", "RICH_CONTENT", "FORMATS", "ACTIONS", "AGENTS",
    "ROUTING", "HANDOFF_PROTOCOL", "STATE", "POLICIES", "COMMUNICATION", "BEHAVIOR", "TESTS",
    "MODE", "MODEL",
)  # fmt: skip

PROFILE_ONLY = ("PRIORITY", "WHEN", "RESPONSE")


def walk_keys(key: Key, path: str = "") -> Iterator[tuple[str, Key]]:
    here = f"{path}.{key.name}" if path else key.name
    yield here, key
    for sub in key.children:
        yield from walk_keys(sub, here)
    if key.entry is not None:
        yield from walk_keys(key.entry, here)


def every_key() -> list[tuple[str, Key]]:
    return [pair for sec in all_sections() for pair in walk_keys(sec.key)]


ALL_KEYS = every_key()
ALL_BLOCKS = [(p, k) for p, k in ALL_KEYS if k.children]


@pytest.mark.parametrize("name", INVENTORY)
def test_every_inventory_section_is_known(name: str) -> None:
    assert section(name) is not None, name


@pytest.mark.parametrize("name", PROFILE_ONLY)
def test_behavior_profile_sections_are_known(name: str) -> None:
    found = section(name, DocumentKind.BEHAVIOR_PROFILE)
    assert found is not None and found.allowed


def test_catalogue_has_hundreds_of_documented_keys() -> None:
    # A floor, so a refactor that silently drops a module is noticed.
    assert len(ALL_KEYS) > 600


@pytest.mark.parametrize(("path", "key"), ALL_KEYS, ids=[p for p, _ in ALL_KEYS])
def test_every_key_has_a_short_doc(path: str, key: Key) -> None:
    doc = key.doc.strip()
    assert doc, path
    assert doc.endswith((".", ")")), f"{path}: doc should be a sentence: {doc!r}"
    plain = re.sub(r"`[^`]*`|\"[^\"]*\"", "", doc)
    sentences = len(re.findall(r"[.!?](?:\s|$)", plain))
    assert 1 <= sentences <= 3, f"{path}: {sentences} sentences"


@pytest.mark.parametrize(("path", "key"), ALL_KEYS, ids=[p for p, _ in ALL_KEYS])
def test_key_definitions_are_consistent(path: str, key: Key) -> None:
    if key.kind is ValueKind.ENUM:
        assert key.values, f"{path}: an enum needs values"
    assert len({v.lower() for v in key.values}) == len(key.values), f"{path}: duplicate values"
    if key.value_pattern is not None:
        re.compile(key.value_pattern)
    if key.kind is ValueKind.ENUM and key.default is not None:
        assert key.default.lower() in {v.lower() for v in key.values}, path
    if key.free_keys:
        assert key.entry is not None, f"{path}: free keys need an entry schema"
    if key.entry is not None:
        assert key.free_keys or key.kind is ValueKind.SIGNATURES, path
    if key.min_value is not None and key.max_value is not None:
        assert key.min_value <= key.max_value, path
    for status in (key.removed, key.deprecated, key.ignored, key.not_executed):
        assert status is None or "`" in status, f"{path}: say what to use instead"


@pytest.mark.parametrize(("path", "block"), ALL_BLOCKS, ids=[p for p, _ in ALL_BLOCKS])
def test_no_two_keys_in_a_block_share_a_spelling(path: str, block: Key) -> None:
    spellings = [s.lower() for k in block.children for s in k.spellings]
    duplicates = {s for s in spellings if spellings.count(s) > 1}
    assert not duplicates, f"{path}: {duplicates}"


@pytest.mark.parametrize("sec", all_sections(), ids=[s.name for s in all_sections()])
def test_every_section_has_an_example_that_starts_with_it(sec: Section) -> None:
    if sec.key.removed or sec.key.ignored:
        return  # Nothing useful to show for a keyword that should not be written.
    assert sec.key.example.startswith(sec.name + ":"), sec.name


def test_section_headers_open_their_documents() -> None:
    opened = {s.name: s.opens for s in all_sections() if s.opens is not None}
    assert opened == {
        "AGENT": DocumentKind.AGENT,
        "SUPERVISOR": DocumentKind.SUPERVISOR,
        "BEHAVIOR_PROFILE": DocumentKind.BEHAVIOR_PROFILE,
    }


def test_removed_ignored_and_not_executed_sections() -> None:
    assert _section_key("MODE").removed
    assert "EXECUTION" in (_section_key("MODEL").removed or "")
    assert _section_key("TESTS").ignored
    assert "HANDOFF" in (_section_key("ROUTING").not_executed or "")


def _section_key(name: str) -> Key:
    found = section(name)
    assert found is not None, name
    return found.section.key


# --- seed 000: HISTORY --------------------------------------------------------------------


@pytest.mark.parametrize("path", ["HANDOFF.HISTORY", "HANDOFF.CONTEXT.history"])
def test_history_values_match_seed_000(path: str) -> None:
    key = key_at(path)
    assert key is not None and key.kind is ValueKind.HISTORY
    assert set(key.values) == {"full", "none", "summary_only", "auto"}
    assert key.value_hint == "last_<n>"
    assert key.default == "full" and key.fallback == "full"
    mode = child(key, "mode")
    count = child(key, "count")
    assert mode is not None and set(mode.key.values) == {
        "full",
        "none",
        "summary_only",
        "auto",
        "last_n",
    }
    assert count is not None and count.key.kind is ValueKind.INT and count.key.min_value == 1


def test_history_inside_context_is_spelled_lowercase() -> None:
    context = key_at("HANDOFF.CONTEXT")
    assert context is not None
    assert [k.name for k in context.children][:3] == ["pass", "summary", "history"]


# --- seed 004: returnable handoffs ----------------------------------------------------------


def test_return_is_a_lowercase_only_boolean_with_its_alias() -> None:
    ret = key_at("HANDOFF.RETURN")
    assert ret is not None
    assert ret.kind is ValueKind.BOOL and ret.exact_true and ret.default == "false"
    assert ret.aliases == ("EXPECT_RETURN",)
    assert "lowercase" in ret.doc


def test_on_return_block_matches_seed_004() -> None:
    on_return = key_at("HANDOFF.ON_RETURN")
    assert on_return is not None and ValueKind.NAME in on_return.also
    assert {k.name.lower() for k in on_return.children} == {
        "action",
        "handler",
        "resume_with",
        "map",
        "set",
        "clear",
    }
    action = child(on_return, "action")
    resume_with = child(on_return, "RESUME_WITH")
    assert action is not None and action.key.values == ("continue", "resume_intent")
    assert action.key.fallback == "continue"
    assert resume_with is not None and resume_with.key.values == (
        "original_handoff_utterance",
        "latest_child_user_utterance",
        "latest_session_user_utterance",
        "forwarded_return_message",
    )
    assert resume_with.key.default == "original_handoff_utterance"


def test_on_failure_values_match_seed_004() -> None:
    key = key_at("HANDOFF.ON_FAILURE")
    assert key is not None and key.kind is ValueKind.ACTION
    assert set(key.values) == {"continue", "escalate", "respond"}
    assert key.default == "continue"


def test_return_handlers_match_the_reference() -> None:
    handlers = key_at("RETURN_HANDLERS")
    assert handlers is not None and handlers.free_keys and handlers.entry is not None
    assert {k.name for k in handlers.entry.children} == {
        "RESPOND",
        "CLEAR",
        "CONTINUE",
        "RESUME_INTENT",
    }
    assert set(handlers.reserved_names) == {"continue", "resume_intent"}


def test_parent_return_settings_match_seed_004() -> None:
    min_confidence = key_at("EXECUTION.pipeline.parentReturn.minConfidence")
    ignore_ambiguous = key_at("EXECUTION.pipeline.parentReturn.ignoreAmbiguous")
    assert min_confidence is not None and (min_confidence.min_value, min_confidence.max_value) == (
        0,
        1,
    )
    assert ignore_ambiguous is not None and ignore_ambiguous.default == "false"


HANDOFF_KEYS = (
    "TO", "WHEN", "PRIORITY", "CONTEXT", "PASS", "SUMMARY", "HISTORY", "SET", "RETURN",
    "EXPECT_RETURN", "ON_RETURN", "MAP", "ON_FAILURE", "ON_FAIL", "ON_TIMEOUT", "TIMEOUT",
    "EXPERIENCE_MODE", "REMOTE", "LOCATION", "ENDPOINT", "PROTOCOL", "ASYNC", "ASYNC_TIMEOUT",
    "ENABLED_WHEN", "grant_memory",
)  # fmt: skip


@pytest.mark.parametrize("name", HANDOFF_KEYS)
def test_every_handoff_key_is_known_and_shown_with_an_example_or_doc(name: str) -> None:
    found = child("HANDOFF", name)
    assert found is not None, name


def test_handoff_legacy_keys_carry_their_status() -> None:
    legacy_map = child("HANDOFF", "MAP")
    grant = child("HANDOFF", "grant_memory")
    context_grant = child("HANDOFF.CONTEXT", "grant_memory")
    assert legacy_map is not None and "ON_RETURN" in (legacy_map.key.deprecated or "")
    assert grant is not None and "memory_grants" in (grant.key.removed or "")
    assert context_grant is not None and context_grant.key.removed


def test_experience_modes_and_their_defaults() -> None:
    modes = {"shared_voice_handoff", "visible_handoff", "silent_delegate", "human_escalation"}
    handoff_mode = key_at("HANDOFF.EXPERIENCE_MODE")
    delegate_mode = key_at("DELEGATE.EXPERIENCE_MODE")
    assert handoff_mode is not None and set(handoff_mode.values) == modes
    assert handoff_mode.default == "shared_voice_handoff"
    assert delegate_mode is not None and delegate_mode.default == "silent_delegate"


# --- other enumerations -----------------------------------------------------------------------


def test_gather_types_cover_reference_section_3_5() -> None:
    key = key_at("GATHER.any_field.type")
    assert key is not None and key.default == "string"
    assert set(key.values) == set(GATHER_TYPES) == {
        "string", "number", "boolean", "date", "email", "phone", "text", "free_text", "integer",
        "float", "currency", "datetime", "enum", "pattern", "location", "attachment",
    }  # fmt: skip


def test_memory_session_type_and_reset() -> None:
    type_key = key_at("MEMORY.session.TYPE")
    reset = key_at("MEMORY.session.RESET")
    assert type_key is not None and set(type_key.values) == {
        "string",
        "number",
        "boolean",
        "date",
        "array",
        "object",
    }
    assert reset is not None and reset.default == "per_session"


def test_behavior_role() -> None:
    role = key_at("BEHAVIOR.role")
    assert role is not None and role.values == ("router", "orchestrator", "assistant")
    for old in ("canRespondDirectly", "allowedDirectActions", "forbiddenActions"):
        found = child("BEHAVIOR", old)
        assert found is not None and found.key.deprecated, old


def test_multi_intent_defaults() -> None:
    strategy = key_at("MULTI_INTENT.strategy")
    max_intents = key_at("MULTI_INTENT.max_intents")
    assert strategy is not None and strategy.default == "primary_queue"
    assert max_intents is not None and (max_intents.min_value, max_intents.max_value) == (1, 10)
