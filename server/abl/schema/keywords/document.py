"""Document headers, identity sections, and the keywords the platform ignores or rejects.

Sources: ABL-REFERENCE §1.1, §3.0-§3.2 and §3.22 (behavior profile headers).
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V

AGENT = Key(
    "AGENT",
    V.NAME,
    "Starts an agent definition and names it. Names start with a letter, use only letters, "
    "digits and `_`, and are unique in the project (for example `Booking_Agent`).",
    required=True,
    example="AGENT: Parcel_Tracker",
    source="§3.1",
)

SUPERVISOR = Key(
    "SUPERVISOR",
    V.NAME,
    "Starts a supervisor: an agent whose job is routing customers to other agents with "
    "`HANDOFF` (and, for orchestrators, `DELEGATE`). Same naming rules as `AGENT`.",
    example="SUPERVISOR: Retail_Hub",
    source="§3.1, §3.23",
)

BEHAVIOR_PROFILE = Key(
    "BEHAVIOR_PROFILE",
    V.NAME,
    "Starts a behavior profile: adjustments (instructions, voice, tools, gather and flow "
    "overrides) applied to agents that use it when its `WHEN` holds. The name is "
    "case-sensitive.",
    example='BEHAVIOR_PROFILE: voice_vip\nPRIORITY: 100\nWHEN: channel == "voice"',
    source="§3.22",
)

VERSION = Key(
    "VERSION",
    V.STRING,
    "Version of this definition, as a quoted semantic version.",
    default='"1.0.0"',
    example='VERSION: "1.2.0"',
    source="§3.1",
)

DESCRIPTION = Key(
    "DESCRIPTION",
    V.TEXT,
    "A summary for people reading or listing the agent. It is not part of the prompt.",
    example='DESCRIPTION: "Answers parcel-status questions"',
    source="§3.1",
)

LANGUAGE = Key(
    "LANGUAGE",
    V.STRING,
    'Primary language as a quoted BCP-47 tag (`"en"`, `"es-EC"`). It shapes intent '
    "detection, entity recognition and generated replies.",
    example='LANGUAGE: "en-GB"',
    source="§3.1",
)

GOAL = Key(
    "GOAL",
    V.TEXT,
    "What the agent is for. It drives reasoning, completion and every generated prompt, "
    "and is required for every agent and supervisor.",
    required=True,
    example='GOAL: "Tell the customer where their parcel is"',
    source="§3.2",
)

PERSONA = Key(
    "PERSONA",
    V.TEXT,
    "Tone and style the agent speaks with. Without it the tone is neutral.",
    default='""',
    example='PERSONA: "Brief, cheerful courier assistant"',
    source="§3.2",
)

LIMITATIONS = Key(
    "LIMITATIONS",
    V.LIST,
    "Boundaries stated to the model in the prompt. They are advice the model follows; "
    "use `CONSTRAINTS` for rules the runtime enforces.",
    item_kind=V.STRING,
    default="[]",
    example='LIMITATIONS:\n  - "Cannot change delivery addresses"',
    source="§3.2",
)

INSTRUCTIONS = Key(
    "INSTRUCTIONS",
    V.TEXT,
    'Extra guidance appended to the goal under an "Instructions" heading.',
    example="INSTRUCTIONS: |\n  Ask for the tracking code before anything else.",
    source="§3.2",
)

IDENTITY = Key(
    "IDENTITY",
    V.BLOCK,
    "A compact way to write the goal, persona, expertise and limitations in one block. "
    "When both this and the separate sections are present, the one written last wins.",
    children=(
        Key("role", V.TEXT, "Becomes the agent's `GOAL`."),
        Key("persona", V.TEXT, "Becomes the agent's `PERSONA`."),
        Key("expertise", V.LIST, 'Appended to the persona as "Expertise: a, b".', item_kind=V.STRING),
        Key("limitations", V.LIST, "Becomes the agent's `LIMITATIONS`.", item_kind=V.STRING),
    ),
    example=('IDENTITY:\n  role: "Compare hotel prices"\n  expertise: [hotel chains, price comparison]'),
    source="§3.2",
)

SYSTEM_PROMPT = Key(
    "SYSTEM_PROMPT",
    V.TEXT,
    "Replaces the generated system prompt entirely; `GOAL`, `PERSONA` and `LIMITATIONS` are "
    "then no longer composed into it.",
    example="SYSTEM_PROMPT: |\n  You are a parcel tracker. Only discuss parcels.",
    source="§3.2",
)

TESTS = Key(
    "TESTS",
    V.ANY,
    "Reserved for test definitions. The platform accepts the section and ignores it.",
    open=True,
    ignored="`TESTS:` is accepted and ignored by the platform",
    source="§3.0",
)

MODE = Key(
    "MODE",
    V.ANY,
    "Former global execution mode. An agent reasons unless it has a `FLOW`, and each flow "
    "step says `REASONING: true|false`.",
    removed="`MODE:` is no longer part of ABL; add a `FLOW` with `REASONING` on each step instead",
    source="§1.1",
)

MODEL = Key(
    "MODEL",
    V.ANY,
    "Former top-level model setting.",
    removed="top-level `MODEL:` is rejected; set the model in `EXECUTION: model:`",
    replaced_by="EXECUTION.model",
    source="§3.0",
)
