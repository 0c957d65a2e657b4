"""Seed 004 ("How to transfer control to another agent and return later"), row by row.

Every "Common mistakes" row that a checker can see is one case here, followed by the concept
rules (`EXPECT_RETURN`, lowercase `true`, `MAP` direction), the variation notes (`W801` for
`income_note`, `RESPOND` with `RESUME_INTENT`), the "Verification" and checklist steps a
checker can take (every `TO` exists, a `MAP` source the child does not declare, also in another
file), and the seed's own projects, which must check without errors or warnings.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from abl.checks.engine import CheckOptions, check_project
from abl.checks.fixes import apply_edits
from abl.diagnostics import Diagnostic, Severity
from abl.model import HandoffRoute
from abl.runtime import RuntimeOptions, start_session
from abl.workspace import Project, load_project

REPO = Path(__file__).resolve().parents[2]
MINIMAL = REPO / "examples" / "loan-supervisor"
VARIATIONS = sorted((REPO / "examples" / "loan-supervisor-variations").iterdir())

# The seed's minimal example, one text; every case below edits one part of it.
SEED = (MINIMAL / "loan-supervisor.agent.abl").read_text(encoding="utf-8")

INCOME_ROUTE_RETURN = "    RETURN: true\n    ON_RETURN:\n"
INCOME_MAP = "      MAP:\n        annual_income: annual_income\n"
OFFER_WHEN = "WHEN: annual_income IS SET\n    PASS: [annual_income]"


@dataclass
class Checked:
    project: Project
    diagnostics: list[Diagnostic]
    text: str

    def route(self, target: str, agent: str = "Loan_Supervisor") -> HandoffRoute:
        owner = self.project.agent(agent)
        assert owner is not None
        return next(r for r in owner.handoffs if r.target is not None and r.target.text == target)

    def codes(self, *severities: Severity) -> list[str]:
        wanted = severities or (Severity.ERROR, Severity.WARNING)
        return sorted(d.code for d in self.diagnostics if d.severity in wanted)

    def one(self, code: str) -> Diagnostic:
        found = [d for d in self.diagnostics if d.code == code]
        assert len(found) == 1, f"expected one {code}, got {[(d.code, d.message) for d in self.diagnostics]}"
        return found[0]

    def text_at(self, diagnostic: Diagnostic) -> str:
        r = diagnostic.range
        assert r.start.line == r.end.line
        return self.text.splitlines()[r.start.line][r.start.character : r.end.character]

    def fixed(self, diagnostic: Diagnostic, title_part: str) -> str:
        fix = next(f for f in diagnostic.fixes if title_part in f.title)
        text, applied = apply_edits(self.text, list(fix.edits))
        assert applied == len(fix.edits)
        return text


def check(text: str, **other_files: str) -> Checked:
    """Check `text` as `/agents/loan.agent.abl`, with other files of the project by name."""
    project = Project("/")
    project.update("/agents/loan.agent.abl", text)
    for name, other in other_files.items():
        project.update(f"/agents/{name}.agent.abl", other)
    result = check_project(project, CheckOptions(strict_rules=True))
    return Checked(project, result["/agents/loan.agent.abl"], text)


def edit(old: str, new: str, text: str = SEED) -> str:
    assert text.count(old) == 1, f"{old!r} must occur once"
    return text.replace(old, new)


def test_the_seed_text_is_clean() -> None:
    seed = check(SEED)
    assert seed.codes() == []
    assert seed.route("Income_Capture_Agent").is_returnable
    assert not seed.route("Offer_Agent").is_returnable


# --- "Common mistakes" ----------------------------------------------------------------------


def test_omitting_return_true_makes_the_route_permanent() -> None:
    checked = check(edit("    RETURN: true\n", ""))
    assert not checked.route("Income_Capture_Agent").is_returnable
    warning = checked.one("HANDOFF_ON_RETURN_WITHOUT_RETURN")
    assert "never runs" in warning.message
    after = check(checked.fixed(warning, "RETURN: true"))
    assert after.route("Income_Capture_Agent").is_returnable
    assert after.codes() == []


@pytest.mark.parametrize("written", ["True", '"true"', "TRUE", "yes", "1"])
def test_return_true_not_in_lowercase_reads_false(written: str) -> None:
    checked = check(edit("    RETURN: true\n", f"    RETURN: {written}\n"))
    assert not checked.route("Income_Capture_Agent").is_returnable
    # The seed: "The compiler warns HANDOFF_ON_RETURN_WITHOUT_RETURN when ON_RETURN is present."
    assert checked.codes() == ["HANDOFF_ON_RETURN_WITHOUT_RETURN", "RETURN_NOT_LOWERCASE_TRUE"]
    warning = checked.one("RETURN_NOT_LOWERCASE_TRUE")
    assert checked.text_at(warning) == written
    assert "reads as false" in warning.message
    assert not warning.fixes[0].safe, "the route becomes returnable: a change to what runs"
    after = check(checked.fixed(warning, "true"))
    assert after.route("Income_Capture_Agent").is_returnable
    assert after.codes() == []


def test_on_return_on_a_permanent_route_never_runs() -> None:
    text = edit(
        '    SUMMARY: "The offer agent now owns the conversation."\n    RETURN: false\n',
        '    SUMMARY: "The offer agent now owns the conversation."\n    RETURN: false\n'
        "    ON_RETURN:\n      action: continue\n",
    )
    checked = check(text)
    warning = checked.one("HANDOFF_ON_RETURN_WITHOUT_RETURN")
    assert checked.codes() == ["HANDOFF_ON_RETURN_WITHOUT_RETURN"]
    assert checked.text_at(warning) == "ON_RETURN"
    # Seed 004: on a `RETURN: false` route, remove `ON_RETURN`. It keeps what runs, but it
    # deletes the author's lines, so it is offered first and never applied without asking.
    assert [f.title for f in warning.fixes] == ["Remove `ON_RETURN`", "Write `RETURN: true`"]
    assert not any(f.safe for f in warning.fixes)
    assert check(checked.fixed(warning, "Remove")).text == SEED


def test_on_return_after_true_in_capitals_offers_lowercase_true_first() -> None:
    text = edit("    RETURN: true\n", "    RETURN: True\n")
    checked = check(text)
    assert checked.codes() == ["HANDOFF_ON_RETURN_WITHOUT_RETURN", "RETURN_NOT_LOWERCASE_TRUE"]
    warning = checked.one("HANDOFF_ON_RETURN_WITHOUT_RETURN")
    # The seed: write `RETURN: true`; the same edit as RETURN_NOT_LOWERCASE_TRUE's fix.
    assert warning.fixes[0].title == "Write `RETURN: true`" and not warning.fixes[0].safe
    assert check(checked.fixed(warning, "Write")).text == SEED


def test_values_do_not_return_without_map() -> None:
    checked = check(edit(INCOME_MAP, ""))
    assert checked.codes() == ["RETURN_VALUE_NOT_MAPPED", "W801"]
    warning = checked.one("RETURN_VALUE_NOT_MAPPED")
    assert "only mapped fields return" in warning.message and "annual_income" in warning.message
    after = check(checked.fixed(warning, "MAP"))
    assert after.codes() == []
    assert [m.child.text for m in after.route("Income_Capture_Agent").on_return.map] == ["annual_income"]


def test_map_written_parent_first_is_reported_and_swapped() -> None:
    text = edit("    - annual_income\n", "    - applicant_income\n")
    text = edit("WHEN: annual_income IS NOT SET", "WHEN: applicant_income IS NOT SET", text)
    text = edit(OFFER_WHEN, "WHEN: applicant_income IS SET\n    PASS: [applicant_income]", text)
    text = edit("        annual_income: annual_income\n", "        applicant_income: annual_income\n", text)
    checked = check(text)
    assert checked.codes() == ["MAP_DIRECTION_REVERSED", "UNKNOWN_HANDOFF_RETURN_FIELD", "W801"]
    reversed_entry = checked.one("MAP_DIRECTION_REVERSED")
    assert checked.text_at(reversed_entry) == "applicant_income: annual_income"
    after = check(checked.fixed(reversed_entry, "Swap"))
    assert "annual_income: applicant_income" in after.text
    assert after.codes() == []


def test_unknown_action_warns_and_runs_continue() -> None:
    checked = check(edit("      action: resume_intent\n", "      action: restart\n"))
    assert checked.codes() == ["UNSUPPORTED_HANDOFF_ON_RETURN_ACTION"]
    warning = checked.one("UNSUPPORTED_HANDOFF_ON_RETURN_ACTION")
    assert checked.text_at(warning) == "restart"
    assert "runs `continue`" in warning.message
    on_return = checked.route("Income_Capture_Agent").on_return
    assert on_return is not None and on_return.effective_action == "continue"
    safe = [f.title for f in warning.fixes if f.safe]
    assert safe == ["Write `continue` (what runs today)"]


def test_unknown_action_runs_continue_in_the_runtime() -> None:
    project = Project("/")
    project.update("/agents/loan.agent.abl", edit("      action: resume_intent\n", "      action: restart\n"))
    session = start_session(project, "Loan_Supervisor", RuntimeOptions())
    session.send("I want a loan offer")
    turn = session.send("85000")
    returned = [e for e in turn.events if e.type == "handoff_return_handler"]
    assert [e.get("action") for e in returned] == ["continue"]
    assert not [e for e in turn.events if e.type == "resume_intent"]


def test_handler_combining_respond_and_resume_intent_is_an_error() -> None:
    text = edit(
        "      action: resume_intent\n",
        "      handler: income_done\n",
    )
    text = edit(
        "AGENT: Income_Capture_Agent",
        'RETURN_HANDLERS:\n  income_done:\n    RESPOND: "Thanks."\n    RESUME_INTENT: true\n\nAGENT: Income_Capture_Agent',
        text,
    )
    checked = check(text)
    assert checked.codes() == ["HANDOFF_ON_RETURN_ACTION_AND_HANDLER"]
    error = checked.one("HANDOFF_ON_RETURN_ACTION_AND_HANDLER")
    assert error.severity is Severity.ERROR
    assert checked.text_at(error) == "RESUME_INTENT"
    assert check(edit('    RESPOND: "Thanks."\n', "", text)).codes() == []


def test_action_and_handler_together_is_an_error() -> None:
    text = edit("      action: resume_intent\n", "      action: resume_intent\n      handler: income_done\n")
    text = edit(
        "AGENT: Income_Capture_Agent",
        "RETURN_HANDLERS:\n  income_done:\n    RESUME_INTENT: true\n\nAGENT: Income_Capture_Agent",
        text,
    )
    checked = check(text)
    assert checked.codes() == ["HANDOFF_ON_RETURN_ACTION_AND_HANDLER"]
    after = check(checked.fixed(checked.one("HANDOFF_ON_RETURN_ACTION_AND_HANDLER"), "Remove `action`"))
    assert after.codes() == []


@pytest.mark.parametrize(
    ("old", "new", "written", "replacement"),
    [
        (
            OFFER_WHEN,
            'WHEN: annual_income != ""\n    PASS: [annual_income]',
            'annual_income != ""',
            "annual_income IS SET",
        ),
        (
            "WHEN: annual_income IS NOT SET",
            'WHEN: annual_income == ""',
            'annual_income == ""',
            "annual_income IS NOT SET",
        ),
    ],
    ids=["!= gate", "== gate"],
)
def test_gating_with_an_empty_string(old: str, new: str, written: str, replacement: str) -> None:
    checked = check(edit(old, new))
    assert checked.codes() == ["EMPTY_STRING_COMPARISON"]
    warning = checked.one("EMPTY_STRING_COMPARISON")
    assert checked.text_at(warning) == written
    assert not warning.fixes[0].safe
    after = check(checked.fixed(warning, replacement))
    assert after.text == SEED
    assert after.codes() == []


# --- Concept ----------------------------------------------------------------------------------


def test_expect_return_is_an_alias_of_return() -> None:
    checked = check(edit("    RETURN: true\n    ON_RETURN:", "    EXPECT_RETURN: true\n    ON_RETURN:"))
    assert checked.route("Income_Capture_Agent").is_returnable
    assert checked.codes() == []
    capitalised = check(edit("    RETURN: true\n    ON_RETURN:", "    EXPECT_RETURN: True\n    ON_RETURN:"))
    assert capitalised.codes() == ["HANDOFF_ON_RETURN_WITHOUT_RETURN", "RETURN_NOT_LOWERCASE_TRUE"]
    assert "EXPECT_RETURN: True" in capitalised.one("RETURN_NOT_LOWERCASE_TRUE").message


def test_on_failure_takes_continue_escalate_or_respond() -> None:
    respond = 'ON_FAILURE: RESPOND "I cannot collect your income details right now. Please try again later."'
    for good in ("ON_FAILURE: continue", "ON_FAILURE: ESCALATE", respond):
        assert check(edit(respond, good)).codes() == [], good
    bad = check(edit(respond, "ON_FAILURE: restart"))
    assert bad.codes() == ["INVALID_HANDOFF_FAILURE_ACTION"]
    assert bad.text_at(bad.one("INVALID_HANDOFF_FAILURE_ACTION")) == "restart"


# --- "Common variations" ----------------------------------------------------------------------

CONTINUE_VARIATION = (REPO / "examples/loan-supervisor-variations/continue/loan.agent.abl").read_text(encoding="utf-8")
INCOME_NOTE_SET = '      SET:\n        income_note: "Income collected by the income agent."\n'


def test_income_note_without_its_set_line_gives_w801() -> None:
    checked = check(edit(INCOME_NOTE_SET, "", CONTINUE_VARIATION))
    assert checked.codes() == ["W801"]
    warning = checked.one("W801")
    assert warning.message.startswith('Session variable "income_note" has no population source')
    assert checked.text_at(warning) == "income_note"


def test_income_note_with_its_set_line_is_clean() -> None:
    assert check(CONTINUE_VARIATION).codes() == []


def test_a_handler_without_map_returns_no_value() -> None:
    handler = (REPO / "examples/loan-supervisor-variations/return-handler/loan.agent.abl").read_text(encoding="utf-8")
    checked = check(edit(INCOME_MAP, "", handler))
    assert "RETURN_PATH_WITHOUT_ON_RETURN_MAP_HANDLER" in checked.codes()
    assert checked.text_at(checked.one("RETURN_PATH_WITHOUT_ON_RETURN_MAP_HANDLER")) == "income_done"


def test_an_undeclared_handler_is_an_error() -> None:
    handler = (REPO / "examples/loan-supervisor-variations/return-handler/loan.agent.abl").read_text(encoding="utf-8")
    checked = check(edit("      handler: income_done\n", "      handler: income_finished\n", handler))
    assert checked.codes() == ["UNKNOWN_HANDOFF_ON_RETURN_HANDLER"]
    after = check(checked.fixed(checked.one("UNKNOWN_HANDOFF_ON_RETURN_HANDLER"), "income_done"))
    assert after.codes() == []


def test_a_child_may_hand_back_to_its_waiting_parent_but_not_to_itself() -> None:
    hand_back = (REPO / "examples/loan-supervisor-variations/hand-back/loan.agent.abl").read_text(encoding="utf-8")
    assert check(hand_back).codes() == []
    to_itself = check(edit("  - TO: Loan_Supervisor\n", "  - TO: Income_Capture_Agent\n", hand_back))
    assert to_itself.codes() == ["SELF_HANDOFF_TARGET"]


def test_context_block_reads_lowercase_keys_and_a_one_line_map() -> None:
    context = (REPO / "examples/loan-supervisor-variations/context-block/loan.agent.abl").read_text(encoding="utf-8")
    checked = check(context)
    route = checked.route("Income_Capture_Agent")
    assert route.history is not None and (route.history.resolved_mode, route.history.resolved_count) == ("last_n", 4)
    assert route.on_return is not None and route.on_return.resume_with is not None
    assert [(m.child.text, m.parent.text) for m in route.on_return.map] == [("annual_income", "annual_income")]
    assert checked.codes() == []
    one_line = check(
        edit("      history:\n        mode: last_n\n        count: 4\n", "      history: { mode: last_n }\n", context)
    )
    assert one_line.codes() == ["HISTORY_FALLS_BACK_TO_FULL"]
    uppercase = check(edit("      pass: []\n", "      PASS: []\n", context))
    assert uppercase.codes() == ["CONTEXT_KEY_IGNORED"]


# --- "Verification" and "Production readiness checklist" -------------------------------------


def test_every_to_target_must_exist() -> None:
    without_offer = SEED[: SEED.index("AGENT: Offer_Agent")]
    checked = check(without_offer)
    assert checked.codes() == ["INVALID_HANDOFF_TARGET"]
    error = checked.one("INVALID_HANDOFF_TARGET")
    assert checked.text_at(error) == "Offer_Agent"
    assert "Income_Capture_Agent, Loan_Supervisor" in error.message
    typo = check(edit("  - TO: Offer_Agent\n", "  - TO: Offer_Agnet\n"))
    assert typo.codes() == ["INVALID_HANDOFF_TARGET"]
    assert 'did you mean "Offer_Agent"' in typo.one("INVALID_HANDOFF_TARGET").message


def test_a_target_in_another_file_exists() -> None:
    supervisor = SEED[: SEED.index("AGENT: Income_Capture_Agent")]
    income = SEED[SEED.index("AGENT: Income_Capture_Agent") : SEED.index("AGENT: Offer_Agent")]
    offer = SEED[SEED.index("AGENT: Offer_Agent") :]
    assert check(supervisor, income=income, offer=offer).codes() == []


@pytest.mark.parametrize("split", [False, True], ids=["same file", "child in another file"])
def test_a_map_source_the_child_does_not_declare(split: bool) -> None:
    text = edit("        annual_income: annual_income\n", "        yearly_income: annual_income\n")
    if split:
        income = text[text.index("AGENT: Income_Capture_Agent") : text.index("AGENT: Offer_Agent")]
        text = text.replace(income, "")
        checked = check(text, income=income)
    else:
        checked = check(text)
    assert checked.codes() == ["UNKNOWN_HANDOFF_RETURN_FIELD"]
    error = checked.one("UNKNOWN_HANDOFF_RETURN_FIELD")
    assert error.severity is Severity.ERROR
    assert checked.text_at(error) == "yearly_income", "the range is the child key"
    assert '"Income_Capture_Agent" does not declare or obviously produce "yearly_income"' in error.message


def test_a_child_with_no_way_back_is_reported() -> None:
    flow_child = (
        'AGENT: Income_Capture_Agent\nGOAL: "Collect the annual income and return it to the supervisor"\n\n'
        "FLOW:\n  ask:\n    REASONING: false\n    GATHER:\n      - annual_income: required\n"
        '        prompt: "What is your annual income?"\n    THEN: thank\n\n'
        '  thank:\n    REASONING: false\n    RESPOND: "Thanks."\n\n'
    )
    start = SEED.index("AGENT: Income_Capture_Agent")
    text = SEED[:start] + flow_child + SEED[SEED.index("AGENT: Offer_Agent") :]
    checked = check(text)
    assert checked.codes() == ["RETURNABLE_TARGET_CANNOT_RETURN"]
    # A reasoning child (no FLOW) always has the built-in return action.
    reasoning = (
        SEED[:start]
        + 'AGENT: Income_Capture_Agent\nGOAL: "Collect the annual income"\n\n'
        + SEED[SEED.index("AGENT: Offer_Agent") :]
    )
    assert "RETURNABLE_TARGET_CANNOT_RETURN" not in check(reasoning).codes()


def test_each_route_sets_on_failure_on_purpose() -> None:
    hints = check(SEED).codes(Severity.HINT)
    assert hints.count("ON_FAILURE_NOT_SET") == 1, "only the Offer_Agent route leaves it out"


# --- The seed's own projects ------------------------------------------------------------------


@pytest.mark.parametrize("root", [MINIMAL, *VARIATIONS], ids=lambda p: p.name)
def test_seed_project_has_no_errors_or_warnings(root: Path) -> None:
    project, problems = load_project([str(root)])
    assert problems == [] and project.documents
    result = check_project(project, CheckOptions(strict_rules=True))
    loud = [
        (Path(path).name, d.code, d.message)
        for path, diags in result.items()
        for d in diags
        if d.severity in (Severity.ERROR, Severity.WARNING)
    ]
    assert loud == []
