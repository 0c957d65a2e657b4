"""Seed 000 ("How to pass full, recent, or no conversation history"), row by row.

Each row of the seed's "How the compiler reads the value" table is one case: what the route
resolves to (the model) and what the checker says about it. The "Common mistakes",
"Troubleshooting" and checklist rows that a checker can see follow, and the seed's own
four-file project must check with no errors and no warnings ("Verification", step 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from abl.checks.engine import CheckOptions, check_project
from abl.checks.fixes import apply_edits
from abl.diagnostics import Diagnostic, Severity
from abl.model import HandoffRoute
from abl.workspace import Project, load_project

REPO = Path(__file__).resolve().parents[2]
RETAIL_HUB = REPO / "examples" / "retail-hub"

HUB_HEAD = """\
SUPERVISOR: Retail_Hub
GOAL: "Route retail requests and give each specialist the amount of history it needs"

INTENTS:
  return_item: "Returns, exchanges, or refunds."

GATHER:
  order_id:
    PROMPT: "What is your order number?"
    TYPE: string
    REQUIRED: true

HANDOFF:
  - TO: Returns_Agent
    WHEN: intent.category == "return_item" AND order_id IS SET
    PASS: [order_id]
"""

HUB_TAIL = """\
    ON_FAILURE: continue
    RETURN: false
"""

RETURNS_AGENT = """\
AGENT: Returns_Agent
GOAL: "Start a return for one order"

GATHER:
  order_id:
    PROMPT: "What is your order number?"
    TYPE: string
    REQUIRED: true
  return_reason:
    PROMPT: "Why do you want to return the item?"
    TYPE: string
    REQUIRED: true

COMPLETE:
  - WHEN: return_reason IS SET
    RESPOND: "I started a return for order {{order_id}}."
"""


HISTORY_CODES = frozenset(
    {
        "E330",
        "E331",
        "HISTORY_FALLS_BACK_TO_FULL",
        "HISTORY_LAST_ZERO",
        "HISTORY_NOT_SET",
        "HISTORY_NONE_WITHOUT_CONTEXT",
        "HANDOFF_SUMMARY_ONLY_WITHOUT_SUMMARY",
        "CONTEXT_KEY_IGNORED",
    }
)


@dataclass
class Checked:
    project: Project
    diagnostics: list[Diagnostic]

    @property
    def route(self) -> HandoffRoute:
        hub = self.project.agent("Retail_Hub")
        assert hub is not None
        return hub.handoffs[0]

    def codes(self, *severities: Severity) -> list[str]:
        wanted = severities or (Severity.ERROR, Severity.WARNING)
        return sorted(d.code for d in self.diagnostics if d.severity in wanted)

    def history_codes(self) -> list[str]:
        """Errors and warnings about the history setting (other checks may add their own view
        of the same text, e.g. a schema check on `mode:`)."""
        return [c for c in self.codes() if c in HISTORY_CODES]

    @property
    def compiles(self) -> bool:
        return not self.codes(Severity.ERROR)

    def one(self, code: str) -> Diagnostic:
        found = [d for d in self.diagnostics if d.code == code]
        assert len(found) == 1, f"expected one {code}, got {[(d.code, d.message) for d in self.diagnostics]}"
        return found[0]


def hub_with(history_lines: str) -> str:
    """The seed's router with one route to the returns agent; `history_lines` is the route's
    history as written (already indented to the route's keys), or empty for none."""
    return HUB_HEAD + history_lines + HUB_TAIL


def check(hub: str) -> Checked:
    project = Project("/")
    project.update("/agents/retail-hub.agent.abl", hub)
    project.update("/agents/returns-agent.agent.abl", RETURNS_AGENT)
    result = check_project(project, CheckOptions(strict_rules=True))
    return Checked(project, result["/agents/retail-hub.agent.abl"])


def fixed(hub: str, diagnostic: Diagnostic, title_part: str) -> str:
    """`hub` with the quick fix of `diagnostic` whose title contains `title_part` applied."""
    fix = next(f for f in diagnostic.fixes if title_part in f.title)
    text, applied = apply_edits(hub, list(fix.edits))
    assert applied == len(fix.edits)
    return text


# --- "How the compiler reads the value" ------------------------------------------------------


@dataclass(frozen=True)
class Row:
    you_write: str  # the seed's first column, as a test id
    history: str  # the route's history lines
    mode: str  # what the runtime uses
    count: int | None  # messages, for last_n
    problems: tuple[str, ...]  # errors and warnings, sorted


COMPILER_TABLE = [
    Row("HISTORY: last_5", "    HISTORY: last_5\n", "last_n", 5, ()),
    Row("HISTORY: last_0", "    HISTORY: last_0\n", "none", 0, ()),
    Row("block last_n without count", "    HISTORY:\n      mode: last_n\n", "full", None, ("E331",)),
    Row("one-line last_n", "    HISTORY: last_n\n", "full", None, ("HISTORY_FALLS_BACK_TO_FULL",)),
    Row(
        "block last_n count 0",
        "    HISTORY:\n      mode: last_n\n      count: 0\n",
        "full",
        None,
        ("HISTORY_FALLS_BACK_TO_FULL",),
    ),
    Row("block mode recent", "    HISTORY:\n      mode: recent\n", "full", None, ("E330",)),
    Row("one-line recent", "    HISTORY: recent\n", "full", None, ("HISTORY_FALLS_BACK_TO_FULL",)),
    Row("HISTORY: FULL", "    HISTORY: FULL\n", "full", None, ()),
    Row('HISTORY: "none"', '    HISTORY: "none"\n', "none", None, ()),
]


@pytest.mark.parametrize("row", COMPILER_TABLE, ids=[r.you_write for r in COMPILER_TABLE])
def test_compiler_table_row(row: Row) -> None:
    checked = check(hub_with(row.history))
    history = checked.route.history
    assert history is not None
    assert history.resolved_mode == row.mode
    if row.mode == "last_n":
        assert history.resolved_count == row.count
    assert checked.history_codes() == list(row.problems)
    assert checked.compiles == (not any(code.startswith("E3") for code in row.problems))


def test_last_5_is_a_window_of_five_messages() -> None:
    history = check(hub_with("    HISTORY: last_5\n")).route.history
    assert history is not None and (history.resolved_mode, history.resolved_count) == ("last_n", 5)


def test_last_0_sends_nothing_and_hints_at_none() -> None:
    hub = hub_with("    HISTORY: last_0\n")
    checked = check(hub)
    hint = checked.one("HISTORY_LAST_ZERO")
    assert hint.severity is Severity.HINT
    fix = hint.fixes[0]
    assert fix.safe, "`last_0` and `none` send the same nothing"
    after = check(fixed(hub, hint, "none"))
    assert after.route.history is not None and after.route.history.resolved_mode == "none"
    assert "HISTORY_LAST_ZERO" not in after.codes(Severity.HINT)


@pytest.mark.parametrize(
    ("history", "code", "word"),
    [
        ("    HISTORY:\n      mode: last_n\n", "E331", "last_n"),
        ("    HISTORY:\n      mode: recent\n", "E330", "recent"),
    ],
    ids=["E331", "E330"],
)
def test_block_errors_point_at_the_mode(history: str, code: str, word: str) -> None:
    hub = hub_with(history)
    error = check(hub).one(code)
    assert error.severity is Severity.ERROR
    line = hub.splitlines()[error.range.start.line]
    assert line[error.range.start.character : error.range.end.character] == word


@pytest.mark.parametrize(
    "history",
    [
        "    HISTORY: last_n\n",
        "    HISTORY:\n      mode: last_n\n      count: 0\n",
        "    HISTORY: recent\n",
        "    HISTORY:\n      mode: last_n\n      count: -2\n",
    ],
    ids=["one-line last_n", "count 0", "one-line recent", "negative count"],
)
def test_silent_fallback_says_the_target_gets_everything(history: str) -> None:
    warning = check(hub_with(history)).one("HISTORY_FALLS_BACK_TO_FULL")
    assert warning.severity is Severity.WARNING
    assert "falls back to `full`" in warning.message
    assert "Returns_Agent receives the whole conversation" in warning.message
    assert warning.fixes and not any(f.safe for f in warning.fixes), "every window changes what the target gets"


def test_a_typo_of_full_is_corrected_safely() -> None:
    # `fulll` already runs as `full`, so writing `full` keeps what runs.
    warning = check(hub_with("    HISTORY: fulll\n")).one("HISTORY_FALLS_BACK_TO_FULL")
    assert [f.title for f in warning.fixes if f.safe] == ["Write `full`"]


# --- CONTEXT ----------------------------------------------------------------------------------


def test_context_history_in_lowercase_is_read() -> None:
    checked = check(hub_with("    CONTEXT:\n      pass: [order_id]\n      history: last_3\n"))
    history = checked.route.history
    assert history is not None and history.in_context
    assert (history.resolved_mode, history.resolved_count) == ("last_n", 3)
    assert checked.codes() == []


def test_context_keys_must_be_lowercase() -> None:
    hub = hub_with("    CONTEXT:\n      pass: [order_id]\n      HISTORY: last_3\n")
    checked = check(hub)
    assert checked.route.history is None, "the uppercase key is ignored, so the default applies"
    warning = checked.one("CONTEXT_KEY_IGNORED")
    assert "ignored" in warning.message
    assert not warning.fixes[0].safe, "lowercasing makes the ignored value take effect"
    after = check(fixed(hub, warning, "history"))
    assert after.route.history is not None and after.route.history.resolved_count == 3
    assert after.codes() == []


def test_context_one_line_map_is_ignored_and_falls_back() -> None:
    hub = hub_with("    CONTEXT:\n      pass: [order_id]\n      history: { mode: last_n }\n")
    checked = check(hub)
    assert checked.route.history is not None and checked.route.history.resolved_mode == "full"
    assert checked.codes() == ["HISTORY_FALLS_BACK_TO_FULL"]
    block = fixed(hub, checked.one("HISTORY_FALLS_BACK_TO_FULL"), "block")
    after = check(block)
    assert after.route.history is not None and after.route.history.resolved_mode == "last_n"
    assert after.codes() == []


# --- "Common mistakes", "Troubleshooting" and the checklist ----------------------------------


def test_omitting_history_gives_full_and_a_hint_that_suggests_the_default() -> None:
    hub = hub_with("")
    checked = check(hub)
    assert checked.route.history is None and checked.route.history_mode == "full"
    hint = checked.one("HISTORY_NOT_SET")
    assert hint.severity is Severity.HINT
    # Writing the default keeps what runs, but it is only a suggestion of what was meant.
    assert not hint.fixes[0].safe
    after = check(fixed(hub, hint, "HISTORY: full"))
    assert after.route.history is not None and after.route.history.resolved_mode == "full"
    assert "HISTORY_NOT_SET" not in after.codes(Severity.HINT)
    assert after.codes() == []


def test_count_zero_to_send_nothing_offers_none() -> None:
    hub = hub_with("    HISTORY:\n      mode: last_n\n      count: 0\n")
    warning = check(hub).one("HISTORY_FALLS_BACK_TO_FULL")
    assert "HISTORY: none" in warning.message
    after = check(fixed(hub, warning, "HISTORY: none"))
    assert after.route.history is not None and after.route.history.resolved_mode == "none"
    assert after.codes() == []


def test_one_line_last_n_offers_last_5_and_the_block_form() -> None:
    hub = hub_with("    HISTORY: last_n\n")
    warning = check(hub).one("HISTORY_FALLS_BACK_TO_FULL")
    assert {"Write `last_5`", "Write the history as a block"} <= {f.title for f in warning.fixes}
    for title, count in (("last_5", 5), ("block", 5)):
        after = check(fixed(hub, warning, title))
        assert after.route.history is not None
        assert (after.route.history.resolved_mode, after.route.history.resolved_count) == ("last_n", count)
        assert after.codes() == []


def test_a_mode_name_that_does_not_exist_passes_validation_on_one_line() -> None:
    one_line = check(hub_with("    HISTORY: recnt\n"))
    assert "E330" not in one_line.codes()
    assert one_line.codes() == ["HISTORY_FALLS_BACK_TO_FULL"]
    block = check(hub_with("    HISTORY:\n      mode: recnt\n"))
    assert block.history_codes() == ["E330"] and not block.compiles


def test_none_without_pass_or_summary_starts_blind() -> None:
    blind = HUB_HEAD.replace("    PASS: [order_id]\n", "") + "    HISTORY: none\n" + HUB_TAIL
    assert check(blind).codes() == ["HISTORY_NONE_WITHOUT_CONTEXT"]
    assert check(hub_with("    HISTORY: none\n")).codes() == [], "PASS gives the target what it needs"


def test_every_count_is_a_positive_number() -> None:
    checked = check(hub_with("    HISTORY:\n      mode: last_n\n      count: -4\n"))
    assert checked.route.history is not None and checked.route.history.resolved_mode == "full"
    assert "is negative" in checked.one("HISTORY_FALLS_BACK_TO_FULL").message


# --- "Verification", step 1 -------------------------------------------------------------------


def test_the_seed_project_has_no_errors_and_no_warnings() -> None:
    project, problems = load_project([str(RETAIL_HUB)])
    assert problems == []
    assert len(project.documents) == 4
    result = check_project(project, CheckOptions(strict_rules=True))
    loud = [
        (Path(path).name, d.code, d.message)
        for path, diags in result.items()
        for d in diags
        if d.severity in (Severity.ERROR, Severity.WARNING)
    ]
    assert loud == []


def test_the_seed_project_routes_resolve_as_the_seed_says() -> None:
    project, _ = load_project([str(RETAIL_HUB)])
    hub = project.agent("Retail_Hub")
    assert hub is not None
    resolved = {
        r.target.text: (r.history_mode, r.history.resolved_count if r.history else None)
        for r in hub.handoffs
        if r.target is not None
    }
    assert resolved == {
        "Order_Status_Agent": ("none", None),
        "Returns_Agent": ("last_n", 6),
        "Complaint_Agent": ("full", None),
    }
