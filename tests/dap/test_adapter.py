"""`abl dap` driven over real stdio by a DAP client, every message checked against the protocol's
schema. The loan supervisor of seed 004 is the project most of these debug."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dap.client import SCHEMA, DapClient

ROOT = Path(__file__).resolve().parents[2]
LOAN = ROOT / "examples" / "loan-supervisor"
LOAN_FILE = str(LOAN / "loan-supervisor.agent.abl")
CONVERSATION = ["I want a loan offer", "85,000"]

# Lines of examples/loan-supervisor/loan-supervisor.agent.abl (1-based), read from the file so
# that an edit to the example moves them instead of breaking the tests silently.
_LINES = Path(LOAN_FILE).read_text(encoding="utf-8").splitlines()


def line_of(text: str, after: int = 0) -> int:
    return next(n for n, line in enumerate(_LINES, start=1) if n > after and line.strip() == text)


GOAL = line_of('GOAL: "Collect the applicant\'s income before any loan offer discussion"')
FIRST_ROUTE_WHEN = line_of("WHEN: annual_income IS NOT SET")
SECOND_ROUTE_TO = line_of("- TO: Offer_Agent")
SECOND_ROUTE_WHEN = line_of("WHEN: annual_income IS SET")
SECOND_ROUTE_PASS = line_of("PASS: [annual_income]")
ON_RETURN = line_of("ON_RETURN:")
MAP_ENTRY = line_of("annual_income: annual_income")
INCOME_FIELD = line_of("annual_income:", after=line_of("AGENT: Income_Capture_Agent"))
OFFER_AGENT = line_of("AGENT: Offer_Agent")


@pytest.fixture
def client() -> Iterator[DapClient]:
    made = DapClient(cwd=ROOT)
    yield made
    made.close()


def launch(**extra: Any) -> dict[str, Any]:
    return {"program": str(LOAN), "messages": CONVERSATION, **extra}


def stopped(client: DapClient) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """The next stop: its thread, its top frame and the event's body."""
    body = client.wait_for("stopped")["body"]
    return body["threadId"], client.top_frame(body["threadId"]), body


# --- the acceptance path -------------------------------------------------------------------------


def test_stops_on_the_second_route_with_the_gathered_income_and_steps_into_the_offer_agent(client: DapClient) -> None:
    answers = client.start(launch(), {LOAN_FILE: [{"line": SECOND_ROUTE_WHEN}]})
    assert answers[LOAN_FILE][0]["verified"] is True
    assert answers[LOAN_FILE][0]["line"] == SECOND_ROUTE_WHEN

    thread, frame, body = stopped(client)
    assert body["reason"] == "breakpoint"
    assert body["hitBreakpointIds"] == [answers[LOAN_FILE][0]["id"]]
    assert frame["line"] == SECOND_ROUTE_WHEN
    assert frame["source"]["path"] == LOAN_FILE
    assert client.values(frame["id"])["annual_income"] == "85000"
    route = client.values(frame["id"], "Route")
    assert route["to"] == '"Offer_Agent"' and route["pass"] == '{"annual_income": 85000}'
    evaluated = client.ok(
        "evaluate", {"expression": "annual_income > 50000", "frameId": frame["id"], "context": "repl"}
    )
    assert evaluated["result"] == "true"
    watched = client.ok("evaluate", {"expression": "annual_income", "frameId": frame["id"], "context": "watch"})
    assert watched["result"] == "85000"

    client.ok("stepIn", {"threadId": thread})
    inner, frame, body = stopped(client)
    assert body["reason"] == "step"
    assert inner != thread
    assert frame["line"] == OFFER_AGENT
    names = [t["name"] for t in client.ok("threads")["threads"]]
    assert any(name.startswith("Offer_Agent") for name in names)

    client.ok("continue", {"threadId": inner})
    client.wait_for("terminated")
    assert "[Offer_Agent]" in client.output()


def test_a_conditional_breakpoint_that_never_holds_never_stops(client: DapClient) -> None:
    client.start(launch(), {LOAN_FILE: [{"line": SECOND_ROUTE_WHEN, "condition": "annual_income > 100000"}]})
    client.wait_for("terminated")
    assert not [e for e in client.events if e["event"] == "stopped"]


def test_a_conditional_breakpoint_stops_when_it_holds(client: DapClient) -> None:
    client.start(launch(), {LOAN_FILE: [{"line": SECOND_ROUTE_TO, "condition": "annual_income >= 85000"}]})
    _, frame, _ = stopped(client)
    assert frame["line"] == SECOND_ROUTE_TO  # shown on the breakpoint's line, where the route is checked
    assert "WHEN annual_income IS SET" in frame["name"]


def test_any_line_of_a_route_stops_where_the_route_is_considered(client: DapClient) -> None:
    answers = client.start(launch(), {LOAN_FILE: [{"line": SECOND_ROUTE_PASS}]})
    assert answers[LOAN_FILE][0]["verified"] is True
    _, frame, _ = stopped(client)
    assert frame["line"] == SECOND_ROUTE_PASS
    assert "route 2 to Offer_Agent" in frame["name"]


def test_hit_count_stops_on_the_nth_hit(client: DapClient) -> None:
    # The first route is checked in turn 1 and again when the customer's message is replayed.
    client.start(launch(), {LOAN_FILE: [{"line": FIRST_ROUTE_WHEN, "hitCondition": "2"}]})
    thread, frame, _ = stopped(client)
    assert client.values(frame["id"])["annual_income"] == "85000"
    client.ok("continue", {"threadId": thread})
    client.wait_for("terminated")


def test_a_logpoint_writes_its_template_and_does_not_stop(client: DapClient) -> None:
    client.start(launch(), {LOAN_FILE: [{"line": SECOND_ROUTE_WHEN, "logMessage": "income is {{annual_income}}"}]})
    client.wait_for("terminated")
    assert "income is 85000\n" in client.output()
    assert not [e for e in client.events if e["event"] == "stopped"]


def test_breakpoints_are_verified_moved_or_refused_with_a_message(client: DapClient) -> None:
    blank = OFFER_AGENT - 1
    answers = client.start(
        launch(),
        {
            LOAN_FILE: [
                {"line": GOAL},
                {"line": blank},
                {"line": len(_LINES) + 10},
                {"line": MAP_ENTRY},
                {"line": SECOND_ROUTE_WHEN, "condition": "annual_income >"},
                {"line": SECOND_ROUTE_WHEN, "hitCondition": "often"},
            ]
        },
    )
    goal, moved, beyond, entry, bad_condition, bad_hits = answers[LOAN_FILE]
    assert goal["verified"] is False and "GOAL" in goal["message"]
    assert moved["verified"] is True and moved["line"] == OFFER_AGENT and "moved" in moved["message"]
    assert beyond["verified"] is False and "lines" in beyond["message"]
    assert entry["verified"] is True and entry["line"] == MAP_ENTRY
    assert bad_condition["verified"] is False and "condition" in bad_condition["message"]
    assert bad_hits["verified"] is False and "hit count" in bad_hits["message"]


def test_a_breakpoint_on_a_map_entry_stops_where_the_child_returns(client: DapClient) -> None:
    client.start(launch(), {LOAN_FILE: [{"line": MAP_ENTRY}]})
    _, frame, _ = stopped(client)
    assert frame["line"] == MAP_ENTRY
    assert "returned" in frame["name"]
    assert client.values(frame["id"], "Event")["mappedFields"] == '["annual_income"]'


def test_breakpoints_set_while_stopped_take_effect_at_once(client: DapClient) -> None:
    client.start(launch(), {LOAN_FILE: [{"line": FIRST_ROUTE_WHEN}]})
    thread, _, _ = stopped(client)
    client.ok("setBreakpoints", {"source": {"path": LOAN_FILE}, "breakpoints": [{"line": INCOME_FIELD}]})
    client.ok("continue", {"threadId": thread})
    _, frame, _ = stopped(client)
    assert frame["line"] == INCOME_FIELD


def test_next_goes_to_the_next_pause_point_of_the_same_thread(client: DapClient) -> None:
    client.start(launch(), {LOAN_FILE: [{"line": FIRST_ROUTE_WHEN}]})
    thread, _, _ = stopped(client)
    client.ok("next", {"threadId": thread})
    again, frame, body = stopped(client)
    assert (again, body["reason"]) == (thread, "step")
    assert frame["line"] == line_of("- TO: Income_Capture_Agent")  # the handoff the route makes


def test_step_out_runs_until_the_child_gives_control_back(client: DapClient) -> None:
    client.start(launch(), {LOAN_FILE: [{"line": INCOME_FIELD}]})
    child, frame, _ = stopped(client)
    stack = client.ok("stackTrace", {"threadId": child})["stackFrames"]
    assert [f["name"].split(":")[0] for f in stack] == ["Income_Capture_Agent", "Loan_Supervisor"]
    client.ok("stepOut", {"threadId": child})
    parent, frame, body = stopped(client)
    assert parent != child and body["reason"] == "step"
    assert frame["line"] == ON_RETURN


def test_set_variable_changes_what_the_run_sees_next(client: DapClient) -> None:
    client.start(launch(), {LOAN_FILE: [{"line": INCOME_FIELD}, {"line": SECOND_ROUTE_WHEN}]})
    child, frame, _ = stopped(client)
    scopes = client.ok("scopes", {"frameId": frame["id"]})["scopes"]
    values = next(s for s in scopes if s["name"] == "Values")["variablesReference"]
    changed = client.ok("setVariable", {"variablesReference": values, "name": "annual_income", "value": "40000"})
    assert changed["value"] == "40000"
    client.ok("continue", {"threadId": child})
    _, frame, _ = stopped(client)
    assert client.values(frame["id"])["annual_income"] == "40000"  # mapped back to the supervisor
    stale = client.request("setVariable", {"variablesReference": values, "name": "x", "value": "1"})
    assert stale["success"] is False and "the run went on" in stale["message"]
    scopes = client.ok("scopes", {"frameId": frame["id"]})["scopes"]
    values = next(s for s in scopes if s["name"] == "Values")["variablesReference"]
    refused = client.request("setVariable", {"variablesReference": values, "name": "x", "value": "1 +"})
    assert refused["success"] is False and "cannot be read" in refused["message"]


def test_the_console_is_the_customer_when_no_messages_are_given(client: DapClient) -> None:
    client.start({"program": str(LOAN)})
    client.wait_for("thread")
    said = client.ok("evaluate", {"expression": "I want a loan offer", "context": "repl"})
    assert "said to the agent" in said["result"]
    deadline_output = ""
    for _ in range(50):
        deadline_output = client.output()
        if "What is your annual income?" in deadline_output:
            break
        client.wait_for("output", timeout=5)
    assert "[Income_Capture_Agent] What is your annual income?" in deadline_output
    # An expression over names the agent knows is evaluated, not said.
    answer = client.ok("evaluate", {"expression": "annual_income IS SET", "context": "repl"})
    assert answer["result"] == "false"


def test_pause_between_turns_and_go_on(client: DapClient) -> None:
    client.start({"program": str(LOAN)})
    client.wait_for("thread")
    client.ok("pause", {"threadId": 1})
    thread, frame, body = stopped(client)
    assert body["reason"] == "pause"
    assert frame["line"] == 1  # the supervisor has done nothing yet
    client.ok("continue", {"threadId": thread})
    client.ok("evaluate", {"expression": "hello", "context": "repl"})
    client.wait_for("output")


def test_stop_on_entry(client: DapClient) -> None:
    client.start(launch(stopOnEntry=True))
    thread, frame, body = stopped(client)
    assert body["reason"] == "entry" and frame["line"] == 1
    client.ok("continue", {"threadId": thread})
    client.wait_for("terminated")


def test_exception_filter_stops_on_a_validation_failure(client: DapClient) -> None:
    client.ok("initialize", {"adapterID": "abl"})
    client.ok("launch", {"program": str(LOAN), "messages": ["I want a loan offer", "lots", "85,000"]})
    client.ok("setExceptionBreakpoints", {"filters": ["validation"]})
    client.ok("configurationDone")
    thread, frame, body = stopped(client)
    assert body["reason"] == "exception"
    assert frame["line"] == INCOME_FIELD
    info = client.ok("exceptionInfo", {"threadId": thread})
    assert info["exceptionId"] == "validation" and "annual_income" in info["description"]
    client.ok("continue", {"threadId": thread})
    client.wait_for("terminated")
    assert client.request("setExceptionBreakpoints", {"filters": ["nope"]})["success"] is False


def test_the_same_run_stops_the_same_way_every_time_and_restart_starts_over(client: DapClient) -> None:
    client.start(
        launch(), {LOAN_FILE: [{"line": FIRST_ROUTE_WHEN}, {"line": INCOME_FIELD}, {"line": SECOND_ROUTE_WHEN}]}
    )

    def run() -> list[tuple[int, str]]:
        stops = []
        while True:
            event = client.wait_for_any("stopped", "terminated")
            if event["event"] == "terminated":
                return stops
            thread = event["body"]["threadId"]
            frame = client.top_frame(thread)
            stops.append((frame["line"], frame["name"]))
            if len(stops) == 4:
                return stops
            client.ok("continue", {"threadId": thread})

    first = run()
    client.ok("restart", {})
    second = run()
    assert first == second
    assert [line for line, _ in first] == [FIRST_ROUTE_WHEN, INCOME_FIELD, FIRST_ROUTE_WHEN, SECOND_ROUTE_WHEN]


def test_terminate_ends_the_run(client: DapClient) -> None:
    client.start(launch(), {LOAN_FILE: [{"line": FIRST_ROUTE_WHEN}]})
    stopped(client)
    client.ok("terminate", {})
    client.wait_for("terminated")


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({}, "`program` is required"),
        ({"program": "no/such/place"}, "does not exist"),
        ({"program": str(LOAN), "agent": "Nobody"}, "no agent named Nobody"),
        ({"program": str(LOAN), "model": "oracle"}, "choose one of"),
        ({"program": str(LOAN), "messages": "hi"}, "list of the customer's messages"),
        ({"program": str(LOAN), "mocks": "no/such/mocks.yaml"}, "mocks"),
    ],
)
def test_a_launch_that_cannot_go_ahead_says_why(client: DapClient, arguments: dict[str, Any], said: str) -> None:
    client.ok("initialize", {"adapterID": "abl"})
    response = client.request("launch", arguments)
    assert response["success"] is False
    assert said in response["message"]


def test_requests_it_does_not_answer_get_an_error_not_silence(client: DapClient) -> None:
    client.ok("initialize", {"adapterID": "abl"})
    response = client.request("stepBack", {"threadId": 1})
    assert response["success"] is False and "stepBack" in response["message"]
    assert client.request("stackTrace", {"threadId": 1})["success"] is False  # nothing launched


def test_breakpoint_locations_list_the_lines_that_pause(client: DapClient) -> None:
    client.ok("initialize", {"adapterID": "abl"})
    client.ok("launch", launch())
    found = client.ok(
        "breakpointLocations", {"source": {"path": LOAN_FILE}, "line": GOAL, "endLine": SECOND_ROUTE_WHEN}
    )
    lines = [b["line"] for b in found["breakpoints"]]
    assert GOAL not in lines
    assert {FIRST_ROUTE_WHEN, ON_RETURN, MAP_ENTRY, SECOND_ROUTE_TO, SECOND_ROUTE_WHEN} <= set(lines)


def test_the_schema_is_there_to_check_messages() -> None:
    if SCHEMA is None:
        pytest.skip("the DAP schema is not at ../shared/reference/dap/debugAdapterProtocol.json: messages go unchecked")
    assert "StoppedEvent" in SCHEMA.document["definitions"]


def test_a_function_breakpoint_names_an_agent_and_stops_when_it_takes_control(client: DapClient) -> None:
    client.ok("initialize", {"adapterID": "abl"})
    client.ok("launch", launch())
    answers = client.ok(
        "setFunctionBreakpoints",
        {
            "breakpoints": [
                {"name": "Offer_Agent"},
                {"name": "Nobody"},
                {"name": "Income_Capture_Agent", "hitCondition": "2"},
            ]
        },
    )["breakpoints"]
    offer, nobody, income = answers
    assert offer["verified"] is True and offer["line"] == OFFER_AGENT
    assert nobody["verified"] is False and "Offer_Agent" in nobody["message"]
    assert income["verified"] is True
    client.ok("configurationDone")
    thread, frame, body = stopped(client)
    assert body["hitBreakpointIds"] == [offer["id"]]  # Income_Capture_Agent takes control only once
    assert frame["line"] == OFFER_AGENT and frame["name"] == "Offer_Agent: takes control"
    client.ok("continue", {"threadId": thread})
    client.wait_for("terminated")


def test_the_console_completes_the_names_the_thread_knows(client: DapClient) -> None:
    client.start(launch(), {LOAN_FILE: [{"line": SECOND_ROUTE_WHEN}]})
    _, frame, _ = stopped(client)
    targets = client.ok("completions", {"text": "annual_income > 5 AND ann", "column": 26, "frameId": frame["id"]})
    labels = [t["label"] for t in targets["targets"]]
    assert labels == ["annual_income"]
    assert targets["targets"][0]["start"] == 23 and targets["targets"][0]["length"] == 3


def test_at_the_handoff_the_route_shows_what_the_target_receives(client: DapClient) -> None:
    client.start(launch(), {LOAN_FILE: [{"line": SECOND_ROUTE_WHEN}]})
    thread, frame, _ = stopped(client)
    client.ok("next", {"threadId": thread})
    thread, frame, _ = stopped(client)
    assert frame["line"] == SECOND_ROUTE_TO and "hands off to Offer_Agent" in frame["name"]
    route = client.values(frame["id"], "Route")
    assert route["history"] == '{"mode": "full", "count": null}'
    event = client.values(frame["id"], "Event")
    assert event["passed"] == '["annual_income"]'
    assert route["history messages"].count('"role"') == int(event["historyMessages"])  # what the trace says it copied
    template = client.ok(
        "evaluate", {"expression": '"income: {{annual_income}}"', "frameId": frame["id"], "context": "watch"}
    )
    assert template["result"] == '"income: 85000"'
    hover = client.ok("evaluate", {"expression": "annual_income", "frameId": frame["id"], "context": "hover"})
    assert hover["result"] == "85000"
    wrong = client.request("evaluate", {"expression": "annual_income >", "frameId": frame["id"], "context": "watch"})
    assert wrong["success"] is False and "cannot be evaluated" in wrong["message"]


def test_a_launch_argument_it_does_not_know_is_said_not_silently_ignored(client: DapClient) -> None:
    client.start(launch(stopOnentry=True, __sessionId="x", name="Debug loan"))
    client.wait_for("terminated")
    assert "`stopOnentry` is not an argument of abl dap (did you mean `stopOnEntry`?)" in client.output()
    assert client.output().count("is not an argument of abl dap") == 1  # `name` and `__sessionId` are the editor's
