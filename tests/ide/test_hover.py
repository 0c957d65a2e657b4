"""Hover: each case puts the cursor on something and names text the hover must contain."""

from __future__ import annotations

import pytest
from editor import project_at

from abl.ide.hover import hover

HEAD = 'SUPERVISOR: Loan_Supervisor\nGOAL: "Route loan requests"\n'

CASES = [
    ("a section keyword", HEAD + "HAN$0DOFF:\n  - TO: Income_Agent\n", ["HANDOFF", "Keys:"]),
    (
        "the HISTORY key",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    HIS$0TORY: none\n",
        ["HISTORY", "Default: `full`", "summary_only"],
    ),
    (
        "a known history mode",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    HISTORY: summ$0ary_only\n",
        ["only the route's `SUMMARY`"],
    ),
    (
        "last_<n>",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    HISTORY: last$0_3\n",
        ["most recent n messages", "last 3 message"],
    ),
    (
        "an unknown history mode falls back to full",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    HISTORY: rec$0ent\n",
        ["silently becomes `full`", "reads this as `full`"],
    ),
    ("an E330 block mode", HEAD + "HANDOFF:\n  - TO: Income_Agent\n    HISTORY:\n      mode: rec$0ent\n", ["recent"]),
    ("RETURN: True reads false", HEAD + "HANDOFF:\n  - TO: Income_Agent\n    RETURN: Tr$0ue\n", ["reads as false"]),
    (
        "a key nested under a value",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n      HIS$0TORY: none\n",
        ["Read by nothing", "nested under `TO: Income_Agent`", "KEY_UNDER_VALUE"],
    ),
    (
        "an ON_RETURN action",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    ON_RETURN:\n      action: resume_$0intent\n",
        ["replays one customer message"],
    ),
    (
        "a resume_with value",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    ON_RETURN:\n      resume_with: latest_$0child_user_utterance\n",
        ["while the child was active"],
    ),
    (
        "an agent name",
        HEAD + "HANDOFF:\n  - TO: Income$0_Agent\n",
        ["Income_Agent", "agent", "Collect the annual income", "Routes in: `Loan_Supervisor`"],
    ),
    (
        "a child field in MAP",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    ON_RETURN:\n      MAP:\n        annual$0_income: income\n",
        ["variable of `Income_Agent`", "gather field, type `number`"],
    ),
    (
        "a return handler",
        HEAD
        + 'RETURN_HANDLERS:\n  income_done:\n    RESPOND: "Thanks"\nHANDOFF:\n  - TO: Income_Agent\n    ON_RETURN:\n      handler: income$0_done\n',
        ["return handler of `Loan_Supervisor`", "Thanks"],
    ),
    ("a code in a comment", HEAD + "# abl: ignore[E3$030]\n", ["E330", "error"]),
]


@pytest.mark.parametrize("name,text,fragments", CASES, ids=[c[0] for c in CASES])
def test_hover(name, text, fragments):
    project, path, pos = project_at(text)
    found = hover(project, path, pos)
    assert found is not None, "no hover"
    for fragment in fragments:
        assert fragment in found.markdown, f"{fragment!r} not in:\n{found.markdown}"
    assert found.range.start <= pos <= found.range.end


def test_no_hover_on_blank_lines():
    project, path, pos = project_at(HEAD + "\n$0\n")
    assert hover(project, path, pos) is None


@pytest.mark.parametrize("keyword", ["HIS$0TORY: none", "RET$0URN: true", "WH$0EN: x == 1"])
def test_hovers_hold_no_provenance_of_the_catalogue(keyword):
    """Where a description comes from ("Source: seed 000") belongs to the reference pages."""
    project, path, pos = project_at(HEAD + "HANDOFF:\n  - TO: Income_Agent\n    " + keyword + "\n")
    found = hover(project, path, pos)
    assert found is not None and "Source:" not in found.markdown and "seed 0" not in found.markdown
