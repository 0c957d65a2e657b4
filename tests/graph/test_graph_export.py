"""`abl graph`'s outputs read back by real parsers: the JSON against `docs/graph.schema.json`,
DOT by pydot, Mermaid by Mermaid's own parser (run with Node.js), and the problems that sit on
each edge and node."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pydot
import pytest
from graph_projects import EXAMPLES, REPO, example, fixture_project, generated_project

from abl.cli.graph_text import to_dot, to_mermaid
from abl.ide.graph import checked_diagnostics, graph_view, merge_views, to_json

SCHEMA = json.loads((REPO / "docs" / "graph.schema.json").read_text(encoding="utf-8"))
CASES = Path(__file__).resolve().parents[1] / "checks" / "cases"
MERMAID_DIR = Path(__file__).resolve().parent / "mermaid"
# pydot's parser still calls pyparsing's old names, which warn.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:pydot")
EXAMPLE_NAMES = sorted(p.parent.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("project.json"))
# Fixtures whose graphs have every kind of node and edge, problems, loops and lost agents.
FIXTURES = [
    "UNREACHABLE_AGENT.fires.abl",
    "HANDOFF_CYCLE.fires.abl",
    "HANDOFF_CYCLE.ok.abl",
    "UNKNOWN_HANDOFF_RETURN_FIELD.fires.abl",
    "RETURNABLE_TARGET_CANNOT_RETURN.fires.abl",
    "INVALID_HANDOFF_TARGET.fires.abl",
    "INVALID_AGENT_NAME.fires.abl",
    "UNKNOWN_DELEGATE_RETURN_FIELD.fires.abl",
]


def view_of(project):  # type: ignore[no-untyped-def]
    return graph_view(project.graph(), checked_diagnostics(project))


def all_views(tmp_path: Path) -> dict[str, object]:
    views: dict[str, object] = {name: view_of(example(name)) for name in EXAMPLE_NAMES}
    for name in FIXTURES:
        views[name] = view_of(fixture_project((CASES / name).read_text(encoding="utf-8")))
    views["generated"] = view_of(generated_project(tmp_path / "generated", 30))
    views["all examples together"] = merge_views([(name, views[name]) for name in EXAMPLE_NAMES])  # type: ignore[misc]
    return views


def test_json_matches_its_schema(tmp_path: Path) -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for name, view in all_views(tmp_path).items():
        data = to_json(view)  # type: ignore[arg-type]
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(data)]
        assert not errors, f"{name}: {errors[:3]}"
        ids = {n["id"] for n in data["nodes"]}
        assert all(e["from"] in ids and e["to"] in ids for e in data["edges"]), name
        assert set(data["unreachable"]) <= ids and all(set(c) <= ids for c in data["cycles"]), name


def test_problems_sit_on_their_edges_and_nodes() -> None:
    data = to_json(view_of(fixture_project((CASES / "UNKNOWN_HANDOFF_RETURN_FIELD.fires.abl").read_text())))
    flagged = {(e["from"], e["to"], e["kind"]): e["diagnostics"] for e in data["edges"] if e["diagnostics"]}
    assert any("UNKNOWN_HANDOFF_RETURN_FIELD" in codes for (_, _, kind), codes in flagged.items() if kind == "handoff")
    assert any("UNKNOWN_HANDOFF_RETURN_FIELD" in codes for (_, _, kind), codes in flagged.items() if kind == "return")
    lost = to_json(view_of(fixture_project((CASES / "UNREACHABLE_AGENT.fires.abl").read_text())))
    assert lost["unreachable"] == ["Complaint_Agent", "Survey_Agent"]
    assert {n["id"]: n["diagnostics"] for n in lost["nodes"]}["Survey_Agent"] == ["UNREACHABLE_AGENT"]
    loop = to_json(view_of(fixture_project((CASES / "HANDOFF_CYCLE.fires.abl").read_text())))
    assert loop["cycles"] == [["Support_Hub", "Orders_Agent", "Billing_Agent"]]
    assert all("HANDOFF_CYCLE" in e["diagnostics"] for e in loop["edges"] if e["kind"] == "handoff")
    clean = to_json(view_of(example("loan-supervisor")))
    assert all(not e["diagnostics"] for e in clean["edges"])


def test_selection_around_an_agent() -> None:
    project = fixture_project((CASES / "UNREACHABLE_AGENT.fires.abl").read_text())
    diagnostics = checked_diagnostics(project)
    near = graph_view(project.graph(), diagnostics, agent="Complaint_Agent", depth=1)
    assert sorted(n.id for n in near.nodes) == ["Complaint_Agent", "Survey_Agent"]
    assert near.unreachable == ["Complaint_Agent", "Survey_Agent"] and near.roots == []
    alone = graph_view(project.graph(), diagnostics, agent="Retail_Hub", depth=0)
    assert [n.id for n in alone.nodes] == ["Retail_Hub"] and alone.edges == []
    top = graph_view(project.graph(), diagnostics, depth=1)
    assert sorted(n.id for n in top.nodes) == ["Retail_Hub", "Returns_Agent"]


def test_dot_parses_back_with_every_node_and_edge(tmp_path: Path) -> None:
    for name, view in all_views(tmp_path).items():
        text = to_dot(view)  # type: ignore[arg-type]
        graphs = pydot.graph_from_dot_data(text)
        assert graphs and len(graphs) == 1, f"{name}: pydot could not read\n{text}"
        graph = graphs[0]
        names = {n.get_name().strip('"') for n in graph.get_nodes()} - {"node", "edge", "graph"}
        assert names == {n.id for n in view.nodes}, name  # type: ignore[attr-defined]
        assert len(graph.get_edges()) == len(view.edges), name  # type: ignore[attr-defined]
        for node in view.nodes:  # type: ignore[attr-defined]
            assert graph.get_node(f'"{node.id}"'), f"{name}: {node.id}"


def test_dot_marks_returnable_and_problem_edges() -> None:
    view = view_of(fixture_project((CASES / "UNKNOWN_HANDOFF_RETURN_FIELD.fires.abl").read_text()))
    graph = pydot.graph_from_dot_data(to_dot(view))[0]
    styles = [(e.get("style") or "").strip('"') for e in graph.get_edges()]
    colours = [(e.get("color") or "").strip('"') for e in graph.get_edges()]
    assert "dotted" in styles  # the way back
    assert "#d1242f" in colours  # the route whose MAP reads an unknown field


@pytest.fixture(scope="session")
def mermaid_parser() -> Path:
    """Mermaid's parser, installed from the npm registry on first use (pinned in
    tests/graph/mermaid/package-lock.json). Skipped where Node.js or npm is not installed."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js and npm are needed to run Mermaid's own parser")
    if not (MERMAID_DIR / "node_modules" / "mermaid").is_dir():
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=MERMAID_DIR,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            pytest.skip(f"could not install Mermaid's parser: {done.stderr.strip()[-400:]}")
    return MERMAID_DIR / "parse.mjs"


def mermaid_errors(script: Path, texts: list[str]) -> list[str | None]:
    done = subprocess.run(
        ["node", str(script)], input=json.dumps(texts), capture_output=True, text=True, timeout=300, cwd=script.parent
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_mermaid_parses_with_mermaids_own_parser(tmp_path: Path, mermaid_parser: Path) -> None:
    views = all_views(tmp_path)
    texts = [to_mermaid(v) for v in views.values()]  # type: ignore[arg-type]
    # The parser is strict enough to refuse broken text, so that a pass means something.
    *results, broken = mermaid_errors(mermaid_parser, [*texts, 'flowchart LR\n  n0["a"] -->|"x| n1\n'])
    assert broken is not None
    for name, error in zip(views, results, strict=True):
        assert error is None, f"{name}: {error}"


def test_mermaid_text_has_every_node_and_edge_and_marks_them() -> None:
    view = view_of(fixture_project((CASES / "UNKNOWN_HANDOFF_RETURN_FIELD.fires.abl").read_text()))
    text = to_mermaid(view)
    assert text.count("-.->") == sum(1 for e in view.edges if e.returnable)
    for i, node in enumerate(view.nodes):
        assert f"n{i}" in text and node.label in text
    assert "linkStyle" in text and "#d1242f" in text
    quoted = to_mermaid(view_of(example("retail-hub")))
    assert "#quot;order_status#quot;" in quoted  # a quote in a WHEN cannot end the label
