"""Properties of every session, on generated projects and message scripts.

1. The same project, messages and model give byte-identical traces.
2. A session saved after any turn and resumed gives the same rest of the trace (and the same
   replies) as one that never stopped.

The projects are drawn from the constructs the runtime runs: a supervisor routing by intent to
returnable and permanent children, gathered fields, COMPLETE rules, a FLOW with gathering,
branches, buttons, a digression and a correction, a reasoning agent with tools, MULTI_INTENT,
handoff timeouts; the scripts from words that fire them and words that do not.
"""

from __future__ import annotations

import json

from engine_support import project_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_trace_schema import validator

from abl.checks.engine import check_project
from abl.diagnostics import Severity
from abl.runtime import RuntimeOptions, Session, start_session

INTENTS = {
    "billing": "Questions about a bill or a payment",
    "delivery": "Where a parcel is or when it arrives",
    "booking": "Booking, moving or cancelling an appointment",
}

MESSAGES = [
    "I have a question about my bill",
    "where is my parcel?",
    "I want to book an appointment",
    "check my bill and book an appointment",
    "a question about my bill, then where is my parcel?",
    "85000",
    "42",
    "yes",
    "no",
    "tomorrow",
    "ORD-1234",
    "actually make it 7",
    "cancel",
    "what are your opening hours",
    "hello",
    "Morning slot",
    "thanks",
    "",
    "🙂 ok",
]


@st.composite
def projects(draw: st.DrawFn) -> tuple[str, dict]:
    """A supervisor and its specialists, as ABL text, with the mocks their tools need."""
    names = draw(st.lists(st.sampled_from(sorted(INTENTS)), min_size=1, max_size=3, unique=True))
    strategy = draw(st.sampled_from(["", "primary_queue", "sequential", "parallel", "disambiguate", "auto"]))
    lines = ["SUPERVISOR: Hub", 'GOAL: "Send customers to the right desk"', "", "INTENTS:"]
    lines += [f'  {name}: "{INTENTS[name]}"' for name in names]
    if strategy:
        lines += ["", "MULTI_INTENT:", f"  strategy: {strategy}"]
    lines += ["", "MEMORY:", "  session:", "    - amount", "", "HANDOFF:"]
    desks = []
    for name in names:
        desk = f"{name.capitalize()}_Desk"
        kind = draw(st.sampled_from(["gather", "flow", "tools"]))
        returnable = draw(st.booleans())
        lines += [
            f"  - TO: {desk}",
            f'    WHEN: intent.category == "{name}"',
            f"    HISTORY: {draw(st.sampled_from(['full', 'none', 'last_3', 'summary_only']))}",
            f'    SUMMARY: "{name} request"',
            f"    RETURN: {'true' if returnable else 'false'}",
        ]
        if returnable:
            lines += [
                f'    TIMEOUT: "{draw(st.sampled_from(["30s", "5m"]))}"',
                f"    ON_TIMEOUT: {draw(st.sampled_from(['continue', 'escalate']))}",
                "    ON_RETURN:",
                f"      action: {draw(st.sampled_from(['continue', 'resume_intent']))}",
            ]
            if kind != "tools":
                lines += ["      MAP:", "        amount: amount"]
        desks.append((desk, kind))
    mocks: dict = {}
    for desk, kind in desks:
        lines += ["", f"AGENT: {desk}", f'GOAL: "Handle {desk.lower()} requests"']
        if kind == "gather":
            lines += [
                "",
                "GATHER:",
                "  amount:",
                '    PROMPT: "Which amount?"',
                "    TYPE: number",
                "",
                "COMPLETE:",
                "  - WHEN: amount IS SET",
                '    RESPOND: "Noted {{amount}}."',
            ]
        elif kind == "tools":
            lines += [
                "",
                "TOOLS:",
                "  find_bill(reference: string) -> {total: number}",
                '    description: "Find a bill and its total"',
            ]
            mocks["find_bill"] = draw(st.sampled_from([{"total": 12}, [{"$error": "down"}, {"total": 3}]]))
        else:
            lines += [
                "",
                "FLOW:",
                "  global_digressions:",
                "    - INTENT: opening_hours",
                '      KEYWORDS: ["opening hours"]',
                '      RESPOND: "We open at nine."',
                "      RESUME: true",
                "  ask:",
                "    REASONING: false",
                "    GATHER:",
                "      - amount: required",
                "        type: number",
                '        prompt: "How much?"',
                "    CORRECTIONS: true",
                "    THEN: choose",
                "  choose:",
                "    REASONING: false",
                '    RESPOND: "Morning or evening?"',
                "    ACTIONS:",
                '      - id: "am"',
                "        type: button",
                '        label: "Morning slot"',
                "    ON_ACTION:",
                '      - ACTION: "am"',
                "        THEN: done",
                "    ON_INPUT:",
                '      - IF: input == "cancel"',
                "        THEN: COMPLETE",
                "      - ELSE:",
                '        RESPOND: "Please choose."',
                "        THEN: choose",
                "  done:",
                "    REASONING: false",
                '    RESPOND: "Booked for {{amount}}."',
                "    THEN: COMPLETE",
            ]
    return "\n".join(lines) + "\n", mocks


scripts = st.lists(
    st.tuples(st.sampled_from(MESSAGES), st.sampled_from([0, 0, 45_000, 400_000])), min_size=1, max_size=7
)


def run(text: str, mocks: dict, script: list[tuple[str, int]], stop_after: int | None = None) -> tuple[str, list]:
    project = project_text(text)
    options = RuntimeOptions(mocks=mocks, trace_level="debug")
    session = start_session(project, "Hub", options)
    replies = []
    for index, (message, wait) in enumerate(script):
        if stop_after is not None and index == stop_after:
            saved = json.loads(json.dumps(session.to_dict()))
            session = Session.from_dict(project, saved, options)
        session.wait(wait)
        replies.append([(r.agent, r.text) for r in session.send(message).replies])
    return session.trace_log.to_jsonl(), replies


SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(projects(), scripts)
def test_the_same_inputs_give_byte_identical_traces(project: tuple[str, dict], script: list) -> None:
    text, mocks = project
    first = run(text, mocks, script)
    assert first == run(text, mocks, script)
    for line in first[0].splitlines():
        event = json.loads(line)
        assert not list(validator().iter_errors(event)), event


def test_the_generated_projects_run_as_written() -> None:
    """The generator writes projects without errors, so the properties are about runnable ones."""

    @settings(max_examples=40, deadline=None)
    @given(projects())
    def check(project: tuple[str, dict]) -> None:
        diagnostics = check_project(project_text(project[0]))
        errors = [d for ds in diagnostics.values() for d in ds if d.severity is Severity.ERROR]
        assert not errors, errors

    check()


@SETTINGS
@given(projects(), scripts, st.data())
def test_a_session_resumed_after_any_turn_goes_on_as_if_it_never_stopped(
    project: tuple[str, dict], script: list, data: st.DataObject
) -> None:
    text, mocks = project
    stop = data.draw(st.integers(min_value=0, max_value=len(script)))
    straight = run(text, mocks, script)
    resumed = run(text, mocks, script, stop_after=stop)
    assert resumed == straight
