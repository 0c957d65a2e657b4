"""The conversation-test file format: what loads, and the message for each mistake."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from abl.runtime.testing import FormatError, discover, load_file
from abl.runtime.testing.format import SCRIPT_PURPOSES

GOOD = """\
project: ../loan
agent: Loan_Supervisor
mocks:
  credit_score: 720
tests:
  - name: income first, then the offer
    setup:
      customer_tier: gold
    turns:
      - user: I want a loan offer
        agent: Income_Capture_Agent
        reply: annual income
        events:
          - type: handoff
            to: Income_Capture_Agent
            returnExpected: true
          - handoff_completed
        no_events: [memory_error]
      - user: 85000
        vars:
          annual_income: {gte: 80000}
        history_received: {agent: Offer_Agent, count: 0}
      - user: yes
        vars:
          agent: Loan_Supervisor
          values: {annual_income: 85000}
  - name: skipped one
    skip: not ready
    mocks:
      credit_score: [600, 700]
    turns:
      - hello
"""


def test_a_complete_file_loads(tmp_path: Path):
    path = tmp_path / "tests" / "loan.abltest.yaml"
    path.parent.mkdir()
    path.write_text(GOOD)
    loaded = load_file(path)
    assert loaded.project == (tmp_path / "loan").resolve()
    assert loaded.agent == "Loan_Supervisor"
    assert loaded.model is None
    first, second = loaded.conversations
    assert first.name == "income first, then the offer" and first.line == 6
    assert first.setup == {"customer_tier": "gold"}
    turn1, turn2, turn3 = first.turns
    assert (turn1.user, turn1.line, turn1.agent) == ("I want a loan offer", 10, "Income_Capture_Agent")
    assert [e.type for e in turn1.events] == ["handoff", "handoff_completed"]
    assert [e.line for e in turn1.events] == [14, 17]
    assert [e.type for e in turn1.no_events] == ["memory_error"]
    assert turn1.reply.matches("What is your annual income?")
    # numbers and yes/no stay the text the customer typed
    assert turn2.user == "85000" and turn3.user == "yes"
    assert turn2.vars[0].agent is None and turn2.vars[0].values[0][1].matches(85000)
    assert turn2.history_received[0].agent == "Offer_Agent"
    assert turn3.vars[0].agent == "Loan_Supervisor"
    assert second.skip == "not ready"
    assert second.turns[0].user == "hello"
    assert loaded.mocks_for(first) == {"credit_score": 720}
    assert loaded.mocks_for(second) == {"credit_score": [600, 700]}
    assert loaded.model_for(first) == "embedded"


def test_scripted_answers_combine_file_and_turns(tmp_path: Path):
    path = tmp_path / "s.abltest.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            project: .
            agent: Router
            scripted:
              intents: [billing]
              replies: {Billing_Agent: "Here is your bill."}
              fallback: embedded
            tests:
              - name: scripted
                turns:
                  - user: my bill
                    scripted: {intents: refund}
                  - user: and then?
                    scripted:
                      conditions: [true, false]
            """
        )
    )
    loaded = load_file(path)
    conversation = loaded.conversations[0]
    assert loaded.model_for(conversation) == "scripted"
    # The file's answers are shared by the conversation; each turn keeps its own.
    assert loaded.script_for(conversation) == {
        "intents": ["billing"],
        "replies": {"Billing_Agent": "Here is your bill."},
        "fallback": "embedded",
    }
    assert [turn.scripted for turn in conversation.turns] == [{"intents": ["refund"]}, {"conditions": [True, False]}]
    assert set(loaded.script_for(conversation)) <= set(SCRIPT_PURPOSES) | {"fallback"}


def test_an_explicit_model_wins_over_scripted_answers(tmp_path: Path):
    path = tmp_path / "m.abltest.yaml"
    path.write_text(
        "project: .\nagent: A\nmodel: embedded\nscripted: {intents: [x]}\ntests:\n  - name: t\n    turns: [hi]\n"
    )
    loaded = load_file(path)
    assert loaded.model_for(loaded.conversations[0]) == "embedded"


# (file text, expected "line: message" fragment)
BAD = [
    ("", "1: the file is empty"),
    ("- a\n- b\n", "1: the file must be a mapping"),
    (
        "project: .\nagent: A\ntests:\n  - name: x\n    turns:\n      - user: hi\n        agnet: B\n",
        "7: unknown key `agnet` in a turn; did you mean `agent`?",
    ),
    ("project: .\nagent: A\ntset: []\n", "3: unknown key `tset` at the top level; did you mean `tests`?"),
    ("agent: A\ntests: []\n", "1: missing `project`"),
    ("project: .\nagent: A\n", "1: missing `tests`"),
    ("project: .\nagent: A\ntests: []\n", "3: `tests` must be a non-empty list"),
    (
        "project: .\nagent: A\nmodel: gpt\ntests: [{name: a, turns: [hi]}]\n",
        "3: `model` must be one of embedded, scripted, openai",
    ),
    ("project: .\nagent: [A]\ntests: [{name: a, turns: [hi]}]\n", "2: `agent` must be text"),
    ("project: .\nagent: A\ntests:\n  - turns: [hi]\n", "4: missing `name`"),
    ("project: .\nagent: A\ntests:\n  - name: a\n", '4: test "a" has no `turns`'),
    ("project: .\nagent: A\ntests:\n  - name: a\n    turns: []\n", '5: test "a" has no turns and no `greeting`'),
    (
        "project: .\nagent: A\ntests:\n  - name: a\n    turns: [hi]\n  - name: a\n    turns: [hi]\n",
        '6: two tests are named "a" (the first on line 4)',
    ),
    ("project: .\nagent: A\ntests:\n  - name: a\n    turns:\n      - agent: B\n", "6: a turn needs `user:`"),
    (
        "project: .\nagent: A\ntests:\n  - name: a\n    turns:\n      - user: hi\n        events: handoff\n",
        "7: `events` must be a list",
    ),
    (
        "project: .\nagent: A\ntests:\n  - name: a\n    turns:\n      - user: hi\n        events:\n          - to: B\n",
        "8: an entry of `events` needs `type:`",
    ),
    (
        "project: .\nagent: A\ntests:\n  - name: a\n    turns:\n      - user: hi\n        events:\n          - type: handoff\n            to: {regex: '('}\n",
        '9: field `to`: `regex` pattern "(" is not valid',
    ),
    (
        "project: .\nagent: A\ntests:\n  - name: a\n    turns:\n      - user: hi\n        reply: {starts: x}\n",
        "7: `reply`: unknown reply check `starts`",
    ),
    (
        "project: .\nagent: A\ntests:\n  - name: a\n    turns:\n      - user: hi\n        history_received: {agent: B}\n",
        "7: `history_received` needs `count:`",
    ),
    (
        "project: .\nagent: A\ntests:\n  - name: a\n    turns:\n      - user: hi\n        vars: 3\n",
        "7: `vars` must map variable names",
    ),
    (
        "project: .\nagent: A\ntests:\n  - name: a\n    turns:\n      - user: hi\n        ended: maybe\n",
        "7: `ended` takes true or false",
    ),
    ("project: .\nagent: A\ntests:\n  - name: a\n    skip: 3\n    turns: [hi]\n", "5: `skip` takes true or a reason"),
    ("project: .\nagent: A\nscripted: [a]\ntests: [{name: a, turns: [hi]}]\n", "3: `scripted` must be a mapping"),
    (
        "project: .\nagent: A\nscripted: {intent: [a]}\ntests: [{name: a, turns: [hi]}]\n",
        "3: unknown key `intent` in `scripted`; did you mean `intents`?",
    ),
    (
        "project: .\nagent: A\nscripted: {fallback: openai}\ntests: [{name: a, turns: [hi]}]\n",
        "3: `fallback` can only be `embedded`",
    ),
    (
        "project: .\nagent: A\ntests:\n  - name: a\n    turns:\n      - user: hi\n        after: soon\n",
        "7: `after` takes a duration",
    ),
    ("project: .\nagent: A\nhandoff_delays: {B: later}\ntests: [{name: a, turns: [hi]}]\n", "3: `B` takes a duration"),
    (
        "project: .\nagent: A\nmodel_options: {api_key: x}\ntests: [{name: a, turns: [hi]}]\n",
        "3: unknown key `api_key` in `model_options`",
    ),
    ("project: .\nproject: ..\n", "2: duplicate key 'project' (first written on line 1)"),
    (
        "project: .\nagent: A\ntests:\n  - name: a\n    turns:\n      - user: hi\n       reply: x\n",
        "7:8: not valid YAML",
    ),
    ("project: .\nagent: 'A\n", "not valid YAML"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[m.split(": ", 1)[-1][:40] for _, m in BAD])
def test_mistakes_name_the_line_and_the_problem(tmp_path: Path, text: str, message: str):
    path = tmp_path / "bad.abltest.yaml"
    path.write_text(text)
    with pytest.raises(FormatError) as caught:
        load_file(path)
    assert f"{path}:{message}" in str(caught.value) or message in str(caught.value)
    assert str(caught.value).startswith(str(path))


def test_discover_finds_test_files_in_folders(tmp_path: Path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / ".venv").mkdir()
    for name in ("a/one.abltest.yaml", "a/b/two.abltest.yaml", "a/other.yaml", ".venv/x.abltest.yaml"):
        (tmp_path / name).write_text("")
    explicit = tmp_path / "a" / "other.yaml"
    files, missing = discover([tmp_path, explicit, tmp_path / "a" / "one.abltest.yaml", tmp_path / "nope"])
    assert [f.relative_to(tmp_path).as_posix() for f in files] == [
        "a/one.abltest.yaml",
        "a/b/two.abltest.yaml",
        "a/other.yaml",
    ]
    assert missing == [str(tmp_path / "nope")]
