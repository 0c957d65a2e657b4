"""After an edit, the graph names the agents whose findings may have changed
(`ProjectGraph.facts_changed_since`), so that the check cache asks again only the results that
read theirs: every agent whose findings differ is named, and an edit that changes one route's
reach in a large project names few."""

from __future__ import annotations

import dataclasses

import pytest
from test_graph_regrouping import BASE, CASES, Routes, text_of

from abl.workspace import Project
from abl.workspace.graph import ProjectGraph


def findings(graph: ProjectGraph, routes: Routes) -> dict[str, object]:
    """Every agent's findings about itself and all of its routes, but the header they name
    (which changes with an agent read again, as the project's change log tells)."""
    return {
        agent: dataclasses.replace(graph.facts(agent, tuple(range(len(targets)))), declared_by=None)
        for agent, targets in routes.items()
    }


def differing(before: dict[str, object], after: dict[str, object]) -> set[str]:
    return {agent for agent in before.keys() | after.keys() if before.get(agent) != after.get(agent)}


@pytest.mark.parametrize("routes", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_every_agent_whose_findings_changed_is_named(routes: Routes) -> None:
    project = Project("/p")
    project.update("/p/a.abl", text_of(BASE))
    first = project.graph()
    was = findings(first, {**BASE, **routes})
    project.edit("/p/a.abl", text_of(routes))
    graph = project.graph()
    named = graph.facts_changed_since(first.serial)
    changed = differing(was, findings(graph, {**BASE, **routes}))
    # The supervisor and the names routes give are the same throughout: the answer is a list.
    assert named is not None and changed <= named
    project.edit("/p/a.abl", text_of(BASE))
    back = project.graph().facts_changed_since(graph.serial)
    assert back is not None and changed <= back


def test_the_names_add_up_over_several_graphs() -> None:
    project = Project("/p")
    project.update("/p/a.abl", text_of(BASE))
    first = project.graph()
    was = findings(first, BASE)
    seen = {**BASE}
    for _, routes, _, _ in CASES[:5]:  # a graph remembers the last few it followed
        project.edit("/p/a.abl", text_of(routes))
        project.graph()
        seen.update(routes)
    named = project.graph().facts_changed_since(first.serial)
    assert named is not None and differing(was, findings(project.graph(), seen)) <= named


def test_graphs_too_far_back_are_not_remembered() -> None:
    project = Project("/p")
    project.update("/p/a.abl", text_of(BASE))
    first = project.graph()
    for _, routes, _, _ in CASES:
        project.edit("/p/a.abl", text_of(routes))
        project.graph()
    assert len(CASES) > 8 and project.graph().facts_changed_since(first.serial) is None


def test_a_graph_not_followed_names_every_agent() -> None:
    project = Project("/p")
    project.update("/p/a.abl", text_of(BASE))
    other = Project("/q")
    other.update("/q/a.abl", text_of(BASE))
    assert project.graph().facts_changed_since(other.graph().serial) is None
    assert project.graph().facts_changed_since(project.graph().serial) == frozenset()


def pairs(count: int, returning: int) -> str:
    """A chain of `count` pairs of agents that loop (A_i and B_i hand off to each other, A_i
    also to A_i+1), but the pair at `returning`, whose A asks its B and waits: B's route back is
    then a hand-back, and the two no longer loop."""
    blocks = ['SUPERVISOR: Hub\nGOAL: "g"\nHANDOFF:\n  - TO: A0\n    WHEN: n == 0\n']
    for i in range(count):
        back = "    RETURN: true\n" if i == returning else ""
        onward = f"  - TO: A{i + 1}\n    WHEN: n == 1\n" if i + 1 < count else ""
        blocks.append(f'AGENT: A{i}\nGOAL: "g"\nHANDOFF:\n  - TO: B{i}\n    WHEN: n == 0\n{back}{onward}')
        blocks.append(f'AGENT: B{i}\nGOAL: "g"\nHANDOFF:\n  - TO: A{i}\n    WHEN: n == 0\n')
    return "\n".join(blocks)


def test_a_return_toggled_in_a_large_project_names_only_the_agents_it_changed() -> None:
    project = Project("/p")
    project.update("/p/pairs.abl", pairs(200, -1))
    first = project.graph()
    assert len(first.cycles) == 200
    project.edit("/p/pairs.abl", pairs(200, 150))
    graph = project.graph()
    assert len(graph.cycles) == 199
    routes = {"Hub": ["A0"], **{f"A{i}": ["B", "A"] for i in range(200)}, **{f"B{i}": ["A"] for i in range(200)}}
    assert graph.facts_changed_since(first.serial) == differing(findings(first, routes), findings(graph, routes))
    assert differing(findings(first, routes), findings(graph, routes)) == {"A150", "B150"}
