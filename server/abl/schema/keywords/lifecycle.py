"""Lifecycle sections: COMPLETE, ON_START, HOOKS, ON_ERROR, MESSAGES, TEMPLATES.

Sources: ABL-REFERENCE §3.13-§3.18.
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V
from .common import (
    ACTIONS,
    AS,
    CALL,
    CLEAR_INTERACTION_LANGUAGE,
    LOG,
    MESSAGE_KEY,
    RESPOND,
    RICH_CONTENT,
    SET,
    SET_INTERACTION_LANGUAGE,
    VOICE,
    WITH,
)

COMPLETE = Key(
    "COMPLETE",
    V.LIST_OF_BLOCKS,
    "When the agent is done, checked after every turn in order; the first true `WHEN` "
    "completes it. A completed returnable child hands control back to its parent.",
    children=(
        Key(
            "WHEN",
            V.CONDITION,
            "A deterministic condition. Plain-language text is a compile error here (`PLAIN_ENGLISH_COMPLETE_WHEN`).",
            required=True,
        ),
        RESPOND,
        SET,
        Key(
            "TERMINAL",
            V.BOOL,
            "`false` sends the reply but keeps the session open.",
            default="true",
        ),
        Key("STORE", V.STRING, "Collection or path where the outcome is recorded for analytics."),
        VOICE,
        RICH_CONTENT,
        ACTIONS,
    ),
    example=('COMPLETE:\n  - WHEN: order_id IS SET\n    RESPOND: "Order {{order_id}} is on its way."'),
    source="§3.13",
)

_BRANCHES = Key(
    "BRANCHES",
    V.LIST_OF_BLOCKS,
    "Conditional greetings: `- IF: <condition>` items with `RESPOND`, and a final `- ELSE:`.",
    children=(
        Key("IF", V.CONDITION, "Condition of this branch."),
        Key("ELSE", V.ANY, "Branch taken when no `IF` matched."),
        RESPOND,
        SET,
    ),
)

ON_START = Key(
    "ON_START",
    V.BLOCK,
    "Runs once per session before the customer's first message: set variables, call a tool "
    "(before the greeting is rendered), delegate, and greet.",
    also=(V.LIST_OF_BLOCKS,),
    children=(
        SET,
        CALL,
        WITH,
        AS,
        Key("DELEGATE", V.AGENT_REF, "Calls a sub-agent before greeting.", refers_to="agent"),
        RESPOND,
        MESSAGE_KEY,
        VOICE,
        RICH_CONTENT,
        ACTIONS,
        _BRANCHES,
        SET_INTERACTION_LANGUAGE,
    ),
    example='ON_START:\n  SET:\n    lookups = 0\n  RESPOND: "Hi! Got a tracking code?"',
    source="§3.14",
)

_HOOK_ACTIONS = (
    SET,
    CALL,
    WITH,
    AS,
    RESPOND,
    VOICE,
    RICH_CONTENT,
    ACTIONS,
    SET_INTERACTION_LANGUAGE,
    CLEAR_INTERACTION_LANGUAGE,
    Key(
        "critical",
        V.BOOL,
        "`true` aborts the turn when the hook fails; otherwise the failure is logged and the turn continues.",
        default="false",
    ),
)


def _hook(name: str, doc: str) -> Key:
    return Key(name, V.BLOCK, doc, children=_HOOK_ACTIONS)


HOOKS = Key(
    "HOOKS",
    V.BLOCK,
    "Actions run around the agent's activation and around every turn.",
    children=(
        _hook("before_agent", "Runs when the agent is first activated."),
        _hook("after_agent", "Runs when the agent completes or is deactivated."),
        _hook("before_turn", "Runs before each turn."),
        _hook("after_turn", "Runs after each reply is sent."),
    ),
    example="HOOKS:\n  after_turn:\n    SET:\n      turns = ADD(turns, 1)",
    source="§3.15",
)

ERROR_TYPES = (
    "default",
    "llm_error",
    "tool_error",
    "routing_error",
    "validation_error",
    "timeout_error",
    "unknown_error",
)

ERROR_HANDLER = Key(
    "<error_type>",
    V.BLOCK,
    "Handler for one error type: reply, retry with backoff, then a final action. One line "
    "(`ESCALATE`, `HANDOFF Live_Agent`) gives the final action directly.",
    also=(V.ACTION,),
    children=(
        RESPOND,
        VOICE,
        RICH_CONTENT,
        ACTIONS,
        SET,
        LOG,
        Key("RETRY", V.INT, "How many times to retry before `THEN`.", min_value=0),
        Key("RETRY_DELAY", V.DURATION, "Delay between retries."),
        Key(
            "RETRY_BACKOFF",
            V.ENUM,
            "How the delay grows.",
            values=("fixed", "exponential", "linear"),
        ),
        Key("RETRY_MAX_DELAY", V.DURATION, "Longest delay between retries."),
        Key(
            "THEN",
            V.ACTION,
            "Final action after retries: `CONTINUE`, `ESCALATE` (optionally "
            '`with REASON: "..."`), `HANDOFF <Agent>`, `COMPLETE`, `RETRY_STEP` or `BACKTRACK`.',
            values=("CONTINUE", "ESCALATE", "HANDOFF", "COMPLETE", "RETRY_STEP", "BACKTRACK"),
        ),
        Key("HANDOFF_TARGET", V.AGENT_REF, "Agent used by `THEN: HANDOFF`.", refers_to="agent"),
        Key("BACKTRACK_TO", V.NAME, "Step used by `THEN: BACKTRACK`.", refers_to="step"),
        Key(
            "SUBTYPES",
            V.LIST,
            "Error subtypes this handler covers (`rate_limit`, `auth_failure`, `network_error`, `tool_timeout`).",
            aliases=("SUBTYPE",),
            item_kind=V.STRING,
        ),
        Key(
            "ESCALATE",
            V.ANY,
            "Inline escalation inside an error handler.",
            ignored='an inline `ESCALATE:` here is not parsed; write `THEN: ESCALATE with REASON: "..."`',
        ),
    ),
)

ON_ERROR = Key(
    "ON_ERROR",
    V.MAP,
    "Error handlers keyed by error type. Step handlers are tried first, then these, then the `error_default` message.",
    free_keys=True,
    entry=ERROR_HANDLER,
    name_suggestions=ERROR_TYPES,
    example=(
        "ON_ERROR:\n"
        "  tool_error:\n"
        '    RESPOND: "Tracking is slow right now, retrying."\n'
        "    RETRY: 2\n"
        "    THEN: ESCALATE"
    ),
    source="§3.16",
)

_MESSAGE_KEYS = {
    "error_default": "Reply when an error has no handler.",
    "constraint_blocked": "Reply when a constraint blocks the request.",
    "gather_prompt": "Prompt for missing fields; `{{fields}}` lists them.",
    "escalation_format": "Text announcing an escalation; `{{reason}}` is the reason.",
    "conversation_complete": "Reply when the conversation completes.",
    "invalid_handoff": "Reply when a handoff target is invalid.",
    "self_handoff": "Reply when an agent tries to hand off to itself.",
    "tool_fallback_desc": "Description used for tools without one.",
    "multi_intent_disambiguate_header": "Heading of the which-request-first question.",
    "multi_intent_disambiguate_option": "One option line (`{{index}}`, `{{intent}}`, `{{confidence}}`).",
    "multi_intent_disambiguation_reprompt": "Asked again after an unclear choice.",
    "multi_intent_queued_notice": "Tells the customer other requests are queued.",
    "multi_intent_queued_follow_up": "Offers the next queued request (`{{next_intent}}`).",
    "handoff_message": "Line shown when the conversation is handed over.",
    "handoff_message_voice": "Line spoken when the conversation is handed over.",
    "routing_message": "Line shown while routing.",
    "voice_repeat": "Spoken when the caller asks to repeat.",
    "voice_nomatch": "Spoken when speech was not understood.",
    "voice_noinput": "Spoken when the caller said nothing.",
    "greeting": "Greeting message.",
    "out_of_scope": "Reply to requests outside the agent's scope.",
}

MESSAGES = Key(
    "MESSAGES",
    V.MAP,
    "Overrides of built-in system messages, with `{{ }}` interpolation. Any key is accepted; "
    "the documented ones are listed here, plus `error_<subtype>` and voice fillers "
    "`filler_<operation>[_<lang>]`.",
    free_keys=True,
    entry=Key("<message>", V.TEMPLATE, "Text of a system message."),
    children=tuple(Key(name, V.TEMPLATE, doc) for name, doc in _MESSAGE_KEYS.items()),
    example='MESSAGES:\n  error_default: "Sorry, something broke."',
    source="§3.17",
)

TEMPLATES = Key(
    "TEMPLATES",
    V.MAP,
    "Named replies with a default text and channel-specific variants; send one with `RESPOND: TEMPLATE(name)`.",
    free_keys=True,
    entry=Key(
        "<template>",
        V.BLOCK,
        "One named reply.",
        children=(
            Key("DEFAULT", V.TEMPLATE, "Plain text used where no variant fits.", required=True),
            Key("MARKDOWN", V.TEMPLATE, "Markdown variant."),
            Key("HTML", V.TEMPLATE, "HTML variant."),
            Key("ADAPTIVE_CARD", V.ANY, "Adaptive Card variant."),
            Key("SLACK", V.ANY, "Slack variant."),
            Key("WHATSAPP", V.ANY, "WhatsApp variant."),
            Key("AG_UI", V.ANY, "AG-UI variant."),
            Key("VOICE INSTRUCTIONS", V.TEXT, "How the reply should be spoken."),
            VOICE,
            ACTIONS,
            Key(
                "RENDERABLES",
                V.LIST_OF_BLOCKS,
                "Client-rendered payloads (`name`, `payload`, `targets`, `fallbackText`, `schemaRef`).",
                open=True,
            ),
        ),
    ),
    example='TEMPLATES:\n  status_card:\n    DEFAULT: "Parcel {{code}}: {{status}}"',
    source="§3.18",
)
