"""Stand-in agents and route builders shared by the examples, each clean on its own.

The agents are the targets of the example routes: small, complete, and quiet under every check,
so that the code an example is about is the only one that fires.
"""

from __future__ import annotations

from abl.checks.catalogue import project, route

# A reasoning agent (no FLOW), so it can always return through the built-in return action.
RETURNS_AGENT = project(
    """
    AGENT: Returns_Agent
    GOAL: "Start a return for one order"
    """
)

EXCHANGES_AGENT = project(
    """
    AGENT: Exchanges_Agent
    GOAL: "Exchange an item for another size or colour"
    """
)

CARD_AGENT = project(
    """
    AGENT: Card_Agent
    GOAL: "Help with lost, stolen or blocked cards"
    """
)

# Seed 004's child: gathers `annual_income` and completes, which returns control.
INCOME_AGENT = project(
    """
    AGENT: Income_Capture_Agent
    GOAL: "Collect the annual income and return it to the supervisor"

    GATHER:
      annual_income:
        PROMPT: "What is your annual income?"
        TYPE: number
        REQUIRED: true

    COMPLETE:
      - WHEN: annual_income IS SET
        RESPOND: "Thanks. I have your income."
    """
)

# A delegate target: everything it needs comes through `INPUT`, and its tool result
# `last_estimate_price_result` is what the caller maps back.
PRICE_ESTIMATOR = project(
    """
    AGENT: Price_Estimator
    GOAL: "Estimate the price of a trip to one city"

    TOOLS:
      estimate_price(city: string) -> {price: number}
        description: "Estimate the price of a trip to a city"

    GATHER:
      city:
        PROMPT: "Which city?"
        TYPE: string
        REQUIRED: true
    """
)


_BANK_FRONT_DOOR = project(
    """
    SUPERVISOR: Bank_Front_Door
    GOAL: "Route banking requests to the right specialist"

    INTENTS:
      card: "Lost, stolen or blocked cards."
    """
)


def card_route(*rows: str, sections: str = "", handlers: str = "", target: str = CARD_AGENT) -> str:
    """A front door sending card questions to `Card_Agent`; `rows` end the route.

    `sections` go between `INTENTS` and `HANDOFF`, `handlers` after the route.
    """
    entry = route(
        "TO: Card_Agent",
        'WHEN: intent.category == "card"',
        'SUMMARY: "The customer needs help with a card."',
        "HISTORY: summary_only",
        "ON_FAILURE: continue",
        *rows,
    )
    supervisor = _BANK_FRONT_DOOR
    if sections:
        supervisor += "\n" + project(sections)
    supervisor += "\nHANDOFF:\n" + entry
    if handlers:
        supervisor += "\n" + project(handlers)
    return project(supervisor, target)


_LOAN_SUPERVISOR = project(
    """
    SUPERVISOR: Loan_Supervisor
    GOAL: "Collect the applicant's income before any loan offer discussion"

    MEMORY:
      session:
        - annual_income
          TYPE: number
          DESCRIPTION: "Annual income, collected by the income agent."
    """
)

INCOME_NOTE = (
    "    - income_note\n"
    "      TYPE: string\n"
    '      DESCRIPTION: "A note for the loan officer about where the income came from."\n'
)

_INCOME_ROUTE = (
    "TO: Income_Capture_Agent",
    "WHEN: annual_income IS NOT SET",
    'SUMMARY: "Collect the applicant\'s annual income, then return."',
    "HISTORY: summary_only",
    'ON_FAILURE: RESPOND "I cannot collect your income details right now. Please try again later."',
    "RETURN: true",
)

INCOME_DONE = project(
    """
    RETURN_HANDLERS:
      income_done:
        RESUME_INTENT: true
    """
)


def income_route(*on_return: str, memory: str = "", handlers: str = "") -> str:
    """Seed 004's supervisor and child; `on_return` are the route's `ON_RETURN` lines."""
    supervisor = _LOAN_SUPERVISOR + memory + "\nHANDOFF:\n" + route(*_INCOME_ROUTE, *on_return)
    if handlers:
        supervisor += "\n" + handlers
    return project(supervisor, INCOME_AGENT)
