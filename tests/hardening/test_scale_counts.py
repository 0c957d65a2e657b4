"""Checking grows linearly with the input: counted in Python function calls, not in seconds.

Each case checks an input and one twice its size (routes in one supervisor, agents in one file,
agents in one long handoff loop, tiny documents; the turns of a conversation kept as a recorded
test) and compares how many Python functions ran: linear work doubles, quadratic work
quadruples. Counting calls is deterministic, so the ratio can be asserted where a time could not.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from abl.checks.autofix import fix_project
from abl.checks.engine import check_file, check_project
from abl.config import DEFAULT
from abl.diagnostics import Diagnostic
from abl.ide.folding import folding_ranges, selection_ranges
from abl.ide.tokens import semantic_tokens
from abl.runtime.testing.recorder import RecordedTurn, Recording, RecordingFile
from abl.runtime.trace import Redactor
from abl.text import Position
from abl.workspace import Project

# Linear work gives 2.0; allow for a little fixed cost being spread thinner on the small side.
MAX_RATIO = 2.3


def _calls(work: Callable[[], object]) -> int:
    count = 0

    def profile(frame, event, arg) -> None:
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return count


def _project(text: str) -> Project:
    project = Project("/scale")
    project.update("/scale/input.agent.abl", text)
    return project


def _hub(routes: int) -> str:
    lines = ["SUPERVISOR: Hub", 'GOAL: "Route"', "GATHER:", "  order_id:", '    PROMPT: "Order?"', "HANDOFF:"]
    for i in range(routes):
        lines += [
            f"  - TO: Agent_{i % 10}",
            f'    WHEN: intent.category == "c{i % (routes // 2)}"',  # half the conditions repeat
            "    PASS: [order_id]",
            "    RETURN: true",
            "    ON_RETURN:",
            "      MAP:",
            "        order_id: order_id",
            "    ON_FAILURE: continue",
        ]
    for j in range(10):
        lines += [f"AGENT: Agent_{j}", 'GOAL: "g"', "GATHER:", "  order_id:", '    PROMPT: "x"']
    return "\n".join(lines) + "\n"


def _ring(agents: int) -> str:
    """Each agent hands off to the next: one loop through every agent."""
    return "".join(
        f'AGENT: A{i}\nGOAL: "g"\nHANDOFF:\n  - TO: A{(i + 1) % agents}\n    WHEN: x == {i}\n    RETURN: false\n'
        for i in range(agents)
    )


def _agents(count: int) -> str:
    return "".join(
        f'AGENT: Agent_{i}\nGOAL: "Help with family {i}"\nGATHER:\n  order_id:\n    PROMPT: "Order?"\n'
        f"HANDOFF:\n  - TO: Agent_{(i + 3) % count}\n    WHEN: order_id IS SET\n    HISTORY: none\n"
        f'    ON_FAILURE: continue\nCOMPLETE:\n  - WHEN: order_id IS SET\n    RESPOND: "Done {{{{order_id}}}}"\n\n'
        for i in range(count)
    )


def _tiny_documents(count: int) -> str:
    return "".join(f"AGENT: A{i}\n" for i in range(count))


def _one_name(count: int) -> str:
    """Every agent called the same: each is reported, naming a few of the others."""
    return "".join('AGENT: Same\nGOAL: "g"\n' for _ in range(count))


CHECKED = {
    "routes in one supervisor": (_hub, 200),
    "agents in one file": (_agents, 100),
    "one loop through every agent": (_ring, 150),
    "tiny documents": (_tiny_documents, 300),
    "one name for every agent": (_one_name, 200),
}


@pytest.mark.parametrize("name", sorted(CHECKED))
def test_checking_is_linear(name: str) -> None:
    make, size = CHECKED[name]
    small, large = (_project(make(n)) for n in (size, 2 * size))
    ratio = _calls(lambda: check_project(large)) / _calls(lambda: check_project(small))
    assert ratio < MAX_RATIO, f"{name}: twice the input cost {ratio:.2f} times the calls"


def _fix_a_long_suppression(codes: int) -> Callable[[], object]:
    """`abl check --fix --unsafe-fixes` on one suppression listing `codes` codes: real ones,
    unknown words, misspellings and a code that cannot be suppressed, in turn."""
    kinds = ["W801", "{a:", "W8O1", "UNUSED_SUPPRESSION"]
    written = " ".join(kinds[i % len(kinds)] for i in range(codes))
    project = _project(f'# abl: ignore-file[{written}]\nAGENT: A\nGOAL: "g"\n')
    path = "/scale/input.agent.abl"

    def reported(path: str) -> list[Diagnostic]:
        return DEFAULT.filter(path, project.texts[path], check_file(project, path))

    return lambda: fix_project(project, [path], reported, unsafe=True)


def test_fixing_a_long_suppression_is_linear() -> None:
    # Each wrong code offered its own rewrite of the whole list: one applied per pass, so 5,000
    # of them were never all fixed, and each rewrite was measured against every other.
    ratio = _calls(_fix_a_long_suppression(1_000)) / _calls(_fix_a_long_suppression(500))
    assert ratio < MAX_RATIO, f"twice the codes cost {ratio:.2f} times the calls"


def _editor_work(project: Project) -> None:
    document = project.documents["/scale/input.agent.abl"]
    folding_ranges(document)
    semantic_tokens(project, "/scale/input.agent.abl")
    rows = document.source.index.line_count
    selection_ranges(document, [Position(row, 2) for row in range(0, rows, 3)])


def test_editor_features_are_linear() -> None:
    small, large = (_project(_agents(n)) for n in (60, 120))
    ratio = _calls(lambda: _editor_work(large)) / _calls(lambda: _editor_work(small))
    assert ratio < MAX_RATIO, f"twice the file cost {ratio:.2f} times the calls"


def _recorded(turns: int, folder: Path) -> Callable[[], None]:
    """`abl run --record` over `turns` turns: each turn added, then the test file brought up to date."""
    recording = Recording(project=folder, agent="Hub", greeting=(("Hub", "Hello."),))
    kept = RecordingFile(recording, folder / f"{turns}.abltest.yaml")
    turn = RecordedTurn(
        user="where is my order?",
        replies=(("Orders", "It is on its way."),),
        active_agent="Orders",
        events=({"type": "handoff", "from": "Hub", "to": "Orders", "historyMessages": 2},),
    )

    def work() -> None:
        for _ in range(turns):
            recording.add(turn)
            kept.write()

    return work


def test_recording_a_conversation_is_linear(tmp_path: Path) -> None:
    # Written whole after every turn, 2,000 turns took 188 s; appended, each turn costs the same.
    ratio = _calls(_recorded(240, tmp_path)) / _calls(_recorded(120, tmp_path))
    assert ratio < MAX_RATIO, f"twice the turns cost {ratio:.2f} times the calls"


def test_a_long_secret_is_registered_in_a_few_calls_per_character() -> None:
    # A 100,000-character text typed into a sensitive field took 8 s to register: the pattern
    # that finds a secret with separators between its characters was compiled for all of it.
    secret = "Pass Phrase 42 " * 2_000
    redactor = Redactor()
    calls = _calls(lambda: redactor.add_secret(secret))
    assert calls < 10 * len(secret), f"{calls:,} calls for {len(secret):,} characters"
    assert redactor.text("it is " + secret.upper() + "!") == "it is [redacted]!"
