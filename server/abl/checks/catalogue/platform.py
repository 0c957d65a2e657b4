"""Platform codes: the reference compiler's own diagnostics, with its triggers and severities.

Seeds 000 and 004 make `E330`, `E331`, `W801`, `UNKNOWN_HANDOFF_RETURN_FIELD` and the
`ON_RETURN` codes binding; the rest follow the platform's validators as recorded in
`spec/DIAGNOSTICS.md` part A.
"""

from __future__ import annotations

from abl.checks.catalogue import project, route
from abl.checks.catalogue.agents import (
    INCOME_AGENT,
    INCOME_DONE,
    INCOME_NOTE,
    PRICE_ESTIMATOR,
    RETURNS_AGENT,
    card_route,
    income_route,
)
from abl.checks.code import Code, FixSafety, Group
from abl.diagnostics import Severity

_REJECTED = "Nothing runs: the platform refuses to compile or deploy a project with this error."

# --- example builders ---------------------------------------------------------------------

_RETAIL_HUB = project(
    """
    SUPERVISOR: Retail_Hub
    GOAL: "Route retail requests to the right specialist"

    INTENTS:
      return_item: "Returns, exchanges, or refunds."

    HANDOFF:
    """
)


def _returns_route(*rows: str, when: str = 'intent.category == "return_item"', target: str = RETURNS_AGENT) -> str:
    """Seed 000's router sending returns to `Returns_Agent`; `rows` follow `TO` and `WHEN`."""
    entry = route("TO: Returns_Agent", f"WHEN: {when}", *rows)
    return project(_RETAIL_HUB + entry, target)


_TRAVEL_DESK = project(
    """
    SUPERVISOR: Travel_Desk
    GOAL: "Plan trips and quote an estimated price"

    BEHAVIOR:
      role: orchestrator

    GATHER:
      destination:
        PROMPT: "Where are you travelling to?"
        TYPE: string
        REQUIRED: true

    MEMORY:
      session:
        - trip_quote
          TYPE: object
          DESCRIPTION: "The price estimate returned by the estimator."

    DELEGATE:
    """
)


def _delegate(
    *, agent: str = "Price_Estimator", field: str = "last_estimate_price_result", timeout: str = '"10s"'
) -> str:
    """The travel desk delegating a price estimate; each argument is one value of the entry."""
    entry = route(
        f"AGENT: {agent}",
        "WHEN: destination IS SET",
        'PURPOSE: "Estimate the price of the trip"',
        "INPUT:",
        "  city: destination",
        "RETURNS:",
        f"  {field}: trip_quote",
        'USE_RESULT: "Quote the estimated price to the customer"',
        f"TIMEOUT: {timeout}",
        "ON_FAIL: continue",
    )
    return project(_TRAVEL_DESK + entry, PRICE_ESTIMATOR)


def _stay_dates(checkin_depends_on: str, checkout_depends_on: str) -> str:
    """A hotel agent whose two date fields carry the given `depends_on` lines (or none)."""
    checkin = f"\n    depends_on: [{checkin_depends_on}]" if checkin_depends_on else ""
    checkout = f"\n    depends_on: [{checkout_depends_on}]" if checkout_depends_on else ""
    return project(
        f"""\
AGENT: Hotel_Booking_Agent
GOAL: "Book a hotel stay"

GATHER:
  checkin_date:
    PROMPT: "Which day do you arrive?"
    TYPE: date{checkin}
  checkout_date:
    PROMPT: "Which day do you leave?"
    TYPE: date{checkout}
"""
    )


# --- codes --------------------------------------------------------------------------------

E330 = Code(
    code="E330",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Unknown history mode in block form",
    summary=(
        "A block-form `HISTORY:` (or `history:` inside `CONTEXT`) has a `mode:` that is not "
        "`full`, `none`, `summary_only`, `auto` or `last_n`."
    ),
    explanation=(
        "The history setting decides how many earlier messages the target of a handoff receives. "
        "In the block form the compiler checks `mode:` against the five modes it knows and rejects "
        "the project with E330 when it is any other word, such as `recent`.\n\n"
        "The same unknown word written on one line (`HISTORY: recent`) is not an error: there the "
        "compiler quietly replaces it with the default, `full`, which is why that spelling has its "
        "own warning, HISTORY_FALLS_BACK_TO_FULL."
    ),
    bad_example=_returns_route(
        'SUMMARY: "The customer wants to return an item."',
        "HISTORY:",
        "  mode: recent",
        "ON_FAILURE: continue",
    ),
    good_example=_returns_route(
        'SUMMARY: "The customer wants to return an item."',
        "HISTORY:",
        "  mode: last_n",
        "  count: 6",
        "ON_FAILURE: continue",
    ),
    fix=(
        "Offers each of the five modes in place of the unknown word. Unsafe: every mode gives the "
        "target a different amount of conversation, and only the author knows which was meant."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("E331", "HISTORY_FALLS_BACK_TO_FULL"),
)

E331 = Code(
    code="E331",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="`last_n` history without a count",
    summary="A block-form history has `mode: last_n` but no `count`.",
    explanation=(
        '`last_n` means "the most recent N messages", and the block form takes N from `count:`. '
        "Without it there is no window, and the compiler rejects the project with E331.\n\n"
        "The count is in messages, not customer turns: a customer message and the reply to it are "
        "two. A `count: 0` is not an error but is silently read as `full` "
        "(HISTORY_FALLS_BACK_TO_FULL); to send nothing, write `HISTORY: none`."
    ),
    bad_example=_returns_route(
        'SUMMARY: "The customer wants to return an item."',
        "HISTORY:",
        "  mode: last_n",
        "ON_FAILURE: continue",
    ),
    good_example=_returns_route(
        'SUMMARY: "The customer wants to return an item."',
        "HISTORY:",
        "  mode: last_n",
        "  count: 6",
        "ON_FAILURE: continue",
    ),
    fix=(
        "Inserts `count: 5` under `mode: last_n`. Unsafe: the number decides how much of the "
        "conversation the target sees, so the author has to confirm it."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("E330", "HISTORY_FALLS_BACK_TO_FULL", "HISTORY_LAST_ZERO"),
)

W801 = Code(
    code="W801",
    severity=Severity.WARNING,
    group=Group.PLATFORM,
    title="Session variable with no population source",
    summary="A `MEMORY` session variable is declared, but nothing in the agent ever gives it a value.",
    explanation=(
        "The compiler looks for at least one place that writes each session variable: a GATHER "
        "field of the same name, a tool result mapping, a `SET` (including `ON_RETURN.SET`, "
        "`ON_START.SET` and `COMPLETE.SET`), a `REMEMBER` trigger, or the parent side of an "
        "`ON_RETURN.MAP` or a DELEGATE `RETURNS` entry. A variable with none of these stays empty "
        "for the whole session, so every condition that tests it and every template that shows it "
        "behaves as if the value were missing.\n\n"
        "A variable its callers fill counts as populated too, as it is at runtime: a route's `PASS` "
        "or `SET` (`CONTEXT.set`) into the agent, or a DELEGATE `INPUT` to it, from any file of the "
        "project; so does `last_<tool>_result` for a tool the agent declares.\n\n"
        "The platform accepts the project and reports "
        '`Session variable "<name>" has no population source.` In the platform\'s guide to '
        "returnable handoffs, declaring `income_note` in the supervisor's `MEMORY` without the "
        "`ON_RETURN.SET` line that fills it gives exactly this warning."
    ),
    bad_example=income_route(
        "ON_RETURN:",
        "  action: continue",
        "  MAP:",
        "    annual_income: annual_income",
        memory=INCOME_NOTE,
    ),
    good_example=income_route(
        "ON_RETURN:",
        "  action: continue",
        "  MAP:",
        "    annual_income: annual_income",
        "  SET:",
        '    income_note: "Income collected by the income agent."',
        memory=INCOME_NOTE,
    ),
    fix="No quick fix: add the write that was meant to fill the variable, or remove the declaration.",
    fix_safety=FixSafety.NONE,
    runtime=(
        "The variable keeps its initial value (null unless `INITIAL` gives one) for the whole "
        "session; `IS SET` on it is never true."
    ),
)

UNKNOWN_HANDOFF_RETURN_FIELD = Code(
    code="UNKNOWN_HANDOFF_RETURN_FIELD",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Return map names a field the child does not produce",
    summary=(
        "A returnable route's `ON_RETURN.MAP` copies a child field that the target agent neither "
        "declares nor obviously produces."
    ),
    explanation=(
        "`MAP` entries are written `child_field: parent_variable`; when the child returns, the "
        "runtime copies the child's value of each left-hand name into the parent. The compiler "
        "checks the left side against everything the child can hold: its GATHER fields, its "
        "session and persistent memory, its `ON_START.SET` targets, its tool results "
        "(`last_<tool>_result`), the targets of its own return maps and the variables its FLOW "
        "steps set. For a dotted name only the first part is checked.\n\n"
        "A name outside that set would never copy anything, so the project is rejected with: "
        'HANDOFF ON_RETURN maps child field "<c>" from "<to>" into parent field "<p>", but "<to>" '
        'does not declare or obviously produce "<c>". The diagnostic points at the child key.'
    ),
    bad_example=project(
        """
        SUPERVISOR: Loan_Supervisor
        GOAL: "Collect the applicant's income before any loan offer discussion"

        MEMORY:
          session:
            - applicant_income
              TYPE: number

        HANDOFF:
          - TO: Income_Capture_Agent
            WHEN: applicant_income IS NOT SET
            SUMMARY: "Collect the applicant's annual income, then return."
            HISTORY: summary_only
            ON_FAILURE: continue
            RETURN: true
            ON_RETURN:
              action: resume_intent
              MAP:
                income: applicant_income
        """,
        INCOME_AGENT,
    ),
    good_example=project(
        """
        SUPERVISOR: Loan_Supervisor
        GOAL: "Collect the applicant's income before any loan offer discussion"

        MEMORY:
          session:
            - applicant_income
              TYPE: number

        HANDOFF:
          - TO: Income_Capture_Agent
            WHEN: applicant_income IS NOT SET
            SUMMARY: "Collect the applicant's annual income, then return."
            HISTORY: summary_only
            ON_FAILURE: continue
            RETURN: true
            ON_RETURN:
              action: resume_intent
              MAP:
                annual_income: applicant_income
        """,
        INCOME_AGENT,
    ),
    fix=(
        'Offers to map each field the child produces instead ("Map `x` from the child"), the name '
        "closest to the unknown one first. Unsafe: it decides which value comes back to the parent."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("MAP_DIRECTION_REVERSED", "RETURN_VALUE_NOT_MAPPED", "UNKNOWN_DELEGATE_RETURN_FIELD"),
)

HANDOFF_ON_RETURN_WITHOUT_RETURN = Code(
    code="HANDOFF_ON_RETURN_WITHOUT_RETURN",
    severity=Severity.WARNING,
    group=Group.PLATFORM,
    title="ON_RETURN on a route that never returns",
    summary=(
        "A route has `ON_RETURN`, but its `RETURN` (or `EXPECT_RETURN`) is not the exact lowercase "
        "`true`, so the child never comes back and `ON_RETURN` never runs."
    ),
    explanation=(
        "Only a returnable route brings control back to the parent, and only then do the route's "
        "`ON_RETURN` map, set, action or handler run. A route without `RETURN: true` is permanent: "
        "the parent's thread ends when the target takes over. The compiler warns: Handoff "
        "on_return is unreachable unless RETURN is true. Remove on_return or enable "
        "return-to-parent behavior.\n\n"
        'Spellings such as `True`, `TRUE`, `"true"` or `yes` read as false, so they give this '
        "warning too; RETURN_NOT_LOWERCASE_TRUE explains that part."
    ),
    bad_example=card_route("RETURN: false", "ON_RETURN:", "  action: continue"),
    good_example=card_route("RETURN: true", "ON_RETURN:", "  action: continue"),
    fix=(
        "Two fixes are offered, both unsafe, in the order of what the author most likely meant. "
        "Writing `RETURN: true` comes first when `RETURN` is missing or is a spelling of true "
        "such as `True` (the seed's advice: write `RETURN: true`); the route becomes returnable, "
        "so the parent waits and resumes. Deleting `ON_RETURN` comes first after an explicit "
        "`RETURN: false` (the seed's advice for a copied gate): it keeps what runs today, but it "
        "deletes the author's own lines, which is never applied without asking."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime=(
        "The handoff is permanent: the parent's thread ends, the target keeps the conversation, "
        "and nothing under `ON_RETURN` ever runs."
    ),
    see_also=("RETURN_NOT_LOWERCASE_TRUE",),
)

HANDOFF_ON_RETURN_ACTION_AND_HANDLER = Code(
    code="HANDOFF_ON_RETURN_ACTION_AND_HANDLER",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="ON_RETURN names both an action and a handler",
    summary=(
        "`ON_RETURN` sets both `action` and `handler`, or a `RETURN_HANDLERS` entry combines "
        "`RESPOND` with `RESUME_INTENT`."
    ),
    explanation=(
        "After a return the parent does one thing: it continues, it replays a customer message "
        "(`resume_intent`), or it runs a named entry of `RETURN_HANDLERS`. A route that names a "
        "built-in action and a handler gives two answers, and a handler that both replies "
        "(`RESPOND`) and replays the message (`RESUME_INTENT`) asks for two replies to one turn. "
        "The compiler rejects both with: Handoff on_return must choose either a built-in action or "
        "a named handler, not both."
    ),
    bad_example=income_route(
        "ON_RETURN:",
        "  action: continue",
        "  handler: income_done",
        "  MAP:",
        "    annual_income: annual_income",
        handlers=INCOME_DONE,
    ),
    good_example=income_route(
        "ON_RETURN:",
        "  handler: income_done",
        "  MAP:",
        "    annual_income: annual_income",
        handlers=INCOME_DONE,
    ),
    fix=(
        "On a route, deletes the `action` line and keeps the handler. Unsafe: what the parent does "
        "after the return now comes from the handler alone. A handler with both keys has no quick "
        "fix: keep one."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("UNSUPPORTED_HANDOFF_ON_RETURN_ACTION", "UNKNOWN_HANDOFF_ON_RETURN_HANDLER"),
)

UNSUPPORTED_HANDOFF_ON_RETURN_ACTION = Code(
    code="UNSUPPORTED_HANDOFF_ON_RETURN_ACTION",
    severity=Severity.WARNING,
    group=Group.PLATFORM,
    title="Unsupported ON_RETURN action",
    summary=("`ON_RETURN.action` is neither `continue` nor `resume_intent`, so the runtime falls back to `continue`."),
    explanation=(
        "The runtime implements two actions after a return: `continue` resumes the parent without "
        "replaying anything, and `resume_intent` replays one customer message through the "
        "parent's routes. Any other word, such as `restart`, `complete` or `escalate`, passes the "
        'compiler with the warning: Handoff on_return action "<a>" is not currently supported at '
        'runtime. Supported actions are "continue" and "resume_intent".\n\n'
        "The check is skipped when the block also names a `handler`; that combination is "
        "HANDOFF_ON_RETURN_ACTION_AND_HANDLER."
    ),
    bad_example=income_route(
        "ON_RETURN:",
        "  action: restart",
        "  MAP:",
        "    annual_income: annual_income",
    ),
    good_example=income_route(
        "ON_RETURN:",
        "  action: resume_intent",
        "  MAP:",
        "    annual_income: annual_income",
    ),
    fix=(
        "Offers `continue` first, which is safe because that is what already runs, and "
        "`resume_intent` second, which is unsafe because the parent would then replay the "
        "customer's message."
    ),
    fix_safety=FixSafety.SAFE,
    runtime="The parent runs `continue`: it resumes after the return and replays nothing.",
    see_also=("HANDOFF_ON_RETURN_ACTION_AND_HANDLER",),
)

UNKNOWN_HANDOFF_ON_RETURN_HANDLER = Code(
    code="UNKNOWN_HANDOFF_ON_RETURN_HANDLER",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="ON_RETURN handler is not declared",
    summary="The block key `ON_RETURN.handler` names an entry that `RETURN_HANDLERS` does not declare.",
    explanation=(
        "`handler:` points at a named entry of the parent's top-level `RETURN_HANDLERS:` section, "
        "whose `RESPOND`, `CLEAR`, `CONTINUE` and `RESUME_INTENT` run after the return. A name with "
        "no entry leaves the route without the behaviour it was written for, and the compiler "
        "rejects the project.\n\n"
        'A one-line `ON_RETURN: "x"` that matches nothing is treated more gently: see '
        "LEGACY_HANDOFF_ON_RETURN_SHORTHAND."
    ),
    bad_example=income_route(
        "ON_RETURN:",
        "  handler: income_complete",
        "  MAP:",
        "    annual_income: annual_income",
        handlers=INCOME_DONE,
    ),
    good_example=income_route(
        "ON_RETURN:",
        "  handler: income_done",
        "  MAP:",
        "    annual_income: annual_income",
        handlers=INCOME_DONE,
    ),
    fix=("Offers the declared handler with the closest name. Unsafe: it decides which handler runs after the return."),
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("LEGACY_HANDOFF_ON_RETURN_SHORTHAND", "RETURN_HANDLER_NAME_COLLISION"),
)

RETURN_HANDLER_NAME_COLLISION = Code(
    code="RETURN_HANDLER_NAME_COLLISION",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Return handler named like a built-in action",
    summary="A `RETURN_HANDLERS` entry is named `continue` or `resume_intent`, the names of the built-in actions.",
    explanation=(
        "A one-line `ON_RETURN: continue` names the built-in action, and the same one-line form is "
        "also how a route names a handler. A handler called `continue` or `resume_intent` would "
        "make every such line ambiguous, so the compiler rejects it instead of guessing."
    ),
    bad_example=income_route(
        "ON_RETURN:",
        "  handler: continue",
        "  MAP:",
        "    annual_income: annual_income",
        handlers=project(
            """
            RETURN_HANDLERS:
              continue:
                RESPOND: "Thanks, I have your income now."
                CONTINUE: true
            """
        ),
    ),
    good_example=income_route(
        "ON_RETURN:",
        "  handler: income_done",
        "  MAP:",
        "    annual_income: annual_income",
        handlers=project(
            """
            RETURN_HANDLERS:
              income_done:
                RESPOND: "Thanks, I have your income now."
                CONTINUE: true
            """
        ),
    ),
    fix="No quick fix: give the handler a name that says what it does and update the routes that use it.",
    fix_safety=FixSafety.NONE,
    runtime=_REJECTED,
    see_also=("UNKNOWN_HANDOFF_ON_RETURN_HANDLER",),
)

LEGACY_HANDOFF_ON_RETURN_SHORTHAND = Code(
    code="LEGACY_HANDOFF_ON_RETURN_SHORTHAND",
    severity=Severity.WARNING,
    group=Group.PLATFORM,
    title="ON_RETURN string matches no action or handler",
    summary=('A one-line `ON_RETURN: "x"` is neither a built-in action nor the name of a declared return handler.'),
    explanation=(
        "The one-line form is a shorthand: its string is read as a built-in action (`continue`, "
        "`resume_intent`) or as the name of a `RETURN_HANDLERS` entry. When it is neither, the "
        "platform accepts the project with a warning and the parent carries on as with "
        "`continue`.\n\n"
        "The block form says which of the two is meant (`action:` or `handler:`), so a typo there "
        "is reported as an error instead of passing quietly."
    ),
    bad_example=card_route("RETURN: true", 'ON_RETURN: "resume"'),
    good_example=card_route("RETURN: true", "ON_RETURN: resume_intent"),
    fix=(
        "Offers the closest built-in action or declared handler. Unsafe: it changes what the "
        "parent does after the return."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime="The string has no effect: the parent resumes after the return as with `continue`.",
    see_also=("UNKNOWN_HANDOFF_ON_RETURN_HANDLER", "UNSUPPORTED_HANDOFF_ON_RETURN_ACTION"),
)

HANDOFF_SUMMARY_ONLY_WITHOUT_SUMMARY = Code(
    code="HANDOFF_SUMMARY_ONLY_WITHOUT_SUMMARY",
    severity=Severity.WARNING,
    group=Group.PLATFORM,
    title="`summary_only` history without a summary",
    summary="A route's history is `summary_only`, but the route has no `SUMMARY`, or only a blank one.",
    explanation=(
        "`summary_only` sends the target no earlier messages, only the summary text. With no "
        "summary the target starts with nothing from the conversation but the `PASS` fields. The "
        "platform accepts this with a warning.\n\n"
        "`auto` is the forgiving variant: it behaves like `summary_only` when the route has a "
        "summary and sends the last five messages when it does not."
    ),
    bad_example=project(
        """
        SUPERVISOR: Retail_Hub
        GOAL: "Route retail requests to the right specialist"

        INTENTS:
          return_item: "Returns, exchanges, or refunds."

        GATHER:
          order_id:
            PROMPT: "What is your order number?"
            TYPE: string
            REQUIRED: true

        HANDOFF:
          - TO: Returns_Agent
            WHEN: intent.category == "return_item" AND order_id IS SET
            PASS: [order_id]
            HISTORY: summary_only
            ON_FAILURE: continue
        """,
        RETURNS_AGENT,
    ),
    good_example=project(
        """
        SUPERVISOR: Retail_Hub
        GOAL: "Route retail requests to the right specialist"

        INTENTS:
          return_item: "Returns, exchanges, or refunds."

        GATHER:
          order_id:
            PROMPT: "What is your order number?"
            TYPE: string
            REQUIRED: true

        HANDOFF:
          - TO: Returns_Agent
            WHEN: intent.category == "return_item" AND order_id IS SET
            PASS: [order_id]
            SUMMARY: "The customer wants to return order {{order_id}}."
            HISTORY: summary_only
            ON_FAILURE: continue
        """,
        RETURNS_AGENT,
    ),
    fix="No quick fix: only the author can write the summary.",
    fix_safety=FixSafety.NONE,
    runtime="The target's thread starts with no earlier messages and no summary.",
    see_also=("HISTORY_NONE_WITHOUT_CONTEXT",),
)

INVALID_HANDOFF_TARGET = Code(
    code="INVALID_HANDOFF_TARGET",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Handoff target does not exist",
    summary=(
        "A `TO:` (on a route, in `ON_FAIL: HANDOFF X`, or as an error handler's handoff target) "
        "names an agent that is not in the project."
    ),
    explanation=(
        "Targets are resolved by name across the whole project: every `AGENT:` and `SUPERVISOR:` "
        "in every file. The platform checks this when the project is compiled together and "
        'rejects a name it cannot find, with: <label> "<t>" does not exist in this compilation. '
        "Known agents: ... . The message here also suggests the closest known name.\n\n"
        "In the editor the check runs against the whole workspace, open files or not. Remote "
        "targets (`REMOTE`, or `LOCATION: remote`) live in another deployment and are not checked."
    ),
    bad_example=project(
        """
        SUPERVISOR: Retail_Hub
        GOAL: "Route retail requests to the right specialist"

        INTENTS:
          return_item: "Returns, exchanges, or refunds."

        HANDOFF:
          - TO: Return_Agent
            WHEN: intent.category == "return_item"
            HISTORY: full
            ON_FAILURE: continue
        """,
        RETURNS_AGENT,
    ),
    good_example=_returns_route("HISTORY: full", "ON_FAILURE: continue"),
    fix="Offers the known agent with the closest name. Unsafe: it decides where the conversation goes.",
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("SELF_HANDOFF_TARGET", "INVALID_DELEGATE_TARGET"),
)

SELF_HANDOFF_TARGET = Code(
    code="SELF_HANDOFF_TARGET",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Route hands off to its own agent",
    summary="A route's `TO:` names the agent that the route belongs to.",
    explanation=(
        "A handoff moves the conversation to another agent. An agent cannot hand off to itself: "
        "the compiler rejects the route, and the platform's runtime refuses one as well (\"Cannot "
        'hand off to yourself"). To send the customer back where they came from, name the '
        "parent; to start over inside the same agent, use its own FLOW or GATHER."
    ),
    bad_example=_returns_route(
        "HISTORY: full",
        "ON_FAILURE: continue",
        target=project(
            """
            AGENT: Returns_Agent
            GOAL: "Start a return for one order"

            HANDOFF:
              - TO: Returns_Agent
                WHEN: "the customer asks about something other than a return"
                HISTORY: full
                ON_FAILURE: continue
            """
        ),
    ),
    good_example=_returns_route(
        "HISTORY: full",
        "ON_FAILURE: continue",
        target=project(
            """
            AGENT: Returns_Agent
            GOAL: "Start a return for one order"

            HANDOFF:
              - TO: Retail_Hub
                WHEN: "the customer asks about something other than a return"
                HISTORY: full
                ON_FAILURE: continue
            """
        ),
    ),
    fix="No quick fix: decide which agent should take the conversation.",
    fix_safety=FixSafety.NONE,
    runtime=_REJECTED,
    see_also=("INVALID_HANDOFF_TARGET", "SELF_DELEGATE_TARGET"),
)

INVALID_DELEGATE_TARGET = Code(
    code="INVALID_DELEGATE_TARGET",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Delegate target does not exist",
    summary="A `DELEGATE` entry's `AGENT:` (or its alias `TO:`) names an agent that is not in the project.",
    explanation=(
        "A delegate is a one-shot call to another agent of the same project, resolved by name "
        "like a handoff target. The compiler rejects a name it cannot find and lists the agents "
        "it knows; the message here also suggests the closest one. Remote targets are not "
        "checked. The entry's `INPUT` and `RETURNS` are checked once the target exists."
    ),
    bad_example=_delegate(agent="Price_Estimater"),
    good_example=_delegate(),
    fix="Offers the known agent with the closest name. Unsafe: it decides which agent is called.",
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("SELF_DELEGATE_TARGET", "INVALID_HANDOFF_TARGET"),
)

SELF_DELEGATE_TARGET = Code(
    code="SELF_DELEGATE_TARGET",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Agent delegates to itself",
    summary="A `DELEGATE` entry's `AGENT:` names the agent that declares it.",
    explanation=(
        "A delegate hands a task to another agent, which runs in its own scope and returns a "
        "result. Calling the same agent would only repeat the caller with the same inputs, so the "
        "compiler rejects it. The entry's `INPUT` and `RETURNS` are not checked against the agent "
        "itself; they are checked once the target is corrected."
    ),
    bad_example=_delegate(agent="Travel_Desk"),
    good_example=_delegate(),
    fix="No quick fix: name the agent that should do the work.",
    fix_safety=FixSafety.NONE,
    runtime=_REJECTED,
    see_also=("INVALID_DELEGATE_TARGET", "SELF_HANDOFF_TARGET"),
)

UNKNOWN_DELEGATE_RETURN_FIELD = Code(
    code="UNKNOWN_DELEGATE_RETURN_FIELD",
    severity=Severity.WARNING,
    group=Group.PLATFORM,
    title="Delegate RETURNS names a field the child does not produce",
    summary="A DELEGATE `RETURNS` entry names a child field that the delegate target does not produce.",
    explanation=(
        "`RETURNS` entries are written `child_field: parent_variable`, like a handoff's return "
        "map, and the left side is checked against the same list: the child's GATHER fields, its "
        "memory, its `ON_START.SET` targets, its tool results (`last_<tool>_result`), its own "
        "return maps and its FLOW `SET`s. Unlike the handoff case the platform only warns; the "
        "parent variable simply never receives a value from this delegate."
    ),
    bad_example=_delegate(field="price"),
    good_example=_delegate(),
    fix="Offers the child field with the closest name. Unsafe: it decides which value comes back.",
    fix_safety=FixSafety.UNSAFE,
    runtime="The delegate runs, but the named field has no value, so the parent variable is not written.",
    see_also=("UNKNOWN_HANDOFF_RETURN_FIELD",),
)

INVALID_HANDOFF_FAILURE_ACTION = Code(
    code="INVALID_HANDOFF_FAILURE_ACTION",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Unknown ON_FAILURE action",
    summary='A route\'s `ON_FAILURE` is not `continue`, `escalate` or `respond "<message>"`.',
    explanation=(
        "`ON_FAILURE` runs when a handoff fails before the target accepts it: the target cannot be "
        "found, a check before the transfer refuses it, or the dispatch fails. It has three "
        "actions, with case-insensitive keywords: `continue` (the default; the current agent "
        'carries on), `escalate` (to a human) and `respond "<message>"` (tell the customer). '
        "Anything else, such as `retry`, is rejected by the compiler.\n\n"
        "It does not cover errors inside the child after it accepted, nor an accepted returnable "
        "handoff that times out; that case is `ON_TIMEOUT`."
    ),
    bad_example=_returns_route("HISTORY: full", "ON_FAILURE: retry"),
    good_example=_returns_route(
        "HISTORY: full",
        'ON_FAILURE: RESPOND "I cannot reach our returns team right now. Please try again later."',
    ),
    fix=(
        "Offers `continue`, `escalate` and, for `RESPOND` followed by an unquoted message, "
        '`RESPOND "<the message>"` (its double quotes made single, its backslashes escaped, so '
        "that it reads back as written). Unsafe: each changes what the customer experiences when "
        "the handoff fails."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("ON_FAILURE_NOT_SET", "INVALID_HANDOFF_TIMEOUT_ACTION"),
)

INVALID_HANDOFF_TIMEOUT_ACTION = Code(
    code="INVALID_HANDOFF_TIMEOUT_ACTION",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Unknown ON_TIMEOUT action",
    summary="A handoff's `ON_TIMEOUT` is not `continue`, `escalate` or `respond:<message>`.",
    explanation=(
        "When a returnable handoff has a timeout, the parent records what to do if the child has "
        "not returned in time: the `ON_TIMEOUT` action, or `escalate` when none is given. The "
        "accepted values are `continue`, `escalate` and `respond:<message>`, where the text after "
        "the colon is sent to the customer. The compiler rejects anything else."
    ),
    bad_example=card_route("RETURN: true", 'TIMEOUT: "5m"', "ON_TIMEOUT: retry"),
    good_example=card_route("RETURN: true", 'TIMEOUT: "5m"', "ON_TIMEOUT: escalate"),
    fix=(
        "Offers `continue`, `escalate` and `respond:` with a placeholder message. Unsafe: each "
        "changes what happens when the child does not return in time."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("INVALID_TIMEOUT_SYNTAX", "INVALID_HANDOFF_FAILURE_ACTION"),
)

INVALID_TIMEOUT_SYNTAX = Code(
    code="INVALID_TIMEOUT_SYNTAX",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Timeout is not a duration",
    summary=(
        "A handoff or delegate timeout is neither a bare number of milliseconds nor a number "
        "followed by `ms`, `s` or `m`."
    ),
    explanation=(
        "Timeouts are durations: `15000` (milliseconds), `250ms`, `15s` or `2m`, with or without "
        "quotes. Words (`10 seconds`), spaces, hours and other units are rejected by the "
        "compiler.\n\n"
        "Keep the timeout on delegates: without one, a child that stalls blocks the parent "
        "indefinitely."
    ),
    bad_example=_delegate(timeout='"10 seconds"'),
    good_example=_delegate(),
    fix=(
        'Rewrites a recognisable duration in the accepted form, e.g. `"10 seconds"` as `"10s"`. '
        "Safe: the duration stays the same."
    ),
    fix_safety=FixSafety.SAFE,
    runtime=_REJECTED,
    see_also=("INVALID_HANDOFF_TIMEOUT_ACTION",),
)

LEGACY_HANDOFF_GRANT_MEMORY_SHORTHAND = Code(
    code="LEGACY_HANDOFF_GRANT_MEMORY_SHORTHAND",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="`grant_memory` is no longer accepted",
    summary="A handoff context uses the old `grant_memory:` key instead of `memory_grants:`.",
    explanation=(
        "Memory grants let the target of a handoff read or write the parent's persistent memory "
        "paths; without a grant the target cannot touch them. Grants are written as "
        "`memory_grants:`, a list of entries with a `path` and an `access` of `read` or "
        "`readwrite`. The older `grant_memory: [paths]` shorthand is now an error in the compiler "
        "(the platform's runtime still reads it from old compiled projects, as read-only grants)."
    ),
    bad_example=project(
        """
        SUPERVISOR: Retail_Hub
        GOAL: "Route retail requests to the right specialist"

        INTENTS:
          return_item: "Returns, exchanges, or refunds."

        MEMORY:
          persistent:
            - user.preferred_store

        HANDOFF:
          - TO: Returns_Agent
            WHEN: intent.category == "return_item"
            CONTEXT:
              summary: "The customer wants to return an item."
              history: full
              grant_memory: [user.preferred_store]
            ON_FAILURE: continue
        """,
        RETURNS_AGENT,
    ),
    good_example=project(
        """
        SUPERVISOR: Retail_Hub
        GOAL: "Route retail requests to the right specialist"

        INTENTS:
          return_item: "Returns, exchanges, or refunds."

        MEMORY:
          persistent:
            - user.preferred_store

        HANDOFF:
          - TO: Returns_Agent
            WHEN: intent.category == "return_item"
            CONTEXT:
              summary: "The customer wants to return an item."
              history: full
              memory_grants:
                - path: user.preferred_store
                  access: read
            ON_FAILURE: continue
        """,
        RETURNS_AGENT,
    ),
    fix=(
        "Rewrites each path as a `memory_grants` entry with `access: read`. Safe: the old "
        "shorthand granted read access, so the target keeps exactly that."
    ),
    fix_safety=FixSafety.SAFE,
    runtime=_REJECTED,
)

UNDEFINED_CONDITION_VAR = Code(
    code="UNDEFINED_CONDITION_VAR",
    severity=Severity.WARNING,
    group=Group.PLATFORM,
    title="Condition uses an unknown variable",
    summary=(
        "A name in a condition is not a gather field, a session or persistent variable, a tool result or a built-in."
    ),
    explanation=(
        "Conditions appear in route `WHEN`s, `COMPLETE` and `DELEGATE` `WHEN`s, escalation "
        "triggers and remember `WHEN`s. Every name in them must be something the agent holds: a "
        "GATHER field, a `MEMORY` session or persistent variable, a tool result "
        "(`last_<tool>_result`), or a built-in such as `intent`, `input`, `channel`, `language`, "
        '`session`, `user` or `context`. A misspelt name is simply never set, so `x == "y"` is '
        'always false and `x != "y"` always true.\n\n'
        "Unquoted prose in a `WHEN` is read as an expression too, and each of its words is "
        "reported; put a natural-language condition in quotes. The platform accepts the project "
        "with a warning."
    ),
    bad_example=project(
        """
        SUPERVISOR: Retail_Hub
        GOAL: "Route retail requests to the right specialist"

        INTENTS:
          return_item: "Returns, exchanges, or refunds."

        GATHER:
          order_id:
            PROMPT: "What is your order number?"
            TYPE: string
            REQUIRED: true

        HANDOFF:
          - TO: Returns_Agent
            WHEN: intent.category == "return_item" AND order_number IS SET
            PASS: [order_id]
            HISTORY: full
            ON_FAILURE: continue
        """,
        RETURNS_AGENT,
    ),
    good_example=project(
        """
        SUPERVISOR: Retail_Hub
        GOAL: "Route retail requests to the right specialist"

        INTENTS:
          return_item: "Returns, exchanges, or refunds."

        GATHER:
          order_id:
            PROMPT: "What is your order number?"
            TYPE: string
            REQUIRED: true

        HANDOFF:
          - TO: Returns_Agent
            WHEN: intent.category == "return_item" AND order_id IS SET
            PASS: [order_id]
            HISTORY: full
            ON_FAILURE: continue
        """,
        RETURNS_AGENT,
    ),
    fix="Offers the known name closest to the unknown one. Unsafe: it changes what the condition tests.",
    fix_safety=FixSafety.UNSAFE,
    runtime=(
        "The name counts as unset on every turn: equality tests on it are false and inequality "
        "tests true. In routing traces the platform marks such a condition "
        "`route_condition_unresolved`."
    ),
    see_also=("EMPTY_STRING_COMPARISON", "PASS_FIELD_UNKNOWN", "TEMPLATE_VARIABLE_UNKNOWN"),
)

MIXED_ROUTING_CONDITION_STATE = Code(
    code="MIXED_ROUTING_CONDITION_STATE",
    severity=Severity.WARNING,
    group=Group.PLATFORM,
    title="Condition mixes `routing_intent` and `intent.category`",
    summary="One `WHEN` reads both `routing_intent` and `intent.category`.",
    explanation=(
        "`intent.category` is the documented way to route on the category the classifier picked "
        "from `INTENTS:`. `routing_intent` is another piece of routing state the platform keeps. "
        "The compiler warns when a single condition reads both: the two are separate values, "
        "and a condition that depends on both can match or fail for reasons the trace does not "
        "make obvious. Route on `intent.category` alone."
    ),
    bad_example=_returns_route(
        "HISTORY: full",
        "ON_FAILURE: continue",
        when='intent.category == "return_item" OR routing_intent == "return_item"',
    ),
    good_example=_returns_route("HISTORY: full", "ON_FAILURE: continue"),
    fix="No quick fix: keep the test on `intent.category` and remove the other.",
    fix_safety=FixSafety.NONE,
    runtime="The condition is evaluated as written, reading both values.",
)

PLAIN_ENGLISH_COMPLETE_WHEN = Code(
    code="PLAIN_ENGLISH_COMPLETE_WHEN",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Natural-language COMPLETE condition",
    summary="A `COMPLETE` `WHEN` is natural-language text instead of a boolean expression.",
    explanation=(
        "Completion rules are checked by the runtime after every turn, without asking the model, "
        "so each `WHEN` must be an expression such as `annual_income IS SET`. Routes may use "
        "quoted natural language, which the model judges; completion may not, and the compiler "
        "rejects the project."
    ),
    bad_example=project(
        """
        AGENT: Income_Capture_Agent
        GOAL: "Collect the annual income and return it to the supervisor"

        GATHER:
          annual_income:
            PROMPT: "What is your annual income?"
            TYPE: number
            REQUIRED: true

        COMPLETE:
          - WHEN: "the customer has told us their income"
            RESPOND: "Thanks. I have your income."
        """
    ),
    good_example=INCOME_AGENT,
    fix="No quick fix: write the condition as an expression over the agent's fields.",
    fix_safety=FixSafety.NONE,
    runtime=_REJECTED,
)

AGENT_RETURNED_WORK_REQUIRES_ORCHESTRATOR = Code(
    code="AGENT_RETURNED_WORK_REQUIRES_ORCHESTRATOR",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Only an orchestrator may delegate",
    summary="An agent whose `BEHAVIOR.role` is `router` or `assistant` declares `DELEGATE`.",
    explanation=(
        "`BEHAVIOR.role` limits what an agent may do. A `router` never answers the customer "
        "itself; it only hands conversations on. An `assistant` is a leaf that does the work. "
        "Delegation brings work back to the caller, which then answers with the result, and only "
        "an `orchestrator` does that. The compiler rejects the combination."
    ),
    bad_example=project(
        """
        SUPERVISOR: Travel_Desk
        GOAL: "Plan trips and quote an estimated price"

        BEHAVIOR:
          role: router

        INTENTS:
          booking: "Booking a trip that is already planned."

        GATHER:
          destination:
            PROMPT: "Where are you travelling to?"
            TYPE: string
            REQUIRED: true

        MEMORY:
          session:
            - trip_quote
              TYPE: object

        HANDOFF:
          - TO: Booking_Agent
            WHEN: intent.category == "booking"
            PASS: [destination]
            HISTORY: full
            ON_FAILURE: continue

        DELEGATE:
          - AGENT: Price_Estimator
            WHEN: destination IS SET
            PURPOSE: "Estimate the price of the trip"
            INPUT:
              city: destination
            RETURNS:
              last_estimate_price_result: trip_quote
            USE_RESULT: "Quote the estimated price to the customer"
            TIMEOUT: "10s"
            ON_FAIL: continue
        """,
        """
        AGENT: Booking_Agent
        GOAL: "Book the trip the customer planned"
        """,
        PRICE_ESTIMATOR,
    ),
    good_example=project(
        """
        SUPERVISOR: Travel_Desk
        GOAL: "Plan trips and quote an estimated price"

        BEHAVIOR:
          role: orchestrator

        INTENTS:
          booking: "Booking a trip that is already planned."

        GATHER:
          destination:
            PROMPT: "Where are you travelling to?"
            TYPE: string
            REQUIRED: true

        MEMORY:
          session:
            - trip_quote
              TYPE: object

        HANDOFF:
          - TO: Booking_Agent
            WHEN: intent.category == "booking"
            PASS: [destination]
            HISTORY: full
            ON_FAILURE: continue

        DELEGATE:
          - AGENT: Price_Estimator
            WHEN: destination IS SET
            PURPOSE: "Estimate the price of the trip"
            INPUT:
              city: destination
            RETURNS:
              last_estimate_price_result: trip_quote
            USE_RESULT: "Quote the estimated price to the customer"
            TIMEOUT: "10s"
            ON_FAIL: continue
        """,
        """
        AGENT: Booking_Agent
        GOAL: "Book the trip the customer planned"
        """,
        PRICE_ESTIMATOR,
    ),
    fix=(
        "Changes `role` to `orchestrator`. Unsafe: an orchestrator may also answer the customer "
        "directly, which a router never does."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
)

INVALID_DEPENDS_ON_REF = Code(
    code="INVALID_DEPENDS_ON_REF",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="`depends_on` names a missing field",
    summary="A GATHER field's `depends_on` names a field that the same GATHER does not declare.",
    explanation=(
        "`depends_on` orders collection: a field waits until the fields it depends on have "
        "values (with `activation: progressive` it becomes required at that point). A name that "
        "is not a field of this GATHER can never get a value, so the field would wait forever; "
        "the compiler rejects the project."
    ),
    bad_example=_stay_dates("", "check_in_date"),
    good_example=_stay_dates("", "checkin_date"),
    fix="Offers the field with the closest name. Unsafe: it changes the order of the questions.",
    fix_safety=FixSafety.UNSAFE,
    runtime=_REJECTED,
    see_also=("CIRCULAR_DEPENDS_ON",),
)

CIRCULAR_DEPENDS_ON = Code(
    code="CIRCULAR_DEPENDS_ON",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="`depends_on` forms a cycle",
    summary="GATHER fields depend on each other in a circle through `depends_on`.",
    explanation=(
        "When `a` waits for `b` and `b` waits for `a`, directly or through other fields, neither "
        "can be asked for first. The compiler rejects the project; the message lists the fields "
        "on the cycle."
    ),
    bad_example=_stay_dates("checkout_date", "checkin_date"),
    good_example=_stay_dates("", "checkin_date"),
    fix="No quick fix: decide which field is asked for first and remove the other dependency.",
    fix_safety=FixSafety.NONE,
    runtime=_REJECTED,
    see_also=("INVALID_DEPENDS_ON_REF",),
)

RESERVED_VARIABLE_NAME = Code(
    code="RESERVED_VARIABLE_NAME",
    severity=Severity.WARNING,
    group=Group.PLATFORM,
    title="SET writes a reserved variable",
    summary=(
        "A `SET` assigns a name the runtime reserves for itself: `match`, or a name that starts "
        "with `_` (other than `_meta.*`)."
    ),
    explanation=(
        "The runtime keeps its own state under these names. `match` holds the captures of the "
        "last `matches` test, and names beginning with `_` hold internals such as "
        "`_handoff_summary`, `_validation_retries` and `_clarification_count`. A value written "
        "there can be overwritten by the runtime at any moment, or change how it behaves.\n\n"
        "`_meta.*` is the exception: values set there become custom dimensions of the trace. The "
        "platform accepts the project with a warning."
    ),
    bad_example=project(
        """
        AGENT: Greeter
        GOAL: "Greet the customer and find out what they need"

        ON_START:
          SET:
            _greeted = true
          RESPOND: "Hello! How can I help you today?"
        """
    ),
    good_example=project(
        """
        AGENT: Greeter
        GOAL: "Greet the customer and find out what they need"

        ON_START:
          SET:
            greeted = true
          RESPOND: "Hello! How can I help you today?"
        """
    ),
    fix="No quick fix: rename the variable everywhere it is used.",
    fix_safety=FixSafety.NONE,
    runtime="The assignment runs, but the runtime may overwrite the value, or act on it, at any time.",
)

W822 = Code(
    code="W822",
    severity=Severity.WARNING,
    group=Group.PLATFORM,
    title="Optional gather field with a default",
    summary="A GATHER field has both `required: false` and a `default`.",
    explanation=(
        "A default gives the field a value when the customer does not give one; `required: false` "
        "says the field may stay empty. Together they contradict each other, and with the default "
        "in place a test such as `promo_code IS SET` no longer tells whether the customer "
        "answered. The compiler warns with W822. Keep the setting that says what you mean."
    ),
    bad_example=project(
        """
        AGENT: Checkout_Agent
        GOAL: "Take payment for the basket"

        GATHER:
          promo_code:
            PROMPT: "Do you have a promo code?"
            TYPE: string
            REQUIRED: false
            DEFAULT: "NONE"
        """
    ),
    good_example=project(
        """
        AGENT: Checkout_Agent
        GOAL: "Take payment for the basket"

        GATHER:
          promo_code:
            PROMPT: "Do you have a promo code?"
            TYPE: string
            REQUIRED: false
        """
    ),
    fix="No quick fix: remove either `required: false` or the `default`.",
    fix_safety=FixSafety.NONE,
    runtime=(
        "The platform accepts the project; it does not document which of the two settings wins, "
        "so the field's behaviour should not be relied on."
    ),
)

_QUOTE_DESK = """
    SUPERVISOR: Quote_Desk
    GOAL: "Give insurance quotes"

    BEHAVIOR:
      role: orchestrator

    GATHER:
      postcode:
        PROMPT: "What is your postcode?"
        TYPE: string
        REQUIRED: true
      car_value:
        PROMPT: "What is the car worth?"
        TYPE: number
        REQUIRED: true

    MEMORY:
      session:
        - premium
          TYPE: number

    DELEGATE:
      - AGENT: Pricing_Engine
        WHEN: postcode IS SET AND car_value IS SET
        PURPOSE: "Price the policy"
        INPUT:
{inputs}        RETURNS:
          price: premium
        USE_RESULT: "Quote the premium"
        TIMEOUT: "10s"
        ON_FAIL: continue
    """

_PRICING_ENGINE = """
    AGENT: Pricing_Engine
    GOAL: "Work out a premium"

    GATHER:
      postcode:
        PROMPT: "Postcode?"
        TYPE: string
        REQUIRED: true
      car_value:
        PROMPT: "Car value?"
        TYPE: number
        REQUIRED: true

    MEMORY:
      session:
        - price
          TYPE: number

    ON_START:
      SET:
        price = 420

    COMPLETE:
      - WHEN: price IS SET
        RESPOND: "{{price}}"
    """

DELEGATE_CHILD_GATHER_INPUT_UNMAPPED = Code(
    code="DELEGATE_CHILD_GATHER_INPUT_UNMAPPED",
    severity=Severity.ERROR,
    group=Group.PLATFORM,
    title="Delegate leaves a required child field unfilled",
    summary="A `DELEGATE` target has a required GATHER field that the delegate's `INPUT` does not supply.",
    explanation=(
        "A delegate runs in one shot and cannot wait for the customer, so every field its "
        "target must gather has to arrive through `INPUT`. When a required field (no default, "
        "always active) is missing from `INPUT`, the compiler rejects the delegate; use a "
        "returnable `HANDOFF` when the child must talk to the customer."
    ),
    bad_example=project(
        _QUOTE_DESK.format(inputs="          postcode: postcode\n"),
        _PRICING_ENGINE,
    ),
    good_example=project(
        _QUOTE_DESK.format(inputs="          postcode: postcode\n          car_value: car_value\n"),
        _PRICING_ENGINE,
    ),
    fix="No quick fix: the value to pass is the author's choice.",
    fix_safety=FixSafety.NONE,
    runtime=_REJECTED,
    see_also=("INVALID_DELEGATE_TARGET", "UNKNOWN_DELEGATE_RETURN_FIELD"),
)

CODES: tuple[Code, ...] = (
    E330,
    E331,
    W801,
    UNKNOWN_HANDOFF_RETURN_FIELD,
    HANDOFF_ON_RETURN_WITHOUT_RETURN,
    HANDOFF_ON_RETURN_ACTION_AND_HANDLER,
    UNSUPPORTED_HANDOFF_ON_RETURN_ACTION,
    UNKNOWN_HANDOFF_ON_RETURN_HANDLER,
    RETURN_HANDLER_NAME_COLLISION,
    LEGACY_HANDOFF_ON_RETURN_SHORTHAND,
    HANDOFF_SUMMARY_ONLY_WITHOUT_SUMMARY,
    INVALID_HANDOFF_TARGET,
    SELF_HANDOFF_TARGET,
    INVALID_DELEGATE_TARGET,
    SELF_DELEGATE_TARGET,
    UNKNOWN_DELEGATE_RETURN_FIELD,
    INVALID_HANDOFF_FAILURE_ACTION,
    INVALID_HANDOFF_TIMEOUT_ACTION,
    INVALID_TIMEOUT_SYNTAX,
    LEGACY_HANDOFF_GRANT_MEMORY_SHORTHAND,
    UNDEFINED_CONDITION_VAR,
    MIXED_ROUTING_CONDITION_STATE,
    PLAIN_ENGLISH_COMPLETE_WHEN,
    AGENT_RETURNED_WORK_REQUIRES_ORCHESTRATOR,
    INVALID_DEPENDS_ON_REF,
    CIRCULAR_DEPENDS_ON,
    RESERVED_VARIABLE_NAME,
    W822,
    DELEGATE_CHILD_GATHER_INPUT_UNMAPPED,
)
