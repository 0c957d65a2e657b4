"""The graph's per-agent findings carry over an edit that changes none of what they are made of,
and are worked out again after one that does."""

from __future__ import annotations

from abl.workspace import Project

SUPERVISOR = 'SUPERVISOR: Hub\nGOAL: "g"\nHANDOFF:\n  - TO: A\n    WHEN: x IS SET\n'
A = 'AGENT: A\nGOAL: "{goal}"\nHANDOFF:\n  - TO: B\n    WHEN: y IS SET\n'
B = 'AGENT: B\nGOAL: "g"\nHANDOFF:\n  - TO: A\n    WHEN: z IS SET\n'


def project() -> Project:
    p = Project("/p")
    p.update("/p/hub.abl", SUPERVISOR)
    p.update("/p/a.abl", A.format(goal="g"))
    p.update("/p/b.abl", B)
    return p


def test_a_goal_edit_keeps_the_findings():
    p = project()
    before = p.graph_facts("B", (0,))
    assert before.cycles, "A and B hand off to each other for good"
    p.edit("/p/a.abl", A.format(goal="a longer goal"))
    after = p.graph_facts("B", (0,))
    assert after is before  # carried over, not searched again
    assert p.graph_facts("A", (0,)).cycles


def test_a_route_edit_finds_again():
    p = project()
    assert p.graph_facts("B", (0,)).cycles
    p.edit("/p/a.abl", A.format(goal="g").replace("TO: B", "TO: Hub"))
    assert not p.graph_facts("B", (0,)).cycles
    assert p.graph_facts("B").unreachable
