"""FLOW: scripted steps, each deterministic or reasoning, and their actions and branches.

Source: ABL-REFERENCE §3.9 (and §3.22 for the behavior-profile form). Steps carry many
loosely documented properties, so step blocks are open: documented keys get hover and
completion, others are not reported.
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V
from .common import (
    ACTIONS,
    AS,
    CALL,
    CLEAR,
    LOG,
    MESSAGE_KEY,
    RESPOND,
    RICH_CONTENT,
    SET,
    VOICE,
    WITH,
)

_THEN = Key(
    "THEN",
    V.ACTION,
    'Where to go next: a step name, `COMPLETE`, or `ESCALATE with REASON: "..."`.',
    values=("COMPLETE", "ESCALATE"),
    refers_to="step",
    example="THEN: collect_amount",
)

_GOTO = Key("GOTO", V.NAME, "Jump to another step.", refers_to="step")

_GATHER_IN_STEP = Key(
    "GATHER",
    V.LIST_OF_BLOCKS,
    "Fields collected in this step: `- field: required|optional` items with indented "
    "properties, or a `FIELDS:` list with a shared `STRATEGY` and `PROMPT`.",
    open=True,
    children=(
        Key("FIELDS", V.LIST_OF_BLOCKS, "Fields to collect.", open=True),
        Key(
            "STRATEGY",
            V.ENUM,
            "Extraction strategy.",
            values=("auto", "ml", "llm", "hybrid", "pattern"),
        ),
        Key("PROMPT", V.TEMPLATE, "Question asked for the missing fields."),
        MESSAGE_KEY,
    ),
)

_BRANCH = (
    Key("IF", V.CONDITION, "Condition of this branch."),
    Key("ELSE", V.ANY, "Branch taken when no `IF` above matched."),
    RESPOND,
    SET,
    CLEAR,
    CALL,
    _THEN,
)

_ON_RESULT = Key(
    "ON_RESULT",
    V.LIST_OF_BLOCKS,
    "Branches on the tool result: `- IF: <condition>` items and a final `- ELSE:`; each needs a `THEN`.",
    children=_BRANCH,
)

_ON_INPUT = Key(
    "ON_INPUT",
    V.LIST_OF_BLOCKS,
    "Branches on the customer's reply (`input`): `- IF:` items and a final `- ELSE:`. "
    "Without a prompt and an `ELSE`, unmatched input loops forever.",
    children=(*_BRANCH, _GATHER_IN_STEP),
)

_OUTCOME_DOC = "Runs when the step's call or check {}: a block of actions or an IF/ELSE list."

_DIGRESSION_ITEM = (
    Key("INTENT", V.STRING, "Intent that triggers the digression.", required=True),
    Key("KEYWORDS", V.LIST, "Words that also trigger it.", item_kind=V.STRING),
    Key("CONDITION", V.CONDITION, "Extra condition."),
    RESPOND,
    MESSAGE_KEY,
    SET,
    Key("RESUME", V.BOOL, "Return to the interrupted step afterwards.", default="false"),
    _GOTO,
    Key("HANDOFF", V.AGENT_REF, "Hand the conversation to another agent.", refers_to="agent"),
    Key(
        "RETURN",
        V.BOOL,
        "The digression handoff returns (only lowercase `true` counts).",
        exact_true=True,
    ),
    Key("ON_RETURN", V.ANY, "What happens when the digression handoff returns."),
    Key("DELEGATE", V.AGENT_REF, "Call a sub-agent (needs `RETURN: true`).", refers_to="agent"),
    CALL,
    CLEAR,
    Key("DO", V.LIST, "Ordered actions (`- RESPOND: ...`, `- GOTO: x`, `- RESUME`)."),
)

_ON_ERROR_STEP = Key(
    "ON_ERROR",
    V.MAP,
    "Step-level error handlers, keyed by error type; tried before the agent's `ON_ERROR`.",
    open=True,
    also=(V.LIST_OF_BLOCKS,),
)

STEP = Key(
    "<step>",
    V.BLOCK,
    "One flow step. Every step must say `REASONING: true` (the model works toward a goal) or "
    "`REASONING: false` (the actions below run in order).",
    open=True,
    children=(
        Key(
            "REASONING",
            V.BOOL,
            "Whether the model drives this step.",
            required=True,
            example="REASONING: false",
        ),
        Key("WHEN", V.CONDITION, "Entry guard; the step is skipped while false."),
        Key("MAX_ATTEMPTS", V.INT, "How often the step may be entered."),
        Key("ON_EXHAUSTED", V.NAME, "Step to go to after `MAX_ATTEMPTS`.", refers_to="step"),
        Key("GOAL", V.TEXT, "Goal of a reasoning step (overrides the agent goal)."),
        Key(
            "AVAILABLE_TOOLS",
            V.LIST,
            "Tools a reasoning step may use.",
            item_kind=V.NAME,
            refers_to="tool",
        ),
        Key("EXIT_WHEN", V.CONDITION, "Ends a reasoning step when true."),
        Key("MAX_TURNS", V.INT, "Most turns a reasoning step runs.", default="10"),
        Key("STEP_CONSTRAINTS", V.ANY, "Constraints that apply only in this step."),
        Key("BEHAVIOR", V.TEXT, "Extra guidance folded into the step goal."),
        Key("RESPOND", RESPOND.kind, RESPOND.doc, aliases=("SAY",), also=RESPOND.also),
        MESSAGE_KEY,
        Key("PRESENT", V.TEMPLATE, "Text shown before the step's question."),
        _GATHER_IN_STEP,
        Key(
            "CORRECTIONS",
            V.BOOL,
            "Let the customer correct earlier answers in their own words.",
            default="false",
        ),
        Key("COMPLETE_WHEN", V.CONDITION, "Ends the step's collection when true."),
        CALL,
        WITH,
        AS,
        SET,
        Key("CHECK", V.CONDITION, "Must hold, or `ON_FAIL` runs (the step halts without one)."),
        Key(
            "ON_FAIL",
            V.ACTION,
            "Step to go to, or actions to run, when `CHECK` or the call fails.",
            aliases=("ON_FAILURE",),
            also=(V.BLOCK, V.LIST_OF_BLOCKS),
            open=True,
            refers_to="step",
        ),
        Key(
            "ON_SUCCESS",
            V.BLOCK,
            _OUTCOME_DOC.format("succeeds"),
            also=(V.LIST_OF_BLOCKS,),
            open=True,
        ),
        _ON_RESULT,
        _ON_INPUT,
        CLEAR,
        Key(
            "TRANSFORM",
            V.ANY,
            "Reshapes a list: `SOURCE`, `AS`, `INTO`, `FILTER`, `MAP`, `SORT_BY`, `LIMIT`.",
        ),
        LOG,
        Key(
            "AWAIT_ATTACHMENT",
            V.BLOCK,
            "Waits for an uploaded file (`NAME`, `PROMPT`, `CATEGORY`, `REQUIRED`, `TIMEOUT`, `ON_TIMEOUT`).",
            open=True,
        ),
        Key(
            "SECURE_INPUT",
            V.BLOCK,
            "Collects secrets by keypad or speech and passes them straight to a tool, never to the model.",
            open=True,
        ),
        Key(
            "RESOLVE_SIP_DESTINATION",
            V.BLOCK,
            "Resolves a dynamic SIP transfer destination.",
            open=True,
        ),
        ACTIONS,
        Key(
            "ON_ACTION",
            V.LIST_OF_BLOCKS,
            "Handles the action ids of `ACTIONS`.",
            also=(V.MAP,),
            open=True,
            children=(
                Key("ACTION", V.STRING, "Action id this entry handles.", aliases=("ACTION_ID",)),
                Key("CONDITION", V.CONDITION, "Extra condition."),
                RESPOND,
                SET,
                CLEAR,
                CALL,
                LOG,
                _THEN,
                _GOTO,
            ),
        ),
        RICH_CONTENT,
        VOICE,
        Key(
            "BARGE_IN",
            V.ENUM,
            "Whether the caller may interrupt this step.",
            values=("allow", "disallow"),
        ),
        Key("STREAMING", V.BOOL, "Stream the reply."),
        Key(
            "DIGRESSIONS",
            V.LIST_OF_BLOCKS,
            "Side topics handled in this step.",
            children=_DIGRESSION_ITEM,
            open=True,
        ),
        Key(
            "SUB_INTENTS",
            V.LIST_OF_BLOCKS,
            "Requests handled without leaving the step.",
            open=True,
            children=(
                Key("INTENT", V.STRING, "Intent that triggers it.", required=True),
                RESPOND,
                MESSAGE_KEY,
                CLEAR,
                SET,
                CALL,
                Key("RESUME", V.BOOL, "Continue the step afterwards.", default="true"),
            ),
        ),
        _ON_ERROR_STEP,
        _THEN,
        _GOTO,
    ),
)

FLOW = Key(
    "FLOW",
    V.BLOCK,
    "Scripted steps. The flow starts at `entry_point` (or the first of `steps`) and moves "
    "between named step blocks with `THEN`; every step declares `REASONING`.",
    free_keys=True,
    entry=STEP,
    children=(
        Key("entry_point", V.NAME, "First step.", refers_to="step"),
        Key(
            "steps",
            V.LIST,
            "Step order (a list, or `a -> b -> c`).",
            item_kind=V.NAME,
            refers_to="step",
        ),
        Key(
            "global_digressions",
            V.LIST_OF_BLOCKS,
            "Side topics handled at every step.",
            children=_DIGRESSION_ITEM,
            open=True,
        ),
    ),
    example=(
        "FLOW:\n"
        "  entry_point: ask\n"
        "  ask:\n"
        "    REASONING: false\n"
        '    RESPOND: "What is your tracking code?"\n'
        "    THEN: COMPLETE"
    ),
    source="§3.9",
)

FLOW_PROFILE = Key(
    "FLOW",
    V.BLOCK,
    "Changes the flow of agents using this profile: skip, replace, override or insert steps.",
    children=(
        Key("SKIP", V.LIST, "Steps to skip.", item_kind=V.NAME, refers_to="step"),
        Key("REPLACE", V.ANY, "Replacement flow."),
        Key(
            "OVERRIDES",
            V.MAP,
            "Per-step overrides (`respond`, `transition`, `VOICE`, `RICH_CONTENT`).",
            aliases=("OVERRIDE",),
            open=True,
        ),
        Key("INSERTIONS", V.LIST_OF_BLOCKS, "Steps inserted `BEFORE` or `AFTER` a step.", open=True),
    ),
    example="FLOW:\n  SKIP: [upsell_offer]",
    source="§3.22",
)
