"""The graph's diagnostics stay right under the check cache: an edit in one file changes what
the rules report on agents in other files, and an edit that changes nothing they read leaves
their results in place."""

from __future__ import annotations

from pathlib import Path

from graph_projects import fixture_project

from abl.checks.cache import CheckCache
from abl.checks.engine import CheckOptions, check_project
from abl.workspace import Project

CASES = Path(__file__).resolve().parents[1] / "checks" / "cases"
OPTIONS = CheckOptions(strict_rules=True)


def codes(project: Project, cache: CheckCache) -> set[tuple[str, str]]:
    found = check_project(project, OPTIONS, cache)
    fresh = check_project(project, OPTIONS)
    assert found == fresh, "the cached check differs from a check from scratch"
    return {(path, d.code) for path, diags in found.items() for d in diags}


def test_a_route_removed_in_one_file_makes_agents_in_others_unreachable() -> None:
    project = fixture_project((CASES / "UNREACHABLE_AGENT.ok.abl").read_text())
    cache = CheckCache()
    assert not {c for _, c in codes(project, cache)} & {"UNREACHABLE_AGENT", "HANDOFF_CYCLE"}
    hub = project.texts["/agents/hub.agent.abl"]
    route = hub[hub.index("  - TO: Complaint_Agent") : hub.index("DELEGATE:")]
    project.edit("/agents/hub.agent.abl", hub.replace(route, ""))
    found = codes(project, cache)
    assert ("/agents/complaint.agent.abl", "UNREACHABLE_AGENT") in found
    assert ("/agents/survey.agent.abl", "UNREACHABLE_AGENT") in found
    project.edit("/agents/hub.agent.abl", hub)
    assert ("/agents/survey.agent.abl", "UNREACHABLE_AGENT") not in codes(project, cache)


def test_a_route_back_in_another_file_closes_a_loop() -> None:
    project = fixture_project((CASES / "HANDOFF_CYCLE.ok.abl").read_text())
    cache = CheckCache()
    assert "HANDOFF_CYCLE" not in {c for _, c in codes(project, cache)}
    hub = project.texts["/agents/hub.agent.abl"]
    project.edit("/agents/hub.agent.abl", hub.replace("    RETURN: true\n", ""))
    found = codes(project, cache)
    assert {p for p, c in found if c == "HANDOFF_CYCLE"} == {
        "/agents/hub.agent.abl",
        "/agents/orders.agent.abl",
        "/agents/billing.agent.abl",
    }


def test_the_way_back_of_a_returnable_child_follows_its_permanent_handoffs() -> None:
    project = fixture_project((CASES / "RETURNABLE_TARGET_CANNOT_RETURN.ok-through-permanent-handoff.abl").read_text())
    cache = CheckCache()
    assert "RETURNABLE_TARGET_CANNOT_RETURN" not in {c for _, c in codes(project, cache)}
    confirm = project.texts["/agents/confirm.agent.abl"]
    without = confirm[: confirm.index("COMPLETE:")] + 'FLOW:\n  done:\n    REASONING: false\n    RESPOND: "Done."\n'
    project.edit("/agents/confirm.agent.abl", without)
    assert ("/agents/hub.agent.abl", "RETURNABLE_TARGET_CANNOT_RETURN") in codes(project, cache)
    project.edit("/agents/confirm.agent.abl", confirm)
    assert ("/agents/hub.agent.abl", "RETURNABLE_TARGET_CANNOT_RETURN") not in codes(project, cache)


def test_an_edit_that_keeps_every_agent_reuses_the_graph_rules() -> None:
    project = fixture_project((CASES / "UNREACHABLE_AGENT.fires.abl").read_text())
    cache = CheckCache()
    codes(project, cache)
    text = project.texts["/agents/survey.agent.abl"]
    project.edit("/agents/survey.agent.abl", text + "# a comment at the end\n")
    check_project(project, OPTIONS, cache)
    graph_runs = [r for r in cache.runs if "UNREACHABLE_AGENT" in r.codes or "HANDOFF_CYCLE" in r.codes]
    assert graph_runs == [], "no agent changed, so the graph rules had nothing new to read"
