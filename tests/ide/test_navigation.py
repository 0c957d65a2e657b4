"""Definition, references, highlights, rename and the handoff call hierarchy, all read from the
one reference index."""

from __future__ import annotations

import pytest
from editor import project_at

from abl.checks.fixes import apply_edits
from abl.diagnostics import TextEdit
from abl.ide import navigation
from abl.ide.references import ReferenceIndex, Symbol, SymbolKind

SUPERVISOR = """\
#- /main.abl
SUPERVISOR: Loan_Supervisor
GOAL: "Route loan requests"
MEMORY:
  session:
    - income
RETURN_HANDLERS:
  income_done:
    RESPOND: "Thanks, {{income}}"
HANDOFF:
  - TO: Income_Agent
    WHEN: income IS NOT SET
    RETURN: true
    ON_RETURN:
      handler: income_done
      MAP:
        annual_income: income
  - TO: Offer_Agent
    PASS: [income]
"""
CHILD = """\
#- /child.abl
AGENT: Income_Agent
GOAL: "Collect the annual income"
GATHER:
  annual_income:
    type: number
"""
OFFER = """\
#- /offer.abl
AGENT: Offer_Agent
GOAL: "Make an offer"
"""


def load(cursor_text: str):
    return project_at(cursor_text + CHILD + OFFER)


def test_definition_of_a_route_target_is_the_agent_header():
    project, path, pos = load(SUPERVISOR.replace("TO: Income_Agent", "TO: Inc$0ome_Agent"))
    [loc] = navigation.definition(project, path, pos)
    assert loc.path == "/child.abl" and loc.range.start.line == 0


def test_definition_of_a_map_child_field_is_the_gather_field():
    project, path, pos = load(SUPERVISOR.replace("annual_income: income", "annual_in$0come: income"))
    [loc] = navigation.definition(project, path, pos)
    assert loc.path == "/child.abl" and loc.range.start.line == 3


def test_definition_of_a_handler():
    project, path, pos = load(SUPERVISOR.replace("handler: income_done", "handler: income$0_done"))
    [loc] = navigation.definition(project, path, pos)
    assert loc.path == "/main.abl" and loc.range.start.line == 6


def test_references_of_a_variable_span_condition_template_map_and_pass():
    project, path, pos = load(SUPERVISOR.replace("    - income", "    - inc$0ome"))
    roles = {
        o.role for o in ReferenceIndex.of(project).occurrences(Symbol(SymbolKind.VARIABLE, "income", "Loan_Supervisor"))
    }
    assert {"session variable", "condition", "template", "map into", "pass"} <= roles
    refs = navigation.references(project, path, pos)
    assert len(refs) == 5
    without = navigation.references(project, path, pos, include_declaration=False)
    assert len(without) == 4


def test_highlights_mark_writes():
    project, path, pos = load(SUPERVISOR.replace("    - income", "    - inc$0ome"))
    marks = navigation.highlights(project, path, pos)
    writes = sorted(h.range.start.line for h in marks if h.write)
    assert writes == [4, 15]  # the declaration and the `MAP` write


def _apply(project, edit) -> dict[str, str]:
    return {p: apply_edits(project.texts[p], list(edits))[0] for p, edits in edit.changes.items()}


def test_rename_a_child_field_renames_the_parent_map_key():
    project, path, pos = load(CHILD.replace("annual_income:", "annual_inc$0ome:") + SUPERVISOR + OFFER)
    edit = navigation.rename(project, path, pos, "yearly_income")
    texts = _apply(project, edit)
    assert "yearly_income:\n" in texts["/child.abl"]
    assert "yearly_income: income" in texts["/main.abl"]


def test_rename_an_agent_everywhere():
    project, path, pos = load(SUPERVISOR.replace("TO: Offer_Agent", "TO: Off$0er_Agent"))
    texts = _apply(project, navigation.rename(project, path, pos, "Quote_Agent"))
    assert texts["/offer.abl"].startswith("AGENT: Quote_Agent")
    assert "TO: Quote_Agent" in texts["/main.abl"]


@pytest.mark.parametrize(
    "where,new_name,message",
    [
        ("HAND$0OFF:", "X", "only names can be renamed"),
        ("TO: Off$0er_Agent", "Income_Agent", r"already names an agent \(child.abl, line 1\)"),
        ("TO: Off$0er_Agent", "not a name!", "not a valid"),
    ],
)
def test_rename_refusals(where, new_name, message):
    original = where.replace("$0", "")
    project, path, pos = load(SUPERVISOR.replace(original, where, 1))
    with pytest.raises(navigation.RenameError, match=message):
        navigation.rename(project, path, pos, new_name)


def test_call_hierarchy_over_handoffs():
    project, path, pos = load(SUPERVISOR.replace("SUPERVISOR: Loan_Supervisor", "SUPERVISOR: Loan_Super$0visor"))
    item = navigation.hierarchy_item(project, path, pos)
    assert item is not None and item.name == "Loan_Supervisor"
    outgoing = {c.agent.name for c in navigation.outgoing_calls(project, "Loan_Supervisor")}
    assert outgoing == {"Income_Agent", "Offer_Agent"}
    incoming = navigation.incoming_calls(project, "Income_Agent")
    assert [c.agent.name for c in incoming] == ["Loan_Supervisor"]
    assert incoming[0].from_ranges[0].start.line == 9


TWO_FILES_TWO_NAMESAKES = """\
#- /a.abl
AGENT: Billing_Agent
GOAL: "Bill"
HANDOFF:
  - TO: Refund_Agent
    WHEN: true
#- /b.abl
AGENT: Refund_Agent
GOAL: "Ref$0und"

AGENT: Billing_Agent
GOAL: "Bill again"
HANDOFF:
  - TO: Refund_Agent
    WHEN: true
  - TO: Billing_Agent
    WHEN: false
"""


def test_call_ranges_are_in_the_calling_agents_file():
    project, _, _ = project_at(TWO_FILES_TWO_NAMESAKES, with_child=False)
    incoming = navigation.incoming_calls(project, "Refund_Agent")
    # Two agents of one name are two callers, each with its own file and ranges.
    assert [(c.agent.path, c.path, [r.start.line for r in c.from_ranges]) for c in incoming] == [
        ("/a.abl", "/a.abl", [3]),
        ("/b.abl", "/b.abl", [6]),
    ]
    outgoing = navigation.outgoing_calls(project, "Refund_Agent")
    assert outgoing == []
    into_billing = navigation.incoming_calls(project, "Billing_Agent")
    assert [(c.path, [r.start.line for r in c.from_ranges]) for c in into_billing] == [("/b.abl", [8])]


def test_edits_of_one_file_are_sorted_and_unique():
    project, path, pos = load(SUPERVISOR.replace("    - income", "    - inc$0ome"))
    edit = navigation.rename(project, path, pos, "salary")
    edits = edit.changes["/main.abl"]
    assert edits == sorted(edits, key=lambda e: (e.range.start, e.range.end))
    assert len({e.range for e in edits}) == len(edits)
    assert all(isinstance(e, TextEdit) for e in edits)
