"""`abl run` and `abl test` say on standard error, once and before the first message, what the
agents of the run declare that the local runtime does not enforce: construct, agent, file:line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from abl.cli.main import main

DESK = """\
SUPERVISOR: Claims_Desk
GOAL: "Route insurance claims"

CONSTRAINTS:
  always:
    - REQUIRE policy_number IS SET

HANDOFF:
  - TO: Photo_Agent
    WHEN: "the customer wants to send a photo"
    HISTORY: full
    ON_FAILURE: continue
    RETURN: false
"""

PHOTO = """\
AGENT: Photo_Agent
GOAL: "Take a photo of the damage"

GUARDRAILS:
  no_prompt_injection:
    kind: input
    check: "!abl.matches_pattern(input, '(?i)ignore (all|previous) instructions')"
    action: block

FLOW:
  ask:
    REASONING: false
    AWAIT_ATTACHMENT:
      NAME: photo
      PROMPT: "Upload a photo"
    RESPOND: "Thanks."
    THEN: COMPLETE
"""

# An agent no route leads to: a run from the desk never meets its constraints.
ARCHIVE = """\
AGENT: Archive_Agent
GOAL: "Archive old claims"

CONSTRAINTS:
  always:
    - REQUIRE claim_id IS SET
"""

TESTS = """\
project: .
agent: Claims_Desk
tests:
  - name: greets
    turns:
      - user: hello
  - name: greets again
    turns:
      - user: hi
"""

HEADING = "the local runtime does not enforce what runs on the platform:"


@pytest.fixture
def claims(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "project.json").write_text('{"name": "claims"}\n', encoding="utf-8")
    (tmp_path / "desk.agent.abl").write_text(DESK, encoding="utf-8")
    (tmp_path / "photo.agent.abl").write_text(PHOTO, encoding="utf-8")
    (tmp_path / "archive.agent.abl").write_text(ARCHIVE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def abl(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


EXPECTED = [
    f"abl run: {HEADING}",
    "  desk.agent.abl:4: Claims_Desk: CONSTRAINTS: constraints are not enforced",
    "  photo.agent.abl:4: Photo_Agent: GUARDRAILS: guardrails do not check messages or handoffs",
    "  photo.agent.abl:13: Photo_Agent: AWAIT_ATTACHMENT in step `ask`: the step goes on without it",
]


def test_abl_run_names_each_construct_its_agent_and_where_before_the_first_reply(claims, capsys):
    (claims / "chat.txt").write_text("hello\nI want to send a photo of the damage\n", encoding="utf-8")
    code, out, err = abl(capsys, "run", ".", "--script", "chat.txt")
    assert code == 0, err
    assert err.splitlines() == EXPECTED
    assert HEADING not in out  # stdout holds the replies only


def test_abl_run_says_nothing_when_everything_runs_locally(tmp_path, capsys, monkeypatch):
    (tmp_path / "a.agent.abl").write_text('AGENT: Greeter\nGOAL: "Say hello"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chat.txt").write_text("hello\n", encoding="utf-8")
    code, _, err = abl(capsys, "run", "a.agent.abl", "--script", "chat.txt")
    assert code == 0
    assert err == ""


def test_abl_test_says_it_once_for_every_conversation_on_standard_error(claims, capsys):
    (claims / "desk.abltest.yaml").write_text(TESTS, encoding="utf-8")
    (claims / "more.abltest.yaml").write_text(TESTS, encoding="utf-8")
    code, out, err = abl(capsys, "test", ".")
    assert code == 0, out + err
    assert err.splitlines() == [f"abl test: {HEADING}", *EXPECTED[1:]]
    assert HEADING not in out


def test_abl_test_json_keeps_standard_output_for_records(claims, capsys):
    (claims / "desk.abltest.yaml").write_text(TESTS, encoding="utf-8")
    code, out, err = abl(capsys, "test", ".", "--format", "json")
    assert code == 0
    assert all(json.loads(line) for line in out.splitlines())
    assert err.splitlines()[0] == f"abl test: {HEADING}"
