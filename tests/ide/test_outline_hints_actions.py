"""Outline, workspace symbols, inlay hints, code actions and code lenses."""

from __future__ import annotations

from editor import project_at

from abl.checks.engine import check_project
from abl.checks.fixes import apply_edits
from abl.ide import actions
from abl.ide.inlay import inlay_hints
from abl.ide.lens import LensKind, code_lenses
from abl.ide.symbols import OutlineKind, document_outline, workspace_symbols
from abl.text import Position, Range
from abl.workspace import Project

SUPERVISOR = """\
SUPERVISOR: Loan_Supervisor$0
GOAL: "Route loan requests"
MEMORY:
  session:
    - income
GATHER:
  wants_loan:
    type: boolean
HANDOFF:
  - TO: Income_Agent
    RETURN: true
    HISTORY: recent
    ON_RETURN:
      action: resume_intent
      MAP:
        annual_income: income
  - TO: Offer_Agent
    RETURN: True
RETURN_HANDLERS:
  income_done:
    RESPOND: "ok"
"""
OFFER = '#- /offer.abl\nAGENT: Offer_Agent\nGOAL: "Make an offer"\n'


def load():
    return project_at("#- /main.abl\n" + SUPERVISOR + OFFER)


def test_outline_nests_sections_and_their_items():
    project, path, _ = load()
    [sup] = document_outline(project.documents[path])
    assert (sup.name, sup.kind) == ("Loan_Supervisor", OutlineKind.SUPERVISOR)
    sections = {c.name: c for c in sup.children}
    assert [c.name for c in sections["HANDOFF"].children] == ["→ Income_Agent", "→ Offer_Agent"]
    assert "returnable" in sections["HANDOFF"].children[0].detail
    assert "permanent" in sections["HANDOFF"].children[1].detail  # `True` is not true
    assert [c.name for c in sections["GATHER"].children] == ["wants_loan"]
    assert [c.name for c in sections["RETURN_HANDLERS"].children] == ["income_done"]
    for child in sup.children:
        assert sup.range.start <= child.range.start and child.range.end <= sup.range.end


def test_workspace_symbols_match_in_order_and_rank_prefixes_first():
    project, _, _ = load()
    names = [s.name for s in workspace_symbols([project], "inc")]
    assert names[0] in ("income", "income_done", "Income_Agent")
    assert "annual_income" in names
    assert all("i" in n.lower() for n in names)
    assert [s.name for s in workspace_symbols([project], "zzz")] == []


def test_inlay_hints_say_what_the_platform_decides_silently():
    project, path, _ = load()
    hints = inlay_hints(project.documents[path], Range(Position(0, 0), Position(100, 0)))
    labels = [h.label for h in hints]
    assert "returnable" in labels
    assert "permanent · history full" in labels  # `RETURN: True`, no HISTORY
    assert "→ full" in labels  # `HISTORY: recent` falls back
    assert "⟵ annual_income" in labels


def test_the_route_hint_counts_the_lines_nested_under_a_value():
    text = (
        'SUPERVISOR: Hub\nGOAL: "Route"\nHANDOFF:\n  - TO: Income_Agent\n      WHEN: true\n      HISTORY: none\n'
        'AGENT: Income_Agent\nGOAL: "Collect"\n'
    )
    project = Project("/")
    project.update("/hub.abl", text)
    hints = inlay_hints(project.documents["/hub.abl"], Range(Position(0, 0), Position(10, 0)))
    assert "permanent · history full · 2 nested lines ignored" in [h.label for h in hints]


def test_quick_fixes_and_fix_all():
    project, path, _ = load()
    diags = check_project(project)[path]
    true_fix = [d for d in diags if d.code == "RETURN_NOT_LOWERCASE_TRUE"]
    assert true_fix
    found = actions.quick_fixes(path, diags, true_fix[0].range)
    assert any("`true`" in a.title for a in found)
    every = actions.fix_all(path, project.texts[path], diags)
    if every is not None:
        [edit] = every.edit.changes[path]
        fixed, _ = apply_edits(project.texts[path], [edit])
        assert fixed != project.texts[path]
        project.update(path, fixed)
        again = actions.fix_all(path, fixed, check_project(project)[path])
        assert again is None, "fixing all a second time changes nothing"


def test_code_lenses_run_and_count_handoffs_in():
    project, _, _ = load()
    lenses = code_lenses(project, "/offer.abl")
    kinds = {lens.kind: lens for lens in lenses}
    assert kinds[LensKind.RUN_AGENT].agent == "Offer_Agent"
    assert kinds[LensKind.HANDOFFS_IN].title == "1 handoff in"
    assert kinds[LensKind.HANDOFFS_IN].agent == "Offer_Agent" and len(kinds[LensKind.HANDOFFS_IN].uses) == 1
    without_runs = code_lenses(project, "/offer.abl", can_run=False)
    assert [lens.kind for lens in without_runs] == [LensKind.HANDOFFS_IN], "no run lens without a run panel"
    assert LensKind.DEBUG_AGENT not in kinds, "no debug lens unless the editor starts debug sessions"


def test_a_debug_lens_sits_between_run_and_handoffs_in():
    project, _, _ = load()
    lenses = code_lenses(project, "/offer.abl", can_debug=True)
    assert [lens.kind for lens in lenses] == [LensKind.RUN_AGENT, LensKind.DEBUG_AGENT, LensKind.HANDOFFS_IN]
    debug = lenses[1]
    assert (debug.title, debug.agent) == ("Debug agent", "Offer_Agent")
    assert debug.range == lenses[0].range and debug.name_start == lenses[0].name_start
    only_debug = code_lenses(project, "/offer.abl", can_run=False, can_debug=True)
    assert [lens.kind for lens in only_debug] == [LensKind.DEBUG_AGENT, LensKind.HANDOFFS_IN]
