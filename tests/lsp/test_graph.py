"""The handoff graph over the protocol: the `abl/graph` request (the JSON of `abl graph --format
json`, with URIs and ranges in the client's encoding) and the `abl/graphChanged` notification
after an edit that adds a route."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import jsonschema
import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from conftest import SERVER, WAIT_S, capabilities, change_document, open_document, start, write_workspace

pytestmark = pytest.mark.asyncio

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "docs" / "graph.schema.json").read_text(encoding="utf-8"))

# The route's last line holds a character outside the BMP: two UTF-16 units, one code point.
HUB = """\
SUPERVISOR: Loan_Hub
GOAL: "Route loan requests"
HANDOFF:
  - TO: Income_Agent
    WHEN: wants_loan == true
    RETURN: true
    ON_RETURN:
      MAP:
        salary: annual_income
    SUMMARY: "Collect the income 💰"
"""

INCOME = """\
AGENT: Income_Agent
GOAL: "Collect the annual income"
GATHER:
  annual_income:
    type: number
    prompt: "What is your annual income?"
"""

OFFER = """\
AGENT: Offer_Agent
GOAL: "Explain the offers"
"""


@pytest_lsp.fixture(config=SERVER)
async def grapher(lsp_client: LanguageClient, tmp_path: Path):
    root = tmp_path / "loan"
    write_workspace(root, {"hub.abl": HUB, "income.abl": INCOME, "offer.abl": OFFER})
    lsp_client.root = root  # type: ignore[attr-defined]
    lsp_client.graph_changes = []  # type: ignore[attr-defined]
    lsp_client.graph_changed = asyncio.Event()  # type: ignore[attr-defined]

    @lsp_client.feature("abl/graphChanged")
    def on_graph_changed(params) -> None:
        lsp_client.graph_changes.append(params)  # type: ignore[attr-defined]
        lsp_client.graph_changed.set()  # type: ignore[attr-defined]

    await start(lsp_client, root, capabilities("visual-studio-code"))
    yield
    await lsp_client.shutdown_session()


def plain(value):  # type: ignore[no-untyped-def]
    """A custom method's answer as plain JSON values (the client may hand back objects)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if hasattr(value, "_asdict"):
        # The test client reads objects into named tuples, which rename the fields that are
        # Python keywords after their position: in an edge, `from` is first and `pass` eighth.
        renamed = {"_0": "from", "_7": "pass"}
        return {renamed.get(k, k): plain(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return {k: plain(v) for k, v in vars(value).items()}


async def graph(client: LanguageClient, params: dict) -> dict:
    return plain(await client.protocol.send_request_async("abl/graph", params))


async def next_change(client: LanguageClient) -> dict:
    await asyncio.wait_for(client.graph_changed.wait(), WAIT_S)  # type: ignore[attr-defined]
    client.graph_changed.clear()  # type: ignore[attr-defined]
    return plain(client.graph_changes[-1])  # type: ignore[attr-defined]


async def test_the_graph_request(grapher: LanguageClient) -> None:
    root: Path = grapher.root  # type: ignore[attr-defined]
    data = await graph(grapher, {"uri": (root / "hub.abl").as_uri()})
    jsonschema.validate(data, SCHEMA)
    assert {n["id"]: n["kind"] for n in data["nodes"]} == {
        "Loan_Hub": "supervisor",
        "Income_Agent": "agent",
        "Offer_Agent": "agent",
    }
    assert data["unreachable"] == ["Offer_Agent"]
    route = next(e for e in data["edges"] if e["kind"] == "handoff")
    assert route["uri"] == (root / "hub.abl").as_uri() and "path" not in route
    assert route["returnable"] and route["history"] == "full" and route["condition"] == "wants_loan == true"
    assert "UNKNOWN_HANDOFF_RETURN_FIELD" in route["diagnostics"]
    # The route ends after the 💰 and the closing quote: UTF-16 counts the emoji twice.
    last = HUB.splitlines()[9]
    assert route["range"]["end"] == {"line": 9, "character": len(last) + 1}
    assert route["range"]["start"] == {"line": 3, "character": 2}
    back = next(e for e in data["edges"] if e["kind"] == "return")
    assert (back["from"], back["to"], back["map"]) == (
        "Income_Agent",
        "Loan_Hub",
        [{"child": "salary", "parent": "annual_income"}],
    )
    offer = next(n for n in data["nodes"] if n["id"] == "Offer_Agent")
    assert offer["diagnostics"] == ["UNREACHABLE_AGENT"] and offer["uri"].endswith("/offer.abl")


async def test_selection_and_the_whole_workspace(grapher: LanguageClient) -> None:
    near = await graph(grapher, {"agent": "Income_Agent", "depth": 1})
    assert sorted(n["id"] for n in near["nodes"]) == ["Income_Agent", "Loan_Hub"]
    everything = await graph(grapher, {})
    assert len(everything["nodes"]) == 3
    assert (await graph(grapher, {"agent": "Nobody"}))["nodes"] == []


async def test_an_edit_that_adds_a_route_is_announced(grapher: LanguageClient) -> None:
    root: Path = grapher.root  # type: ignore[attr-defined]
    await graph(grapher, {"uri": root.as_uri()})  # a view asks once, then is told of changes
    uri = open_document(grapher, root / "hub.abl")
    added = HUB + "  - TO: Offer_Agent\n    WHEN: annual_income IS SET\n"
    change_document(grapher, uri, 2, added)
    assert await next_change(grapher) == {"uri": root.as_uri()}
    data = await graph(grapher, {"uri": uri})
    assert ("Loan_Hub", "Offer_Agent") in {(e["from"], e["to"]) for e in data["edges"]}
    assert data["unreachable"] == []
    grapher.graph_changed.clear()  # type: ignore[attr-defined]
    # An edit that changes nothing a drawing shows is not announced.
    change_document(grapher, uri, 3, added + "# a comment\n")
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(grapher.graph_changed.wait(), 1.5)  # type: ignore[attr-defined]


async def test_positions_follow_the_negotiated_encoding(grapher: LanguageClient) -> None:
    """VS Code negotiates UTF-16; the code point count would be one less."""
    data = await graph(grapher, {"uri": (grapher.root / "hub.abl").as_uri()})  # type: ignore[attr-defined]
    ranges = [e["range"] for e in data["edges"] if e["kind"] == "handoff"]
    assert ranges[0]["end"]["character"] == len(HUB.splitlines()[9]) + 1
    assert isinstance(lsp.Position(**ranges[0]["end"]), lsp.Position)
