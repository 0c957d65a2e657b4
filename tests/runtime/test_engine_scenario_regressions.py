"""Regressions found by the conversation scenarios under tests/runtime/scenarios."""

from __future__ import annotations

import json

import pytest
from engine_support import of_type, one, project_text, texts

from abl.runtime import RuntimeOptions, Session, Turn, start_session
from abl.runtime.turn import valid_text


def session_of(text: str, agent: str, **options) -> Session:
    return start_session(project_text(text), agent, RuntimeOptions(**options))


# --- customer text that is not valid Unicode ------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("plain text", "plain text"),
        ("emoji 😀", "emoji 😀"),
        ("bytes \udcff\udcfe read with surrogateescape", "bytes \ufffd\ufffd read with surrogateescape"),
        ("half a pair \ud83d here", "half a pair \ufffd here"),
        ("a pair \ud83d\ude00 joined", "a pair 😀 joined"),
        ("\x00 control \x1b[0m", "\x00 control \x1b[0m"),
    ],
)
def test_customer_text_becomes_valid_unicode(given: str, kept: str) -> None:
    assert valid_text(given) == kept


NAME_AGENT = """
AGENT: Name_Agent
GOAL: "Learn the customer's name"

GATHER:
  full_name:
    PROMPT: "What is your name?"
    TYPE: string

COMPLETE:
  - WHEN: full_name IS SET
    RESPOND: "Thanks, {{full_name}}."
"""


def test_a_message_with_undecodable_bytes_can_be_saved_and_exported(tmp_path) -> None:
    session = session_of(NAME_AGENT, "Name_Agent")
    session.send("hello")
    turn = session.send("Ren\udce9e")  # "Renée" in Latin-1, read as UTF-8 with surrogateescape
    assert texts(turn) == ["Thanks, Ren\ufffde."]
    assert turn.user == "Ren\ufffde"
    path = tmp_path / "session.json"
    session.save(path)
    restored = Session.load(session.project, path)
    assert restored.state().values["full_name"] == "Ren\ufffde"
    json.loads(session.trace_log.to_jsonl().splitlines()[-1])


# --- a non-terminal COMPLETE keeps the gather going -----------------------------------------------

HOLD_THEN_BOOK = """
AGENT: Ticket_Agent
GOAL: "Hold tickets, then book them"

MEMORY:
  session:
    - status

GATHER:
  seats:
    PROMPT: "How many seats?"
    TYPE: number
  contact_email:
    PROMPT: "Which email should the tickets go to?"
    TYPE: email
    RETRY_PROMPT: "Please type a full email address."

COMPLETE:
  - WHEN: seats IS SET AND status IS NOT SET
    SET:
      status = "held"
    RESPOND: "{{seats}} seats are held."
    TERMINAL: false
  - WHEN: contact_email IS SET AND status == "held"
    RESPOND: "Booked; the tickets go to {{contact_email}}."
"""


def test_a_non_terminal_complete_asks_for_what_is_still_missing() -> None:
    session = session_of(HOLD_THEN_BOOK, "Ticket_Agent")
    assert texts(session.send("hi")) == ["How many seats?"]
    held = session.send("3")
    assert texts(held) == ["3 seats are held.", "Which email should the tickets go to?"]
    assert one(held.events, "complete").get("terminal") is False
    wrong = session.send("ada at example dot com")
    gather = one(wrong.events, "gather")
    assert (gather.get("field"), gather.get("valid")) == ("contact_email", False)
    assert texts(wrong) == ["Please type a full email address."]
    booked = session.send("ada@example.com")
    assert texts(booked) == ["Booked; the tickets go to ada@example.com."]
    assert booked.ended


def test_a_non_terminal_complete_with_nothing_left_to_ask_says_only_its_response() -> None:
    session = session_of(
        HOLD_THEN_BOOK.replace("  contact_email:\n    PROMPT", "  contact_email:\n    REQUIRED: false\n    PROMPT"),
        "Ticket_Agent",
    )
    session.send("hi")
    held = session.send("3")
    assert texts(held) == ["3 seats are held."]
    assert not of_type(held.events, "gather") or all(e.get("field") == "seats" for e in of_type(held.events, "gather"))


# --- one-way handoffs over many turns --------------------------------------------------------------


def _wizard(steps: int) -> str:
    parts = []
    for i in range(1, steps + 1):
        part = (
            f'AGENT: Step_{i}\nGOAL: "Step {i} of the form"\n\nGATHER:\n  answer_{i}:\n'
            f'    PROMPT: "Question {i}?"\n    TYPE: string\n'
        )
        if i < steps:
            part += f"\nHANDOFF:\n  - TO: Step_{i + 1}\n    WHEN: answer_{i} IS SET\n    RETURN: false\n"
        parts.append(part)
    return "\n".join(parts)


def test_a_wizard_of_one_way_steps_is_not_stopped_by_the_nesting_limit() -> None:
    session = session_of(_wizard(13), "Step_1")
    assert texts(session.send("start")) == ["Question 1?"]
    for i in range(1, 13):
        turn = session.send(f"answer {i}")
        assert texts(turn) == [f"Question {i + 1}?"], i
        assert not of_type(turn.events, "error")
    assert session.active_agent == "Step_13"


def test_one_way_handoffs_in_a_single_turn_still_stop_at_the_limit() -> None:
    chain = "\n".join(
        f'AGENT: Hop_{i}\nGOAL: "Hop {i}"\n'
        + (f"\nHANDOFF:\n  - TO: Hop_{i + 1}\n    WHEN: true\n    RETURN: false\n" if i < 12 else "")
        for i in range(1, 13)
    )
    turn = session_of(chain, "Hop_1").send("go")
    assert one(turn.events, "error").get("code") == "handoff_depth_limit"
    assert turn.active_agent == "Hop_11"


# --- an answer fills one field -------------------------------------------------------------------

INCOME_THEN_EXPENSES = """
AGENT: Income_Step
GOAL: "Ask for the income"

GATHER:
  income:
    PROMPT: "What is your yearly income?"
    TYPE: number

HANDOFF:
  - TO: Expenses_Step
    WHEN: income IS SET
    PASS: [income]
    RETURN: false

AGENT: Expenses_Step
GOAL: "Ask for the expenses"

MEMORY:
  session:
    - income

GATHER:
  expenses:
    PROMPT: "What are your monthly expenses?"
    TYPE: number
  order_ref:
    PROMPT: "Which order?"
    TYPE: string
    EXTRACTION_PATTERN: "\\\\b(ORD-\\\\d+)\\\\b"
    REQUIRED: false
"""


def test_the_number_that_answered_the_caller_is_not_taken_again_by_the_target() -> None:
    session = session_of(INCOME_THEN_EXPENSES, "Income_Step")
    session.send("hi")
    turn = session.send("85000")
    assert [(e.agent, e.get("field")) for e in of_type(turn.events, "gather")] == [("Income_Step", "income")]
    assert texts(turn) == ["What are your monthly expenses?"]
    assert session.state().values == {"_handoff_from": "Income_Step", "income": 85000}


def test_the_rest_of_a_forwarded_message_is_still_read_by_the_target() -> None:
    session = session_of(INCOME_THEN_EXPENSES, "Income_Step")
    session.send("hi")
    turn = session.send("85000 a year, and 85000 is not my expenses: they are 1200")
    values = session.state().values
    assert (values["income"], values["expenses"]) == (85000, 1200)
    assert texts(turn) == ["(Expenses_Step) I can help with: Ask for the expenses."]


def test_the_same_field_may_read_the_same_words_in_the_next_agent() -> None:
    from abl.runtime.gather import _claim, _taken_elsewhere

    claims: list[tuple[int, int, str, str]] = []
    text = "order ORD-1 and 4 and 4"
    _claim(text, "ORD-1", "order_ref", "thread-1", claims)
    assert not _taken_elsewhere(text, "ORD-1", "order_ref", "thread-2", claims)
    assert _taken_elsewhere(text, "ORD-1", "other", "thread-2", claims)
    assert not _taken_elsewhere(text, "ORD-1", "other", "thread-1", claims)  # the caller itself
    _claim(text, "4", "adults", "thread-1", claims)
    assert not _taken_elsewhere(text, "4", "children", "thread-2", claims)  # the second 4 is free


# --- mocks ----------------------------------------------------------------------------------------


def test_an_empty_list_of_mock_results_is_a_failed_call() -> None:
    greeter = """
AGENT: Greeter
GOAL: "Greet"

TOOLS:
  lookup() -> {name: string}

ON_START:
  CALL: lookup
  RESPOND: "Hello {{last_lookup_result.name}}"
"""
    session = session_of(greeter, "Greeter", mocks={"lookup": []})
    result = one(session.trace, "tool_result")
    assert result.get("success") is False
    assert "empty list of results" in result.get("error")


# --- customer text is data, never a template -----------------------------------------------------

NICKNAME = """
AGENT: Pin_Agent
GOAL: "Verify the customer and greet them by nickname"

MEMORY:
  session:
    - display_name
    - greeting

GATHER:
  pin:
    PROMPT: "Your PIN?"
    TYPE: string
    SENSITIVE: true
    EXTRACTION_PATTERN: "\\\\b(\\\\d{4})\\\\b"
  nickname:
    PROMPT: "Your nickname?"
    TYPE: string

COMPLETE:
  - WHEN: nickname IS SET
    SET:
      display_name = nickname
      greeting = "Hello {{nickname}}, " + display_name
    RESPOND: "{{greeting}}"
"""


def test_a_value_typed_as_a_placeholder_is_copied_not_expanded() -> None:
    session = session_of(NICKNAME, "Pin_Agent")
    session.send("hi")
    session.send("4821")
    turn = session.send("{{pin}}")
    assert texts(turn) == ["Hello {{pin}}, {{pin}}"]
    values = session.state().values
    assert values["display_name"] == "{{pin}}"
    assert "4821" not in json.dumps(session.to_dict())


# --- long messages --------------------------------------------------------------------------------


def test_a_very_long_message_full_of_numbers_is_read_in_linear_time() -> None:
    import time

    def cost(items: int) -> tuple[float, Turn]:
        """The least CPU time of a few readings of a message of `items` priced items."""
        filler = " ".join(f"item {i} costs {i * 3} on 12 March 2025" for i in range(items))
        best, turn = float("inf"), None
        for _ in range(3):
            session = session_of(INCOME_THEN_EXPENSES, "Income_Step")
            session.send("hi")
            started = time.process_time()
            turn = session.send(filler + " and my income is 85000")
            best = min(best, time.process_time() - started)
        assert turn is not None
        return best, turn

    # The longest (~98 kB, just under `MAX_MESSAGE_CHARS`) against a quarter of it: linear work
    # costs about 4 times as much, quadratic work 16 times. CPU time, compared within one run,
    # so that a busy machine slows both alike.
    small, _ = cost(650)
    large, turn = cost(2600)
    assert large < 9 * max(small, 1e-3), f"a 4x longer message took {large / max(small, 1e-3):.1f}x the time"
    assert one(turn.events, "gather").get("value") == 85000


def test_a_free_text_answer_does_not_hide_typed_values_from_the_next_agent() -> None:
    text = INCOME_THEN_EXPENSES.replace(
        'AGENT: Income_Step\nGOAL: "Ask for the income"\n\nGATHER:\n  income:\n    PROMPT: "What is your yearly income?"\n    TYPE: number\n\nHANDOFF:\n  - TO: Expenses_Step\n    WHEN: income IS SET\n    PASS: [income]',
        'AGENT: Income_Step\nGOAL: "Ask for the employer"\n\nGATHER:\n  employer:\n    PROMPT: "Who is your employer?"\n    TYPE: string\n\nHANDOFF:\n  - TO: Expenses_Step\n    WHEN: employer IS SET\n    PASS: []',
    )
    assert "employer:" in text
    session = session_of(text, "Income_Step")
    assert texts(session.send("hi")) == ["Who is your employer?"]
    session.send("Acme Tools, and my expenses are 1200 a month")
    assert session.state().values.get("expenses") == 1200
