"""Rules the runtime enforces: CONSTRAINTS and GUARDRAILS.

Sources: ABL-REFERENCE §3.7 and §3.8 (and §3.22 for profile constraints).
"""

from __future__ import annotations

from ..types import Key
from ..types import ValueKind as V
from .common import RESPOND

_RULE = Key(
    "<label>",
    V.LIST_OF_BLOCKS,
    "Rules under a label. The label is only a name: all rules run in declaration order. "
    "Each item is `REQUIRE|WARN|LIMIT|RESTRICT <condition>`, optionally `BEFORE calling "
    "<tool>` or `BEFORE returning results`.",
    item_head=V.CONDITION,
    children=(
        Key("WHEN", V.CONDITION, "The rule only applies while this holds."),
        Key(
            "ON_FAIL",
            V.ACTION,
            "What happens when the rule fails: a message (sent, then the operation stops), "
            "`BLOCK`, `ESCALATE`, `HANDOFF <Agent>`, or a block with `RESPOND`, `COLLECT`, "
            "`GOTO`, `RETRY`, `THEN`.",
            aliases=("ON_FAILURE",),
            also=(V.TEMPLATE, V.BLOCK),
            values=("BLOCK", "ESCALATE", "HANDOFF"),
            children=(
                RESPOND,
                Key("COLLECT", V.LIST, "Fields to ask for again.", item_kind=V.NAME),
                Key("GOTO", V.NAME, "Step to go to.", refers_to="step"),
                Key("RETRY", V.BOOL, "Check again after collecting."),
                Key("THEN", V.ENUM, "Continue or check again.", values=("continue", "retry")),
            ),
        ),
        Key(
            "severity",
            V.ENUM,
            "Error stops at the first failure; warning only logs. In text ABL prefer `WARN`.",
            values=("error", "warning"),
        ),
    ),
)

CONSTRAINTS = Key(
    "CONSTRAINTS",
    V.MAP,
    "Rules checked by the runtime against session state every turn (unlike "
    "`LIMITATIONS`, which only advise the model). Group them under labels of your choice.",
    free_keys=True,
    entry=_RULE,
    example=(
        "CONSTRAINTS:\n"
        "  limits:\n"
        "    - REQUIRE code IS SET BEFORE calling track\n"
        '      ON_FAIL: "I need the tracking code first."'
    ),
    source="§3.7",
)

CONSTRAINTS_PROFILE = Key(
    "CONSTRAINTS",
    V.LIST,
    "Extra rules, as plain sentences, for agents using this profile.",
    item_kind=V.STRING,
    example='CONSTRAINTS:\n  - "Never read out full card numbers"',
    source="§3.22",
)

GUARDRAIL_ACTIONS = ("block", "warn", "redact", "escalate", "fix", "reask", "filter")

GUARDRAILS = Key(
    "GUARDRAILS",
    V.MAP,
    "Named safety checks on input, output, tool calls or handoffs: a CEL `check`, a "
    "provider classifier or a model question, and what to do when it trips.",
    free_keys=True,
    entry=Key(
        "<guardrail>",
        V.BLOCK,
        "One guardrail.",
        children=(
            Key(
                "kind",
                V.ENUM,
                "What is checked; `both` makes an input and an output rule.",
                values=("input", "output", "both", "tool_input", "tool_output", "handoff"),
            ),
            Key("check", V.CONDITION, "CEL expression (`abl.contains_pii(response)`)."),
            Key("provider", V.STRING, "Classifier provider."),
            Key("category", V.STRING, "Classifier category."),
            Key("threshold", V.NUMBER, "Classifier score that trips the rule."),
            Key("llm_check", V.TEXT, "A yes/no question answered by the model."),
            Key(
                "action",
                V.ENUM,
                "What happens when the rule trips; `block` stops further checks.",
                values=GUARDRAIL_ACTIONS,
            ),
            Key("message", V.TEMPLATE, "Reply or note used by the action.", aliases=("msg",)),
            Key("priority", V.INT, "Order of evaluation; lower first.", default="100"),
            Key(
                "severity_actions",
                V.BLOCK,
                "Action per severity (`low`, `medium`, `high`).",
                open=True,
            ),
            Key(
                "fix_strategy",
                V.ENUM,
                "How `fix` repairs the text.",
                values=("truncate", "strip_html", "redact_pii", "normalize", "custom"),
            ),
            Key("fix_expression", V.STRING, "Expression for `fix_strategy: custom`."),
            Key("max_reasks", V.INT, "Most regenerations for `reask`.", default="2"),
            Key("filter_min_length", V.INT, "Shortest text the filter keeps."),
            Key("streaming", V.BOOL, "Check while the reply streams.", default="false"),
            Key(
                "streaming_interval",
                V.ENUM,
                "How often to check while streaming.",
                values=("token", "sentence", "chunk_size"),
            ),
        ),
    ),
    example=(
        'GUARDRAILS:\n  no_pii_out:\n    kind: output\n    check: "!abl.contains_pii(response)"\n    action: redact'
    ),
    source="§3.8",
)
