"""Seed 000's compile errors: a project with them does not run.

A conversation test cannot state "this project is refused", so these rules are checked here, by
`abl test` on a project written for each row; `RULES` names them for docs/conformance.md.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

RULES = [
    {
        "id": "H-22",
        "source": "seed 000, How the compiler reads the value",
        "quote": "`HISTORY:` with `mode: last_n` and no `count`: Compile error `E331`.",
        "status": "holds",
        "test": "test_a_history_block_that_the_compiler_rejects_does_not_run[E331]",
    },
    {
        "id": "H-23",
        "source": "seed 000, How the compiler reads the value",
        "quote": "`HISTORY:` with `mode: recent`: Compile error `E330`.",
        "status": "holds",
        "test": "test_a_history_block_that_the_compiler_rejects_does_not_run[E330]",
    },
]

HUB = """\
SUPERVISOR: Hub
GOAL: "Send customers to the desk"

HANDOFF:
  - TO: Desk
    WHEN: true
    HISTORY:
{history}
    RETURN: false

AGENT: Desk
GOAL: "Serve customers"
"""

TEST = """\
project: .
agent: Hub
tests:
  - name: hello
    turns: [hello]
"""


@pytest.mark.parametrize(
    ("code", "history"),
    [("E331", "      mode: last_n"), ("E330", "      mode: recent")],
    ids=["E331", "E330"],
)
def test_a_history_block_that_the_compiler_rejects_does_not_run(tmp_path: Path, code: str, history: str):
    (tmp_path / "hub.agent.abl").write_text(HUB.format(history=history))
    (tmp_path / "hub.abltest.yaml").write_text(TEST)
    done = subprocess.run(
        [sys.executable, "-m", "abl", "test", str(tmp_path / "hub.abltest.yaml"), "--no-coverage"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert f"error[{code}]" in output, output
    assert "hub.agent.abl:7:" in output or "hub.agent.abl:8:" in output, output
