"""Random edit sequences through the server's own document store agree with a fresh analysis.

Each step applies an incremental change (in UTF-16 positions, as editors send them) to pygls's
text document, hands the result to the analysis host exactly as `didChange` does, and compares
the host's diagnostics for every file with those of a project read from scratch.
"""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
from lsprotocol import types as lsp
from pygls.workspace import Workspace

from abl.checks.engine import check_project
from abl.ide.host import AnalysisHost
from abl.workspace import Project

SUPERVISOR = """\
SUPERVISOR: Loan_Supervisor
GOAL: "Route loan requests 😀"
HANDOFF:
  - TO: Income_Agent
    RETURN: true
    HISTORY:
      mode: last_n
      count: 3
    ON_RETURN:
      MAP:
        annual_income: income
  - TO: Offer_Agent
    HISTORY: summary_only
"""
CHILD = 'AGENT: Income_Agent\nGOAL: "收入"\nGATHER:\n  annual_income:\n    type: number\n'
SNIPPETS = [
    "",
    "x",
    "\n",
    "  ",
    "- ",
    "TO: Offer_Agent",
    "RETURN: True",
    "HISTORY: recent",
    "mode: recent",
    ":",
    "#",
    "😀",
    "\n  - TO: Ghost\n",
    "GATHER:\n  a:\n    type: number\n",
]

SUP_URI, CHILD_URI = "file:///ws/sup.abl", "file:///ws/child.abl"
PATHS = {SUP_URI: "/ws/sup.abl", CHILD_URI: "/ws/child.abl"}


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class EditSequences(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.store = Workspace(None, position_encoding=lsp.PositionEncodingKind.Utf16)
        self.host = AnalysisHost()
        self.version = 1
        for uri, text in ((SUP_URI, SUPERVISOR), (CHILD_URI, CHILD)):
            self.store.put_text_document(lsp.TextDocumentItem(uri, "abl", 1, text))
            self.host.open(PATHS[uri], text, 1)

    @rule(
        which=st.sampled_from([SUP_URI, CHILD_URI]),
        line=st.integers(0, 20),
        start=st.integers(0, 30),
        length=st.integers(0, 12),
        text=st.sampled_from(SNIPPETS),
        analyse=st.booleans(),
    )
    def edit(self, which: str, line: int, start: int, length: int, text: str, analyse: bool) -> None:
        doc = self.store.get_text_document(which)
        lines = doc.source.split("\n")
        line = min(line, len(lines) - 1)
        width = utf16_length(lines[line])
        start = min(start, width)
        end = min(start + length, width)
        self.version += 1
        change = lsp.TextDocumentContentChangePartial(
            range=lsp.Range(lsp.Position(line, start), lsp.Position(line, end)), text=text
        )
        self.store.update_text_document(lsp.VersionedTextDocumentIdentifier(self.version, which), change)
        self.host.set_text(PATHS[which], doc.source, self.version)
        if analyse:
            self.host.analyse()  # sometimes analysed between edits, sometimes coalesced

    @invariant()
    def matches_a_fresh_analysis(self) -> None:
        analysis = self.host.analysis()
        fresh = Project("/ws")
        for uri, path in PATHS.items():
            fresh.update(path, self.store.get_text_document(uri).source)
        expected = check_project(fresh)
        for path in PATHS.values():
            assert list(analysis.diagnostics(path)) == expected[path]
            assert analysis.text(path) == fresh.texts[path]


TestEditSequences = EditSequences.TestCase
TestEditSequences.settings = settings(max_examples=100, stateful_step_count=15, deadline=None)
