"""Seed 004 ("How to transfer control to another agent and return later"): its Verification
section, its production checklist's tests, and its common variations, on the seed's minimal
example (tests/runtime/projects/loan/loan.agent.abl)."""

from __future__ import annotations

from engine_support import loan, of_type, one, texts, thread_of, types

from abl.runtime import Session
from abl.runtime.models import EmbeddedModel, IntentDecision, ScriptedModel

ON_RETURN_BLOCK = """    ON_RETURN:
      action: resume_intent
      MAP:
        annual_income: annual_income
"""

CHILD_HANDS_BACK = (
    """COMPLETE:
  - WHEN: annual_income IS SET
    RESPOND: "Thanks. I have your income."
""",
    """COMPLETE:
  - WHEN: annual_income IS SET
    RESPOND: "Thanks. I have your income."

HANDOFF:
  - TO: Loan_Supervisor
    WHEN: "the customer asks about something other than income"
    SUMMARY: "Customer needs a different specialist."
    RETURN: false
""",
)


# --- Verification -------------------------------------------------------------------------------


def test_new_session_hands_off_to_the_income_agent_which_asks_for_the_income() -> None:
    session = loan()
    turn = session.send("I want a loan offer")
    assert texts(turn) == ["What is your annual income?"]
    assert turn.active_agent == "Income_Capture_Agent"
    handoff = one(turn.events, "handoff")
    assert handoff.get("to") == "Income_Capture_Agent"
    assert handoff.get("returnExpected") is True
    assert handoff.get("reasonCode") == "handoff_return_expected"
    assert handoff.get("history") == {"mode": "summary_only", "count": None}
    assert handoff.get("historyMessages") == 0
    state = session.state()
    assert state.stack == ["Loan_Supervisor"]
    assert [(t.agent, t.status) for t in state.threads] == [
        ("Loan_Supervisor", "waiting"),
        ("Income_Capture_Agent", "active"),
    ]
    assert thread_of(session, "Income_Capture_Agent").values["_handoff_summary"] == (
        "Collect the applicant's annual income, then return."
    )


def test_the_income_returns_maps_the_value_replays_and_hands_off_for_good() -> None:
    session = loan()
    session.send("I want a loan offer")
    turn = session.send("85000")
    order = types(turn, "complete", "handoff_return_handler", "resume_intent", "handoff")
    assert order == ["complete", "handoff_return_handler", "resume_intent", "handoff"]
    handler = one(turn.events, "handoff_return_handler")
    assert handler.get("from") == "Income_Capture_Agent"
    assert handler.get("to") == "Loan_Supervisor"
    assert handler.get("mappedFields") == ["annual_income"]
    assert handler.get("action") == "resume_intent"
    assert handler.get("handler") is None
    assert handler.get("setFields") == [] and handler.get("clearedFields") == []
    assert handler.get("emittedResponse") is None
    resume = one(turn.events, "resume_intent")
    assert resume.get("message") == "I want a loan offer"
    assert resume.get("resumeWith") == "original_handoff_utterance"
    assert resume.get("depth") == 1
    handoff = one(turn.events, "handoff")
    assert handoff.get("to") == "Offer_Agent"
    assert handoff.get("returnExpected") is False
    assert handoff.get("reasonCode") == "handoff_permanent"
    assert handoff.get("passed") == ["annual_income"]
    assert turn.active_agent == "Offer_Agent"
    assert texts(turn)[0] == "Thanks. I have your income."
    assert thread_of(session, "Offer_Agent").values["annual_income"] == 85000
    assert session.state().stack == []


def test_every_handoff_completed_has_an_outcome_and_a_duration() -> None:
    session = loan()
    session.send("I want a loan offer")
    session.send("85000")
    completed = of_type(session.trace, "handoff_completed")
    assert [(e.get("to"), e.get("outcome")) for e in completed] == [
        ("Income_Capture_Agent", "success"),
        ("Offer_Agent", "success"),
    ]
    for event in completed:
        # Nothing took time on the session's timeline (the default clock is not a stopwatch).
        assert event.get("durationMs") == 0
        assert "cause" not in event.fields and "code" not in event.fields


def test_a_slow_target_makes_the_attempt_take_its_time() -> None:
    session = loan(handoff_delays={"Income_Capture_Agent": 1200})
    session.send("I want a loan offer")
    completed = one(session.trace, "handoff_completed")
    assert completed.get("durationMs") == 1200


# --- The checklist: a returning customer, an unanswered gate, a hand-back, a refused route ---------


def test_a_returning_customer_with_the_income_set_goes_straight_to_the_offer_agent() -> None:
    session = loan(initial_values={"annual_income": 85000})
    turn = session.send("I want a loan offer")
    assert types(turn, "handoff") == ["handoff"]
    handoff = one(turn.events, "handoff")
    assert (handoff.get("to"), handoff.get("reasonCode")) == ("Offer_Agent", "handoff_permanent")
    checks = of_type(turn.events, "handoff_condition_check")
    assert [(c.get("target"), c.get("result")) for c in checks] == [
        ("Income_Capture_Agent", False),
        ("Offer_Agent", True),
    ]


def test_a_returning_customer_through_an_initial_memory_value() -> None:
    session = loan(("      TYPE: number\n", "      TYPE: number\n      INITIAL: 72000\n"))
    turn = session.send("I want a loan offer")
    assert one(turn.events, "handoff").get("to") == "Offer_Agent"


def test_an_unanswered_gate_keeps_asking_and_the_parent_keeps_waiting() -> None:
    session = loan(
        (
            "    REQUIRED: true\n",
            '    REQUIRED: true\n    RETRY_PROMPT: "I need a number, for example 85000."\n    MAX_RETRIES: 2\n',
        )
    )
    assert texts(session.send("I want a loan offer")) == ["What is your annual income?"]
    for attempt, answer in enumerate(["I'd rather not say", "why do you need it", "no"], start=1):
        turn = session.send(answer)
        assert texts(turn) == ["I need a number, for example 85000."]
        assert turn.active_agent == "Income_Capture_Agent"
        gather = one(turn.events, "gather")
        assert (gather.get("field"), gather.get("valid"), gather.get("attempt")) == ("annual_income", False, attempt)
        assert session.state().stack == ["Loan_Supervisor"]
        assert thread_of(session, "Loan_Supervisor").status == "waiting"
        assert not of_type(turn.events, "handoff_return_handler", "handoff")
    warnings = [e for e in of_type(session.trace, "warning") if e.get("code") == "validation_max_retries"]
    assert len(warnings) == 1


def test_the_seed_project_re_asks_with_its_prompt_when_no_retry_prompt_is_given() -> None:
    session = loan()
    session.send("I want a loan offer")
    assert texts(session.send("not telling")) == ["What is your annual income?"]


def test_a_child_hands_back_to_its_waiting_parent() -> None:
    session = loan(CHILD_HANDS_BACK)
    first = session.send("I want a loan offer")
    assert texts(first) == ["What is your annual income?"]  # the message that started it is not sent back
    turn = session.send("What are your opening hours?")
    handoffs = of_type(turn.events, "handoff")
    assert (handoffs[0].get("from"), handoffs[0].get("to")) == ("Income_Capture_Agent", "Loan_Supervisor")
    assert handoffs[0].get("reasonCode") == "handoff_permanent"
    resume = one(turn.events, "thread_resume")
    assert resume.agent == "Loan_Supervisor"
    handler = one(turn.events, "handoff_return_handler")
    assert handler.get("mappedFields") == []  # the child had no income to give
    assert handler.get("cause") == "handback"
    completed = of_type(turn.events, "handoff_completed")
    assert all(e.get("outcome") == "success" for e in completed)
    # resume_intent replays the original request; the gate is still closed, so a new income
    # agent asks again.
    assert one(turn.events, "resume_intent").get("message") == "I want a loan offer"
    assert handoffs[1].get("to") == "Income_Capture_Agent"
    assert texts(turn) == ["What is your annual income?"]
    agents = [(t.agent, t.status) for t in session.state().threads]
    assert agents == [
        ("Loan_Supervisor", "waiting"),
        ("Income_Capture_Agent", "completed"),
        ("Income_Capture_Agent", "active"),
    ]


REFUSED = """
AGENT: Offer_Agent
GOAL: "Explain loan offers based on the applicant's annual income"

HANDOFF:
  - TO: Loan_Supervisor
    WHEN: "the customer wants to change their income"
    RETURN: false
    ON_FAILURE: RESPOND "I can only discuss offers here."
"""


def test_a_route_to_an_agent_already_in_the_chain_is_refused() -> None:
    session = loan(
        (
            'AGENT: Offer_Agent\nGOAL: "Explain loan offers based on the applicant\'s annual income"\n',
            REFUSED.strip() + "\n",
        ),
        initial_values={"annual_income": 85000},
    )
    session.send("I want a loan offer")
    turn = session.send("I want to change my income")
    completed = one(turn.events, "handoff_completed")
    assert completed.get("to") == "Loan_Supervisor"
    assert completed.get("outcome") == "rejected"
    assert completed.get("code") == "recursion"
    assert "Loan_Supervisor → Offer_Agent → Loan_Supervisor" in completed.get("cause")
    assert isinstance(completed.get("durationMs"), int)
    assert not of_type(turn.events, "handoff")
    assert texts(turn) == ["I can only discuss offers here."]  # ON_FAILURE ran
    assert turn.active_agent == "Offer_Agent"


def test_a_route_to_a_missing_target_runs_on_failure() -> None:
    session = loan(("  - TO: Income_Capture_Agent\n", "  - TO: Income_Agent_Missing\n"))
    turn = session.send("I want a loan offer")
    completed = one(turn.events, "handoff_completed")
    assert (completed.get("outcome"), completed.get("code")) == ("error", "missing_target")
    assert texts(turn) == ["I cannot collect your income details right now. Please try again later."]
    assert turn.active_agent == "Loan_Supervisor"


def test_on_failure_continue_lets_the_caller_answer() -> None:
    session = loan(
        ("  - TO: Income_Capture_Agent\n", "  - TO: Income_Agent_Missing\n"),
        (
            '    ON_FAILURE: RESPOND "I cannot collect your income details right now. Please try again later."\n',
            "    ON_FAILURE: continue\n",
        ),
    )
    turn = session.send("I want a loan offer")
    assert one(turn.events, "handoff_completed").get("code") == "missing_target"
    assert texts(turn) == [
        "(Loan_Supervisor) I can help with: Collect the applicant's income before any loan offer discussion."
    ]


def test_on_failure_escalate_hands_the_session_to_a_human() -> None:
    session = loan(
        ("  - TO: Income_Capture_Agent\n", "  - TO: Income_Agent_Missing\n"),
        (
            '    ON_FAILURE: RESPOND "I cannot collect your income details right now. Please try again later."\n',
            "    ON_FAILURE: ESCALATE\n",
        ),
    )
    turn = session.send("I want a loan offer")
    escalate = one(turn.events, "escalate")
    assert escalate.get("source") == "on_failure"
    assert turn.ended
    assert texts(turn)[0].startswith("Escalating to human agent. Reason: the handoff to Income_Agent_Missing failed")


# --- Common variations ----------------------------------------------------------------------------


CONTINUE_WITH_SET = """    ON_RETURN:
      action: continue
      MAP:
        annual_income: annual_income
      SET:
        income_note: "Income collected by the income agent."
"""


def test_continue_without_a_replay_applies_map_then_set() -> None:
    session = loan(
        (ON_RETURN_BLOCK, CONTINUE_WITH_SET),
        (
            '      DESCRIPTION: "Annual income in whole currency units, collected by the income agent."\n',
            '      DESCRIPTION: "Annual income in whole currency units, collected by the income agent."\n'
            "    - income_note\n",
        ),
    )
    session.send("I want a loan offer")
    turn = session.send("85k")
    handler = one(turn.events, "handoff_return_handler")
    assert handler.get("action") == "continue"
    assert handler.get("mappedFields") == ["annual_income"]
    assert handler.get("setFields") == ["income_note"]
    assert not of_type(turn.events, "resume_intent")
    assert texts(turn) == ["Thanks. I have your income."]
    assert turn.active_agent == "Loan_Supervisor"
    assert session.state().values["income_note"] == "Income collected by the income agent."
    assert session.state().values["annual_income"] == 85000
    nxt = session.send("so what can you offer me?")
    assert one(nxt.events, "handoff").get("to") == "Offer_Agent"


CONTEXT_ROUTE = """  - TO: Income_Capture_Agent
    WHEN: annual_income IS NOT SET
    CONTEXT:
      pass: []
      summary: "Collect the applicant income, then return."
      history:
        mode: last_n
        count: 4
    RETURN: true
    ON_RETURN:
      action: resume_intent
      RESUME_WITH: latest_child_user_utterance
      MAP: {annual_income: annual_income}
"""


def test_context_block_and_latest_child_user_utterance() -> None:
    from engine_support import loan_text, project_text

    from abl.runtime import start_session

    text = loan_text()
    first = text.index("  - TO: Income_Capture_Agent\n")
    second = text.index("  - TO: Offer_Agent\n")
    text = text[:first] + CONTEXT_ROUTE + "\n" + text[second:]
    session = start_session(project_text(text), "Loan_Supervisor")
    turn = session.send("hello there")
    handoff = one(turn.events, "handoff")
    assert handoff.get("history") == {"mode": "last_n", "count": 4}
    assert handoff.get("historyMessages") == 0
    assert session.state().values["_handoff_summary"] == "Collect the applicant income, then return."
    done = session.send("about 92000 a year")
    resume = one(done.events, "resume_intent")
    assert resume.get("resumeWith") == "latest_child_user_utterance"
    assert resume.get("message") == "about 92000 a year"
    assert of_type(done.events, "handoff")[-1].get("to") == "Offer_Agent"


HANDLER_ROUTE = """    ON_RETURN:
      handler: income_done
      MAP:
        annual_income: annual_income
"""


def test_a_named_return_handler_with_resume_intent() -> None:
    # RETURN_HANDLERS belongs to the supervisor document: it goes before the next AGENT header.
    session = loan(
        (ON_RETURN_BLOCK, HANDLER_ROUTE),
        (
            "AGENT: Income_Capture_Agent\n",
            "RETURN_HANDLERS:\n  income_done:\n    RESUME_INTENT: true\n\nAGENT: Income_Capture_Agent\n",
        ),
    )
    session.send("I want a loan offer")
    turn = session.send("85000")
    handler = one(turn.events, "handoff_return_handler")
    assert handler.get("handler") == "income_done"
    assert handler.get("action") == "resume_intent"
    assert one(turn.events, "resume_intent").get("depth") == 1
    assert of_type(turn.events, "handoff")[-1].get("to") == "Offer_Agent"


def test_a_handler_responds_and_clears_then_the_parent_continues() -> None:
    session = loan(
        (ON_RETURN_BLOCK, HANDLER_ROUTE),
        (
            '      DESCRIPTION: "Annual income in whole currency units, collected by the income agent."\n',
            '      DESCRIPTION: "Annual income in whole currency units, collected by the income agent."\n'
            "    - offer_stage\n"
            '      INITIAL: "draft"\n',
        ),
        (
            "AGENT: Income_Capture_Agent\n",
            'RETURN_HANDLERS:\n  income_done:\n    RESPOND: "Got it: {{annual_income}} a year."\n'
            "    CLEAR: [offer_stage]\n    CONTINUE: true\n\nAGENT: Income_Capture_Agent\n",
        ),
    )
    assert session.state().values["offer_stage"] == "draft"
    session.send("I want a loan offer")
    turn = session.send("85000")
    handler = one(turn.events, "handoff_return_handler")
    assert handler.get("action") == "continue"
    assert handler.get("clearedFields") == ["offer_stage"]
    assert handler.get("emittedResponse") == "Got it: 85000 a year."
    assert texts(turn) == ["Thanks. I have your income.", "Got it: 85000 a year."]
    assert "offer_stage" not in session.state().values
    assert not of_type(turn.events, "resume_intent")


def test_an_unknown_action_continues() -> None:
    session = loan(("      action: resume_intent\n", "      action: restart\n"))
    session.send("I want a loan offer")
    turn = session.send("85000")
    assert one(turn.events, "handoff_return_handler").get("action") == "continue"
    assert not of_type(turn.events, "resume_intent")
    assert any(e.get("code") == "on_return_fallback" for e in of_type(turn.events, "warning"))


def test_a_return_target_the_parent_may_not_write_applies_no_effects() -> None:
    session = loan(
        (
            "        annual_income: annual_income\n",
            '        annual_income: annual_income\n      SET:\n        _internal = "x"\n',
        )
    )
    session.send("I want a loan offer")
    turn = session.send("85000")
    error = one(turn.events, "memory_error")
    assert error.get("target") == "_internal"
    assert error.get("code") == "reserved_target"
    assert error.get("cause")
    handler = one(turn.events, "handoff_return_handler")
    assert handler.get("mappedFields") == [] and handler.get("setFields") == []
    assert "annual_income" not in thread_of(session, "Loan_Supervisor").values


def test_an_undeclared_map_target_is_a_memory_error() -> None:
    session = loan(("        annual_income: annual_income\n", "        annual_income: yearly_income\n"))
    session.send("I want a loan offer")
    turn = session.send("85000")
    error = one(turn.events, "memory_error")
    assert (error.get("target"), error.get("code"), error.get("source")) == (
        "yearly_income",
        "undeclared_target",
        "MAP",
    )
    assert "yearly_income" not in thread_of(session, "Loan_Supervisor").values


READ_ONLY_MEMORY = (
    '      DESCRIPTION: "Annual income in whole currency units, collected by the income agent."\n',
    '      DESCRIPTION: "Annual income in whole currency units, collected by the income agent."\n'
    "  persistent:\n"
    "    - user.credit_tier\n"
    "      ACCESS: read\n"
    "    - user.offer_stage\n"
    "      ACCESS: readwrite\n"
    "    READS: [user.segment]\n",
)


def _returns_writing(*lines: str) -> Session:
    return loan(READ_ONLY_MEMORY, ("        annual_income: annual_income\n", "".join(lines)))


def test_a_set_into_a_read_only_persistent_path_applies_none_of_the_effects() -> None:
    session = _returns_writing(
        "        annual_income: annual_income\n",
        "      SET:\n",
        '        user.offer_stage = "income"\n',
        '        user.credit_tier = "gold"\n',
    )
    session.send("I want a loan offer")
    turn = session.send("85000")
    error = one(turn.events, "memory_error")
    assert (error.get("target"), error.get("source"), error.get("code")) == (
        "user.credit_tier",
        "SET",
        "read_only_target",
    )
    assert "may only read" in str(error.get("cause")) and "ACCESS: read" in str(error.get("cause"))
    handler = one(turn.events, "handoff_return_handler")
    assert handler.get("mappedFields") == [] and handler.get("setFields") == []
    values = thread_of(session, "Loan_Supervisor").values
    assert "annual_income" not in values and "user.offer_stage" not in values and "user.credit_tier" not in values


def test_a_map_or_clear_into_a_path_listed_under_reads_is_refused_too() -> None:
    session = _returns_writing(
        "        annual_income: annual_income\n        annual_income: user.segment.income\n",
        "      CLEAR: [user.credit_tier]\n",
    )
    session.send("I want a loan offer")
    turn = session.send("85000")
    errors = [(e.get("target"), e.get("source"), e.get("code")) for e in of_type(turn.events, "memory_error")]
    assert errors == [
        ("user.segment.income", "MAP", "read_only_target"),
        ("user.credit_tier", "CLEAR", "read_only_target"),
    ]
    assert "READS:" in str(of_type(turn.events, "memory_error")[0].get("cause"))
    assert "annual_income" not in thread_of(session, "Loan_Supervisor").values


def test_a_path_the_parent_may_write_is_written() -> None:
    session = _returns_writing(
        "        annual_income: annual_income\n", '      SET:\n        user.offer_stage = "income"\n'
    )
    session.send("I want a loan offer")
    turn = session.send("85000")
    assert not of_type(turn.events, "memory_error")
    handler = one(turn.events, "handoff_return_handler")
    assert handler.get("mappedFields") == ["annual_income"] and handler.get("setFields") == ["user.offer_stage"]


def test_only_lowercase_true_makes_a_route_returnable() -> None:
    session = loan(("    RETURN: true\n", "    RETURN: True\n"))
    turn = session.send("I want a loan offer")
    handoff = one(turn.events, "handoff")
    assert handoff.get("returnExpected") is False
    assert handoff.get("reasonCode") == "handoff_permanent"
    assert session.state().stack == []


def test_expect_return_is_an_alias() -> None:
    session = loan(("    RETURN: true\n", "    EXPECT_RETURN: true\n"))
    turn = session.send("I want a loan offer")
    assert one(turn.events, "handoff").get("returnExpected") is True


# --- Replay depth ------------------------------------------------------------------------------


INSTANT_CHILD = (
    """COMPLETE:
  - WHEN: annual_income IS SET
    RESPOND: "Thanks. I have your income."
""",
    """COMPLETE:
  - WHEN: true
""",
)


def test_a_gate_that_never_opens_replays_once_and_stops_at_the_depth_limit() -> None:
    session = loan(INSTANT_CHILD)
    turn = session.send("I want a loan offer")
    assert len(of_type(turn.events, "resume_intent")) == 1
    limit = one(turn.events, "resume_intent_depth_limit")
    assert limit.get("depth") == 2
    assert len(of_type(turn.events, "handoff")) == 2
    assert turn.active_agent == "Loan_Supervisor"
    assert texts(turn)  # the parent still answers


# --- Topic change: the built-in return and parentReturn ----------------------------------------

TOPIC_SUPERVISOR = (
    """HANDOFF:
  - TO: Income_Capture_Agent""",
    """INTENTS:
  loan_offer: "Loan offers, rates and borrowing."
  card_question: "Questions about credit cards, card limits and card fees."

HANDOFF:
  - TO: Card_Agent
    WHEN: intent.category == "card_question"
    RETURN: false

  - TO: Income_Capture_Agent""",
)
FORWARDED = (
    "      action: resume_intent\n",
    "      action: resume_intent\n      resume_with: forwarded_return_message\n",
)
CARD_AGENT = '\nAGENT: Card_Agent\nGOAL: "Answer credit card questions"\n'


def test_a_reasoning_child_returns_when_the_customer_changes_topic() -> None:
    session = loan(TOPIC_SUPERVISOR, FORWARDED, extra=CARD_AGENT)
    session.send("I want a loan offer")
    turn = session.send("What is the limit on my credit card?")
    back = one(turn.events, "return_to_parent")
    assert (back.get("from"), back.get("to")) == ("Income_Capture_Agent", "Loan_Supervisor")
    assert back.get("forwardedMessage") == "What is the limit on my credit card?"
    assert one(turn.events, "handoff_return_handler").get("cause") == "parent_return"
    resume = one(turn.events, "resume_intent")
    assert (resume.get("resumeWith"), resume.get("message")) == (
        "forwarded_return_message",
        "What is the limit on my credit card?",
    )
    assert one(turn.events, "handoff").get("to") == "Card_Agent"
    assert thread_of(session, "Income_Capture_Agent").status == "waiting"


MILD_TOPIC_CHANGE = "tell me about fees"  # the embedded model matches card_question at 0.704


def test_parent_return_min_confidence_keeps_the_child_in_charge() -> None:
    execution = "\nEXECUTION:\n  pipeline:\n    parentReturn:\n      minConfidence: 0.9\n"
    session = loan(
        TOPIC_SUPERVISOR,
        FORWARDED,
        ("SUPERVISOR: Loan_Supervisor\n", "SUPERVISOR: Loan_Supervisor\n" + execution),
        extra=CARD_AGENT,
    )
    session.send("I want a loan offer")
    turn = session.send(MILD_TOPIC_CHANGE)
    assert not of_type(turn.events, "return_to_parent")
    assert texts(turn) == ["What is your annual income?"]


def test_the_supervisors_setting_overrides_the_project_default() -> None:
    execution = "\nEXECUTION:\n  pipeline:\n    parentReturn:\n      minConfidence: 0.5\n"
    strict = {"minConfidence": 0.9}
    blocked = loan(TOPIC_SUPERVISOR, FORWARDED, extra=CARD_AGENT, parent_return=strict)
    blocked.send("I want a loan offer")
    assert not of_type(blocked.send(MILD_TOPIC_CHANGE).events, "return_to_parent")
    allowed = loan(
        TOPIC_SUPERVISOR,
        FORWARDED,
        ("SUPERVISOR: Loan_Supervisor\n", "SUPERVISOR: Loan_Supervisor\n" + execution),
        extra=CARD_AGENT,
        parent_return=strict,
    )
    allowed.send("I want a loan offer")
    assert of_type(allowed.send(MILD_TOPIC_CHANGE).events, "return_to_parent")


def test_ignore_ambiguous_keeps_an_ambiguous_topic_change_with_the_child() -> None:
    ambiguous = IntentDecision("card_question", 0.7, [("card_question", 0.7), ("loan_offer", 0.65)], True)
    question = "What is the limit on my credit card?"

    def session_with(ignore: bool):
        execution = f"\nEXECUTION:\n  pipeline:\n    parentReturn:\n      ignoreAmbiguous: {str(ignore).lower()}\n"
        model = ScriptedModel(intents={question: ambiguous, "I want a loan offer": None}, fallback=EmbeddedModel())
        return loan(
            TOPIC_SUPERVISOR,
            FORWARDED,
            ("SUPERVISOR: Loan_Supervisor\n", "SUPERVISOR: Loan_Supervisor\n" + execution),
            extra=CARD_AGENT,
            model=model,
        )

    kept = session_with(True)
    kept.send("I want a loan offer")
    assert not of_type(kept.send(question).events, "return_to_parent")
    returned = session_with(False)
    returned.send("I want a loan offer")
    assert of_type(returned.send(question).events, "return_to_parent")


def test_a_route_to_a_child_that_just_gave_control_back_with_a_question_open_is_refused() -> None:
    # The parent classifies the forwarded message as a loan request again (scripted), which would
    # send it straight back to the income agent that is still waiting for its answer.
    question = "What is the limit on my credit card?"
    model = ScriptedModel(
        intents=[
            "loan_offer",  # turn 1: the supervisor routes the loan request
            IntentDecision("card_question", 0.9, [("card_question", 0.9)], False),  # the child's check
            "loan_offer",
        ],  # the supervisor's replay
        fallback=EmbeddedModel(),
    )
    route_by_intent = (
        """  - TO: Income_Capture_Agent
    WHEN: annual_income IS NOT SET""",
        """  - TO: Income_Capture_Agent
    WHEN: annual_income IS NOT SET AND intent.category == "loan_offer\"""",
    )
    session = loan(TOPIC_SUPERVISOR, FORWARDED, route_by_intent, extra=CARD_AGENT, model=model)
    session.send("I want a loan offer")
    turn = session.send(question)
    assert one(turn.events, "return_to_parent")
    refused = one(turn.events, "handoff_completed")
    assert (refused.get("outcome"), refused.get("code")) == ("rejected", "target_waiting_for_input")
    assert turn.active_agent == "Loan_Supervisor"
