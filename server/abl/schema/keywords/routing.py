"""Moving the conversation between agents: HANDOFF, DELEGATE, ESCALATE, RETURN_HANDLERS.

HANDOFF follows seeds 000 and 004 to the letter (history modes, `RETURN` read as true only when
written `true`, `ON_RETURN`, lowercase keys inside `CONTEXT`); the rest follows §3.10-§3.12
and §3.24 of the language reference.
"""

from __future__ import annotations

from ..types import CaseRule, Key
from ..types import ValueKind as V
from .common import (
    MEMORY_GRANT_ITEM,
    ON_RETURN_ACTION_DOCS,
    REMOTE,
    RESPOND,
    RESUME_WITH_DOCS,
    RESUME_WITH_VALUES,
    SET,
    experience_mode_key,
    history_key,
    timeout_key,
)

_PASS_DOC = (
    "Parent variables the target receives as pre-filled values. Unset variables are not "
    "passed. Fields travel even when the history is `none`."
)
_SUMMARY_DOC = (
    "Why the conversation is being handed over, as a template filled from the parent's "
    "values. `summary_only` and `auto` history rely on it."
)
_CONTEXT_SET_DOC = "Assignments applied in the target before it runs its first turn."

CONTEXT = Key(
    "CONTEXT",
    V.BLOCK,
    "Groups what the target receives: `pass`, `summary`, `history`, `set` and "
    "`memory_grants`. Keys inside must be lowercase; the platform ignores uppercase ones.",
    case_rule=CaseRule.LOWER,
    case_note="the platform ignores uppercase keys inside `CONTEXT`",
    children=(
        Key(
            "pass",
            V.LIST,
            _PASS_DOC,
            item_kind=V.NAME,
            refers_to="variable",
            example="pass: [order_id]",
        ),
        Key("summary", V.TEMPLATE, _SUMMARY_DOC, example='summary: "Return for {{order_id}}"'),
        history_key("history"),
        Key("set", V.MAP, _CONTEXT_SET_DOC, also=(V.ASSIGNMENTS,)),
        Key(
            "memory_grants",
            V.LIST_OF_BLOCKS,
            "Persistent memory paths the target may read (or, for execution-tree paths, "
            "write). Without a grant the target cannot touch the parent's memory.",
            children=MEMORY_GRANT_ITEM,
        ),
        Key(
            "grant_memory",
            V.LIST,
            "Old shorthand for memory grants.",
            removed="`grant_memory` is a parse error; write `memory_grants: [{path, access}]`",
        ),
    ),
    example='CONTEXT:\n  pass: [order_id]\n  summary: "Customer wants a return"\n  history: last_3',
    source="seed 000, seed 004",
)

ON_RETURN = Key(
    "ON_RETURN",
    V.BLOCK,
    "What the parent does when a returnable child gives control back. One line names a "
    "built-in action (`continue`, `resume_intent`) or a `RETURN_HANDLERS` entry; the block "
    "form sets `action` or `handler`, plus `MAP`, `SET` and `CLEAR`. Runs only when `RETURN` "
    "is `true`.",
    also=(V.NAME,),
    refers_to="return_handler",
    children=(
        Key(
            "action",
            V.ENUM,
            "`continue` resumes the parent without replaying anything; `resume_intent` "
            "replays one customer message through the parent's routes (one level deep). "
            "Any other word runs `continue`.",
            values=("continue", "resume_intent"),
            fallback="continue",
            value_docs=ON_RETURN_ACTION_DOCS,
            example="action: resume_intent",
        ),
        Key(
            "handler",
            V.NAME,
            "Names a `RETURN_HANDLERS` entry to run. Do not combine with `action`.",
            refers_to="return_handler",
            example="handler: income_done",
        ),
        Key(
            "resume_with",
            V.ENUM,
            "Which customer message `resume_intent` replays.",
            values=RESUME_WITH_VALUES,
            value_docs=RESUME_WITH_DOCS,
            default="original_handoff_utterance",
            example="RESUME_WITH: latest_child_user_utterance",
        ),
        Key(
            "MAP",
            V.MAP,
            "Copies child fields into parent variables, written `child_field: parent_variable`. "
            "Only mapped fields come back; a child field with no value is skipped.",
            example="MAP:\n  annual_income: annual_income",
        ),
        Key(
            "SET",
            V.ASSIGNMENTS,
            "Parent assignments applied after `MAP`. Every target must be writable by the "
            "parent, or none of the return effects apply.",
            also=(V.MAP,),
            example='SET:\n  income_note: "Income collected by the income agent."',
        ),
        Key(
            "CLEAR",
            V.LIST,
            "Parent variables to unset when the child returns.",
            item_kind=V.NAME,
            refers_to="variable",
        ),
    ),
    example="ON_RETURN:\n  action: resume_intent\n  MAP:\n    annual_income: annual_income",
    source="seed 004",
)

_HANDOFF_ENTRY = (
    Key(
        "TO",
        V.AGENT_REF,
        "The agent that takes over. It must exist in the project unless the route is remote.",
        required=True,
        refers_to="agent",
        example="TO: Returns_Agent",
    ),
    Key(
        "WHEN",
        V.CONDITION,
        'When this route fires: an expression (`intent.category == "billing"`), or quoted '
        "plain language judged by the model. Routes are tried in order; the first match wins. "
        "`//` outside quotes starts a comment.",
        example='WHEN: intent.category == "return_item" AND order_id IS SET',
    ),
    Key(
        "PRIORITY",
        V.INT,
        "Evaluation order; lower runs first. Without it a route's priority is its position.",
        example="PRIORITY: 1",
    ),
    Key(
        "ENABLED_WHEN",
        V.CONDITION,
        "Switches the route off while false; a blocked attempt is traced as `blocked`.",
    ),
    CONTEXT,
    Key(
        "PASS",
        V.LIST,
        _PASS_DOC,
        item_kind=V.NAME,
        refers_to="variable",
        example="PASS: [order_id]",
    ),
    Key(
        "SUMMARY",
        V.TEMPLATE,
        _SUMMARY_DOC,
        example='SUMMARY: "Collect the applicant\'s annual income, then return."',
    ),
    history_key("HISTORY"),
    Key("SET", V.ASSIGNMENTS, _CONTEXT_SET_DOC, also=(V.MAP,)),
    Key(
        "RETURN",
        V.BOOL,
        "`true` makes the route returnable: the parent waits and the child gives control "
        'back later. Only the exact lowercase `true` counts; `True` or `"true"` read as '
        "false and the handoff is permanent.",
        aliases=("EXPECT_RETURN",),
        exact_true=True,
        default="false",
        example="RETURN: true",
        source="seed 004",
    ),
    ON_RETURN,
    Key(
        "MAP",
        V.MAP,
        "Old place for return mapping (`child_field: parent_variable`).",
        deprecated="move the mapping into `ON_RETURN.MAP`",
    ),
    Key(
        "ON_FAILURE",
        V.ACTION,
        "What happens when the handoff fails before the target accepts it (missing target, "
        'refused route, dispatch error): `continue`, `ESCALATE` or `RESPOND "message"`. '
        "It does not run when the child later fails on its own.",
        aliases=("ON_FAIL",),
        values=("continue", "escalate", "respond"),
        default="continue",
        example='ON_FAILURE: RESPOND "I cannot do that right now."',
        source="seed 004",
    ),
    Key(
        "ON_TIMEOUT",
        V.ACTION,
        "What the parent does when a returnable child does not return within `TIMEOUT`: "
        "`continue`, `escalate` or `respond:<message>`.",
        values=("continue", "escalate", "respond"),
        default="escalate",
    ),
    timeout_key("TIMEOUT", "How long the parent waits for a returnable child."),
    experience_mode_key("shared_voice_handoff"),
    REMOTE,
    Key("LOCATION", V.ENUM, "Short form of `REMOTE.location`.", values=("local", "remote")),
    Key("ENDPOINT", V.STRING, "Short form of `REMOTE.endpoint`."),
    Key("PROTOCOL", V.ENUM, "Short form of `REMOTE.protocol`.", values=("a2a", "rest")),
    Key(
        "ASYNC",
        V.BOOL,
        "Dispatch the remote handoff without blocking; completion is notified later.",
        default="false",
    ),
    timeout_key("ASYNC_TIMEOUT", "How long an asynchronous handoff may run."),
    Key(
        "grant_memory",
        V.LIST,
        "Old shorthand for memory grants.",
        removed="`grant_memory` is a parse error; write `CONTEXT: memory_grants: [{path, access}]`",
    ),
)

HANDOFF = Key(
    "HANDOFF",
    V.LIST_OF_BLOCKS,
    "Routes that transfer the conversation to another agent. Each `- TO:` entry names a "
    "target, a `WHEN` condition, what context travels and whether the target returns.",
    children=_HANDOFF_ENTRY,
    example=(
        "HANDOFF:\n"
        "  - TO: Returns_Agent\n"
        '    WHEN: intent.category == "return_item"\n'
        "    PASS: [order_id]\n"
        "    HISTORY: last_5\n"
        "    RETURN: false"
    ),
    source="§3.10, seed 000, seed 004",
)

DELEGATE = Key(
    "DELEGATE",
    V.LIST_OF_BLOCKS,
    "One-shot calls to a sub-agent that runs in its own scope and returns a result, without "
    "talking to the customer. Only orchestrator supervisors may delegate.",
    children=(
        Key(
            "AGENT",
            V.AGENT_REF,
            "The sub-agent to call.",
            aliases=("TO",),
            required=True,
            refers_to="agent",
        ),
        Key(
            "WHEN",
            V.CONDITION,
            "When the call is made. Several matching delegates may run at the same time.",
            required=True,
        ),
        Key(
            "PURPOSE",
            V.STRING,
            "Why the call is made; shown in traces.",
            aliases=("SUMMARY",),
            required=True,
        ),
        Key(
            "INPUT",
            V.MAP,
            "Sub-agent parameters filled from parent expressions "
            "(`child_param: parent_expr`). Required child GATHER fields must be supplied here.",
            aliases=("PASS",),
            required=True,
        ),
        Key(
            "RETURNS",
            V.MAP,
            "Result fields copied back, written `child_field: parent_var`.",
            required=True,
        ),
        Key(
            "USE_RESULT",
            V.TEXT,
            "Tells the parent how to use the result in its reply.",
            required=True,
        ),
        Key(
            "MEMORY_GRANTS",
            V.LIST_OF_BLOCKS,
            "Persistent memory paths the sub-agent may use.",
            children=MEMORY_GRANT_ITEM,
        ),
        timeout_key(
            "TIMEOUT",
            "How long to wait for the sub-agent; without it a stalled call blocks the parent.",
        ),
        Key(
            "ON_FAIL",
            V.ACTION,
            "What to do when the call fails: `respond` (with `FAILURE_MESSAGE`), `continue`, "
            "`escalate` or `retry` (block form `{type: retry, count: 2}`).",
            aliases=("ON_FAILURE",),
            also=(V.BLOCK,),
            values=("respond", "continue", "escalate", "retry"),
            children=(
                Key(
                    "type",
                    V.ENUM,
                    "Failure policy.",
                    values=("respond", "continue", "escalate", "retry"),
                ),
                Key("count", V.INT, "How many retries.", min_value=1),
            ),
        ),
        Key("FAILURE_MESSAGE", V.TEMPLATE, "Reply sent when `ON_FAIL: respond` fires."),
        experience_mode_key("silent_delegate"),
        REMOTE,
    ),
    example=(
        "DELEGATE:\n"
        "  - AGENT: Fee_Calculator\n"
        "    WHEN: booking_id IS SET\n"
        '    PURPOSE: "Calculate the change fee"\n'
        "    INPUT:\n"
        "      booking_id: booking_id\n"
        "    RETURNS:\n"
        "      total_fee: quoted_fee\n"
        '    USE_RESULT: "Explain the fee"\n'
        '    TIMEOUT: "10s"'
    ),
    source="§3.11",
)

_TRIGGER = (
    Key("WHEN", V.CONDITION, "When to hand the conversation to a human.", required=True),
    Key("REASON", V.TEMPLATE, "Why; shown to the human agent."),
    Key(
        "PRIORITY",
        V.ENUM,
        "Urgency of the human task: a word or an integer.",
        also=(V.INT,),
        values=("low", "medium", "high", "critical"),
        default="medium",
    ),
    Key("TAGS", V.LIST, "Labels attached to the human task.", item_kind=V.STRING),
    SET,
    Key("GENESYS_SIP_HEADERS", V.BLOCK, "SIP headers for a Genesys voice transfer.", open=True),
    Key("CONTEXT", V.LIST, "Older flat form: variables shown to the human.", item_kind=V.NAME),
    RESPOND,
)

ESCALATE = Key(
    "ESCALATE",
    V.BLOCK,
    "Hands the conversation to a human: the triggers that start it, what the human sees, "
    "where the task is routed and what happens when the human finishes. Triggers are "
    "checked first on every turn. The older flat form lists the triggers directly "
    "(`- WHEN: ...` items).",
    also=(V.LIST_OF_BLOCKS,),
    items=Key("<trigger>", V.LIST_OF_BLOCKS, "One trigger of the older flat form.", children=_TRIGGER),
    camel_case_keys=True,
    children=(
        Key("triggers", V.LIST_OF_BLOCKS, "Conditions that start an escalation.", children=_TRIGGER),
        Key(
            "context_for_human",
            V.LIST,
            "Variables (or `{NAME, TEMPLATE, INCLUDE}` blocks) shown to the human agent.",
            item_kind=V.ANY,
        ),
        Key(
            "routing",
            V.BLOCK,
            "Where the human task goes: connection, queue, skills, priority, voice transfer "
            "and contact-centre settings.",
            open=True,
            camel_case_keys=True,
            children=(
                Key("connection", V.STRING, "Contact-centre connection to use."),
                Key("queue", V.STRING, "Queue that receives the task."),
                Key("skills", V.LIST, "Skills the human agent needs.", item_kind=V.STRING),
                Key("priority", V.ANY, "Priority of the task in the queue."),
                Key(
                    "post_agent",
                    V.ENUM,
                    "After the human: return to the bot or end.",
                    values=("return", "end"),
                ),
                Key(
                    "voice",
                    V.BLOCK,
                    "Voice transfer: `transfer_method`, `call_transfer_type`, `sip_headers`.",
                    open=True,
                ),
                Key(
                    "genesys_sip_headers",
                    V.BLOCK,
                    "Genesys SIP header names and values.",
                    open=True,
                ),
                Key("sub_type", V.STRING, "Provider-specific task sub-type."),
                Key("named_agents", V.LIST, "Specific human agents to offer the task to."),
                Key(
                    "named_agent_options",
                    V.BLOCK,
                    "`wait_for_agent`, `wait_duration_seconds`.",
                    open=True,
                ),
                Key(
                    "agent_matching_conditions",
                    V.BLOCK,
                    "`skills`, `skill_groups`, `agent_groups`.",
                    open=True,
                ),
                Key(
                    "flow_policy_ref",
                    V.NAME,
                    "Names a `TRANSFER_FLOW_POLICIES` entry.",
                    aliases=("transfer_flow_policy_ref",),
                    refers_to="transfer_flow_policy",
                ),
                Key("flow_policy", V.BLOCK, "An inline transfer flow policy.", open=True),
                Key("provider_config", V.BLOCK, "Provider-specific settings.", open=True),
                Key("metadata", V.MAP, "Extra data attached to the task."),
                Key(
                    "skill_tags",
                    V.LIST,
                    "Older spelling of skills.",
                    ignored="silently ignored by the platform; use `skills`",
                ),
                Key(
                    "priority_boost",
                    V.INT,
                    "Older priority adjustment.",
                    ignored="silently ignored by the platform; use `priority`",
                ),
            ),
        ),
        Key(
            "on_human_complete",
            V.LIST,
            "What happens when the human resolves the task: `- IF <condition>: COMPLETE`, "
            "`HANDOFF to <Agent>` or `CONTINUE`.",
            item_kind=V.ACTION,
        ),
        Key("CONNECTOR_ACTION", V.NAME, "Ticketing connector action to run on escalation."),
    ),
    example=(
        'ESCALATE:\n  triggers:\n    - WHEN: tool_failures > 2\n      REASON: "Backend failing"\n      PRIORITY: high'
    ),
    source="§3.12",
)

RETURN_HANDLERS = Key(
    "RETURN_HANDLERS",
    V.MAP,
    "Named parent-side handlers that run when a returnable child gives control back; a "
    "route picks one with `ON_RETURN: handler: <name>`. `MAP` still belongs on the route.",
    free_keys=True,
    reserved_names=("continue", "resume_intent"),
    entry=Key(
        "<handler>",
        V.BLOCK,
        "A return handler. Its properties are written in uppercase. It cannot combine `RESPOND` with `RESUME_INTENT`.",
        case_rule=CaseRule.UPPER,
        case_note="`RETURN_HANDLERS` properties are written in uppercase",
        children=(
            Key("RESPOND", V.TEMPLATE, "Reply sent by the parent after the return.", also=(V.TEXT,)),
            Key(
                "CLEAR",
                V.LIST,
                "Parent variables to unset.",
                item_kind=V.NAME,
                refers_to="variable",
            ),
            Key("CONTINUE", V.BOOL, "Leave the parent waiting for the customer's next message."),
            Key(
                "RESUME_INTENT",
                V.BOOL,
                "Replay the parent's last customer message through its routes.",
            ),
        ),
    ),
    example="RETURN_HANDLERS:\n  income_done:\n    RESUME_INTENT: true",
    source="§3.24, seed 004",
)

TRANSFER_FLOW_POLICIES = Key(
    "TRANSFER_FLOW_POLICIES",
    V.MAP,
    "Named policies for what callers hear or run while waiting for a human (queued, no "
    "agents available); referenced by `ESCALATE.routing.flow_policy_ref`.",
    free_keys=True,
    entry=Key(
        "<policy>",
        V.BLOCK,
        "A transfer flow policy.",
        open=True,
        children=(
            Key(
                "on_queued",
                V.BLOCK,
                "What happens while the caller is queued (`type: message|workflow`).",
                open=True,
            ),
            Key("on_no_agents", V.BLOCK, "What happens when no human is available.", open=True),
        ),
    ),
    example="TRANSFER_FLOW_POLICIES:\n  after_hours:\n    on_no_agents:\n      type: message",
    source="§3.12",
)
