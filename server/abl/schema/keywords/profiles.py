"""Behavior profiles and CONVERSATION style settings.

Source: ABL-REFERENCE §3.22.
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V

USE_BEHAVIOR_PROFILE = Key(
    "USE BEHAVIOR_PROFILE",
    V.NAME,
    "Attaches a behavior profile from `behavior_profiles/` to this agent; it applies while its `WHEN` holds.",
    aliases=("USE_BEHAVIOR_PROFILE",),
    refers_to="behavior_profile",
    repeatable=True,
    example="USE BEHAVIOR_PROFILE: voice_vip",
    source="§3.22",
)

PROFILE_PRIORITY = Key(
    "PRIORITY",
    V.INT,
    "Rank of this profile when several apply; higher wins. Required, not negative.",
    required=True,
    min_value=0,
    example="PRIORITY: 100",
    source="§3.22",
)

PROFILE_WHEN = Key(
    "WHEN",
    V.CONDITION,
    "CEL condition under which the profile applies; `true` makes it the default profile. Required.",
    required=True,
    example='WHEN: channel == "voice"',
    source="§3.22",
)

RESPONSE = Key(
    "RESPONSE",
    V.BLOCK,
    "Limits on replies under this profile.",
    children=(
        Key("max_buttons", V.INT, "Most buttons per reply."),
        Key("fallback_format", V.STRING, "Format used when a rich one is not supported."),
        Key("media_types", V.LIST, "Media types allowed.", item_kind=V.STRING),
        Key("max_response_length", V.INT, "Longest reply."),
    ),
    example="RESPONSE:\n  max_buttons: 3",
    source="§3.22",
)

BEHAVIOR_PROFILES = Key(
    "BEHAVIOR_PROFILES",
    V.LIST_OF_BLOCKS,
    "Older inline profiles written inside the agent; all matching ones are merged by "
    "priority. Prefer profile files attached with `USE BEHAVIOR_PROFILE`.",
    open=True,
    children=(
        Key("NAME", V.NAME, "Profile name.", required=True),
        Key("PRIORITY", V.INT, "Merge order."),
        Key("WHEN", V.CONDITION, "When the profile applies."),
        Key("INSTRUCTIONS", V.TEXT, "Extra instructions."),
        Key("VOICE", V.BLOCK, "Voice settings.", open=True),
        Key("RESPONSE_RULES", V.ANY, "Reply limits."),
        Key("TOOLS_HIDE", V.LIST, "Tools hidden.", item_kind=V.NAME),
        Key("TOOLS_ADD", V.ANY, "Tools added."),
        Key("CONSTRAINTS", V.LIST, "Extra rules.", item_kind=V.STRING),
        Key("GATHER_OVERRIDES", V.ANY, "Field overrides."),
        Key("FLOW_MODIFICATIONS", V.ANY, "Flow changes."),
        Key("FLOW_REPLACE", V.ANY, "Replacement flow."),
    ),
    example='BEHAVIOR_PROFILES:\n  - NAME: vip\n    PRIORITY: 10\n    WHEN: user.tier == "vip"',
    source="§3.22",
)

_SPEAKING = Key(
    "speaking",
    V.BLOCK,
    "How the agent talks: style, tone, pace, length, language policy, read-backs.",
    open=True,
    children=(
        Key("style", V.STRING, "Overall speaking style."),
        Key("tone", V.STRING, "Tone of voice (`warm`, `formal`, ...)."),
        Key("emotion", V.STRING, "Emotional colouring."),
        Key("pace", V.STRING, "Speaking pace."),
        Key("variety", V.STRING, "How much phrasing varies."),
        Key("max_sentences", V.INT, "Most sentences per reply."),
        Key("one_thing_at_a_time", V.BOOL, "Ask or say one thing per turn."),
        Key(
            "language_policy",
            V.ENUM,
            "Which language replies use.",
            values=("interaction_context", "agent_default", "fixed"),
        ),
        Key("fixed_language", V.STRING, "Language for `language_policy: fixed`."),
        Key("tool_lead_in", V.ANY, "What is said before a tool call."),
        Key("tool_results", V.ANY, "How tool results are voiced."),
        Key("readback", V.ANY, "How values are read back."),
        Key("handoffs", V.ANY, "What is said around handoffs."),
        Key("phrases_ref", V.NAME, "Named phrase set."),
        Key("pronunciations_ref", V.NAME, "Named pronunciation set."),
    ),
)

_LISTENING = Key(
    "listening",
    V.BLOCK,
    "How the agent listens on voice: interruptions, pauses, silence, hold, back-channels.",
    open=True,
    children=(
        Key("barge_in", V.ANY, "Interruption handling."),
        Key("backchannels", V.ANY, "Short listener sounds."),
        Key("on_pause", V.ANY, "What happens on a pause."),
        Key("on_overlap", V.ANY, "What happens when both speak."),
        Key("on_unclear_audio", V.ANY, "What happens on unclear audio."),
        Key("on_self_correction", V.ANY, "What happens when the caller corrects themselves."),
        Key("use_audio_cues", V.BOOL, "Use non-verbal audio cues."),
        Key("on_no_input", V.BLOCK, "Re-prompts when the caller says nothing.", open=True),
        Key("on_caller_backchannel", V.BLOCK, 'Handling of caller "mm-hm"s.', open=True),
        Key("on_hold", V.BLOCK, 'Handling of "hold on" requests.', open=True),
        Key("barge_in_continuation", V.BLOCK, "Merging interrupted speech.", open=True),
    ),
)

_INTERACTION = Key(
    "interaction",
    V.BLOCK,
    "How the agent conducts the exchange: answer shape, detail, initiative, clarification, "
    "confirmation, empathy, repair and closure.",
    open=True,
    children=tuple(
        Key(name, V.ANY, doc)
        for name, doc in (
            ("answer_shape", "Shape of answers."),
            ("detail", "Level of detail."),
            ("initiative", "How proactive the agent is."),
            ("grounding", "How answers are grounded."),
            ("clarification", "When and how often to ask (`max_questions`)."),
            ("confirmation", "When to confirm."),
            ("uncertainty", "How uncertainty is expressed."),
            ("empathy", "How empathy is shown."),
            ("repair", "How misunderstandings are repaired."),
            ("context", "How context is carried."),
            ("closure", "How conversations end."),
            ("assumption_handling", "How assumptions are stated."),
            ("flow_mode", "How strictly scripted steps are followed."),
        )
    ),
)

CONVERSATION = Key(
    "CONVERSATION",
    V.BLOCK,
    "Conversational style: how the agent speaks, listens (on voice) and conducts the "
    "exchange. Also allowed in behavior profiles.",
    open=True,
    children=(_SPEAKING, _LISTENING, _INTERACTION),
    example="CONVERSATION:\n  speaking:\n    tone: warm\n    max_sentences: 2",
    source="§3.22",
)

INLINE_BEHAVIOR_PROFILE = Key(
    "BEHAVIOR_PROFILE",
    V.BLOCK,
    "A behavior profile written inside the agent (no name after the colon). It takes only "
    "`PRIORITY`, `WHEN`, `INSTRUCTIONS` and `CONVERSATION`; anything else needs a profile file.",
    children=(
        PROFILE_PRIORITY,
        PROFILE_WHEN,
        Key("INSTRUCTIONS", V.TEXT, "Instructions added while the profile applies."),
        CONVERSATION,
    ),
    example='BEHAVIOR_PROFILE:\n  PRIORITY: 10\n  WHEN: channel == "voice"\n  INSTRUCTIONS: "Keep it short."',
    source="§3.22",
)
