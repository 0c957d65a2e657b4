"""An edit that changes where routes lead puts the graph together again, taking over from the
last assembly what the edit left as it was (`graph._Reuse`): the edges with their targets, the
hand-back marks, the ways back, and each returnable child's reach over permanent handoffs. After
any sequence of such edits the graph must equal one built from scratch."""

from __future__ import annotations

from collections import Counter

import pytest
from test_graph_reposition import drawn, scratch

from abl.workspace import Project
from abl.workspace.graph import EdgeKind, _layout

# Triage hands Billing over for good; Billing asks Refunds (returnable); Refunds hands on to
# Audit for good, and Audit routes to Billing: a hand-back while Billing waits for Refunds,
# since Audit is within Refunds' reach over permanent handoffs.
CHAIN = """\
AGENT: Triage
GOAL: "Route"
HANDOFF:
  - TO: Billing
    WHEN: topic == "billing"

AGENT: Billing
GOAL: "Bill"
HANDOFF:
  - TO: Refunds
    WHEN: topic == "refund"
    RETURN: true
    ON_RETURN:
      MAP:
        amount: amount

AGENT: Refunds
GOAL: "Refund"
HANDOFF:
  - TO: Audit
    WHEN: large == true

AGENT: Audit
GOAL: "Audit"
HANDOFF:
  - TO: Billing
    WHEN: done == true
"""

EDITS = [
    # Refunds hands on to Triage instead of Audit: Audit leaves the reach and Triage enters it,
    # so the hand-back to the waiting Billing is Triage's route now, not Audit's.
    CHAIN.replace("  - TO: Audit\n    WHEN: large == true\n", "  - TO: Triage\n    WHEN: large == true\n"),
    # Back as it was: the reach of Refunds holds Audit again.
    CHAIN,
    # The returnable route made permanent (`True` reads as false): no parent waits, no hand-back.
    CHAIN.replace("RETURN: true", "RETURN: True"),
    CHAIN,
    # A permanent route added inside the reach (Audit → Triage): the reach grows.
    CHAIN.replace(
        'AGENT: Audit\nGOAL: "Audit"\nHANDOFF:\n',
        'AGENT: Audit\nGOAL: "Audit"\nHANDOFF:\n  - TO: Triage\n    WHEN: x == 1\n',
    ),
    # A permanent route added outside any reach (Triage → Audit) changes no reach.
    CHAIN.replace(
        '    WHEN: topic == "billing"\n', '    WHEN: topic == "billing"\n  - TO: Audit\n    WHEN: y == 2\n', 1
    ),
    CHAIN,
]


def test_route_edits_equal_a_graph_from_scratch() -> None:
    project = Project("/p")
    project.update("/p/a.abl", CHAIN)
    assert drawn(project.graph()) == drawn(scratch(project))
    for text in EDITS:
        project.edit("/p/a.abl", text)
        assert drawn(project.graph()) == drawn(scratch(project)), text


def test_the_hand_back_follows_the_reach() -> None:
    project = Project("/p")
    project.update("/p/a.abl", CHAIN)

    def hand_backs() -> set[tuple[str, str]]:
        return {(e.source, e.target) for e in project.graph().edges if e.hand_back}

    assert hand_backs() == {("Audit", "Billing")}
    project.edit("/p/a.abl", EDITS[0])
    assert hand_backs() == {("Triage", "Billing")}  # Triage is in Refunds' reach now, not Audit
    project.edit("/p/a.abl", CHAIN)
    assert hand_backs() == {("Audit", "Billing")}
    project.edit("/p/a.abl", CHAIN.replace("RETURN: true", "RETURN: True"))
    assert hand_backs() == set()


def test_edges_the_edit_left_alone_are_the_last_assembly_objects() -> None:
    project = Project("/p")
    project.update("/p/a.abl", CHAIN)
    triage = next(e for e in project.graph().edges if e.source == "Triage")
    project.edit("/p/a.abl", CHAIN.replace("RETURN: true", "RETURN: True"))
    assert next(e for e in project.graph().edges if e.source == "Triage") is triage


@pytest.mark.parametrize("size", [3, 12])
def test_a_ring_of_returnable_routes_toggled_route_by_route(size: int) -> None:
    names = [f"A{i}" for i in range(size)]
    text = "".join(
        f'AGENT: {name}\nGOAL: "g"\nHANDOFF:\n  - TO: {names[(i + 1) % size]}\n    WHEN: a == 1\n    RETURN: true\n'
        f"  - TO: {names[(i + 3) % size]}\n    WHEN: b == 1\n\n"
        for i, name in enumerate(names)
    )
    project = Project("/p")
    project.update("/p/a.abl", text)
    current = text
    for i in range(size):
        at = current.index("RETURN: true") if i % 2 == 0 else current.index("RETURN: True")
        word = "True" if i % 2 == 0 else "true"
        current = current[:at] + "RETURN: " + word + current[at + len("RETURN: true") :]
        project.edit("/p/a.abl", current)
        assert drawn(project.graph()) == drawn(scratch(project)), i
        # Where each agent's edges and each way back are, which the next keystroke patches at:
        # kept from the last graph, or found again, it is the layout of the graph now.
        builder = project._graph_builder
        assert builder is not None
        graph = project.graph()
        backs = Counter(e.target for e in graph.edges if e.kind is EdgeKind.RETURN)
        fresh = _layout(builder._roster, builder._parts, backs.__getitem__)
        assert builder._slots == fresh, i
        for key in (e.key for e in graph.edges if e.key is not None):
            ways = [at for at, e in enumerate(graph.edges) if e.kind is EdgeKind.RETURN and (e.target, e.route) == key]
            assert builder._slots.ways_back(key, graph.edges) == ways, (i, key)
