"""Renaming an agent renames it in the conversation tests that run its project: every place a
test names an agent, and nothing else; the renamed project's tests still pass."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from abl.checks.fixes import apply_edits
from abl.ide import navigation
from abl.runtime.events import AGENT_FIELDS, EVENT_TYPES
from abl.runtime.testing.agent_names import agent_name_spans
from abl.runtime.testing.loader import load_file
from abl.runtime.testing.runner import Runner
from abl.text import Position
from abl.workspace import load_project

REPO = Path(__file__).resolve().parents[2]
LOAN = REPO / "examples" / "loan-supervisor"

# Every place a test file names an agent holds `Old_Agent` (in a reply check, as a word of its
# own); the customer's messages, scripted model text, other keys and other agents do not change.
NAMED = """\
project: .
agent: Old_Agent
handoff_delays: {Old_Agent: 45s, Other_Agent: 1s}
scripted:
  replies: {Old_Agent: "hello from Old_Agent"}
  tool_calls: {"Old_Agent": {tool: lookup}}
tests:
  - name: everything
    handoff_delays:
      Old_Agent: 2s
    start_events:
      - {type: session_start, agent: 'Old_Agent'}
    turns:
      - user: Old_Agent please
        agent: Old_Agent
        reply: {contains: Old_Agent}
        scripted:
          replies: [{Old_Agent: hi}]
        events:
          - type: handoff
            from: Other_Agent
            to: {equals: Old_Agent}
          - type: handoff_condition_check
            target: {any_of: [Old_Agent, Other_Agent]}
          - type: flow_step
            to: Old_Agent
          - type: delegate_complete
            to: {not: Old_Agent}
        no_events:
          - {type: return_to_parent, from: Old_Agent, to: {regex: "^Old_Agent$"}}
        vars:
          - agent: Old_Agent
            values: {Old_Agent: 1}
        history_received: [{agent: Old_Agent, count: 0}]
"""
RENAMED = """\
project: .
agent: New_Agent
handoff_delays: {New_Agent: 45s, Other_Agent: 1s}
scripted:
  replies: {New_Agent: "hello from Old_Agent"}
  tool_calls: {"New_Agent": {tool: lookup}}
tests:
  - name: everything
    handoff_delays:
      New_Agent: 2s
    start_events:
      - {type: session_start, agent: 'New_Agent'}
    turns:
      - user: Old_Agent please
        agent: New_Agent
        reply: {contains: New_Agent}
        scripted:
          replies: [{New_Agent: hi}]
        events:
          - type: handoff
            from: Other_Agent
            to: {equals: New_Agent}
          - type: handoff_condition_check
            target: {any_of: [New_Agent, Other_Agent]}
          - type: flow_step
            to: Old_Agent
          - type: delegate_complete
            to: {not: New_Agent}
        no_events:
          - {type: return_to_parent, from: New_Agent, to: {regex: "^Old_Agent$"}}
        vars:
          - agent: New_Agent
            values: {Old_Agent: 1}
        history_received: [{agent: New_Agent, count: 0}]
"""


def renamed(text: str, old: str, new: str) -> str:
    for start, end in reversed(agent_name_spans(text, old)):
        text = text[:start] + new + text[end:]
    return text


def test_every_place_a_test_names_an_agent_is_renamed_and_nothing_else():
    assert renamed(NAMED, "Old_Agent", "New_Agent") == RENAMED


def test_an_unreadable_test_file_is_left_as_it_is():
    assert agent_name_spans("agent: Old_Agent\n  bad: [", "Old_Agent") == []
    assert agent_name_spans("agent: Old_Agent\nagent: Old_Agent\n", "Old_Agent") == [], "duplicate key"


def run_tests(folder: Path) -> list[str]:
    test_file = load_file(folder / "loan-supervisor.abltest.yaml")
    runner = Runner()
    return [runner.run(test_file, c).status for c in test_file.conversations]


def rename_on_disk(folder: Path, old: str, new: str) -> set[str]:
    project, problems = load_project([str(folder)])
    assert not problems
    path = str(folder / "loan-supervisor.agent.abl")
    header = next(line for line, text in enumerate(project.texts[path].splitlines()) if text == f"AGENT: {old}")
    edit = navigation.rename(project, path, Position(header, len("AGENT: ") + 1), new, [str(folder)])
    for changed in edit.paths:
        file = Path(changed)
        text, _applied = apply_edits(file.read_text(encoding="utf-8"), edit.changes[changed])
        file.write_text(text, encoding="utf-8")
    return {Path(p).name for p in edit.paths}


def test_rename_an_agent_then_its_conversation_tests_still_pass(tmp_path: Path):
    folder = tmp_path / "loan"
    shutil.copytree(LOAN, folder)
    assert set(run_tests(folder)) == {"passed"}
    changed = rename_on_disk(folder, "Income_Capture_Agent", "Earnings_Agent")
    assert changed == {"loan-supervisor.agent.abl", "loan-supervisor.abltest.yaml"}
    tests = (folder / "loan-supervisor.abltest.yaml").read_text(encoding="utf-8")
    assert "Income_Capture_Agent" not in tests and "Earnings_Agent" in tests
    assert set(run_tests(folder)) == {"passed"}


def test_without_the_test_edits_the_renamed_project_fails_its_tests(tmp_path: Path):
    """What the test above guards against: the same rename applied to the ABL file alone."""
    folder = tmp_path / "loan"
    shutil.copytree(LOAN, folder)
    kept = (folder / "loan-supervisor.abltest.yaml").read_text(encoding="utf-8")
    rename_on_disk(folder, "Income_Capture_Agent", "Earnings_Agent")
    (folder / "loan-supervisor.abltest.yaml").write_text(kept, encoding="utf-8")
    assert "failed" in run_tests(folder)


def test_a_recorded_test_still_passes_after_a_rename(tmp_path: Path):
    """A recorded reply names its agent (the embedded stand-in answer starts `(Offer_Agent)`): the
    rename reaches it, so the recorded test passes for the renamed agent."""
    folder = tmp_path / "loan"
    shutil.copytree(LOAN, folder)
    (folder / "loan-supervisor.abltest.yaml").unlink()
    (folder / "messages.txt").write_text("I want a loan offer\n85k\n", encoding="utf-8")
    recorded = folder / "loan-supervisor.abltest.yaml"
    command = [sys.executable, "-m", "abl", "run", str(folder), "--agent", "Loan_Supervisor"]
    subprocess.run([*command, "--script", str(folder / "messages.txt"), "--record", str(recorded)], check=True)
    assert "(Offer_Agent)" in recorded.read_text(encoding="utf-8")
    rename_on_disk(folder, "Offer_Agent", "Offer_Desk")
    assert "Offer_Agent" not in recorded.read_text(encoding="utf-8")
    assert set(run_tests(folder)) == {"passed"}


def test_a_test_file_of_another_project_is_left_alone(tmp_path: Path):
    folder = tmp_path / "loan"
    shutil.copytree(LOAN, folder)
    other = tmp_path / "other"
    other.mkdir()
    (other / "t.abltest.yaml").write_text("project: .\nagent: Income_Capture_Agent\ntests: []\n")
    assert rename_on_disk(folder, "Income_Capture_Agent", "Earnings_Agent") == {
        "loan-supervisor.agent.abl",
        "loan-supervisor.abltest.yaml",
    }


def test_the_agent_fields_are_fields_of_their_events():
    by_name = {e.name: e for e in EVENT_TYPES}
    for event_type, fields in AGENT_FIELDS.items():
        assert set(fields) <= set(by_name[event_type].fields), event_type
