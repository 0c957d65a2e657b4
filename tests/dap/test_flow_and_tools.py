"""Pause points of a flow, a tool and an escalation trigger, on a project written for these tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dap.client import DapClient

ROOT = Path(__file__).resolve().parents[2]
DESK = Path(__file__).resolve().parent / "projects" / "order-desk"
DESK_FILE = str(DESK / "order-desk.agent.abl")
MOCKS = str(DESK / "mocks.yaml")
_LINES = Path(DESK_FILE).read_text(encoding="utf-8").splitlines()


def line_of(text: str) -> int:
    return next(n for n, line in enumerate(_LINES, start=1) if line.strip() == text)


LOOK_UP = line_of("look_up:")
TOOL = line_of("check_stock(product_id: string) -> {available: boolean}")
PRODUCT_FIELD = line_of("- product_id: required")
TRIGGER = line_of('- WHEN: product_id == "HUMAN"')
STEPS_LIST = line_of("- look_up")


@pytest.fixture
def client() -> Iterator[DapClient]:
    made = DapClient(cwd=ROOT)
    yield made
    made.close()


def launch(messages: list[str]) -> dict[str, Any]:
    return {"program": str(DESK), "mocks": MOCKS, "messages": messages}


def test_a_flow_step_a_field_in_it_and_a_tool_are_pause_points(client: DapClient) -> None:
    client.start(launch(["hello", "SKU-42"]), {DESK_FILE: [{"line": PRODUCT_FIELD}, {"line": LOOK_UP}, {"line": TOOL}]})
    seen = []
    while True:
        event = client.wait_for_any("stopped", "terminated")
        if event["event"] == "terminated":
            break
        thread = event["body"]["threadId"]
        frame = client.top_frame(thread)
        seen.append((frame["line"], frame["name"], client.values(frame["id"]).get("product_id")))
        client.ok("continue", {"threadId": thread})
    assert seen == [
        (PRODUCT_FIELD, "Order_Desk: GATHER product_id", '"SKU-42"'),
        (LOOK_UP, "Order_Desk: step look_up (enter)", '"SKU-42"'),
        (TOOL, "Order_Desk: tool call check_stock", '"SKU-42"'),
    ]


def test_next_walks_a_step_into_its_tool_call_and_on(client: DapClient) -> None:
    client.start(launch(["hello", "SKU-42"]), {DESK_FILE: [{"line": LOOK_UP}]})
    thread = client.wait_for("stopped")["body"]["threadId"]
    names = []
    for _ in range(4):
        client.ok("next", {"threadId": thread})
        thread = client.wait_for("stopped")["body"]["threadId"]
        names.append(client.top_frame(thread)["name"])
    assert names == [
        "Order_Desk: tool call check_stock",
        "Order_Desk: tool result check_stock",
        "Order_Desk: step look_up (transition)",
        "Order_Desk: step done (enter)",
    ]
    event = client.ok("scopes", {"frameId": client.top_frame(thread)["id"]})
    assert [s["name"] for s in event["scopes"]] == ["Values", "Event", "Session"]


def test_an_escalation_trigger_is_a_pause_point(client: DapClient) -> None:
    client.start(launch(["hello", "HUMAN"]), {DESK_FILE: [{"line": TRIGGER}]})
    event = client.wait_for_any("stopped", "terminated")
    assert event["event"] == "stopped", client.output()
    frame = client.top_frame(event["body"]["threadId"])
    assert frame["line"] == TRIGGER
    assert client.values(frame["id"], "Event")["reason"] == '"The customer asked for a person"'


def test_the_steps_list_is_not_a_pause_point(client: DapClient) -> None:
    answers = client.start(launch(["hello"]), {DESK_FILE: [{"line": STEPS_LIST}]})
    assert answers[DESK_FILE][0]["verified"] is False
