"""`locate`: what is at a position — the section path, the part of the line, the catalogue entry
and the model object — on complete and half-typed lines."""

from __future__ import annotations

import pytest
from editor import project_at
from hypothesis import given, settings
from hypothesis import strategies as st

from abl.ide.locate import Part, locate
from abl.model import load_document
from abl.model.types import GatherField, HandoffRoute, ReturnHandler
from abl.text import Position

ROUTES = """\
SUPERVISOR: Loan_Supervisor
GOAL: "Route loan requests"
HANDOFF:
  - TO: Offer_Agent
    WHEN: income IS SET
  - TO: Income_Agent
    RETURN: true
    ON_RETURN:
      action: resume_intent
      MAP:
        annual_income: income
"""

CASES = [
    # (cursor line, character, path, part, key name or None, object type or None)
    ("on a section keyword", 2, 3, "", Part.KEY, "HANDOFF", None),
    ("on a route target", 3, 10, "HANDOFF[0]", Part.VALUE, "TO", HandoffRoute),
    ("on the second route's key", 6, 6, "HANDOFF[1]", Part.KEY, "RETURN", HandoffRoute),
    ("inside ON_RETURN", 8, 8, "HANDOFF[1] > ON_RETURN", Part.KEY, "action", HandoffRoute),
    ("inside MAP", 10, 10, "HANDOFF[1] > ON_RETURN > MAP", Part.KEY, None, HandoffRoute),
]


@pytest.mark.parametrize("name,line,char,path,part,key,obj", CASES, ids=[c[0] for c in CASES])
def test_locate_on_complete_lines(name, line, char, path, part, key, obj):
    site = locate(load_document(ROUTES, "/main.abl"), Position(line, char))
    assert site.path_text == path
    assert site.part is part
    assert (site.key.name if site.key is not None else None) == key
    assert (type(site.obj) if site.obj is not None else None) is obj
    assert site.agent is not None and site.agent.name.text == "Loan_Supervisor"


HALF_TYPED = [
    ("a value not typed yet", "  - TO: Income_Agent\n    HISTORY: $0\n", "HANDOFF[0]", Part.VALUE, "HISTORY"),
    (
        "an empty ON_RETURN block",
        "  - TO: Income_Agent\n    ON_RETURN:\n      $0\n",
        "HANDOFF[0] > ON_RETURN",
        Part.BLANK,
        "ON_RETURN",
    ),
    ("a lone dash", "  - TO: Income_Agent\n  - $0\n", "HANDOFF[1]", Part.BLANK, "HANDOFF"),
    ("a blank line under the list", "  - TO: Income_Agent\n  $0\n", "HANDOFF", Part.BLANK, "HANDOFF"),
    ("a half-typed key", "  - TO: Income_Agent\n    HIST$0\n", "HANDOFF[0]", Part.KEY, None),
]


@pytest.mark.parametrize("name,body,path,part,key", HALF_TYPED, ids=[c[0] for c in HALF_TYPED])
def test_locate_on_half_typed_lines(name, body, path, part, key):
    project, file, pos = project_at('SUPERVISOR: Loan\nGOAL: "x"\nHANDOFF:\n' + body)
    site = locate(project.documents[file], pos)
    assert site.path_text == path
    assert site.part is part
    assert (site.key.name if site.key is not None else None) == key


def test_locate_finds_gather_fields_and_handlers():
    text = """\
AGENT: A
GOAL: "x"
GATHER:
  income:
    type: number
RETURN_HANDLERS:
  done:
    RESPOND: "ok"
"""
    doc = load_document(text, "/a.abl")
    assert isinstance(locate(doc, Position(4, 6)).obj, GatherField)
    assert isinstance(locate(doc, Position(7, 6)).obj, ReturnHandler)
    assert locate(doc, Position(4, 6)).path_text == "GATHER > income"


def test_comments_are_not_keys():
    doc = load_document('AGENT: A  # the agent\nGOAL: "x"\n', "/a.abl")
    assert locate(doc, Position(0, 15)).part is Part.COMMENT


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="AGENT:HANDOFF-TO \n\t#\"'[]{}|>xy_1", max_size=300), st.integers(0, 40), st.integers(-5, 80))
def test_locate_never_raises(text, line, char):
    doc = load_document(text, "/f.abl")
    site = locate(doc, Position(line, max(char, 0)))
    assert site.position.line >= 0
