"""Every top-level section of ABL, and the document kinds in which each one belongs.

The order below is the order of the language reference's inventory (§3.0), which is also the
order of the generated keyword reference. Sections whose shape depends on the document (TOOLS,
GATHER, FLOW and CONSTRAINTS read differently in a behavior profile or a tool library) appear
once per shape.
"""

from __future__ import annotations

from .keywords import (
    data,
    document,
    execution,
    flow,
    gather,
    lifecycle,
    memory,
    nlu,
    profiles,
    routing,
    rules,
    supervisor,
    tools,
)
from .keywords.common import VOICE
from .types import AGENT_DOCUMENTS, DocumentKind, Key, Section

_AGENT = frozenset({DocumentKind.AGENT})
_SUPERVISOR = frozenset({DocumentKind.SUPERVISOR})
_PROFILE = frozenset({DocumentKind.BEHAVIOR_PROFILE})
_LIBRARY = frozenset({DocumentKind.TOOLS_LIBRARY})
_AGENT_OR_PROFILE = AGENT_DOCUMENTS | _PROFILE
_EVERY = frozenset(DocumentKind)

_TOP_LEVEL_VOICE = Key(
    VOICE.name,
    VOICE.kind,
    "Default voice settings (provider, voice, speed, spoken-style instructions) for every "
    "reply of the agent or of agents using this profile.",
    open=True,
    children=VOICE.children,
    example='VOICE:\n  instructions: "Use a calm voice with clear pauses."',
    source="§3.19, §3.22",
)


def _in(documents: frozenset[DocumentKind], *keys: Key) -> list[Section]:
    return [Section(key, documents) for key in keys]


SECTIONS: tuple[Section, ...] = (
    Section(document.AGENT, _AGENT, opens=DocumentKind.AGENT),
    Section(document.SUPERVISOR, _SUPERVISOR, opens=DocumentKind.SUPERVISOR),
    Section(document.BEHAVIOR_PROFILE, _PROFILE, opens=DocumentKind.BEHAVIOR_PROFILE),
    *_in(
        AGENT_DOCUMENTS,
        document.VERSION,
        document.DESCRIPTION,
        document.LANGUAGE,
        document.GOAL,
        document.PERSONA,
        document.LIMITATIONS,
        document.IDENTITY,
    ),
    Section(document.INSTRUCTIONS, _AGENT_OR_PROFILE),
    *_in(
        AGENT_DOCUMENTS,
        execution.EXECUTION,
        tools.TOOLS,
        gather.GATHER,
        flow.FLOW,
        memory.MEMORY,
        rules.CONSTRAINTS,
        rules.GUARDRAILS,
        routing.DELEGATE,
        routing.HANDOFF,
        routing.ESCALATE,
        lifecycle.COMPLETE,
        lifecycle.ON_ERROR,
        lifecycle.ON_START,
        lifecycle.MESSAGES,
        lifecycle.TEMPLATES,
        lifecycle.HOOKS,
        nlu.NLU,
        nlu.MULTI_INTENT,
        data.LOOKUP_TABLES,
        document.SYSTEM_PROMPT,
        data.ATTACHMENTS,
        nlu.INTENTS,
        nlu.ENTITIES,
        data.DESTINATIONS,
        routing.TRANSFER_FLOW_POLICIES,
        routing.RETURN_HANDLERS,
        supervisor.ACTION_HANDLERS,
    ),
    Section(profiles.CONVERSATION, _AGENT_OR_PROFILE),
    *_in(
        AGENT_DOCUMENTS,
        profiles.INLINE_BEHAVIOR_PROFILE,
        profiles.USE_BEHAVIOR_PROFILE,
        profiles.BEHAVIOR_PROFILES,
        supervisor.RICH_CONTENT_SECTION,
        supervisor.ACTIONS_SECTION,
    ),
    Section(_TOP_LEVEL_VOICE, _AGENT_OR_PROFILE),
    *_in(
        _SUPERVISOR,
        supervisor.AGENTS,
        supervisor.ROUTING,
        supervisor.HANDOFF_PROTOCOL,
        supervisor.STATE,
        supervisor.POLICIES,
        supervisor.COMMUNICATION,
    ),
    Section(supervisor.BEHAVIOR, AGENT_DOCUMENTS),
    *_in(
        _PROFILE,
        profiles.PROFILE_PRIORITY,
        profiles.PROFILE_WHEN,
        profiles.RESPONSE,
        rules.CONSTRAINTS_PROFILE,
        tools.TOOLS_PROFILE,
        gather.GATHER_PROFILE,
        flow.FLOW_PROFILE,
    ),
    Section(tools.TOOLS_LIBRARY, _LIBRARY),
    Section(document.TESTS, _EVERY),
    Section(document.MODE, _EVERY),
    Section(document.MODEL, AGENT_DOCUMENTS),
)
