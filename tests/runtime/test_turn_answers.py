"""A turn's `scripted:` answers belong to that turn: earlier turns never use them, later turns
never see the ones it left."""

from __future__ import annotations

import textwrap
from pathlib import Path

from engine_support import RETAIL

from abl.runtime.testing.loader import load_file
from abl.runtime.testing.runner import Runner


def run(tmp_path: Path, turns: str) -> list[tuple[str, list[str]]]:
    path = tmp_path / "retail.abltest.yaml"
    path.write_text(
        textwrap.dedent(f"""\
        project: {RETAIL}
        agent: Retail_Hub
        scripted: {{fallback: embedded}}
        tests:
          - name: turns keep their own answers
            turns:
        """)
        + textwrap.indent(textwrap.dedent(turns), "      "),
        encoding="utf-8",
    )
    test_file = load_file(path)
    (result,) = [Runner().run(test_file, c) for c in test_file.conversations]
    assert result.status == "passed", [f.summary for t in result.failed_turns for f in t.failures]
    return [
        (t.observed.active_agent, [e["type"] for e in t.observed.events if e["type"] == "handoff"])
        for t in result.turns
    ]


def test_a_later_turns_intent_does_not_route_an_earlier_message(tmp_path: Path) -> None:
    seen = run(
        tmp_path,
        """\
        - user: hello there
          agent: Retail_Hub
        - user: it arrived broken and I am upset
          scripted: {intents: complaint}
          agent: Complaint_Agent
        """,
    )
    assert seen == [("Retail_Hub", []), ("Complaint_Agent", ["handoff"])]


def test_answers_a_turn_does_not_use_are_dropped(tmp_path: Path) -> None:
    seen = run(
        tmp_path,
        """\
        - user: hello there
          scripted: {intents: [null, complaint]}
          agent: Retail_Hub
        - user: what can you do?
          agent: Retail_Hub
        """,
    )
    assert seen == [("Retail_Hub", []), ("Retail_Hub", [])]
