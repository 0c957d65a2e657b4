"""What the trace says must be true: a hand-back reports a real history mode and its route's
return flag, durations are not the deterministic clock's steps, and handoff timeouts report the
`timeout` outcome."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from engine_support import loan, of_type, one, project_text, texts

from abl.runtime import RuntimeOptions, Session, start_session
from abl.runtime.local_limits import not_enforced
from abl.workspace import load_project

ROOT = Path(__file__).resolve().parents[2]
HAND_BACK = ROOT / "examples" / "loan-supervisor-variations" / "hand-back"


def hand_back(returns: str) -> tuple[dict, dict]:
    project, _ = load_project([str(HAND_BACK)])
    text = project.texts[next(iter(project.texts))]
    if returns != "false":
        text = text.replace(
            'SUMMARY: "Customer needs a different specialist."\n    RETURN: false',
            f'SUMMARY: "Customer needs a different specialist."\n    RETURN: {returns}',
        )
    session = start_session(project_text(text), "Loan_Supervisor")
    session.send("I want a loan offer")
    turn = session.send("what about my credit card statement?")
    back = [e for e in of_type(turn.events, "handoff") if e.get("handBack")]
    assert len(back) == 1, [e.to_dict() for e in turn.events]
    return back[0].fields, one(turn.events, "thread_resume").fields


@pytest.mark.parametrize(("returns", "reason"), [("false", "handoff_permanent"), ("true", "handoff_return_expected")])
def test_a_hand_back_reports_its_routes_history_mode_and_return_flag(returns: str, reason: str) -> None:
    handoff, resume = hand_back(returns)
    assert handoff["history"] == {"mode": "full", "count": None}
    assert handoff["historyMessages"] == 0 and handoff["resumed"] is True
    assert handoff["returnExpected"] is (returns == "true")
    assert handoff["reasonCode"] == reason
    assert resume["reasonCode"] == "thread_resume_handoff"


def test_durations_are_zero_on_the_deterministic_clock_however_many_events_happen() -> None:
    session = loan()
    session.send("I want a loan offer")
    session.send("85000")
    completed = of_type(session.trace, "handoff_completed")
    assert [e.get("durationMs") for e in completed] == [0, 0]
    start = one(session.trace, "session_start")
    assert start.get("clock") == "deterministic"


class WallClock:
    """The real UTC clock, saying so: the runtime then counts real time in durations."""

    real_time = True

    def now(self) -> datetime:
        return datetime.now(timezone.utc)


def test_durations_are_real_time_with_a_clock_that_tells_real_time() -> None:
    session = loan(clock=WallClock())
    session.send("I want a loan offer")
    assert one(session.trace, "session_start").get("clock") == "system"
    assert 0 <= one(session.trace, "handoff_completed").get("durationMs") < 5_000


TIMEOUT_ROUTE = (
    "    RETURN: true\n    ON_RETURN:\n      action: resume_intent",
    '    RETURN: true\n    TIMEOUT: "30s"\n    ON_TIMEOUT: {action}\n    ON_RETURN:\n      action: resume_intent',
)


@pytest.mark.parametrize("action", ["continue", "escalate"])
def test_a_child_that_does_not_return_in_time_is_no_longer_waited_for(action: str) -> None:
    session = loan((TIMEOUT_ROUTE[0], TIMEOUT_ROUTE[1].format(action=action)))
    session.send("I want a loan offer")
    session.wait(31_000)
    turn = session.send("hello?")
    timed_out = [e for e in of_type(turn.events, "handoff_completed") if e.get("outcome") == "timeout"]
    assert len(timed_out) == 1
    assert timed_out[0].get("to") == "Income_Capture_Agent" and timed_out[0].get("durationMs") == 31_000
    assert not [e for e in of_type(turn.events, "handoff_return_handler")]  # nothing came back
    if action == "escalate":
        assert one(turn.events, "escalate").get("source") == "timeout"
        assert turn.ended
    else:
        assert turn.active_agent == "Income_Capture_Agent"  # the supervisor routed the message again
        assert of_type(turn.events, "handoff")


def test_a_child_answering_in_time_is_not_timed_out() -> None:
    session = loan((TIMEOUT_ROUTE[0], TIMEOUT_ROUTE[1].format(action="continue")))
    session.send("I want a loan offer")
    session.wait(29_000)
    turn = session.send("85000")
    assert not [e for e in of_type(turn.events, "handoff_completed") if e.get("outcome") == "timeout"]
    assert turn.active_agent == "Offer_Agent"


def test_a_target_slower_than_the_timeout_fails_before_accepting_and_runs_on_failure() -> None:
    session = loan(
        (TIMEOUT_ROUTE[0], TIMEOUT_ROUTE[1].format(action="continue")), handoff_delays={"Income_Capture_Agent": 45_000}
    )
    turn = session.send("I want a loan offer")
    completed = one(turn.events, "handoff_completed")
    assert (completed.get("outcome"), completed.get("code"), completed.get("durationMs")) == (
        "timeout",
        "timeout",
        30_000,
    )
    assert not of_type(turn.events, "handoff")
    assert texts(turn) == ["I cannot collect your income details right now. Please try again later."]


def test_waiting_is_saved_with_the_session(tmp_path: Path) -> None:
    session = loan((TIMEOUT_ROUTE[0], TIMEOUT_ROUTE[1].format(action="escalate")))
    session.send("I want a loan offer")
    session.wait(20_000)
    session.save(tmp_path / "s.json")
    resumed = Session.load(session.project, tmp_path / "s.json", RuntimeOptions())
    resumed.wait(11_000)
    assert resumed.send("hello?").ended


def test_what_cannot_run_locally_is_said_once_naming_it() -> None:
    text = """AGENT: Kiosk
GOAL: "Take a photo of the damage"
CONSTRAINTS:
  always:
    - REQUIRE photo IS SET
FLOW:
  ask:
    REASONING: false
    AWAIT_ATTACHMENT:
      NAME: photo
      PROMPT: "Upload a photo"
    RESPOND: "Thanks."
    THEN: COMPLETE
"""
    session = start_session(project_text(text), "Kiosk")
    (warning,) = [e for e in of_type(session.trace, "warning") if e.get("code") == "not_run_locally"]
    assert warning.get("constructs") == [
        "CONSTRAINTS: constraints are not enforced",
        "AWAIT_ATTACHMENT in step `ask`: the step goes on without it",
    ]
    assert texts(session.send("hi")) == ["Thanks."]
    assert not [e for e in of_type(session.trace, "warning") if e.get("code") == "not_run_locally"][1:]


def test_a_remote_agent_outside_the_project_fails_its_handoff_precisely() -> None:
    text = """SUPERVISOR: Hub
GOAL: "Route"
HANDOFF:
  - TO: Partner_Bot
    WHEN: true
    REMOTE:
      location: remote
      endpoint: "https://partner.example/a2a"
    ON_FAILURE: RESPOND "Our partner cannot be reached from here."
"""
    turn = start_session(project_text(text), "Hub").send("hello")
    completed = one(turn.events, "handoff_completed")
    assert (completed.get("outcome"), completed.get("code")) == ("error", "remote_target")
    assert "another deployment" in completed.get("cause")
    assert texts(turn) == ["Our partner cannot be reached from here."]


def test_the_catalogue_of_what_does_not_run_locally_covers_profiles_recall_and_judged_switches() -> None:
    text = """SUPERVISOR: Hub
GOAL: "Route"
USE BEHAVIOR_PROFILE: calm_voice
MEMORY:
  recall:
    - ON: session:start
      ACTION: inject_context
      INSTRUCTION: "Greet returning customers by name"
POLICIES:
  - NAME: refunds
HANDOFF:
  - TO: Helper
    WHEN: true
    ENABLED_WHEN: "the customer is a member"
    RETURN: false

AGENT: Helper
GOAL: "Help"
"""
    hub = project_text(text).agent("Hub")
    assert hub is not None
    assert [(n.construct, n.line, n.instead) for n in not_enforced(hub)] == [
        ("USE BEHAVIOR_PROFILE", 3, "behavior profiles are not applied"),
        ("MEMORY recall", 5, "nothing is recalled into the conversation"),
        ("POLICIES", 9, "policies are not enforced"),
        (
            "ENABLED_WHEN of the route to `Helper`",
            14,
            "a natural-language condition is not judged; the route stays enabled",
        ),
    ]
