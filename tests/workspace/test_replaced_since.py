"""A project's log of replaced agents: what readers (the check cache, the handed-over names)
use to do the work of a change instead of a pass over every agent. A reader holds the agents
it knows, so those are the ones a test holds here."""

from __future__ import annotations

import gc

from abl.workspace import Project
from abl.workspace import index as index_module

TWO = 'AGENT: A\nGOAL: "a"\n\nAGENT: B\nGOAL: "b"\n'


def names(agents: list) -> list[str]:
    return [agent.name.text for agent in agents]


def test_each_change_lists_the_agents_it_dropped_and_read() -> None:
    project = Project("/p")
    project.update("/p/one.abl", TWO)
    start, held = project.revision, project.all_agent_objects()
    project.edit("/p/one.abl", TWO.replace('"b"', '"bb"'))
    held += project.all_agent_objects()
    project.edit("/p/one.abl", TWO.replace('"b"', '"bb"'))  # the same text: no change
    project.update("/p/two.abl", 'AGENT: C\nGOAL: "c"\n')
    project.remove("/p/one.abl")
    replaced = project.replaced_since(start)
    assert replaced is not None
    assert [(names(dropped), names(read)) for dropped, read in replaced] == [
        (["B"], ["B"]),  # only the agent whose block changed
        ([], ["C"]),
        (["A", "B"], []),
    ]
    assert replaced[0][0][0] is held[1] and replaced[0][1][0] is held[3]
    assert project.replaced_since(project.revision) == []


def test_an_agent_nothing_holds_any_more_is_left_out() -> None:
    project = Project("/p")
    project.update("/p/one.abl", TWO)
    start, held = project.revision, project.all_agent_objects()
    for n in range(3):
        project.edit("/p/one.abl", TWO.replace('"b"', f'"b{n}"'))
    gc.collect()
    replaced = project.replaced_since(start)
    assert replaced is not None
    # The first B (held) was dropped; the Bs read and dropped since are freed, and the last is
    # the project's: nothing else stands for an agent a reader must forget or learn.
    dropped = [agent for gone, _ in replaced for agent in gone]
    read = [agent for _, came in replaced for agent in came]
    assert held[1] in dropped
    assert read[-1] is project.agent("B")
    assert len(read) < 3


def test_a_log_that_no_longer_reaches_back_says_so() -> None:
    project = Project("/p")
    project.update("/p/one.abl", TWO)
    start = project.revision
    for n in range(index_module._KEPT_CHANGES + 1):
        project.edit("/p/one.abl", TWO.replace('"b"', f'"b{n}"'))
    assert project.replaced_since(start) is None
    assert project.replaced_since(project.revision - 1) is not None
    assert project.replaced_since(project.revision + 1) is None
