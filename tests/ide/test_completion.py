"""Completion at the cursor: each case is a half-typed document, the labels that must be
offered and the labels that must not."""

from __future__ import annotations

import pytest
from editor import project_at

from abl.ide.completion import ItemKind, complete, plain

HEAD = 'SUPERVISOR: Loan_Supervisor\nGOAL: "Route loan requests"\n'

CASES = [
    (
        "history block keys, indented with tabs",
        HEAD + "HANDOFF:\n\t- TO: Income_Agent\n\t  HISTORY:\n\t    $0\n",
        {"mode", "count"},
        {"TO", "- TO:"},
    ),
    (
        "gather field keys, indented with tabs",
        'AGENT: A\nGOAL: "g"\nGATHER:\n\tcode:\n\t\t$0\n',
        {"prompt", "type", "required"},
        {"GOAL", "HANDOFF"},
    ),
    (
        "history modes after `HISTORY: `",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    HISTORY: $0\n",
        {"full", "none", "summary_only", "auto", "last_5", "mode: / count: (block form)"},
        {"recent", "TO"},
    ),
    (
        "history block keys",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    HISTORY:\n      $0\n",
        {"mode", "count"},
        {"TO", "action"},
    ),
    (
        "block mode values",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    HISTORY:\n      mode: $0\n",
        {"last_n", "full", "none", "summary_only", "auto"},
        {"last_5"},
    ),
    (
        "ON_RETURN keys in an empty block",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    RETURN: true\n    ON_RETURN:\n      $0\n",
        {"action", "handler", "resume_with", "MAP", "SET"},
        {"TO", "WHEN"},
    ),
    (
        "ON_RETURN keys already written are not offered again",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    ON_RETURN:\n      action: continue\n      $0\n",
        {"handler", "MAP"},
        {"action"},
    ),
    (
        "ON_RETURN action values",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    ON_RETURN:\n      action: $0\n",
        {"continue", "resume_intent"},
        {"restart"},
    ),
    (
        "resume_with values",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    ON_RETURN:\n      resume_with: $0\n",
        {
            "original_handoff_utterance",
            "latest_child_user_utterance",
            "latest_session_user_utterance",
            "forwarded_return_message",
        },
        set(),
    ),
    (
        "one-line ON_RETURN: built-in actions and the agent's handlers",
        HEAD
        + 'RETURN_HANDLERS:\n  income_done:\n    RESPOND: "ok"\nHANDOFF:\n  - TO: Income_Agent\n    ON_RETURN: $0\n',
        {"continue", "resume_intent", "income_done"},
        set(),
    ),
    (
        "handler names for `handler:`",
        HEAD
        + 'RETURN_HANDLERS:\n  income_done:\n    RESPOND: "ok"\nHANDOFF:\n  - TO: Income_Agent\n    ON_RETURN:\n      handler: $0\n',
        {"income_done"},
        {"continue"},
    ),
    (
        "TO targets come from the whole workspace, not the agent itself",
        HEAD + "HANDOFF:\n  - TO: $0\n",
        {"Income_Agent"},
        {"Loan_Supervisor"},
    ),
    (
        "RETURN offers only lowercase booleans",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    RETURN: $0\n",
        {"true", "false"},
        {"True", "False"},
    ),
    (
        "MAP keys are the child's fields",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    RETURN: true\n    ON_RETURN:\n      MAP:\n        $0\n",
        {"annual_income", "employer"},
        {"action", "TO"},
    ),
    (
        "MAP values are the parent's variables",
        HEAD
        + "MEMORY:\n  session:\n    - income\nHANDOFF:\n  - TO: Income_Agent\n    ON_RETURN:\n      MAP:\n        annual_income: $0\n",
        {"income"},
        set(),
    ),
    (
        "route keys inside an item, without the ones written",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    $0\n",
        {"WHEN", "HISTORY", "RETURN", "ON_RETURN", "PASS"},
        {"TO"},
    ),
    (
        "a new gather field: a snippet",
        'AGENT: A\nGOAL: "g"\nGATHER:\n  $0\n',
        {"new field"},
        {"new return handler"},
    ),
    (
        "a new return handler: a snippet",
        HEAD + "RETURN_HANDLERS:\n  $0\n",
        {"new return handler"},
        {"new field"},
    ),
    (
        "a new route under HANDOFF: snippets",
        HEAD + "HANDOFF:\n  $0\n",
        {"returnable route", "permanent route"},
        set(),
    ),
    (
        "sections not yet written",
        HEAD + "$0\n",
        {"HANDOFF", "GATHER", "MEMORY", "RETURN_HANDLERS"},
        {"GOAL"},
    ),
    (
        "condition variables inside WHEN",
        HEAD + "MEMORY:\n  session:\n    - wants_loan\nHANDOFF:\n  - TO: Income_Agent\n    WHEN: $0\n",
        {"wants_loan", "intent.category"},
        {"AND"},
    ),
    (
        "condition operators after an operand",
        HEAD + "MEMORY:\n  session:\n    - wants_loan\nHANDOFF:\n  - TO: Income_Agent\n    WHEN: wants_loan $0\n",
        {"==", "IS SET", "IS NOT SET", "AND"},
        {"wants_loan"},
    ),
    (
        "PASS fields not yet listed",
        HEAD
        + "MEMORY:\n  session:\n    - income\n    - order_id\nHANDOFF:\n  - TO: Income_Agent\n    PASS: [income, $0]\n",
        {"order_id"},
        {"income"},
    ),
    (
        "a half-typed key",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    HIST$0\n",
        {"HISTORY"},
        set(),
    ),
]


@pytest.mark.parametrize("name,text,wanted,unwanted", CASES, ids=[c[0] for c in CASES])
def test_completion(name, text, wanted, unwanted):
    project, path, pos = project_at(text)
    labels = {item.label for item in complete(project, path, pos)}
    assert wanted <= labels, f"missing {wanted - labels}; offered {sorted(labels)}"
    assert not (unwanted & labels), f"should not offer {unwanted & labels}"


def test_items_replace_the_partly_typed_word():
    project, path, pos = project_at(HEAD + "HANDOFF:\n  - TO: Income_Agent\n    HIST$0\n")
    item = next(i for i in complete(project, path, pos) if i.label == "HISTORY")
    assert item.replace is not None
    assert (item.replace.start.character, item.replace.end.character) == (4, 8)
    assert item.insert_text == "HISTORY: "


def test_route_snippets_have_a_plain_form_for_clients_without_snippets():
    project, path, pos = project_at(HEAD + "HANDOFF:\n  $0\n")
    item = next(i for i in complete(project, path, pos) if i.label == "returnable route")
    assert item.kind is ItemKind.SNIPPET and item.snippet is not None
    assert "RETURN: true" in item.insert_text and "$" not in item.insert_text
    assert plain("${1|a,b|} ${2:x} $0") == "a x "


@pytest.mark.parametrize(
    "text",
    [
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    HISTORY: $0\n",
        HEAD + "HANDOFF:\n  - TO: $0\n",
        HEAD + "HANDOFF:\n  - TO: Income_Agent\n    RETURN: true\n    ON_RETURN:\n      action: $0\n",
    ],
)
def test_where_a_value_goes_only_values_are_offered(text):
    project, path, pos = project_at(text)
    offered = complete(project, path, pos)
    assert offered, "values are offered"
    assert not [i.label for i in offered if i.kind in (ItemKind.KEY, ItemKind.SECTION)]
    snippets = [i.label for i in offered if i.kind is ItemKind.SNIPPET]
    assert snippets in ([], ["mode: / count: (block form)"]), "only the value's own block form"
    assert len({i.label for i in offered}) == len(offered), "each value once"


def test_every_snippet_expanded_with_its_defaults_makes_a_project_without_errors():
    from abl.checks.engine import check_project
    from abl.diagnostics import Severity
    from abl.ide.completion import _AGENT_HEADERS, GATHER_FIELD, PERMANENT_ROUTE, RETURN_HANDLER, RETURNABLE_ROUTE
    from abl.workspace import Project

    def indented(snippet: str, by: str) -> str:
        return "\n".join(by + line for line in plain(snippet).split("\n"))

    supervisor = plain(_AGENT_HEADERS[1][1]).replace("Supervisor_Name", "Hub").rstrip() + "\n"
    supervisor += (
        indented(RETURNABLE_ROUTE, "  ")
        .replace("Agent_Name", "Child_Agent")
        .replace("condition", "parent_variable IS NOT SET")
    )
    supervisor += "\n" + indented(PERMANENT_ROUTE, "  ").replace("Agent_Name", "Child_Agent")
    supervisor = supervisor.replace("condition", "parent_variable IS SET").replace("[field]", "[parent_variable]")
    supervisor += "\nMEMORY:\n  session:\n    - parent_variable\nRETURN_HANDLERS:\n" + indented(RETURN_HANDLER, "  ")
    child = plain(_AGENT_HEADERS[0][1]).replace("Agent_Name", "Child_Agent") + "GATHER:\n"
    child += indented(GATHER_FIELD, "  ").replace("field_name", "child_field") + "\n"
    project = Project("/p")
    project.update("/p/hub.abl", supervisor + "\n")
    project.update("/p/child.abl", child)
    errors = [d for ds in check_project(project).values() for d in ds if d.severity is Severity.ERROR]
    assert errors == [], supervisor + "\n---\n" + child


def test_no_completion_inside_comments():
    project, path, pos = project_at(HEAD + "# HIST$0\n")
    assert complete(project, path, pos) == []


def test_keys_come_with_snippets_from_the_catalogue():
    project, path, pos = project_at(HEAD + "HANDOFF:\n  - TO: Income_Agent\n    $0\n")
    items = {i.label: i for i in complete(project, path, pos)}
    assert items["HISTORY"].snippet == "HISTORY: ${1|full,none,summary_only,auto,last_5|}"
    assert items["RETURN"].snippet == "RETURN: ${1|true,false|}"  # lowercase only
    assert items["ON_RETURN"].snippet == "ON_RETURN:\n  $0"
    project, path, pos = project_at(HEAD + "$0\n")
    sections = {i.label: i for i in complete(project, path, pos)}
    assert sections["HANDOFF"].snippet == "HANDOFF:\n  - TO: $0"
