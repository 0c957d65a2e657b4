"""`abl graph` as a user runs it: formats, selection, usage errors, and the HTML page opened in
headless Chromium, which must draw every node (a screenshot is kept as an artifact)."""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from graph_projects import EXAMPLES, generated_project

ABL = [sys.executable, "-m", "abl"]


def abl(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ABL, "graph", *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_json_of_an_example() -> None:
    done = abl(str(EXAMPLES / "loan-supervisor"), "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["version"] == 1 and data["roots"] == ["Loan_Supervisor"]
    assert [(e["from"], e["to"], e["kind"], e["returnable"]) for e in data["edges"]] == [
        ("Loan_Supervisor", "Income_Capture_Agent", "handoff", True),
        ("Loan_Supervisor", "Offer_Agent", "handoff", False),
        ("Income_Capture_Agent", "Loan_Supervisor", "return", True),
    ]
    assert data["nodes"][0]["path"].endswith("loan-supervisor.agent.abl")


def test_several_projects_are_told_apart() -> None:
    data = json.loads(abl(str(EXAMPLES), "--format", "json").stdout)
    ids = [n["id"] for n in data["nodes"]]
    assert "retail-hub/Retail_Hub" in ids and "loan-supervisor/Loan_Supervisor" in ids
    assert len(ids) == len(set(ids))


def test_agent_and_depth() -> None:
    done = abl(str(EXAMPLES / "retail-hub"), "--agent", "Returns_Agent", "--depth", "1", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert sorted(n["id"] for n in json.loads(done.stdout)["nodes"]) == ["Retail_Hub", "Returns_Agent"]


def test_mermaid_is_the_default_and_output_goes_to_a_file(tmp_path: Path) -> None:
    assert abl(str(EXAMPLES / "retail-hub")).stdout.startswith("flowchart LR\n")
    out = tmp_path / "g.dot"
    done = abl(str(EXAMPLES / "retail-hub"), "--format", "dot", "-o", str(out))
    assert done.returncode == 0 and done.stdout == ""
    assert out.read_text().startswith("digraph abl {")


@pytest.mark.parametrize(
    "args, message",
    [
        (["nowhere"], "cannot read nowhere"),
        (["examples/retail-hub", "--agent", "Retail_Hb"], "did you mean Retail_Hub"),
        (["examples/retail-hub", "--depth", "-2"], "invalid depth"),
        (["examples/retail-hub", "--format", "svg"], "invalid choice"),
        ([], "the following arguments are required"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args: list[str], message: str) -> None:
    done = abl(*args, cwd=EXAMPLES.parent)
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


# --- the HTML page in a real browser ---------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BROWSER = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--virtual-time-budget=5000",
]


def browser(*args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run([CHROMIUM, *BROWSER, *args], capture_output=True, text=True, timeout=120)


def artifacts(tmp_path: Path) -> Path:
    """Where screenshots are kept: `ABL_TEST_ARTIFACTS` when set, else the test's own folder."""
    folder = Path(os.environ.get("ABL_TEST_ARTIFACTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
@pytest.mark.parametrize("source", ["examples", "generated"])
def test_the_html_page_draws_every_node(tmp_path: Path, source: str) -> None:
    root = EXAMPLES if source == "examples" else tmp_path / "generated"
    if source == "generated":
        generated_project(root, 24)
    page = tmp_path / "graph.html"
    assert abl(str(root), "--format", "html", "-o", str(page)).returncode == 0
    data = json.loads(abl(str(root), "--format", "json").stdout)
    html = page.read_text(encoding="utf-8")
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html  # no network

    dom = browser("--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    drawn = set(re.findall(r'data-node="([^"]*)"', dom.stdout))
    wanted = {n["id"] for n in data["nodes"]}
    assert wanted and wanted <= {_unescape(d) for d in drawn}, sorted(wanted - drawn)
    assert len(re.findall(r'data-edge="\d+"', dom.stdout)) == len(data["edges"])

    shot = artifacts(tmp_path) / f"graph-{source}.png"
    taken = browser("--hide-scrollbars", "--window-size=1400,900", f"--screenshot={shot}", page.as_uri())
    assert taken.returncode == 0 and shot.is_file() and shot.stat().st_size > 5_000, taken.stderr[-2000:]


TWO_ROUTES = """\
SUPERVISOR: Hub
GOAL: "Route billing questions"

HANDOFF:
  - TO: Billing_Agent
    WHEN: intent.category == "billing"
    HISTORY: none
  - TO: Billing_Agent
    WHEN: intent.category == "invoice"
    HISTORY: last_5
  - TO: Orders_Agent
    WHEN: intent.category == "orders"
    HISTORY: summary_only

AGENT: Billing_Agent
GOAL: "Answer billing questions"

AGENT: Orders_Agent
GOAL: "Answer order questions"
"""


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_the_html_page_keeps_edge_labels_apart(tmp_path: Path) -> None:
    # Two routes between the same agents share their middle: their labels must not be drawn
    # over each other (nor over the label of the route beside them).
    (tmp_path / "hub.agent.abl").write_text(TWO_ROUTES, encoding="utf-8")
    page = tmp_path / "graph.html"
    assert abl(str(tmp_path), "--format", "html", "-o", str(page)).returncode == 0
    dom = browser("--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    labels = [
        (float(x), float(y), _unescape(text))
        for x, y, text in re.findall(r'<text x="([-\d.]+)" y="([-\d.]+)" class="label">([^<]*)</text>', dom.stdout)
    ]
    assert len(labels) == 3, labels
    width = lambda text: 5.5 * len(text) + 8  # noqa: E731 (the page's own estimate)
    for i, (x1, y1, a) in enumerate(labels):
        for x2, y2, b in labels[i + 1 :]:
            assert abs(x1 - x2) * 2 >= width(a) + width(b) or abs(y1 - y2) >= 13, (a, b, labels)


def _unescape(text: str) -> str:
    return text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_the_html_page_routes_a_way_back_clear_of_every_box(tmp_path: Path) -> None:
    # The income agent's way back to the loan supervisor starts beside the offer agent, the
    # sibling drawn just below it: it must go round that box, not through it (nor any other).
    page = tmp_path / "graph.html"
    assert abl(str(EXAMPLES / "loan-supervisor"), "--format", "html", "-o", str(page)).returncode == 0
    dom = browser("--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    boxes = {
        _unescape(name): (float(x), float(y), float(w), float(h))
        for name, x, y, w, h in re.findall(
            r'data-node="([^"]*)" transform="translate\(([-\d.]+),([-\d.]+)\)"><rect width="([\d.]+)" height="([\d.]+)"',
            dom.stdout,
        )
    }
    assert set(boxes) == {"Loan_Supervisor", "Income_Capture_Agent", "Offer_Agent"}, boxes
    paths = re.findall(r'<g class="edge return" data-edge="\d+"><path d="([^"]*)"', dom.stdout)
    assert len(paths) == 1, dom.stdout[-3000:]
    drawn = _points_along(paths[0])
    for name, (x, y, w, h) in boxes.items():
        inside = [(px, py) for px, py in drawn if x < px < x + w and y < py < y + h]
        assert not inside, f"the way back runs through {name} at {inside[:3]}: {paths[0]}"


CROSSING_ROUTES = """\
SUPERVISOR: Sales
GOAL: "Sell"

HANDOFF:
  - TO: Archive
    WHEN: wants_the_old_orders AND order_id IS SET
  - TO: Quotes
    WHEN: wants_a_quote
  - TO: Tickets
    WHEN: angry

SUPERVISOR: Support
GOAL: "Help"

HANDOFF:
  - TO: Quotes
    WHEN: upsell
  - TO: Tickets
    WHEN: ticket_id IS SET

AGENT: Archive
GOAL: "Find old orders"

AGENT: Quotes
GOAL: "Quote"

AGENT: Tickets
GOAL: "Ticket"
"""


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)")
def test_the_html_page_keeps_labels_clear_of_other_edges(tmp_path: Path) -> None:
    # Both supervisors route to Quotes and Tickets, so two routes cross in the middle of the gap,
    # where labels centred on their routes would be cut through; each has a clear place further along.
    (tmp_path / "sales.agent.abl").write_text(CROSSING_ROUTES, encoding="utf-8")
    page = tmp_path / "graph.html"
    assert abl(str(tmp_path), "--format", "html", "-o", str(page)).returncode == 0
    dom = browser("--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    edges = []
    for drawn in dom.stdout.split('<g class="edge ')[1:]:
        path = re.search(r'<path d="([^"]*)" class="hit"', drawn)
        label = re.search(r'<text x="([-\d.]+)" y="([-\d.]+)" class="label">([^<]*)</text>', drawn)
        assert path is not None and label is not None, drawn
        edges.append((_points_along(path[1]), float(label[1]), float(label[2]), _unescape(label[3])))
    assert len(edges) == 5
    for i, (_, x, y, text) in enumerate(edges):
        half = (5.5 * len(text) + 8) / 2  # the page's own estimate of a 10px label's box
        crossed_by = [
            edges[j][3]
            for j, (points, *_) in enumerate(edges)
            if j != i and any(x - half < px < x + half and y - 10 < py < y + 3 for px, py in points)
        ]
        assert crossed_by == [], f"{text!r} at {x},{y} is crossed by the lines of {crossed_by}"


def _points_along(d: str) -> list[tuple[float, float]]:
    """Points every pixel or so along an SVG path of `M`, `L`, `Q` and `C` commands with
    absolute coordinates (what the page draws)."""
    at = (0.0, 0.0)
    points: list[tuple[float, float]] = []
    for command, numbers in re.findall(r"([MLQC])([^MLQC]*)", d):
        values = [float(v) for v in re.findall(r"-?[\d.]+(?:e-?\d+)?", numbers)]
        ends = [at, *zip(values[::2], values[1::2], strict=True)]
        if command == "M":
            at = ends[-1]
            continue
        steps = max(2, int(sum(math.dist(p, q) for p, q in itertools.pairwise(ends))))
        points.extend(_bezier(ends, i / steps) for i in range(1, steps + 1))
        at = ends[-1]
    return points


def _bezier(controls: list[tuple[float, float]], t: float) -> tuple[float, float]:
    while len(controls) > 1:
        controls = [(p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t) for p, q in itertools.pairwise(controls)]
    return controls[0]
