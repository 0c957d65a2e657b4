"""After an edit that changes where routes lead, the analyses start from the last ones: the
reachability is kept while the supervisors' reach cannot change (and grown when it only grows),
and the groups of looping agents are found again only where a changed route can regroup them.
Each edit below must give the graph a build from scratch gives, and the edit back too."""

from __future__ import annotations

import pytest
from test_graph_reposition import drawn, scratch

from abl.workspace import Project

Routes = dict[str, list[str]]  # agent → its route targets in order; "~X": a returnable route to X

# Hub supervises A, C and X. A and B loop; C, D and E loop, and E also hands over to A; X asks Y
# (returnable) and Y's route back is a hand-back, so X and Y do not loop. No one routes to F.
BASE: Routes = {
    "Hub": ["A", "C", "X"],
    "A": ["B"],
    "B": ["A"],
    "C": ["D"],
    "D": ["E"],
    "E": ["C", "A"],
    "X": ["~Y"],
    "Y": ["X"],
    "F": ["X"],
}


def edited(**routes: list[str]) -> Routes:
    return {**BASE, **routes}


# (what the edit does, the routes after it, the cycles and the unreachable agents after it)
CASES = [
    ("a route inside one group", edited(D=["E", "C"]), (("A", "B"), ("C", "D")), ("F",)),
    ("a route that joins two groups", edited(B=["A", "C"]), (("A", "B"),), ("F",)),
    ("a route that breaks a loop", edited(E=["A"]), (("A", "B"),), ("F",)),
    ("a route reordered in a group", edited(E=["A", "C"]), (("A", "B"), ("C", "D", "E")), ("F",)),
    ("a returnable route made permanent", edited(X=["Y"]), (("A", "B"), ("C", "D", "E"), ("X", "Y")), ("F",)),
    ("a route into an unreached agent", edited(A=["B", "F"]), (("A", "B"), ("C", "D", "E")), ()),
    ("a route out of an unreached agent", edited(F=["X", "A"]), (("A", "B"), ("C", "D", "E")), ("F",)),
    ("the supervisor no longer reaches X", edited(Hub=["A", "C"]), (("A", "B"), ("C", "D", "E")), ("X", "Y", "F")),
    (
        "a loop and a reach lost at once",
        edited(Hub=["C"], E=["C"], B=["F"]),
        (("C", "D", "E"),),
        ("A", "B", "X", "Y", "F"),
    ),
]


def text_of(routes: Routes) -> str:
    blocks = []
    for agent, targets in routes.items():
        lines = [f"{'SUPERVISOR' if agent == 'Hub' else 'AGENT'}: {agent}", f'GOAL: "{agent}"', "HANDOFF:"]
        for i, target in enumerate(targets):
            lines += [f"  - TO: {target.lstrip('~')}", f"    WHEN: n == {i}"]
            if target.startswith("~"):
                lines.append("    RETURN: true")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def analyses(project: Project) -> tuple:
    graph = project.graph()
    return graph.cycles, graph.unreachable


@pytest.mark.parametrize(("routes", "cycles", "unreachable"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_an_edit_and_its_undoing_equal_a_graph_from_scratch(
    routes: Routes, cycles: tuple, unreachable: tuple[str, ...]
) -> None:
    project = Project("/p")
    project.update("/p/a.abl", text_of(BASE))
    assert analyses(project) == ((("A", "B"), ("C", "D", "E")), ("F",))
    project.edit("/p/a.abl", text_of(routes))
    assert drawn(project.graph()) == drawn(scratch(project))
    assert analyses(project) == (cycles, unreachable)
    project.edit("/p/a.abl", text_of(BASE))
    assert drawn(project.graph()) == drawn(scratch(project))


def test_the_edits_one_after_another_equal_a_graph_from_scratch() -> None:
    project = Project("/p")
    project.update("/p/a.abl", text_of(BASE))
    for _, routes, cycles, unreachable in CASES:
        project.edit("/p/a.abl", text_of(routes))
        assert drawn(project.graph()) == drawn(scratch(project))
        assert analyses(project) == (cycles, unreachable)


def test_a_group_no_changed_route_touches_is_kept() -> None:
    project = Project("/p")
    project.update("/p/a.abl", text_of(BASE))
    before = project.graph()
    project.edit("/p/a.abl", text_of(edited(D=["E", "C"])))
    after = project.graph()
    assert after.cycles != before.cycles
    # A and B's group is the first both times: its paths are the last assembly's, not found again.
    assert after._from_root[0] is before._from_root[0]
    assert after._towards_root[0] is before._towards_root[0]


@pytest.mark.parametrize(
    "other",
    [
        text_of({"C": ["A"]}),  # B renamed: A's route to it leads to a missing agent
        text_of({"B": ["A"], "D": ["B"]}),  # an agent added: the routes of the other file stay
        text_of({"B": ["A"], "Hub": ["A"]}),  # a supervisor added: A and B are reached from it
        "",  # B gone: A's route leads nowhere, and A no longer loops
    ],
)
def test_an_agent_named_or_unnamed_in_another_file(other: str) -> None:
    # The agents of a.abl are the same objects throughout: only what their routes meet changes.
    project = Project("/p")
    project.update("/p/a.abl", text_of({"A": ["B", "~C"], "E": ["B"]}))
    project.update("/p/b.abl", text_of({"B": ["A"]}))
    assert project.graph().cycles == (("A", "B"),)
    for text in (other, text_of({"B": ["A"]})):
        project.edit("/p/b.abl", text)
        assert drawn(project.graph()) == drawn(scratch(project))
