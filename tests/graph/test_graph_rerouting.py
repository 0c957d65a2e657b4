"""A `RETURN` toggled leaves every route leading where it led: the graph is the last one with the
hand-back marks, ways back and loops of the agents whose waiting parents changed made again
(`GraphBuilder._reroute`), in time of the change. After any sequence of such edits, mixed with
keystrokes, new lines and edits that change where routes lead, it must equal a graph built from
scratch, and name every agent whose findings changed."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_graph_reposition import drawn, scratch

from abl.workspace import Project
from abl.workspace.graph import GraphBuilder, ProjectGraph
from abl.workspace.waiting import WaitingParents

RETURNS = ("true", "True", "false", None)  # `True` reads as false (a warning says so)

# agent → its routes, each (target index, the RETURN value written)
Routes = list[list[tuple[int, str | None]]]


def text_of(routes: Routes, files: int, goals: dict[int, str], blank: int | None) -> dict[str, str]:
    """The project's files. Every fourth agent writes its routes in two `HANDOFF` sections (two
    routes of one index), every fifth also delegates to `A0`, and with two files or more a second
    agent named `A1` comes last, whose returnable route routes never reach."""
    texts: dict[str, list[str]] = {f"/p/f{k}.abl": [] for k in range(files)}
    for i, mine in enumerate(routes):
        lines = [f"AGENT: A{i}", f'GOAL: "{goals.get(i, "serve")}"']
        if blank == i:
            lines.append("")
        for k, (target, returns) in enumerate(mine):
            if k == 0 or (k == 1 and i % 4 == 3):
                lines.append("HANDOFF:")
            lines += [f"  - TO: A{target}", f"    WHEN: x == {target}"]
            if returns is not None:
                lines.append(f"    RETURN: {returns}")
        if i % 5 == 4:
            lines += ["DELEGATE:", "  - AGENT: A0", "    WHEN: y == 1"]
        texts[f"/p/f{i % files}.abl"].append("\n".join(lines) + "\n")
    if files > 1:
        texts[f"/p/f{files - 1}.abl"].append('AGENT: A1\nGOAL: "again"\nHANDOFF:\n  - TO: A0\n    RETURN: true\n')
    return {path: "\n".join(agents) for path, agents in texts.items()}


def findings(graph: ProjectGraph, routes: Routes) -> dict[str, object]:
    return {
        f"A{i}": dataclasses.replace(graph.facts(f"A{i}", tuple(range(len(mine)))), declared_by=None)
        for i, mine in enumerate(routes)
    }


@st.composite
def projects(draw: st.DrawFn) -> tuple[Routes, int]:
    size = draw(st.integers(3, 12))
    route = st.tuples(st.integers(0, size - 1), st.sampled_from(RETURNS))
    return draw(st.lists(st.lists(route, max_size=3), min_size=size, max_size=size)), draw(st.integers(1, 3))


# (what, agent pick, route pick, value pick)
EDITS = st.lists(
    st.tuples(
        st.sampled_from(["return"] * 6 + ["goal", "blank", "target"]),
        st.integers(0, 10**6),
        st.integers(0, 10**6),
        st.integers(0, 10**6),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(projects(), EDITS)
def test_return_toggles_among_other_edits_equal_a_graph_from_scratch(
    start: tuple[Routes, int], edits: list[tuple[str, int, int, int]]
) -> None:
    routes, files = start
    goals: dict[int, str] = {}
    blank: int | None = None
    project = Project("/p")
    for path, text in text_of(routes, files, goals, blank).items():
        project.update(path, text)
    graph = project.graph()
    for what, a, r, v in edits:
        agent = a % len(routes)
        mine = routes[agent]
        if what in ("return", "target") and not mine:
            continue
        if what == "return":
            target, returns = mine[r % len(mine)]
            mine[r % len(mine)] = (target, [x for x in RETURNS if x != returns][v % 3])
        elif what == "target":
            target, returns = mine[r % len(mine)]
            mine[r % len(mine)] = ((target + 1 + v % (len(routes) - 1)) % len(routes), returns)
        elif what == "goal":
            goals[agent] = f"serve {v}"
        else:
            blank = None if blank == agent else agent
        was = findings(graph, routes)
        for path, text in text_of(routes, files, goals, blank).items():
            if project.texts[path] != text:
                project.edit(path, text)
        before, graph = graph, project.graph()
        assert drawn(graph) == drawn(scratch(project)), (what, agent)
        named = graph.facts_changed_since(before.serial)
        now = findings(graph, routes)
        changed = {name for name in now if now[name] != was[name]}
        assert named is None or changed <= named, (what, agent, changed - named)


def ring(size: int) -> str:
    """Agents in a ring of returnable routes, each also handing on for good seven places on."""
    return "\n".join(
        f'AGENT: A{i}\nGOAL: "g"\nHANDOFF:\n  - TO: A{(i + 1) % size}\n    WHEN: a == 1\n    RETURN: true\n'
        f"  - TO: A{(i + 7) % size}\n    WHEN: b == 1\n"
        for i in range(size)
    )


def test_a_return_toggle_is_rerouted_and_touches_few_agents(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a ring of 300, a toggle takes the patch path, and the agents marked again are those
    whose waiting parents changed: a few dozen, not the ring. The edges that differ from the last
    graph's are as few."""
    rerouted: list[int] = []
    rewaited: list[int] = []
    original = GraphBuilder._reroute
    recount = WaitingParents.reroute

    def noting(self: WaitingParents, *args: object) -> set[str]:
        changed = recount(self, *args)  # type: ignore[arg-type]
        rewaited.append(len(changed))
        return changed

    def counting(self: GraphBuilder, *args: object, **kwargs: object) -> object:
        last = self._last
        result = original(self, *args, **kwargs)  # type: ignore[arg-type]
        if result is not None and last is not None:
            edges, before = result[0].edges, last.edges
            # The agents' own edges keep their places; the ways back after them may shift.
            ends = self._slots.backs[0]
            own = sum(a is not b for a, b in zip(edges[:ends], before[:ends], strict=True))
            backs = {id(e) for e in edges[ends:]}.symmetric_difference(id(e) for e in before[ends:])
            rerouted.append(own + len(backs))
        return result

    monkeypatch.setattr(GraphBuilder, "_reroute", counting)
    monkeypatch.setattr(WaitingParents, "reroute", noting)
    text = ring(300)
    project = Project("/p")
    project.update("/p/a.abl", text)
    project.graph()
    for at in [10, 150, 10, 299]:
        start = text.index(f"AGENT: A{at}\n")
        spot = text.index("RETURN: ", start) + len("RETURN: ")
        text = text[:spot] + ("true" if text[spot] == "T" else "True") + text[spot + 4 :]
        project.edit("/p/a.abl", text)
        assert drawn(project.graph()) == drawn(scratch(project)), at
    assert len(rerouted) == 4
    assert all(0 < changed < 60 for changed in rerouted), rerouted
    assert len(rewaited) == 4 and all(0 < agents < 60 for agents in rewaited), rewaited
