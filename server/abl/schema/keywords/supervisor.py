"""Supervisor blocks (AGENTS, ROUTING, HANDOFF_PROTOCOL, STATE, POLICIES, COMMUNICATION,
BEHAVIOR) and the top-level rich output sections of reasoning agents.

Sources: ABL-REFERENCE §3.19 and §3.23.
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V
from .common import ACTIONS, CALL, CLEAR, LOG, RESPOND, RICH_CONTENT, SET

AGENTS = Key(
    "AGENTS",
    V.LIST_OF_BLOCKS,
    "The supervisor's roster of agents and what they can do. It does not route: only "
    "`HANDOFF` moves the conversation. The older form maps aliases to agent names "
    "(`billing: Billing_Agent`).",
    also=(V.MAP,),
    free_keys=True,
    entry=Key("<alias>", V.AGENT_REF, "The agent this alias stands for.", refers_to="agent"),
    items=Key(
        "<roster entry>",
        V.LIST_OF_BLOCKS,
        "One agent of the roster.",
        children=(
            Key("REF", V.STRING, "Path of the agent file."),
            Key("ALIAS", V.NAME, "Short name used in this supervisor."),
            Key("CAPABILITIES", V.LIST, "What the agent can do.", item_kind=V.STRING, required=True),
            Key("CHANNELS", V.LIST, "Channels the agent serves.", item_kind=V.STRING),
            Key("REQUIRES_VALIDATION", V.BOOL, "Check the agent before routing to it.", default="false"),
        ),
    ),
    example="AGENTS:\n  - REF: ./agents/billing.agent.abl\n    CAPABILITIES: [invoices, refunds]",
    source="§3.23",
)

ROUTING = Key(
    "ROUTING",
    V.LIST_OF_BLOCKS,
    "An older routing table (`NAME`, `PRIORITY`, `WHEN`, `THEN: ROUTE_TO ...`). The platform "
    "parses it but never executes it.",
    open=True,
    not_executed="`ROUTING:` is parsed but never executed; write the routes as `HANDOFF` entries",
    children=(
        Key("NAME", V.NAME, "Rule name."),
        Key("DESCRIPTION", V.TEXT, "What the rule is for."),
        Key("PRIORITY", V.INT, "Order; lower first."),
        Key("WHEN", V.CONDITION, "When the rule applies."),
        Key(
            "THEN",
            V.ACTION,
            "Where to route.",
            values=(
                "ROUTE_TO",
                "ROUTE_TO_USER",
                "ROUTE_TO_VARIABLE",
                "INTENT_MATCH",
                "END_CONVERSATION",
                "SYSTEM_ACTION",
            ),
        ),
        Key(
            "FLAGS",
            V.LIST,
            "`set_active`, `silent`, `no_log`, `priority_boost`.",
            item_kind=V.STRING,
        ),
        Key("CONSTRAINTS", V.BLOCK, "`channels`, `requiresState`, `ignoreIntents`.", open=True),
    ),
    example=('ROUTING:\n  - NAME: billing\n    WHEN: intent.category == "billing"\n    THEN: ROUTE_TO Billing_Agent'),
    source="§3.23",
)

HANDOFF_PROTOCOL = Key(
    "HANDOFF_PROTOCOL",
    V.LIST_OF_BLOCKS,
    "Older per-pair handoff rules (`- FROM a TO b:` with `CONTEXT` and `TRIGGER`).",
    open=True,
    children=(
        Key("CONTEXT", V.LIST, "Values passed.", item_kind=V.NAME),
        Key("TRIGGER", V.CONDITION, "When the pair hands off."),
    ),
    example="HANDOFF_PROTOCOL:\n  - FROM triage TO billing:\n      CONTEXT: [customer_id]",
    source="§3.23",
)

STATE = Key(
    "STATE",
    V.MAP,
    "Namespaced supervisor variables with type, default and who updates them.",
    free_keys=True,
    open=True,
    camel_case_keys=True,
    entry=Key(
        "<variable>",
        V.BLOCK,
        "One state variable (or a namespace of them).",
        open=True,
        children=(
            Key("type", V.STRING, "Value type."),
            Key("required", V.BOOL, "Must be set."),
            Key("default", V.ANY, "Starting value."),
            Key("description", V.TEXT, "What it holds."),
            Key("source", V.ENUM, "Who sets it.", values=("system", "user", "agent", "computed")),
            Key("updatedBy", V.LIST, "Agents that update it.", item_kind=V.NAME),
        ),
    ),
    example="STATE:\n  customer_tier:\n    type: string\n    source: system",
    source="§3.23",
)

POLICIES = Key(
    "POLICIES",
    V.LIST_OF_BLOCKS,
    "Named behaviour policies: when something is allowed or forbidden, and what to do.",
    children=(
        Key("NAME", V.NAME, "Policy name."),
        Key("DESCRIPTION", V.TEXT, "What the policy is for."),
        Key(
            "RULES",
            V.BLOCK,
            "`allowedWhen`, `forbiddenWhen`, `triggerSignal`, `behavior`.",
            open=True,
        ),
    ),
    example=('POLICIES:\n  - NAME: no_refunds_by_bot\n    DESCRIPTION: "Refunds always go to a human"'),
    source="§3.23",
)

COMMUNICATION = Key(
    "COMMUNICATION",
    V.BLOCK,
    "Language and wording rules: formality, pronouns, preferred and avoided vocabulary.",
    children=(
        Key("language", V.STRING, "Language to use."),
        Key("formality", V.ENUM, "Register.", values=("formal", "informal", "neutral")),
        Key("pronouns", V.BLOCK, "`use` and `avoid` lists.", open=True),
        Key("vocabulary", V.BLOCK, "`prefer` and `avoid` lists.", open=True),
        Key("constraints", V.LIST, "Extra wording rules.", item_kind=V.STRING),
    ),
    example='COMMUNICATION:\n  language: "en"\n  formality: formal',
    source="§3.23",
)

_DEPRECATED_BEHAVIOR = "replaced by `role`; a value that conflicts with `role` fails compilation"

BEHAVIOR = Key(
    "BEHAVIOR",
    V.BLOCK,
    "The agent's execution role. A `router` never answers and must hand off; an "
    "`orchestrator` may answer and `DELEGATE`; an `assistant` is a leaf agent (not valid on "
    "a supervisor).",
    children=(
        Key(
            "role",
            V.ENUM,
            "Execution role. Without it the role is inferred, with a deprecation warning.",
            values=("router", "orchestrator", "assistant"),
            example="role: router",
        ),
        Key(
            "canRespondDirectly",
            V.BOOL,
            "Whether the agent may answer.",
            deprecated=_DEPRECATED_BEHAVIOR,
        ),
        Key(
            "allowedDirectActions",
            V.LIST,
            "Actions allowed without routing.",
            deprecated=_DEPRECATED_BEHAVIOR,
        ),
        Key("forbiddenActions", V.LIST, "Actions never taken.", deprecated=_DEPRECATED_BEHAVIOR),
    ),
    example="BEHAVIOR:\n  role: router",
    source="§3.23",
)

RICH_CONTENT_SECTION = Key(
    RICH_CONTENT.name,
    RICH_CONTENT.kind,
    "Rich renderings attached to a reasoning agent's replies. " + RICH_CONTENT.doc,
    aliases=RICH_CONTENT.aliases,
    open=True,
    children=RICH_CONTENT.children,
    example=RICH_CONTENT.example,
    source="§3.19",
)

ACTIONS_SECTION = Key(
    ACTIONS.name,
    ACTIONS.kind,
    ACTIONS.doc,
    open=True,
    children=ACTIONS.children,
    example=ACTIONS.example,
    source="§3.19",
)

ACTION_HANDLERS = Key(
    "ACTION_HANDLERS",
    V.MAP,
    "What happens when the customer picks an action, keyed by action id (same keys as a flow step's `ON_ACTION`).",
    free_keys=True,
    entry=Key(
        "<action_id>",
        V.BLOCK,
        "Handler for one action id.",
        open=True,
        children=(
            Key("ACTION_ID", V.STRING, "Action id handled.", aliases=("ACTION",)),
            Key("CONDITION", V.CONDITION, "Extra condition."),
            RESPOND,
            SET,
            CLEAR,
            CALL,
            LOG,
            Key("HANDOFF", V.AGENT_REF, "Hand the conversation over.", refers_to="agent"),
            Key("DELEGATE", V.AGENT_REF, "Call a sub-agent.", refers_to="agent"),
            Key("COMPLETE", V.BOOL, "Complete the agent."),
            Key("THEN", V.NAME, "Step to go to.", aliases=("GOTO", "TRANSITION"), refers_to="step"),
            Key("DO", V.LIST, "Ordered actions."),
        ),
    ),
    example='ACTION_HANDLERS:\n  confirm:\n    RESPOND: "Confirmed."',
    source="§3.19",
)
