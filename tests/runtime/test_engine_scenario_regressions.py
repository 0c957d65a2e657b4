"""Regressions found by the conversation scenarios under tests/runtime/scenarios."""

from __future__ import annotations

import json

import pytest

from abl.runtime import RuntimeOptions, Session, start_session
from abl.runtime.turn import valid_text
from engine_support import of_type, one, project_text, texts


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
    session = session_of(HOLD_THEN_BOOK.replace("  contact_email:\n    PROMPT", "  contact_email:\n    REQUIRED: false\n    PROMPT"),
                         "Ticket_Agent")
    session.send("hi")
    held = session.send("3")
    assert texts(held) == ["3 seats are held."]
    assert not of_type(held.events, "gather") or all(e.get("field") == "seats" for e in of_type(held.events, "gather"))
