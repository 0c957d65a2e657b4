"""The handoff graph model: nodes, edges and their kinds and ranges, hand-backs, reachability and
cycles, on the bundled examples, on fixture texts and on generated projects."""

from __future__ import annotations

from pathlib import Path

import pytest
from graph_projects import EXAMPLES, example, fixture_project, generated_project

from abl.text import Range
from abl.workspace import Project
from abl.workspace.graph import ESCALATION_ID, EdgeKind, GraphBuilder, NodeKind, build_graph

CASES = Path(__file__).resolve().parents[1] / "checks" / "cases"
CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def text_at(project: Project, path: str, r: Range) -> str:
    lines = project.texts[path].splitlines()
    if r.start.line == r.end.line:
        return lines[r.start.line][r.start.character : r.end.character]
    return "\n".join(
        [
            lines[r.start.line][r.start.character :],
            *lines[r.start.line + 1 : r.end.line],
            lines[r.end.line][: r.end.character],
        ]
    )


def test_the_loan_supervisor_example() -> None:
    project = example("loan-supervisor")
    graph = project.graph()
    assert [(n.id, n.kind) for n in graph.nodes.values()] == [
        ("Loan_Supervisor", NodeKind.SUPERVISOR),
        ("Income_Capture_Agent", NodeKind.AGENT),
        ("Offer_Agent", NodeKind.AGENT),
    ]
    edges = [(e.source, e.target, e.kind, e.returnable, e.history) for e in graph.edges]
    assert edges == [
        ("Loan_Supervisor", "Income_Capture_Agent", EdgeKind.HANDOFF, True, "summary_only"),
        ("Loan_Supervisor", "Offer_Agent", EdgeKind.HANDOFF, False, "full"),
        ("Income_Capture_Agent", "Loan_Supervisor", EdgeKind.RETURN, True, None),
    ]
    income, offer, back = graph.edges
    assert income.condition == "annual_income IS NOT SET"
    assert income.maps == (("annual_income", "annual_income"),) and back.maps == income.maps
    assert offer.passes == ("annual_income",)
    # Every range is where the thing is written: the name in the header, the whole route item,
    # the `ON_RETURN` block for the way back.
    path = graph.nodes["Income_Capture_Agent"].path
    assert path is not None
    assert text_at(project, path, graph.nodes["Income_Capture_Agent"].range) == "Income_Capture_Agent"
    assert text_at(project, income.path, income.range).startswith("- TO: Income_Capture_Agent")
    assert "ON_FAILURE: RESPOND" in text_at(project, income.path, income.range)
    assert text_at(project, back.path, back.range).startswith("ON_RETURN:")
    assert graph.roots == ("Loan_Supervisor",) and graph.unreachable == () and graph.cycles == ()


def test_a_child_that_hands_back_to_its_waiting_parent_closes_no_cycle() -> None:
    graph = example("loan-supervisor-variations/hand-back").graph()
    hand_back = next(e for e in graph.edges if e.kind is EdgeKind.HANDOFF and e.source == "Income_Capture_Agent")
    assert hand_back.target == "Loan_Supervisor" and hand_back.hand_back and not hand_back.returnable
    assert graph.cycles == ()
    assert graph.cycle_through("Income_Capture_Agent", hand_back.route) is None  # type: ignore[arg-type]


def test_history_as_the_platform_reads_it() -> None:
    graph = example("retail-hub").graph()
    modes = {e.target: (e.history, e.history_count) for e in graph.edges}
    assert modes == {
        "Order_Status_Agent": ("none", None),
        "Returns_Agent": ("last_n", 6),
        "Complaint_Agent": ("full", None),
    }


@pytest.mark.parametrize(
    "name", sorted(p.parent.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("project.json"))
)
def test_every_example_is_reachable_and_loop_free(name: str) -> None:
    graph = example(name).graph()
    assert graph.unreachable == () and graph.cycles == ()
    assert graph.roots and all(graph.nodes[r].kind is NodeKind.SUPERVISOR for r in graph.roots)


def test_delegates_escalations_tools_and_odd_targets() -> None:
    project = fixture_project(
        """
SUPERVISOR: Desk
GOAL: "Route"
BEHAVIOR:
  role: orchestrator
TOOLS:
  lookup(id: string) -> {status: string}
    description: "Look up"
HANDOFF:
  - TO: Missing_Agent
    WHEN: "anything"
  - TO: Far_Agent
    REMOTE:
      endpoint: "https://example.invalid/a2a"
  - TO: Helper
    WHEN: x == 1
    ON_FAILURE: HANDOFF Fallback
DELEGATE:
  - AGENT: Helper
    PURPOSE: "help"
    RETURNS:
      answer: answer
ESCALATE:
  triggers:
    - WHEN: angry == true
      REASON: "upset"

AGENT: Helper
GOAL: "Help"

AGENT: Fallback
GOAL: "Fall back"
"""
    )
    graph = project.graph()
    kinds = {n.id: n.kind for n in graph.nodes.values()}
    assert kinds == {
        "Desk": NodeKind.SUPERVISOR,
        "Helper": NodeKind.AGENT,
        "Fallback": NodeKind.AGENT,
        "tool:lookup": NodeKind.TOOL,
        "Missing_Agent": NodeKind.MISSING,
        "remote:Far_Agent": NodeKind.REMOTE,
        ESCALATION_ID: NodeKind.ESCALATION,
    }
    by_kind = {(e.kind, e.target) for e in graph.edges}
    assert (EdgeKind.DELEGATE, "Helper") in by_kind and (EdgeKind.ESCALATE, ESCALATION_ID) in by_kind
    assert (EdgeKind.TOOL, "tool:lookup") in by_kind and (EdgeKind.HANDOFF, "remote:Far_Agent") in by_kind
    via = next(e for e in graph.edges if e.target == "Fallback")
    assert via.kind is EdgeKind.HANDOFF and via.via == "ON_FAILURE"
    delegate = next(e for e in graph.edges if e.kind is EdgeKind.DELEGATE)
    assert delegate.maps == (("answer", "answer"),)
    assert graph.unreachable == ()  # Fallback is reached through the `ON_FAILURE` handoff


def test_unreachable_agents_and_the_roots_without_a_supervisor() -> None:
    with_supervisor = fixture_project((CASES / "UNREACHABLE_AGENT.fires.abl").read_text())
    graph = with_supervisor.graph()
    assert graph.roots == ("Retail_Hub",)
    assert graph.unreachable == ("Complaint_Agent", "Survey_Agent")
    # Without a supervisor any agent could be the entry: roots are the agents nothing routes
    # to, plus the first agent of a group that only routes among itself; nothing is unreachable.
    without = fixture_project(
        """
AGENT: A
GOAL: "a"
HANDOFF:
  - TO: B
AGENT: B
GOAL: "b"
AGENT: C
GOAL: "c"
HANDOFF:
  - TO: D
AGENT: D
GOAL: "d"
HANDOFF:
  - TO: C
"""
    )
    graph = without.graph()
    assert graph.roots == ("A", "C") and graph.unreachable == ()
    assert graph.cycles == (("C", "D"),)


def test_cycles_with_their_path_and_hand_backs_through_permanent_handoffs() -> None:
    graph = fixture_project((CASES / "HANDOFF_CYCLE.fires.abl").read_text()).graph()
    assert graph.cycles == (("Support_Hub", "Orders_Agent", "Billing_Agent"),)
    assert graph.cycle_through("Billing_Agent", 0) == ("Billing_Agent", "Support_Hub", "Orders_Agent")
    fine = fixture_project((CASES / "HANDOFF_CYCLE.ok.abl").read_text()).graph()
    assert fine.cycles == ()
    backs = sorted(e.source for e in fine.edges if e.hand_back)
    assert backs == ["Billing_Agent", "Orders_Agent"]  # the child, and the agent it handed on to


def test_generated_projects(tmp_path: Path) -> None:
    """bench/generate.py's projects: every agent routes to the next (returnable) and to the
    seventh after it (permanent), so the agents form one big loop and there is no supervisor."""
    project = generated_project(tmp_path / "p", 60)
    graph = project.graph()
    agents = [n for n in graph.nodes.values() if n.kind is NodeKind.AGENT]
    assert len(agents) == 60 and graph.unreachable == ()
    handoffs = [e for e in graph.edges if e.kind is EdgeKind.HANDOFF]
    returns = [e for e in graph.edges if e.kind is EdgeKind.RETURN]
    assert len(handoffs) == 120 and len(returns) == 60
    assert len(graph.cycles) == 1
    for e in handoffs:
        cycle = graph.cycle_through(e.source, e.route)  # type: ignore[arg-type]
        if cycle is None:
            assert e.hand_back
            continue
        # A real cycle: consecutive agents are joined by non-hand-back routes, no agent twice.
        assert cycle[0] == e.source and cycle[1] == e.target and len(set(cycle)) == len(cycle)
        joined = {(x.source, x.target) for x in handoffs if not x.hand_back}
        assert all((a, b) in joined for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True))


def test_an_edit_reuses_the_edges_of_untouched_agents(tmp_path: Path) -> None:
    project = generated_project(tmp_path / "p", 40)
    before = project.graph()
    path = sorted(project.documents)[0]
    text = project.texts[path]
    project.edit(path, text.replace('GOAL: "Handle request family 0 ', 'GOAL: "Handle request family zero ', 1))
    after = project.graph()
    assert after is not before and after.fingerprint() == before.fingerprint()
    project.edit(path, project.texts[path].replace("    RETURN: false\n", "    RETURN: true\n", 1))
    assert project.graph().fingerprint() != before.fingerprint()


def _all_fixture_texts() -> list[Path]:
    return sorted(CASES.glob("*.abl")) + sorted(CORPUS.rglob("*.abl"))


@pytest.mark.parametrize("path", _all_fixture_texts(), ids=lambda p: p.name)
def test_never_raises(path: Path) -> None:
    """Half-typed files, missing targets, duplicate names: the graph is built anyway, and every
    edge joins two of its nodes."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    project = fixture_project(text)
    for cut in (len(text), len(text) // 2, len(text) // 3):  # also half-typed versions
        project.update("/cut.abl", text[:cut])
        graph = GraphBuilder().build(ref.agent for ref in project.all_agents())
        assert all(e.source in graph.nodes and e.target in graph.nodes for e in graph.edges)
        for e in graph.edges:
            if e.key is not None:
                graph.cycle_through(*e.key)


def test_build_graph_is_the_same_as_the_project_graph() -> None:
    project = example("silent-traps")
    assert build_graph(r.agent for r in project.all_agents()).fingerprint() == project.graph().fingerprint()
