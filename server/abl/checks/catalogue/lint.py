"""Lint codes: what the platform accepts without a word and then gets wrong at runtime.

Each one is a "Common mistake" or "Troubleshooting" row of the seeds, or a documented platform
quirk (`spec/DIAGNOSTICS.md` part C). Messages say what the platform will actually do.
"""

from __future__ import annotations

from abl.checks.catalogue import project, route
from abl.checks.catalogue.agents import (
    EXCHANGES_AGENT,
    INCOME_AGENT,
    INCOME_NOTE,
    RETURNS_AGENT,
    card_route,
    income_route,
)
from abl.checks.code import Code, FixSafety, Group
from abl.diagnostics import Severity

# --- example builders ---------------------------------------------------------------------

_RETAIL_HUB = project(
    """
    SUPERVISOR: Retail_Hub
    GOAL: "Route retail requests to the right specialist"

    INTENTS:
      order_status: "Where an order is, or when it arrives."
      return_item: "Returns, exchanges, or refunds."
      exchange_item: "Swapping an item for another size or colour."

    GATHER:
      order_id:
        PROMPT: "What is your order number?"
        TYPE: string
        REQUIRED: true

    HANDOFF:
    """
)

# Seed 000's order status agent.
_ORDER_STATUS_AGENT = project(
    """
    AGENT: Order_Status_Agent
    GOAL: "Report the status of one order"

    GATHER:
      order_id:
        PROMPT: "What is your order number?"
        TYPE: string
        REQUIRED: true

    COMPLETE:
      - WHEN: order_id IS SET
        RESPOND: "Order {{order_id}} is on its way."
    """
)


def _to_returns(*rows: str) -> str:
    """The retail hub with one route to `Returns_Agent`; `rows` follow `TO`."""
    return project(_RETAIL_HUB + route("TO: Returns_Agent", *rows), RETURNS_AGENT)


def _to_order_status(*rows: str) -> str:
    """The retail hub with one route to `Order_Status_Agent`; `rows` follow `TO`."""
    return project(_RETAIL_HUB + route("TO: Order_Status_Agent", *rows), _ORDER_STATUS_AGENT)


_WHEN_RETURN = 'WHEN: intent.category == "return_item"'
_WHEN_STATUS = 'WHEN: intent.category == "order_status" AND order_id IS SET'
_RETURN_SUMMARY = 'SUMMARY: "The customer wants to return order {{order_id}}."'


def _income_gate(map_rows: tuple[str, ...] = ()) -> str:
    """A supervisor that picks up the income if the customer volunteers it and otherwise sends
    the customer to the income agent; `map_rows` are extra `ON_RETURN` lines."""
    supervisor = project(
        """
        SUPERVISOR: Loan_Supervisor
        GOAL: "Collect the applicant's income before any loan offer discussion"

        GATHER:
          annual_income:
            PROMPT: "What is your annual income?"
            TYPE: number
            REQUIRED: false
            prompt_mode: extract_only

        HANDOFF:
        """
    ) + route(
        "TO: Income_Capture_Agent",
        "WHEN: annual_income IS NOT SET",
        'SUMMARY: "Collect the applicant\'s annual income, then return."',
        "HISTORY: summary_only",
        "ON_FAILURE: continue",
        "RETURN: true",
        "ON_RETURN:",
        "  action: resume_intent",
        *map_rows,
    )
    return project(supervisor, INCOME_AGENT)


def _applicant_income(child_field: str, parent_variable: str) -> str:
    """A supervisor that keeps the income as `applicant_income`, with one `MAP` entry."""
    supervisor = project(
        """
        SUPERVISOR: Loan_Supervisor
        GOAL: "Collect the applicant's income before any loan offer discussion"

        MEMORY:
          session:
            - applicant_income
              TYPE: number

        HANDOFF:
        """
    ) + route(
        "TO: Income_Capture_Agent",
        "WHEN: applicant_income IS NOT SET",
        'SUMMARY: "Collect the applicant\'s annual income, then return."',
        "HISTORY: summary_only",
        "ON_FAILURE: continue",
        "RETURN: true",
        "ON_RETURN:",
        "  action: resume_intent",
        "  MAP:",
        f"    {child_field}: {parent_variable}",
    )
    return project(supervisor, INCOME_AGENT)


def _pin_check(*, completes: bool) -> str:
    """A front door sending account questions to a FLOW agent that checks the PIN."""
    complete = (
        """
        COMPLETE:
          - WHEN: pin IS SET
            RESPOND: "Thank you. Your PIN is confirmed."
        """
        if completes
        else ""
    )
    return project(
        """
        SUPERVISOR: Bank_Front_Door
        GOAL: "Verify the customer before any account question"

        HANDOFF:
          - TO: Pin_Check_Agent
            WHEN: "the customer asks about their account"
            SUMMARY: "Check the customer's PIN, then return."
            HISTORY: none
            ON_FAILURE: continue
            RETURN: true
        """,
        """
        AGENT: Pin_Check_Agent
        GOAL: "Check the customer's PIN"

        FLOW:
          ask_pin:
            REASONING: false
            GATHER:
              - pin: required
                prompt: "Please enter your PIN."
            THEN: thank

          thank:
            REASONING: false
            RESPOND: "Thank you."
        """
        + complete,
    )


_CARD_DIGITS_AGENT = project(
    """
    AGENT: Card_Agent
    GOAL: "Help with lost, stolen or blocked cards"

    GATHER:
      card_last_four:
        PROMPT: "What are the last four digits of the card?"
        TYPE: string
        REQUIRED: true
    """
)

_AFTER_CARD = """
    RETURN_HANDLERS:
      after_card:
        RESPOND: "Is there anything else I can help you with?"
        CONTINUE: true
    """

# --- codes --------------------------------------------------------------------------------

HISTORY_FALLS_BACK_TO_FULL = Code(
    code="HISTORY_FALLS_BACK_TO_FULL",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="History value silently becomes `full`",
    summary=(
        "A history value the platform does not understand and silently replaces with `full`, so "
        "the target receives the whole conversation."
    ),
    explanation=(
        "The platform's guide to handoff history lists the spellings the compiler accepts without "
        "an error and then drops, falling back to the default `full`:\n\n"
        "- `HISTORY: last_n` on one line, with no number;\n"
        "- an unknown word on one line, such as `HISTORY: recent`;\n"
        "- the block form with `mode: last_n` and `count: 0`;\n"
        "- a one-line `{ mode: last_n }` map inside `CONTEXT`;\n"
        "- a negative or fractional count.\n\n"
        "A route written to send a few messages, or none, then sends everything, including any "
        "personal data said earlier. In the block form an unknown mode is an error instead (E330), "
        "and so is a missing count (E331)."
    ),
    bad_example=_to_returns(_WHEN_RETURN, _RETURN_SUMMARY, "HISTORY: last_n", "ON_FAILURE: continue"),
    good_example=_to_returns(_WHEN_RETURN, _RETURN_SUMMARY, "HISTORY: last_5", "ON_FAILURE: continue"),
    fix=(
        "Offers `last_5`, `none` and the block form with `mode: last_n` and a `count`. Unsafe: "
        "today the target receives everything, and each fix changes that. The one exception is "
        "a misspelt `full` (such as `fulll`): writing `full` is safe, since that is what runs."
    ),
    fix_safety=FixSafety.SOMETIMES_SAFE,
    runtime=(
        "The target's thread starts with the calling agent's whole conversation, plus customer "
        "messages that earlier children handled, exactly as with `HISTORY: full`."
    ),
    see_also=("E330", "E331", "HISTORY_LAST_ZERO", "HISTORY_NOT_SET"),
)

HISTORY_LAST_ZERO = Code(
    code="HISTORY_LAST_ZERO",
    severity=Severity.HINT,
    group=Group.LINT,
    title="`last_0` instead of `none`",
    summary="`HISTORY: last_0` sends no messages, which `none` says plainly.",
    explanation=(
        "`last_0` is valid and means no earlier messages, the same as `none`. The block form "
        "behaves the opposite way: `mode: last_n` with `count: 0` falls back to `full`. Writing "
        "`none` leaves no doubt about which of the two was meant."
    ),
    bad_example=_to_returns(_WHEN_RETURN, _RETURN_SUMMARY, "HISTORY: last_0", "ON_FAILURE: continue"),
    good_example=_to_returns(_WHEN_RETURN, _RETURN_SUMMARY, "HISTORY: none", "ON_FAILURE: continue"),
    fix="Replaces `last_0` with `none`. Safe: both send no messages.",
    fix_safety=FixSafety.SAFE,
    runtime="The target's thread starts with no earlier messages.",
    see_also=("HISTORY_FALLS_BACK_TO_FULL", "HISTORY_NONE_WITHOUT_CONTEXT"),
)

RETURN_NOT_LOWERCASE_TRUE = Code(
    code="RETURN_NOT_LOWERCASE_TRUE",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="`RETURN` is not lowercase `true`",
    summary=(
        '`RETURN` or `EXPECT_RETURN` is `True`, `TRUE`, `"true"`, `yes` or `1`, which reads as '
        "false, so the route is permanent."
    ),
    explanation=(
        "Only the exact lowercase word `true` makes a route returnable. Every other spelling "
        "reads as false, which is also the default, so the parent's thread ends at the handoff "
        "and the child keeps the conversation for good. `EXPECT_RETURN` is an alias of `RETURN` "
        "and follows the same rule."
    ),
    bad_example=card_route("RETURN: True"),
    good_example=card_route("RETURN: true"),
    fix=(
        "Writes `true`. Unsafe: the route becomes returnable, so the parent now waits and "
        "resumes. That is almost certainly what was meant, but it changes what runs."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime="The handoff is permanent: the parent's thread ends and nothing comes back from the child.",
    see_also=("HANDOFF_ON_RETURN_WITHOUT_RETURN",),
)

CONTEXT_KEY_IGNORED = Code(
    code="CONTEXT_KEY_IGNORED",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Uppercase key inside CONTEXT is ignored",
    summary="An uppercase key inside `CONTEXT` (`PASS`, `SUMMARY`, `HISTORY`, ...), which the platform ignores.",
    explanation=(
        "A route's context can be written as uppercase siblings of `TO:` (`PASS:`, `SUMMARY:`, "
        "`HISTORY:`) or grouped under `CONTEXT:`. Inside `CONTEXT` the keys must be lowercase: "
        "`pass`, `summary`, `history`, `set` and `memory_grants`. The platform ignores uppercase "
        "ones without an error, so an ignored `PASS` sends no fields and an ignored `HISTORY` "
        "leaves the default, `full`."
    ),
    bad_example=_to_returns(
        _WHEN_RETURN,
        "CONTEXT:",
        "  PASS: [order_id]",
        '  summary: "The customer wants to return order {{order_id}}."',
        "  history: full",
        "ON_FAILURE: continue",
    ),
    good_example=_to_returns(
        _WHEN_RETURN,
        "CONTEXT:",
        "  pass: [order_id]",
        '  summary: "The customer wants to return order {{order_id}}."',
        "  history: full",
        "ON_FAILURE: continue",
    ),
    fix="Writes the key in lowercase. Unsafe: the setting starts to take effect.",
    fix_safety=FixSafety.UNSAFE,
    runtime="The key is ignored, as if it were not there.",
    see_also=("UNKNOWN_KEY",),
)

EMPTY_STRING_COMPARISON = Code(
    code="EMPTY_STRING_COMPARISON",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Comparison with the empty string",
    summary='A condition compares a variable with the empty string: `x != ""` or `x == ""`.',
    explanation=(
        "A variable that was never set is not the empty string. `!=` is true whenever one side "
        'is missing, so `order_id != ""` is already true before the customer has given any order '
        'number, and a gate written that way opens on the first turn. `x == ""` is false for a '
        "missing value. `IS SET` and `IS NOT SET` test for a value directly (an empty string "
        "counts as set)."
    ),
    bad_example=_to_order_status(
        'WHEN: intent.category == "order_status" AND order_id != ""',
        "PASS: [order_id]",
        "HISTORY: none",
        "ON_FAILURE: continue",
    ),
    good_example=_to_order_status(_WHEN_STATUS, "PASS: [order_id]", "HISTORY: none", "ON_FAILURE: continue"),
    fix=(
        'Replaces `x != ""` with `x IS SET` and `x == ""` with `x IS NOT SET`. Unsafe: the result '
        "changes for unset values, which is the point."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime='`x != ""` is true while `x` is unset, and `x == ""` is false while it is unset.',
    see_also=("UNDEFINED_CONDITION_VAR",),
)

RETURN_VALUE_NOT_MAPPED = Code(
    code="RETURN_VALUE_NOT_MAPPED",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Child's value is read but never mapped back",
    summary=(
        "After a returnable handoff the parent reads a field that the child gathers, but no `MAP` entry brings it back."
    ),
    explanation=(
        "When a child returns, only the fields listed in its route's `ON_RETURN.MAP` are copied "
        "into the parent. A parent that reads the child's field in a `WHEN`, a template or a "
        "`PASS` list never sees the child's value. A gate such as `annual_income IS NOT SET` "
        "then stays true after the return and sends the customer to the child again."
    ),
    bad_example=_income_gate(),
    good_example=_income_gate(("  MAP:", "    annual_income: annual_income")),
    fix=(
        "Adds `<field>: <field>` to the route's `ON_RETURN.MAP`, creating `ON_RETURN` and `MAP` "
        "if needed. Unsafe: the value now comes back to the parent."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime="The child's value stays in the child's thread; the parent's variable keeps its old value.",
    see_also=("RETURN_PATH_WITHOUT_ON_RETURN_MAP_HANDLER", "MAP_DIRECTION_REVERSED"),
)

MAP_DIRECTION_REVERSED = Code(
    code="MAP_DIRECTION_REVERSED",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Return map entry looks reversed",
    summary="A `MAP` entry `a: b` where the child does not produce `a` but does produce `b`.",
    explanation=(
        "`MAP` entries are `child_field: parent_variable`. The two sides often look alike, and "
        "writing `parent: child` is an easy slip. When the left name is unknown to the child "
        "while the right name is one the child produces, the entry is almost certainly reversed.\n\n"
        "The platform reports the unknown child field itself as UNKNOWN_HANDOFF_RETURN_FIELD; "
        "this warning says why, and the parent variable that was meant to be filled usually has "
        "no source left (W801)."
    ),
    bad_example=_applicant_income("applicant_income", "annual_income"),
    good_example=_applicant_income("annual_income", "applicant_income"),
    also_fires=("UNKNOWN_HANDOFF_RETURN_FIELD", "W801"),
    fix="Swaps the two sides. Unsafe: it changes which value is copied where.",
    fix_safety=FixSafety.UNSAFE,
    runtime=(
        "Nothing runs while UNKNOWN_HANDOFF_RETURN_FIELD stands. Were it accepted, the entry would copy nothing back."
    ),
    see_also=("UNKNOWN_HANDOFF_RETURN_FIELD", "RETURN_VALUE_NOT_MAPPED"),
)

HISTORY_NONE_WITHOUT_CONTEXT = Code(
    code="HISTORY_NONE_WITHOUT_CONTEXT",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Target starts with no context",
    summary=(
        "A route sends no history (`none`, or `last_n` with a count of 2 or less) and neither "
        "`PASS` nor `SUMMARY`, so the target starts blind."
    ),
    explanation=(
        "`HISTORY` controls messages only; `PASS` and `SUMMARY` still carry facts when the "
        "history is cut. A route that sends at most one exchange of messages and neither of "
        "those gives the target nothing, and it has to ask the customer again for what they "
        "already said. The platform's history guide lists this among the common mistakes."
    ),
    bad_example=_to_order_status(_WHEN_STATUS, "HISTORY: none", "ON_FAILURE: continue"),
    good_example=_to_order_status(_WHEN_STATUS, "PASS: [order_id]", "HISTORY: none", "ON_FAILURE: continue"),
    fix="No quick fix: choose the fields to pass or write a summary.",
    fix_safety=FixSafety.NONE,
    runtime="The target's thread starts with no earlier messages (or one exchange at most), no fields and no summary.",
    see_also=("HANDOFF_SUMMARY_ONLY_WITHOUT_SUMMARY", "HISTORY_LAST_ZERO"),
)

RETURNABLE_TARGET_CANNOT_RETURN = Code(
    code="RETURNABLE_TARGET_CANNOT_RETURN",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Returnable target has no way back",
    summary=(
        "The target of a `RETURN: true` route has no `COMPLETE`, no built-in return and no route back to the parent."
    ),
    explanation=(
        "A child returns when a `COMPLETE` rule fires (or its FLOW reaches `THEN: COMPLETE`), "
        "when a reasoning child uses its built-in return action (every agent without a `FLOW` "
        "has one), or when it hands off to its waiting parent. An agent the child hands on to "
        "with a permanent route counts too: the parent is still the one waiting, so that agent's "
        "completion or route to the parent resumes it. A FLOW agent with none of these, "
        "itself or down its permanent handoffs, keeps the customer for good: the conversation "
        "never leaves the child and the parent never resumes."
    ),
    bad_example=_pin_check(completes=False),
    good_example=_pin_check(completes=True),
    fix="No quick fix: add a `COMPLETE` rule, end the flow with `THEN: COMPLETE`, or add a route back to the parent.",
    fix_safety=FixSafety.NONE,
    runtime="The child keeps the conversation; the parent waits for good and its `ON_RETURN` never runs.",
)


def _hub_with_returns(*rows: str, returns_route: str = "") -> str:
    """The retail hub routing order questions to `Order_Status_Agent`; `rows` add routes, and
    `returns_route` gives `Returns_Agent` a route of its own."""
    status = route(
        "TO: Order_Status_Agent",
        _WHEN_STATUS,
        'SUMMARY: "The customer asks where order {{order_id}} is."',
        "PASS: [order_id]",
        "HISTORY: none",
        "ON_FAILURE: continue",
    )
    returns = RETURNS_AGENT + ("\nHANDOFF:\n" + returns_route if returns_route else "")
    return project(_RETAIL_HUB + status + "".join("\n" + r for r in rows), _ORDER_STATUS_AGENT, returns)


_TO_RETURNS = (
    "TO: Returns_Agent",
    _WHEN_RETURN,
    _RETURN_SUMMARY,
    "PASS: [order_id]",
    "HISTORY: full",
    "ON_FAILURE: continue",
)
_BACK_TO_HUB = route(
    "TO: Retail_Hub",
    'WHEN: "the customer asks about something other than a return"',
    'SUMMARY: "The customer needs a different specialist."',
    "HISTORY: full",
    "ON_FAILURE: continue",
)

UNREACHABLE_AGENT = Code(
    code="UNREACHABLE_AGENT",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Agent is never reached",
    summary=(
        "In a project with a supervisor, no chain of handoffs or delegates from a supervisor leads "
        "to the agent, so it never runs."
    ),
    explanation=(
        "A conversation starts at the project's supervisor and moves only along `HANDOFF` routes "
        "(including `ON_FAILURE: HANDOFF X`) and `DELEGATE` entries. An agent that none of them "
        "leads to, directly or through other agents, is dead code: it is compiled and never runs. "
        "Usually a route to it was lost, or a `TO:` names it with a typo.\n\n"
        "Every supervisor of the project counts as a start. A project without a supervisor gets "
        "no such report: its entry agent is chosen on deployment, so any agent could be the one "
        "that starts. Routes to remote targets lead out of the project and reach nothing in it. "
        "An agent that a route names with a typo is left to `INVALID_HANDOFF_TARGET`, which "
        "suggests the right name."
    ),
    bad_example=_hub_with_returns(),
    good_example=_hub_with_returns(route(*_TO_RETURNS)),
    fix="No quick fix: add a route to the agent where the conversation should reach it, or remove the agent.",
    fix_safety=FixSafety.NONE,
    runtime="The agent never runs; the platform says nothing about it.",
    see_also=("INVALID_HANDOFF_TARGET", "HANDOFF_CYCLE"),
)

HANDOFF_CYCLE = Code(
    code="HANDOFF_CYCLE",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Loop of handoffs the runtime refuses",
    summary=(
        "A `HANDOFF` route lies on a loop of routes that no hand-back to a waiting parent closes; "
        "the runtime refuses the handoff that comes round as `recursion`."
    ),
    explanation=(
        "The runtime keeps the active handoff chain and refuses a handoff to an agent already in "
        "it: `handoff_completed` reports `rejected` with code `recursion` and the route's "
        "`ON_FAILURE` runs instead. A permanent handoff does not take the caller out of the chain, "
        'so a loop of permanent routes (a specialist routing "back to the menu", say) is refused '
        "when it comes round.\n\n"
        "A route to a waiting parent is allowed: the parent resumes (seed 004). So a loop is fine "
        "when the way out is returnable (`RETURN: true`) and the way back is a route to that "
        "parent, from the child or from an agent the child handed on to for good. The message "
        "shows one loop through the route."
    ),
    bad_example=_hub_with_returns(route(*_TO_RETURNS), returns_route=_BACK_TO_HUB),
    good_example=_hub_with_returns(route(*_TO_RETURNS, "RETURN: true"), returns_route=_BACK_TO_HUB),
    fix=(
        "No quick fix: make the route out `RETURN: true` so that the way back resumes the waiting "
        "parent, or remove one route of the loop."
    ),
    fix_safety=FixSafety.NONE,
    runtime=(
        "The handoff that closes the loop is refused (`handoff_completed` with outcome `rejected`, "
        "code `recursion`) and the route's `ON_FAILURE` runs."
    ),
    see_also=("SELF_HANDOFF_TARGET", "UNREACHABLE_AGENT", "RETURNABLE_TARGET_CANNOT_RETURN"),
)

UNREACHABLE_ROUTE = Code(
    code="UNREACHABLE_ROUTE",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Route can never be chosen",
    summary="A route comes after an unconditional `WHEN: true`, or after an earlier route with the same `WHEN`.",
    explanation=(
        "Routes are tried in order (by `PRIORITY` where given, otherwise as written) and the "
        "first match wins, so a route whose `WHEN` repeats an earlier one never runs.\n\n"
        "A route placed after `WHEN: true` reads as unreachable too, and is reported. Note that "
        "the platform itself treats a literal `WHEN: true` as the fallback and tries it after "
        "all other routes, wherever it is written; putting the fallback last makes the file read "
        "in the order the platform uses."
    ),
    bad_example=project(
        _RETAIL_HUB
        + route("TO: Returns_Agent", _WHEN_RETURN, "PASS: [order_id]", "HISTORY: full", "ON_FAILURE: continue")
        + "\n"
        + route("TO: Exchanges_Agent", _WHEN_RETURN, "PASS: [order_id]", "HISTORY: full", "ON_FAILURE: continue"),
        RETURNS_AGENT,
        EXCHANGES_AGENT,
    ),
    good_example=project(
        _RETAIL_HUB
        + route("TO: Returns_Agent", _WHEN_RETURN, "PASS: [order_id]", "HISTORY: full", "ON_FAILURE: continue")
        + "\n"
        + route(
            "TO: Exchanges_Agent",
            'WHEN: intent.category == "exchange_item"',
            "PASS: [order_id]",
            "HISTORY: full",
            "ON_FAILURE: continue",
        ),
        RETURNS_AGENT,
        EXCHANGES_AGENT,
    ),
    fix="No quick fix: change the condition, reorder the routes, or delete the route.",
    fix_safety=FixSafety.NONE,
    runtime=(
        "A route after an identical condition never runs. After a literal `WHEN: true`, the "
        "platform still tries the later routes first, because it keeps `WHEN: true` as the "
        "fallback."
    ),
)

PASS_FIELD_UNKNOWN = Code(
    code="PASS_FIELD_UNKNOWN",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="PASS names an unknown variable",
    summary="`PASS` names a variable that the calling agent neither declares nor produces.",
    explanation=(
        "`PASS` copies the named variables of the calling agent into the target when the handoff "
        "starts; only variables the caller has are passed, and unset ones are skipped. A name the "
        "caller does not have is never passed, so the target has to ask for it again. The "
        "platform's guides call these ungrounded pass fields."
    ),
    bad_example=_to_returns(
        _WHEN_RETURN, "PASS: [order_number]", _RETURN_SUMMARY, "HISTORY: full", "ON_FAILURE: continue"
    ),
    good_example=_to_returns(
        _WHEN_RETURN, "PASS: [order_id]", _RETURN_SUMMARY, "HISTORY: full", "ON_FAILURE: continue"
    ),
    fix="Offers the caller's variable with the closest name. Unsafe: a different value is passed.",
    fix_safety=FixSafety.UNSAFE,
    runtime="The name is skipped; the target receives the other fields only.",
    see_also=("UNDEFINED_CONDITION_VAR", "TEMPLATE_VARIABLE_UNKNOWN"),
)

TEMPLATE_VARIABLE_UNKNOWN = Code(
    code="TEMPLATE_VARIABLE_UNKNOWN",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Template names an unknown variable",
    summary="A `{{x}}` in a `RESPOND`, `SUMMARY` or `PROMPT` names something the agent does not know.",
    explanation=(
        "Templates are filled when the text is sent, from the agent's variables, gather fields, "
        "tool results and built-ins. A name that is none of these has no value, so the customer, "
        "or the target agent reading a summary, gets a sentence with a gap where the value "
        "should be."
    ),
    bad_example=_to_returns(
        _WHEN_RETURN,
        "PASS: [order_id]",
        'SUMMARY: "The customer wants to return order {{order_number}}."',
        "HISTORY: full",
        "ON_FAILURE: continue",
    ),
    good_example=_to_returns(
        _WHEN_RETURN, "PASS: [order_id]", _RETURN_SUMMARY, "HISTORY: full", "ON_FAILURE: continue"
    ),
    fix="Offers the known name closest to the unknown one. Unsafe: the text shows a different value.",
    fix_safety=FixSafety.UNSAFE,
    runtime="The placeholder has no value when the text is rendered.",
    see_also=("TEMPLATE_SINGLE_BRACE", "PASS_FIELD_UNKNOWN"),
)

HISTORY_NOT_SET = Code(
    code="HISTORY_NOT_SET",
    severity=Severity.HINT,
    group=Group.LINT,
    title="Route without HISTORY",
    summary="A route sets no `HISTORY`, so the target receives the whole conversation by default.",
    explanation=(
        "A route without a history setting gets the default, `full`: the calling agent's whole "
        "conversation (a project-level default replaces this when the deployment sets one; tell "
        "the checker with `default-history` in the project configuration). "
        "The platform's production checklist asks for `HISTORY` on every route, set on purpose, so that "
        "behaviour does not hang on a default, and for every route that sends `full` to be "
        "reviewed for personal data in earlier messages. Hints are shown in editors and printed "
        "by `abl check` only with `--all`."
    ),
    bad_example=_to_returns(_WHEN_RETURN, "PASS: [order_id]", "ON_FAILURE: continue"),
    good_example=_to_returns(_WHEN_RETURN, "PASS: [order_id]", "HISTORY: full", "ON_FAILURE: continue"),
    fix=(
        "Inserts `HISTORY:` with the default that applies today (`full`, or the project's "
        "`default-history`). Unsafe, because a default is only a suggestion: the author may have "
        "meant a shorter window, and a deployment may set another default. Not offered when the "
        "route's `CONTEXT` holds an uppercase `HISTORY`, whose value is what the author meant "
        "(CONTEXT_KEY_IGNORED fixes that key)."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime="The target receives the whole conversation (`full`), unless the deployment sets another project default.",
    see_also=("HISTORY_FALLS_BACK_TO_FULL", "ON_FAILURE_NOT_SET"),
)

ON_FAILURE_NOT_SET = Code(
    code="ON_FAILURE_NOT_SET",
    severity=Severity.HINT,
    group=Group.LINT,
    title="Route without ON_FAILURE",
    summary="A route sets no `ON_FAILURE`, so a handoff that fails is passed over in silence.",
    explanation=(
        "`ON_FAILURE` decides what happens when a handoff fails before the target accepts it "
        "(the target is missing, the route is refused, or the dispatch fails): `continue`, the "
        "default, where the current agent carries on as if nothing happened; `escalate`; or "
        '`respond "<message>"`. The platform\'s checklist for returnable handoffs asks for '
        "`ON_FAILURE` on every route, set on purpose. Hints are shown in editors and printed by "
        "`abl check` only with `--all`."
    ),
    bad_example=_to_returns(_WHEN_RETURN, "PASS: [order_id]", "HISTORY: full"),
    good_example=_to_returns(
        _WHEN_RETURN,
        "PASS: [order_id]",
        "HISTORY: full",
        'ON_FAILURE: RESPOND "I cannot reach our returns team right now. Please try again later."',
    ),
    fix="No quick fix: choose what the customer should experience when the handoff fails.",
    fix_safety=FixSafety.NONE,
    runtime="A failed handoff runs `continue`: the current agent carries on and the customer is not told.",
    see_also=("INVALID_HANDOFF_FAILURE_ACTION", "HISTORY_NOT_SET"),
)

RETURN_PATH_WITHOUT_ON_RETURN_MAP_HANDLER = Code(
    code="RETURN_PATH_WITHOUT_ON_RETURN_MAP_HANDLER",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Return handler without a MAP",
    summary="`ON_RETURN.handler` is used but the route has no `MAP`, so no value comes back from the child.",
    explanation=(
        "A return handler decides what the parent does after the return (reply, clear fields, "
        "continue or replay), but it copies no values. `MAP` still belongs on the route, under "
        "`ON_RETURN`; without it nothing the child collected reaches the parent. The platform's "
        "guide puts it plainly: add `MAP` on the route, or no value returns."
    ),
    bad_example=card_route(
        "RETURN: true",
        "ON_RETURN:",
        "  handler: after_card",
        handlers=_AFTER_CARD,
        target=_CARD_DIGITS_AGENT,
    ),
    good_example=card_route(
        "RETURN: true",
        "ON_RETURN:",
        "  handler: after_card",
        "  MAP:",
        "    card_last_four: blocked_card",
        sections="""
        MEMORY:
          session:
            - blocked_card
              TYPE: string
              DESCRIPTION: "Last four digits of the card the customer reported."
        """,
        handlers=_AFTER_CARD,
        target=_CARD_DIGITS_AGENT,
    ),
    fix="No quick fix: add a `MAP` entry for each value the parent needs.",
    fix_safety=FixSafety.NONE,
    runtime="The handler runs, and the parent receives no values from the child.",
    see_also=("RETURN_VALUE_NOT_MAPPED",),
)

LEGACY_TOP_LEVEL_MAP = Code(
    code="LEGACY_TOP_LEVEL_MAP",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Return map at the route's top level",
    summary="A route has a top-level `MAP` instead of `ON_RETURN.MAP`.",
    explanation=(
        "The older format put the return map directly on the route. The current reference moves "
        "it under `ON_RETURN` and documents only that position. This tool reads a top-level `MAP` "
        "as the route's return map, so the other checks see the same values, and warns so that "
        "the project does not rely on the legacy form."
    ),
    bad_example=income_route("MAP:", "  annual_income: annual_income"),
    good_example=income_route("ON_RETURN:", "  MAP:", "    annual_income: annual_income"),
    fix=(
        "Moves the `MAP` block under `ON_RETURN`, creating it if needed. Safe on a returnable "
        "route: this tool already reads it as the return map. Unsafe on a permanent route, where "
        "the map never runs and the moved block gives HANDOFF_ON_RETURN_WITHOUT_RETURN."
    ),
    fix_safety=FixSafety.SOMETIMES_SAFE,
    runtime=(
        "Older platform versions copy the mapped fields back; the current documentation describes "
        "only `ON_RETURN.MAP`, so whether they come back depends on the platform version."
    ),
    see_also=("RETURN_VALUE_NOT_MAPPED",),
)

TEMPLATE_SINGLE_BRACE = Code(
    code="TEMPLATE_SINGLE_BRACE",
    severity=Severity.HINT,
    group=Group.LINT,
    title="Single braces are not a template",
    summary="Text such as `{order_id}` names a known variable in single braces, which is printed as it is.",
    explanation=(
        "Only double braces are filled in: `{{order_id}}` becomes the order number, while "
        "`{order_id}` is printed literally, braces and all. Examples in the older v2 "
        "specification use single braces, which is how they end up in projects. The hint appears "
        "only when the name in the braces is a variable the agent knows, so other text in braces "
        "is left alone."
    ),
    bad_example=_ORDER_STATUS_AGENT.replace("{{order_id}}", "{order_id}"),
    good_example=_ORDER_STATUS_AGENT,
    fix="Doubles the braces. Unsafe: the text changes, since it now shows the value.",
    fix_safety=FixSafety.UNSAFE,
    runtime="The customer sees `{order_id}` literally.",
    see_also=("TEMPLATE_VARIABLE_UNKNOWN",),
)

# Seed 004's "continue without a replay" variation: the return sets `income_note` after `MAP`.
_INCOME_NOTE_RETURN = (
    "ON_RETURN:",
    "  action: continue",
    "  MAP:",
    "    annual_income: annual_income",
    "  SET:",
    '    income_note: "Income collected by the income agent."',
)


RETURN_TARGET_NOT_DECLARED = Code(
    code="RETURN_TARGET_NOT_DECLARED",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Return writes an undeclared variable",
    summary=(
        "An `ON_RETURN` `MAP`, `SET` or `CLEAR` (or a return handler's `CLEAR`) names a variable "
        "the parent does not declare in `MEMORY` or `GATHER`, so the runtime refuses the whole return."
    ),
    explanation=(
        "When a child returns, the parent applies the return's effects all or nothing: the `MAP` "
        "copies, then `SET`, then `CLEAR`. The parent must be allowed to write each target, and "
        "it may write only the variables it declares in `MEMORY` or gathers in `GATHER` (a dotted "
        "name counts by its root). If one target is not writable, the runtime emits "
        "`memory_error` and applies none of the effects, so even the values that were mapped "
        "correctly never arrive. The compiler does not check this; the seed's troubleshooting "
        'table lists it ("The return applies no effects").'
    ),
    bad_example=income_route(*_INCOME_NOTE_RETURN),
    good_example=income_route(*_INCOME_NOTE_RETURN, memory=INCOME_NOTE),
    fix=(
        "Declares the variable in the parent's `MEMORY` session list (adding the list, or the "
        "section, when there is none). Unsafe: the return's effects start to apply."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime=(
        "On every return through the route: a `memory_error` event for the target, and no `MAP`, "
        "`SET` or `CLEAR` of that return applies; the parent's variables keep their old values."
    ),
    see_also=("W801", "RESERVED_VARIABLE_NAME", "RETURN_VALUE_NOT_MAPPED"),
)

# A persistent path the supervisor may only read, written by its return.
_READ_ONLY_STAGE = "  persistent:\n    - user.offer_stage\n      ACCESS: {access}\n"
_STAGE_RETURN = (
    "ON_RETURN:",
    "  action: continue",
    "  MAP:",
    "    annual_income: annual_income",
    "  SET:",
    '    user.offer_stage: "income"',
)

RETURN_TARGET_NOT_WRITABLE = Code(
    code="RETURN_TARGET_NOT_WRITABLE",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Return writes a read-only memory path",
    summary=(
        "An `ON_RETURN` `MAP`, `SET` or `CLEAR` (or a return handler's `CLEAR`) names a persistent "
        "path the parent may only read (`ACCESS: read`, or listed under `READS:`), so the runtime "
        "refuses the whole return."
    ),
    explanation=(
        'Seed 004: "The parent must be allowed to write each `MAP` and `SET` target. If one '
        'target is not writable, the runtime applies none of the return effects." A persistent '
        "path declared `ACCESS: read` (or under the `READS:` shorthand) is one the agent may read "
        "and never write, so a return that writes it is refused as a whole: `memory_error`, and "
        "not even the values mapped into writable variables arrive. The compiler does not check "
        'this; the seed\'s troubleshooting table lists it ("The return applies no effects").'
    ),
    bad_example=income_route(*_STAGE_RETURN, memory=_READ_ONLY_STAGE.format(access="read")),
    good_example=income_route(*_STAGE_RETURN, memory=_READ_ONLY_STAGE.format(access="readwrite")),
    fix=(
        "Changes the path's `ACCESS: read` to `ACCESS: readwrite`. Unsafe: the agent may then write "
        "a fact that is kept beyond the session, and the return's effects start to apply."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime=(
        "On every return through the route: a `memory_error` event with code `read_only_target`, "
        "and no `MAP`, `SET` or `CLEAR` of that return applies."
    ),
    see_also=("RETURN_TARGET_NOT_DECLARED", "W801"),
)


def _tracking_field(pattern: str) -> str:
    return _ORDER_STATUS_AGENT.replace(
        "    REQUIRED: true\n", f'    REQUIRED: true\n    EXTRACTION_PATTERN: "{pattern}"\n', 1
    )


PATTERN_BACKTRACKS = Code(
    code="PATTERN_BACKTRACKS",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Pattern that can backtrack for ever",
    summary=(
        "An `extraction_pattern`, a `pattern(...)` or a pattern in a condition or a `SET` value "
        "repeats a group that repeats itself, so a message that almost matches takes time that "
        "doubles with each character."
    ),
    explanation=(
        "A gather field's pattern runs on what the customer typed, and so do the patterns of "
        'conditions and `SET` values (`x matches /.../`, `x.matches("...")`, `MATCHES_PATTERN`, '
        "`NOT_MATCHES_PATTERN`, `REGEX_EXTRACT`, `REGEX_REPLACE`) on the values it gave. In `(a+)+` "
        "or `(\\w+\\s?)+` the "
        "outer repeat and the inner one can share the same characters in every possible way, and "
        "on a message that fails to match near its end the regular-expression engine tries them "
        "all: each character doubles the time, so 24 characters take most of a second and 30 about "
        "a minute. The turn stalls meanwhile (this tool's "
        "runtime stops a pattern after a quarter of a second: a field is then not found, a "
        "condition does not hold). "
        "Make each pass of the outer repeat consume something the inner one cannot, such as a "
        "separator: `[A-Z0-9]+(?:-[A-Z0-9]+)*` matches the same codes in linear time. The pattern "
        "is read, never run, by the checker."
    ),
    bad_example=_tracking_field("([A-Z0-9]+-?)+"),
    good_example=_tracking_field("[A-Z0-9]+(?:-[A-Z0-9]+)*"),
    fix="No quick fix: which rewrite keeps the texts the field must accept is the author's call.",
    fix_safety=FixSafety.NONE,
    runtime=(
        "The pattern runs on each message while the field is gathered, and whenever the condition "
        "or value is evaluated; this tool's runtime stops it after 0.25 s, reads the field as not "
        "given and the condition as not holding (negated or not), and says so in the trace."
    ),
)

_REFUND_FLOW = """
    AGENT: Refund_Agent
    GOAL: "Refund a damaged order"

    FLOW:
      entry_point: {first}
{steps}
      confirm:
        REASONING: false
        RESPOND: "Noted: severity {{{{damage_severity}}}}."
        THEN: COMPLETE
    """

_ASSESS_WITH_GATHER = """\
      assess:
        REASONING: true
        GOAL: "Understand how badly the order was damaged"
        GATHER:
          - damage_severity: required
            prompt: "How bad is the damage: minor, major or unusable?"
        THEN: confirm"""

_ASK_THEN_ASSESS = """\
      ask_severity:
        REASONING: false
        GATHER:
          - damage_severity: required
            prompt: "How bad is the damage: minor, major or unusable?"
        THEN: assess
      assess:
        REASONING: true
        GOAL: "Understand how badly the order was damaged"
        THEN: confirm"""

REASONING_STEP_KEY_IGNORED = Code(
    code="REASONING_STEP_KEY_IGNORED",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Deterministic key on a reasoning step is ignored",
    summary=(
        "A `REASONING: true` FLOW step carries a key only a `REASONING: false` step runs "
        "(`GATHER`, `RESPOND`, `CALL`, `SET`, `CHECK`, `ON_INPUT`, ...)."
    ),
    explanation=(
        "A reasoning step hands each message to the model, which answers toward the step's `GOAL` "
        "with its `AVAILABLE_TOOLS` until `EXIT_WHEN` holds or `MAX_TURNS` is reached. It reads "
        "`WHEN`, `MAX_ATTEMPTS`/`ON_EXHAUSTED`, `GOAL`, `BEHAVIOR`, `AVAILABLE_TOOLS`, `EXIT_WHEN`, "
        "`MAX_TURNS`, `STEP_CONSTRAINTS`, `DIGRESSIONS`, `SUB_INTENTS`, `ON_ERROR` and `THEN`. The "
        "actions of a deterministic step (`RESPOND`/`SAY`, `MESSAGE_KEY`, `PRESENT`, `GATHER`, "
        "`COMPLETE_WHEN`, `CALL`/`WITH`/`AS`, `SET`, `CHECK`, `ON_FAIL`, `ON_SUCCESS`, `ON_RESULT`, "
        "`ON_INPUT`, `CLEAR`, `TRANSFORM`, `LOG`, `ACTIONS`, `ON_ACTION`) are accepted there and "
        "never run: a `GATHER` never asks for its fields, and the steps after it read them empty.\n\n"
        "Put the actions in a `REASONING: false` step before or after the reasoning one."
    ),
    bad_example=project(_REFUND_FLOW.format(first="assess", steps=_ASSESS_WITH_GATHER)),
    good_example=project(_REFUND_FLOW.format(first="ask_severity", steps=_ASK_THEN_ASSESS)),
    fix=(
        "No quick fix: moving the actions into a step of their own, or making the step "
        "deterministic, changes who answers the customer and in what order, which only the author "
        "can decide."
    ),
    fix_safety=FixSafety.NONE,
    runtime="The key and everything under it are ignored; the model drives the step as if it were not there.",
    see_also=("DETERMINISTIC_STEP_KEY_IGNORED", "MISSING_REASONING"),
)


_LOOKUP_FLOW = """
    AGENT: Order_Lookup_Flow
    GOAL: "Tell the customer where their order is"

    FLOW:
      entry_point: ask_order
      ask_order:
        REASONING: false
        GATHER:
          - order_id: required
            prompt: "What is your order number?"
{extra}        THEN: COMPLETE
    """

DETERMINISTIC_STEP_KEY_IGNORED = Code(
    code="DETERMINISTIC_STEP_KEY_IGNORED",
    severity=Severity.WARNING,
    group=Group.LINT,
    title="Reasoning key on a deterministic step is ignored",
    summary=(
        "A `REASONING: false` FLOW step carries a key only a `REASONING: true` step reads "
        "(`GOAL`, `BEHAVIOR`, `AVAILABLE_TOOLS`, `EXIT_WHEN`, `MAX_TURNS`)."
    ),
    explanation=(
        "A deterministic step runs its actions in order and never hands the message to the model. "
        "The keys that steer the model (`GOAL`, `BEHAVIOR`, `AVAILABLE_TOOLS`) and those that end "
        "a reasoning step (`EXIT_WHEN`, `MAX_TURNS`) are accepted there and do nothing: the "
        "reference says a deterministic step should not carry them. An `EXIT_WHEN` written to "
        "leave the step early never does; the step leaves when its actions are done.\n\n"
        "Remove the key, or put the work that needs the model in a `REASONING: true` step of its own."
    ),
    bad_example=project(_LOOKUP_FLOW.format(extra="        EXIT_WHEN: order_id IS SET\n")),
    good_example=project(_LOOKUP_FLOW.format(extra="")),
    fix=(
        "No quick fix: removing the key drops what the author meant the step to do, and making "
        "the step a reasoning one changes who answers the customer; only the author can choose."
    ),
    fix_safety=FixSafety.NONE,
    runtime="The key is ignored; the step runs its actions as if it were not there.",
    see_also=("REASONING_STEP_KEY_IGNORED", "MISSING_REASONING"),
)


CODES: tuple[Code, ...] = (
    HISTORY_FALLS_BACK_TO_FULL,
    HISTORY_LAST_ZERO,
    RETURN_NOT_LOWERCASE_TRUE,
    CONTEXT_KEY_IGNORED,
    EMPTY_STRING_COMPARISON,
    RETURN_VALUE_NOT_MAPPED,
    MAP_DIRECTION_REVERSED,
    HISTORY_NONE_WITHOUT_CONTEXT,
    RETURNABLE_TARGET_CANNOT_RETURN,
    UNREACHABLE_AGENT,
    HANDOFF_CYCLE,
    UNREACHABLE_ROUTE,
    PASS_FIELD_UNKNOWN,
    TEMPLATE_VARIABLE_UNKNOWN,
    HISTORY_NOT_SET,
    ON_FAILURE_NOT_SET,
    RETURN_PATH_WITHOUT_ON_RETURN_MAP_HANDLER,
    LEGACY_TOP_LEVEL_MAP,
    TEMPLATE_SINGLE_BRACE,
    RETURN_TARGET_NOT_DECLARED,
    RETURN_TARGET_NOT_WRITABLE,
    PATTERN_BACKTRACKS,
    REASONING_STEP_KEY_IGNORED,
    DETERMINISTIC_STEP_KEY_IGNORED,
)
