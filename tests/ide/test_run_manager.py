"""Runs for editors, in process: events reach a listener while the turn is running, the answer
repeats exactly those events, and a reset gives the new greeting's events."""

from __future__ import annotations

from pathlib import Path

from abl.ide import event_sources
from abl.ide.event_sources import LocatedEvent
from abl.ide.runs import RunManager
from abl.runtime.events import Source
from abl.workspace import Project, load_project

LOAN = Path(__file__).resolve().parents[2] / "examples" / "loan-supervisor"


def loan_runs() -> tuple[RunManager, str]:
    project, unreadable = load_project([str(LOAN)])
    assert not unreadable
    runs = RunManager()
    return runs, runs.start(project, "Loan_Supervisor").id


def test_each_event_reaches_the_listener_when_the_engine_stores_it():
    runs, run_id = loan_runs()
    runs.send(run_id, "I want a loan offer")
    heard: list[tuple[LocatedEvent, int]] = []

    def listen(located: LocatedEvent) -> None:
        # How long the trace is at this moment: equal to the event's seq only if the listener
        # runs before the engine stores anything else.
        heard.append((located, len(runs.get(run_id).session.trace)))

    turn = runs.send(run_id, "85k", on_event=listen)
    assert heard, "the turn had events"
    assert all(located.event["seq"] == length for located, length in heard)
    kinds = [located.event["type"] for located, _ in heard]
    assert kinds.index("handoff_return_handler") < kinds.index("resume_intent") < kinds.index("handoff")
    # The answer holds the same events, once each, at the same places.
    assert [e.event["seq"] for e in turn.events] == [located.event["seq"] for located, _ in heard]
    assert [e.location for e in turn.events] == [located.location for located, _ in heard]


def test_a_listener_sees_only_the_events_shown_at_the_run_level():
    project, _ = load_project([str(LOAN)])
    runs = RunManager()
    run = runs.start(project, "Loan_Supervisor", trace_level="minimal")
    heard: list[str] = []
    turn = runs.send(run.id, "I want a loan offer", on_event=lambda located: heard.append(located.event["type"]))
    assert "handoff" in heard
    assert "handoff_condition_check" not in heard, "a standard event is above the minimal level"
    assert heard == [e.event["type"] for e in turn.events]


def test_the_resume_is_located_at_the_returnable_route_after_a_reset():
    runs, run_id = loan_runs()
    first_start = [e.event for e in runs.get(run_id).greeting_events]
    runs.send(run_id, "I want a loan offer")
    runs.send(run_id, "85k")
    greeting, events = runs.reset(run_id)
    assert greeting == []  # the loan supervisor has no ON_START
    assert [e.event for e in events] == first_start == [first_start[0]]
    assert first_start[0]["type"] == "session_start" and first_start[0]["seq"] == 1
    runs.send(run_id, "I want a loan offer")
    turn = runs.send(run_id, "85k")
    resume = next(e for e in turn.events if e.event["type"] == "resume_intent")
    assert resume.location is not None
    text = (LOAN / "loan-supervisor.agent.abl").read_text().splitlines()
    assert "TO: Income_Capture_Agent" in text[resume.location.range.start.line]


def test_a_run_carries_what_its_agents_declare_that_does_not_run_locally():
    project = Project("/")
    project.update(
        "/desk.agent.abl",
        'SUPERVISOR: Desk\nGOAL: "Route"\n\nCONSTRAINTS:\n  always:\n    - REQUIRE order_id IS SET\n\n'
        "HANDOFF:\n  - TO: Helper\n    WHEN: true\n    HISTORY: full\n    ON_FAILURE: continue\n    RETURN: false\n",
    )
    project.update("/helper.agent.abl", 'AGENT: Helper\nGOAL: "Help"\n\nHOOKS:\n  on_message:\n    - LOG: "seen"\n')
    project.update(
        "/elsewhere.agent.abl",
        'AGENT: Elsewhere\nGOAL: "Never reached"\n\nCONSTRAINTS:\n  always:\n    - REQUIRE x IS SET\n',
    )
    run = RunManager().start(project, "Desk")
    assert [(n.agent, n.construct, n.path, n.range.start.line) for n in run.not_enforced] == [
        ("Desk", "CONSTRAINTS", "/desk.agent.abl", 3),
        ("Helper", "HOOKS", "/helper.agent.abl", 3),
    ]
    assert not loan_runs()[0].get("run-1").not_enforced  # seed 004's example runs whole


def test_every_event_source_has_a_locator() -> None:
    # The agent's header is the fallback of every source; return handlers and tools are found
    # outside the emitting agent, by the locator itself.
    handled_outside = {Source.AGENT, Source.RETURN_HANDLER, Source.TOOL}
    assert set(Source) == set(event_sources._IN_AGENT) | handled_outside
    assert not set(event_sources._IN_AGENT) & handled_outside
