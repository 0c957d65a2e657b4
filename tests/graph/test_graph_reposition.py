"""After an edit that moves agents but changes no route, the graph is the last graph's analyses
with new positions (`GraphBuilder`'s fast path): it must equal a graph built from scratch."""

from __future__ import annotations

from pathlib import Path

import pytest
from graph_projects import EXAMPLES, generated_project

from abl.workspace import Project, load_projects
from abl.workspace.graph import ProjectGraph, build_graph


def drawn(graph: ProjectGraph) -> tuple:
    """Everything the graph says, positions included."""
    loops = {e.key: graph.cycle_through(*e.key) for e in graph.edges if e.key is not None}
    facts = {
        name: graph.facts(name, tuple(e.route for e in graph.edges if e.key and e.source == name))
        for name in graph.nodes
    }
    return (list(graph.nodes.items()), graph.edges, graph.roots, graph.unreachable, graph.cycles, loops, facts)


def scratch(project: Project) -> ProjectGraph:
    return build_graph((ref.agent for ref in project.all_agents()), project.default_history)


def edits(text: str) -> list[str]:
    """Edits that move agents and edges without changing any route."""
    lines = text.split("\n")
    middle = len(lines) // 2
    return [
        "# a comment that moves every agent of the file\n" + text,
        "\n".join([*lines[:middle], "", "# blank and comment lines in the middle", *lines[middle:]]),
        text.replace('GOAL: "', 'GOAL: "a longer goal: ', 1),
        text.replace("\n\n", "\n", 1),
        # What a route carries, not where it leads: drawn anew, analysed as before.
        text.replace("HISTORY: full", "HISTORY: none").replace("WHEN: ", "WHEN: NOT ", 1),
        text.replace("        order_id: order_id", "        order_ref: order_id", 1),  # a way back's MAP
    ]


def replay(project: Project) -> None:
    for path in sorted(project.documents)[:3]:
        original = project.texts[path]
        for text in [*edits(original), original]:
            before = project.graph()  # the builder's last graph, as after the previous keystroke
            assert before is project.graph()
            project.edit(path, text)
            after = project.graph()
            assert after._lineage == before._lineage, "no route changed: the analyses carry over"
            assert drawn(after) == drawn(scratch(project)), path


def test_generated_projects_after_moving_edits(tmp_path: Path) -> None:
    replay(generated_project(tmp_path / "p", 60))


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()))
def test_examples_after_moving_edits(name: str) -> None:
    projects, _ = load_projects([str(EXAMPLES / name)])
    for project in projects:
        replay(project)


def test_a_route_change_is_analysed_again(tmp_path: Path) -> None:
    project = generated_project(tmp_path / "p", 40)
    path = sorted(project.documents)[0]
    before = project.graph()
    project.edit(path, project.texts[path].replace("    RETURN: false\n", "    RETURN: true\n", 1))
    assert project.graph()._lineage != before._lineage
    assert drawn(project.graph()) == drawn(scratch(project))


def keystrokes(text: str) -> list[str]:
    """Edits that replace one agent (or the few below a new line), as typing does."""
    lines = text.split("\n")
    goal = next(i for i, line in enumerate(lines) if line.startswith("GOAL:"))
    later = [i for i, line in enumerate(lines) if line.startswith("AGENT:")][-2]
    return [
        text.replace('GOAL: "', 'GOAL: "x', 1),
        "\n".join([*lines[:later], "", *lines[later:]]),  # the last two agents move down
        text.replace("HISTORY: full", "HISTORY: none", 1),
        text.replace("    WHEN: ", "    WHEN: NOT ", 1),
        "\n".join([*lines[: goal + 1], "# a note", *lines[goal + 1 :]]),  # inside the first agent
    ]


def test_keystrokes_patch_the_last_graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import abl.workspace.graph as graph_module

    project = generated_project(tmp_path / "p", 200)
    project.graph()
    rebuilt: list[str] = []
    for name in ("_assemble", "_reposition"):
        real = getattr(graph_module, name)
        monkeypatch.setattr(graph_module, name, lambda *a, _real=real, _name=name: rebuilt.append(_name) or _real(*a))
    for path in sorted(project.documents)[:3]:
        original = project.texts[path]
        for text in [*keystrokes(original), original]:
            before = project.graph()
            project.edit(path, text)
            after = project.graph()
            assert rebuilt == [], f"the graph was put together again ({rebuilt}) after {text[:80]!r}"
            assert after._lineage == before._lineage
            assert drawn(after) == drawn(scratch(project)), (path, text[:80])
            rebuilt.clear()  # `scratch` assembles a graph of its own


def test_a_keystroke_in_an_agent_with_two_handoff_sections(tmp_path: Path) -> None:
    # Both sections number their routes from 0: two routes share an index, and a way back each.
    (tmp_path / "p").mkdir()
    text = (
        "SUPERVISOR: Hub\nGOAL: g\nHANDOFF:\n  - TO: Desk\n    RETURN: true\n"
        "HANDOFF:\n  - TO: Desk\n    WHEN: x IS SET\n    RETURN: true\n\n"
        "AGENT: Desk\nGOAL: d\n"
    )
    (tmp_path / "p" / "a.abl").write_text(text, encoding="utf-8")
    projects, _ = load_projects([str(tmp_path / "p")])
    project = projects[0]
    path = next(iter(project.documents))
    project.graph()
    for edited in (text.replace("GOAL: g", "GOAL: gg"), "# above\n" + text, text):
        project.edit(path, edited)
        assert drawn(project.graph()) == drawn(scratch(project))


@pytest.mark.parametrize("second", ["Nowhere", "Desk"])
def test_each_way_back_of_a_shared_route_index_carries_its_own_map(tmp_path: Path, second: str) -> None:
    # Route 0 of each section returns; only the first says what it maps on return. The ways back
    # are drawn where the last one says, each with its own route's MAP (none for the first).
    (tmp_path / "p").mkdir()
    text = (
        "SUPERVISOR: Hub\nGOAL: g\nHANDOFF:\n  - TO: Desk\n    RETURN: true\n"
        f"HANDOFF:\n  - TO: {second}\n    RETURN: true\n    ON_RETURN:\n      MAP:\n        one: amount\n\n"
        "AGENT: Desk\nGOAL: d\n"
    )
    (tmp_path / "p" / "a.abl").write_text(text, encoding="utf-8")
    projects, _ = load_projects([str(tmp_path / "p")])
    project = projects[0]
    path = next(iter(project.documents))
    project.graph()
    for edited in (text.replace("GOAL: g", "GOAL: gg"), text.replace("one: amount", "one: amounts"), text):
        project.edit(path, edited)
        assert drawn(project.graph()) == drawn(scratch(project))
        project.edit(path, "# above\n" + edited)  # moved, then re-read below
        assert drawn(project.graph()) == drawn(scratch(project))


def test_the_reuse_tables_hold_only_the_agents_of_now(tmp_path: Path) -> None:
    """Each agent's share of the last assembly (kept for the next one) follows the agent through
    moves and keystrokes: a replaced agent held there would keep its blocks, and through them a
    copy of the file's text of its time, alive for as long as the graph lives."""
    project = generated_project(tmp_path, 30)
    project.graph()
    path = sorted(project.documents)[0]
    for text in [*edits(project.texts[path]), project.texts[path]]:
        project.edit(path, text)
        project.graph()
        now = {id(ref.agent) for ref in project.all_agents()}
        held = project._graph_builder._reuse.shares.values()  # type: ignore[union-attr]
        assert all(id(share.agent) in now for share in held), "a share holds a replaced agent"


def _enter_after(text: str, prefix: str, nth: int) -> str:
    """Enter at the end of the `nth` line that starts with `prefix`: a blank line below it."""
    lines = text.split("\n")
    row = [i for i, line in enumerate(lines) if line.startswith(prefix)][nth]
    return "\n".join([*lines[: row + 1], "", *lines[row + 1 :]])


def test_agents_below_a_new_line_keep_their_very_nodes_and_edges(tmp_path: Path) -> None:
    """Their ranges are anchored to their blocks: the blocks moved, and so did what they read."""
    project = generated_project(tmp_path / "p", 40)
    path = sorted(project.documents)[0]
    before = project.graph()
    first = project.documents[path].agents[0].name.text
    below = [e for e in before.edges if e.path == path and e.source != first and e.kind.value != "return"]
    rows = [e.range.start.line for e in below]
    project.edit(path, _enter_after(project.texts[path], "GOAL:", 0))
    after = project.graph()
    assert below and all(any(e is f for f in after.edges) for e in below), "the edges were made again"
    assert [e.range.start.line for e in below] == [row + 1 for row in rows]
    second = project.documents[path].agents[1].name.text
    assert after.nodes[second] is before.nodes[second]
    assert drawn(after) == drawn(scratch(project))


def test_a_line_between_the_sections_of_one_agent(tmp_path: Path) -> None:
    """Its header stays, its later sections move: its edges are kept, each reading its own
    block's rows, and the graph is the one a build from scratch draws."""
    project = generated_project(tmp_path / "p", 40)
    path = sorted(project.documents)[0]
    second = project.documents[path].agents[1]
    before = project.graph()
    node = before.nodes[second.name.text]
    routes = [e for e in before.edges if e.source == second.name.text and e.key is not None]
    project.edit(path, _enter_after(project.texts[path], "GOAL:", 1))  # between its GOAL and HANDOFF
    after = project.graph()
    assert after.nodes[second.name.text] is node and node.range == before.nodes[second.name.text].range
    assert routes and all(any(e is f for f in after.edges) for e in routes)
    assert drawn(after) == drawn(scratch(project))
    project.edit(path, project.texts[path].replace("\n\n", "\n", 1))  # and back (the first blank line)
    assert drawn(project.graph()) == drawn(scratch(project))
