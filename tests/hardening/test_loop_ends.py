"""The loop through each route, worked out for all routes at once, is the same loop as the
route-by-route walk (`ProjectGraph.cycle_through`) gives, on random handoff graphs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from abl.workspace import Project
from abl.workspace.graph import build_graph
from abl.workspace.loops import KEPT_AT_EACH_END
from abl.workspace.loops import _Tree as Tree


def _project_text(routes: list[tuple[int, int, bool]], agents: int) -> str:
    blocks = []
    for i in range(agents):
        lines = [f"AGENT: A{i}", 'GOAL: "g"']
        mine = [(target, returnable) for source, target, returnable in routes if source == i]
        if mine:
            lines.append("HANDOFF:")
            for target, returnable in mine:
                lines += [f"  - TO: A{target}", f"    WHEN: x == {target}", f"    RETURN: {str(returnable).lower()}"]
        blocks.append("\n".join(lines))
    return "\n".join(blocks) + "\n"


graphs = st.integers(min_value=2, max_value=14).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from([False, False, True])),
            min_size=n,
            max_size=4 * n,
        ),
    )
)


def _expected(cycle: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    if len(cycle) <= 2 * KEPT_AT_EACH_END:
        return cycle, (), len(cycle)
    return cycle[:KEPT_AT_EACH_END], cycle[-KEPT_AT_EACH_END:], len(cycle)


def _check_graph(agents: int, routes: list[tuple[int, int, bool]]) -> int:
    project = Project("/")
    project.update("/agents.abl", _project_text(routes, agents))
    graph = build_graph(ref.agent for ref in project.all_agents())
    fast = graph._loop_ends()
    compared = 0
    for edge in graph.edges:
        if edge.key is None:
            continue
        slow = graph.cycle_through(*edge.key)
        if slow is None:
            assert edge.key not in fast
            continue
        ends = fast[edge.key]
        assert (ends.head, ends.tail, ends.length) == _expected(slow)
        compared += 1
    return compared


@settings(max_examples=150, deadline=None)
@given(graphs)
def test_same_loops_as_the_walk(graph: tuple[int, list[tuple[int, int, bool]]]) -> None:
    # Some routes are returnable, so that hand-backs (which close no loop) are in the mix too.
    agents, routes = graph
    _check_graph(agents, routes)


def test_rings_with_shortcuts() -> None:
    """The benchmark's shape: each agent routes to the next and to the seventh after it."""
    for agents in (9, 23, 60):
        routes = [(i, (i + 1) % agents, False) for i in range(agents)]
        routes += [(i, (i + 7) % agents, False) for i in range(agents)]
        assert _check_graph(agents, routes) == 2 * agents


def test_level_ancestors() -> None:
    parent = {"b": "a", "c": "a", "d": "b", "e": "d", "f": "c"}
    tree = Tree("a", parent)
    assert tree.ancestor_at("e", 0) == "a" and tree.ancestor_at("e", 1) == "b"
    assert tree.ancestor_at("e", 2) == "d" and tree.ancestor_at("e", 3) == "e"
    assert tree.ancestor_at("f", 1) == "c"
