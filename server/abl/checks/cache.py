"""Keep each rule's findings between checks, with what the rule consulted, so that a check after
an edit runs again only the rules whose inputs changed.

A rule reads its agent (or its document), and may ask the project the questions of
`checks.context.ProjectView`, and nothing else. While a rule runs, the view (and, for an agent
rule, the document) it is given are stand-ins that note what is asked of them. A stored result
is reused when its agent is the same object as before (an agent an edit did not touch is
carried over as is, on the same rows, see `abl.model.incremental`) and nothing it consulted
changed:

- `project.agent(name)` still finds the same agent object;
- `project.agent_names()` still gives the same names;
- `project.handed_over(name)` still gives an equal set of names;
- `project.graph_facts(name, routes)` still gives equal facts;
- `project.namesakes(name)` still gives the same places;
- `project.behavior_profiles()`: every agent is still the same object;
- `project.tool_libraries()`: every document is still the same object;
- the rule's own file, read through `source.index` on the agent's own lines, or through
  `source.text`: the agent (hence those lines) is the same and the file's line ends are of the
  same kind; read in any other way (other lines, other attributes): the document is the same.

An agent that only moved (a line added or removed above it: the same blocks, on other rows) is a
new object, since the model's positions are absolute (`model.incremental.moved`), but its rules'
results move with it:
each one that asked nothing whose answer changed (an agent of the same blocks counting as the
same agent) and reported only on the agent's own rows is taken over, every row moved by the same
number. So an agent rule's message never holds a line number.

One thing is taken on trust, as the contract for agent rules: `source.text` is read at the
agent's own lines (and for the kind of line ends a fix should use). Document rules
are stored per document. A rule that fails is not stored, so it runs (and is reported) again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

from abl.checks.context import AGENT_RULES, BLOCK_RULES, DOCUMENT_RULES, Check, ProjectView
from abl.checks.handoff_text import newline_of
from abl.checks.layout import Block, layout_of, patched_span, placed_already
from abl.diagnostics import Diagnostic, moved_diagnostic
from abl.identity import same_objects
from abl.model import Agent, Document, movable
from abl.model.incremental import blocks_of
from abl.model.types import AgentKind, Tool
from abl.syntax.cst import Node, SourceFile
from abl.text import LineIndex, Position, Range
from abl.workspace import Project
from abl.workspace.graph import AgentFacts

RuleRunner = Callable[[str, Callable[[], None]], bool]


@dataclass(frozen=True, slots=True)
class RuleRun:
    """One rule that actually ran (rather than being answered from the cache)."""

    path: str
    agent: str | None  # the agent's name, None for a document rule
    codes: str


class _Reads:
    """What one run of a rule consulted beyond its own agent."""

    __slots__ = (
        "agents",
        "documents",
        "facts",
        "handed",
        "names",
        "namesakes",
        "own_document",
        "own_text",
        "roster",
    )

    @property
    def nothing(self) -> bool:
        """The rule read its own agent only (the common case, checked first)."""
        return not (
            self.agents
            or self.handed
            or self.facts
            or self.namesakes
            or self.names
            or self.roster
            or self.documents
            or self.own_document
            or self.own_text
        )

    def __init__(self) -> None:
        self.agents: dict[str, Agent | None] = {}  # name → what `agent(name)` gave
        self.handed: dict[str, frozenset[str]] = {}  # name → what `handed_over(name)` gave
        self.facts: dict[tuple[str, tuple[int, ...]], object] = {}  # what `graph_facts` gave
        self.namesakes: dict[str, tuple] = {}  # name → what `namesakes(name)` gave
        self.names = False
        self.roster = False
        self.documents = False
        self.own_document = False  # anything of the rule's own document beyond its agent's lines
        self.own_text = False  # the file's text (its agent's lines, and the kind of line ends)


@dataclass(slots=True)
class _Result:
    diagnostics: tuple[Diagnostic, ...]
    reads: _Reads
    document: Document | None  # the rule's own document, kept only when the result depends on it
    line_ends: int  # the kind of line ends of that document's text (`_line_ends`)
    names_seen: int
    roster_seen: int
    documents_seen: int


@dataclass(slots=True)
class _BlockResult:
    """Every block rule's findings for one column-0 block, valid while the block's node (hence
    its text) is the same object and it is read the same way; moved with the block when it
    moves. Kept only when every block rule finished without asking the project anything."""

    block: Block  # the placement the findings were made for
    node: Node
    shape: tuple  # (placement, kind of document, catalogue section) the block was read with
    line_ends: int
    # The block's first row when the findings were made (or last moved). Only findings move
    # with it, so a block without any lets it fall behind: thousands move at a new line.
    row: int
    diagnostics: tuple[Diagnostic, ...]


@dataclass(slots=True)
class _FileEntry:
    document: Document
    document_results: dict[Callable, _Result] = field(default_factory=dict)
    block_results: dict[int, _BlockResult] = field(default_factory=dict)  # by id(node)
    # The layout `block_results` were made for, the indices of its blocks with findings, the
    # kind of line ends then, and whether every block's results were kept.
    layout: tuple[Block, ...] | None = None
    block_findings: list[int] = field(default_factory=list)
    block_line_ends: int = -1
    blocks_kept: bool = False
    # id(agent) → (the agent, kept alive so the id stays its own; results by rule)
    agent_results: dict[int, _AgentEntry] = field(default_factory=dict)
    # Every result of the file merged into one record (when every rule's result was kept), and
    # how many rule results that stands for.
    settled: _Result | None = None
    rules: int = 0
    # The names whose answers `settled` depends on (agents, handed-over names, namesakes, graph
    # facts), and the check it was last known valid at: see `CheckCache._untouched`.
    depends: frozenset[str] = frozenset()
    valid_at: int = -1


@dataclass(slots=True)
class _AgentEntry:
    agent: Agent  # kept alive so that its id stays its own
    results: dict[Callable, _Result]
    # Every rule's findings together, with everything the rules consulted merged into one
    # record: an agent an edit did not touch then costs one validation instead of one per rule.
    settled: _Result | None = None
    rows: tuple[int, int] = (0, -1)  # the agent's first and last row when the results were made
    # Rows `results` lag behind `rows`: an agent that only moved takes its settled record over,
    # moved, and leaves the rule-by-rule results to be moved if they are ever read (`by_rule`).
    lag: int = 0
    layout: tuple[tuple[int, int], ...] = ()  # its sections' rows, counted from its first row
    # The row of each of its sections (`_starts`) when they were read, and how many rows they
    # all moved since (known to have moved alike: the agent's copies stand for one original).
    starts: tuple[int, ...] = ()
    starts_moved: int = 0
    depends: frozenset[str] = frozenset()  # as `_FileEntry.depends`, for `settled`
    valid_at: int = -1
    # Whether everything `settled` reports lies on the agent's own rows (`_on_rows`): found out
    # at its first move, and true at every later one, as the findings move with the rows.
    on_own_rows: bool = False

    def by_rule(self) -> dict[Callable, _Result]:
        """The results rule by rule, on the agent's rows now (moved the first time they are
        asked for after a move). What each consulted was validated when the agent moved, as
        part of the settled record: they take its answers and versions."""
        if self.lag and self.settled is not None:
            settled = self.settled
            versions = (settled.names_seen, settled.roster_seen, settled.documents_seen)
            self.results = {
                rule: _moved_result(
                    stored, self.lag, self.agent.path, _rebound(stored.reads, settled.reads.agents.get), versions
                )
                for rule, stored in self.results.items()
            }
            self.lag = 0
        return self.results


class CheckCache:
    """Rule results of earlier checks of one project; pass the same cache to every check."""

    def __init__(self) -> None:
        self._files: dict[str, _FileEntry] = {}
        # What the project looked like at the last check, and a counter bumped on each change.
        self._names: tuple[str, ...] = ()
        self._roster: tuple[Agent, ...] = ()
        self._documents: tuple[Document, ...] = ()
        self._names_version = self._roster_version = self._documents_version = 0
        self._names_list: list[str] | None = None  # the list `agent_names()` gave (shared until a change)
        # The project of the last check and its revision then: the changes since are its log's.
        self._project: Project | None = None
        self._revision = 0
        self._default_history = "full"
        self._in_session = False
        self._ends_of: dict[int, tuple[Document, int]] = {}  # per check: id(document) → line ends
        self.runs: list[RuleRun] = []  # rules that ran in the last check
        self.reused = 0  # rule results taken from the cache in the last check
        # What changed since the last check, by name (`_untouched`): the names of agents that are
        # not the same objects as then, and of the agents those hand names to.
        self._checks = 0
        self._callees: dict[int, tuple[Agent, tuple[str, ...]]] = {}  # id → (agent, callees)
        self._touched: set[str] = set()
        self._graph_serial = 0  # the handoff graph's (`ProjectGraph.serial`) at the last check
        # Whether any agent's graph facts may have changed since then (else the names of those
        # that may have are among `_touched`).
        self._graph_changed = True
        # The names the edits since the last check may have changed answers about beyond moving
        # agents (`_answers_hold`); None when not known. And the agents whose graph facts may
        # have changed (`ProjectGraph.facts_changed_since`), None when not known.
        self._reshaped: set[str] | None = None
        self._facts_changed: frozenset[str] | set[str] | None = None
        # The engine's normalised findings of each file, by what they were made from.
        self.normalised: dict[str, tuple[tuple, tuple[Diagnostic, ...]]] = {}

    # --- entry points used by the engine ---------------------------------------------------

    @contextmanager
    def session(self, project: Project) -> Iterator[None]:
        """Check several files against one state of the project (looked at once)."""
        self.begin(project)
        self._in_session = True
        try:
            yield
        finally:
            self._in_session = False

    def begin(self, project: Project) -> None:
        """Note what changed in the project since the last check and forget removed files."""
        self.runs = []
        self.reused = 0
        self._ends_of = {}
        names = project.agent_names()  # the same list while no name came or went
        if names is not self._names_list and tuple(names) != self._names:
            self._names = tuple(names)
            self._names_version += 1
        self._names_list = names
        self._checks += 1
        self._touched = set()
        reshaped: set[str] = set()
        self._reshaped = reshaped
        replaced = project.replaced_since(self._revision) if project is self._project else None
        self._project, self._revision = project, project.revision
        if replaced is None:
            self._compare_whole(project)
            self._reshaped = None
        elif replaced:
            # Only the agents the edits replaced: a keystroke costs its change, not the roster.
            self._documents_version += 1
            self._documents = ()  # the next whole comparison, if any, finds them changed
            if any(dropped or read for dropped, read in replaced):
                self._roster_version += 1
                self._roster = ()
                for dropped, read in replaced:
                    touched = self._note_changed(project, dropped, read)
                    if list(map(blocks_of, dropped)) != list(map(blocks_of, read)):
                        reshaped |= touched
        graph = project.graph()
        changed = graph.facts_changed_since(self._graph_serial)
        self._graph_serial = graph.serial
        self._graph_changed = changed is None
        self._facts_changed = changed
        if changed:
            # Only the results that read these agents' facts are asked again (`_untouched`).
            self._touched.update(changed)
        for path in [p for p in self._files if p not in project.documents]:
            del self._files[path]
            self.normalised.pop(path, None)
        if project.default_history != self._default_history:
            # A project setting every route may read: nothing stored holds for the new value.
            self._default_history = project.default_history
            self._files.clear()

    def _compare_whole(self, project: Project) -> None:
        """Whether the roster and the documents changed, told by comparing all of them (a
        project the cache has not seen, or one whose changes since were not all kept)."""
        roster = tuple(project.all_agent_objects())
        if not same_objects(roster, self._roster):
            self._roster = roster
            self._roster_version += 1
            self._note_touched(project, roster)
        documents = tuple(project.documents.values())
        if not same_objects(documents, self._documents):
            self._documents = documents
            self._documents_version += 1

    def _note_changed(self, project: Project, removed: Iterable[Agent], added: Iterable[Agent]) -> set[str]:
        """As `_note_touched`, from what one change replaced; returns the names it touched.

        An agent read from the blocks of one it replaced only moved: its name is touched (where
        it is declared changed, and it is another object), the names it hands to its callees
        are the same, so they are not. A new line near the top of a file moves thousands."""
        touched: set[str] = set()
        dropped = {blocks_of(agent): agent for agent in removed}
        for agent in added:
            name = agent.name.text
            touched.add(name)
            was = dropped.pop(blocks_of(agent), None)
            known = self._callees.pop(id(was), None) if was is not None else None
            if known is not None and known[0] is was:
                self._callees[id(agent)] = (agent, known[1])
                continue
            callees = project.callees_of(agent)
            self._callees[id(agent)] = (agent, callees)
            touched.update(callees)
        for agent in dropped.values():
            known = self._callees.pop(id(agent), None)
            touched.add(agent.name.text)
            if known is not None:
                touched.update(known[1])
        self._touched |= touched
        return touched

    def _note_touched(self, project: Project, roster: tuple[Agent, ...]) -> None:
        """The names an edit may have changed the answers for: of every agent that is not the
        same object as at the last check (gone or new), and of the agents it hands names to."""
        now = {id(agent): agent for agent in roster}
        touched = self._touched
        for key in [k for k, (agent, _) in self._callees.items() if now.get(k) is not agent]:
            agent, callees = self._callees.pop(key)
            touched.add(agent.name.text)
            touched.update(callees)
        for key, agent in now.items():
            if key not in self._callees:
                callees = project.callees_of(agent)
                self._callees[key] = (agent, callees)
                touched.add(agent.name.text)
                touched.update(callees)

    def settled(self, path: str) -> object | None:
        """What stands for the file's findings as one record, once they have settled (the
        token `check_file` returns for findings taken over whole); None before."""
        entry = self._files.get(path)
        return entry.settled if entry is not None else None

    def take_untouched(self, document: Document, settled: object) -> bool:
        """In a session: whether the file's findings are still the settled record `settled`
        (`settled()` at an earlier check), holding with no question asked (`_untouched`); if so
        the record is taken over, as `check_file` would take it, and a caller that kept what
        its findings became can use that instead of checking the file."""
        old = self._files.get(document.path)
        if old is None or old.settled is not settled or old.document is not document or not self._untouched(old):
            return False
        self.reused += old.rules
        old.valid_at = self._checks
        return True

    def _untouched(self, entry: _FileEntry | _AgentEntry) -> bool:
        """Whether nothing a file's settled record consulted can have changed since the last
        check, which found it valid: none of the names it depends on was touched, and none of
        the project-wide answers it read changed. Decided without asking the project, so that
        an edit costs the files it reaches, not every file."""
        stored = entry.settled
        if stored is None or entry.valid_at != self._checks - 1:
            return False
        if not self._versions_hold(stored) or (stored.reads.facts and self._graph_changed):
            return False
        return self._touched.isdisjoint(entry.depends)

    def check_file(
        self, project: Project, document: Document, sink: list[Diagnostic], run: RuleRunner
    ) -> object | None:
        """Add every rule's diagnostics for `document` to `sink`, running only stale rules.
        Returns a token standing for the findings when all of them were taken over as they were
        at the check before (the same token then), else None."""
        if not self._in_session:
            self.begin(project)
        old = self._files.get(document.path)
        # A file the edit did not touch: no question asked at all when nothing it depends on was
        # touched, else one validation of everything its rules consulted.
        if (
            old is not None
            and old.document is document
            and old.settled is not None
            and (self._untouched(old) or self._still_valid(old.settled, project, document))
        ):
            sink.extend(old.settled.diagnostics)
            self.reused += old.rules
            old.valid_at = self._checks
            return old.settled
        start = len(sink)
        entry = _FileEntry(document)
        if old is not None and old.document is document:
            entry.document_results = old.document_results
        for codes, rule in DOCUMENT_RULES:
            self._one(project, document, None, rule, codes, entry.document_results, sink, run)
        placed = self._blocks(project, document, old, entry, sink, run)
        block_runs = placed * len(BLOCK_RULES)
        moved_from: dict[tuple, _AgentEntry] | None = None  # built when an agent is new
        for agent in document.agents:
            kept = old.agent_results.get(id(agent)) if old is not None else None
            if (
                kept is not None
                and kept.agent is agent
                and kept.settled is not None
                and (self._untouched(kept) or self._still_valid(kept.settled, project, document))
            ):
                kept.valid_at = self._checks
                entry.agent_results[id(agent)] = kept
                sink.extend(kept.settled.diagnostics)
                self.reused += len(AGENT_RULES)
                continue
            if kept is not None and kept.agent is agent:
                lines = _AgentLines(agent)
                results = kept.by_rule()
            else:
                if moved_from is None:
                    moved_from = _by_blocks(old) if old is not None else {}
                before = moved_from.get(blocks_of(agent))
                if before is not None:
                    moved_entry = self._moved_entry(before, agent, project, document)
                    if moved_entry is not None:
                        assert moved_entry.settled is not None
                        entry.agent_results[id(agent)] = moved_entry
                        sink.extend(moved_entry.settled.diagnostics)
                        self.reused += len(AGENT_RULES)
                        continue
                lines = _AgentLines(agent)
                results = self._moved_results(before, lines, project, document) if before is not None else {}
            first = len(sink)
            for codes, agent_rule in AGENT_RULES:
                self._one(project, document, agent, agent_rule, codes, results, sink, run, lines)
            settled = (
                self._settle(results.values(), document, tuple(sink[first:]))
                if len(results) == len(AGENT_RULES)
                else None
            )
            made = _AgentEntry(agent, results, settled, lines.rows(), 0, lines.layout(), _starts(agent))
            if settled is not None:
                made.depends, made.valid_at = _depends(settled.reads), self._checks
            entry.agent_results[id(agent)] = made
        entry.rules = len(DOCUMENT_RULES) + block_runs + len(AGENT_RULES) * len(document.agents)
        complete = (
            len(entry.document_results) == len(DOCUMENT_RULES)
            and len(entry.block_results) == placed
            and all(a.settled is not None for a in entry.agent_results.values())
        )
        # Merged once the file has stayed the same for a check: the file being typed in changes
        # at every check, and merging all of its results each time would cost what it saves.
        if complete and old is not None and old.document is document:
            every = [*entry.document_results.values()]
            every.extend(a.settled for a in entry.agent_results.values() if a.settled is not None)
            entry.settled = self._settle(every, document, tuple(sink[start:]))
            if entry.settled is not None:
                entry.depends = _depends(entry.settled.reads)
                entry.valid_at = self._checks
        self._files[document.path] = entry
        return None

    # --- the blocks of a file --------------------------------------------------------------

    def _blocks(
        self,
        project: Project,
        document: Document,
        old: _FileEntry | None,
        entry: _FileEntry,
        sink: list[Diagnostic],
        run: RuleRunner,
    ) -> int:
        """Every block rule's findings for the file's blocks, into `entry`; returns how many
        blocks the file has. After a keystroke that placed one agent's blocks again (the file's
        other blocks the very objects they were, `abl.checks.layout`), only those are looked at,
        and the kept findings of the others taken over, moved with their rows."""
        placed = layout_of(document)
        line_ends = self._line_ends(document)
        span = patched_span(document)
        if (
            span is not None
            and old is not None
            and old.layout is not None
            and old.blocks_kept
            and old.block_line_ends == line_ends
            and document.previous is old.document
            and placed_already(old.document) is old.layout  # what the span counts in
        ):
            first, last = span
            results = old.block_results
            old.block_results = {}  # given up to `entry`, which the old entry makes way for
            kept = {id(b.node): results.pop(id(b.node)) for b in old.layout[first:last] if id(b.node) in results}
            outside = old.block_findings  # the blocks with findings, the others' unlooked at
        else:
            first, last = 0, len(placed)
            results = entry.block_results
            kept = old.block_results if old is not None else {}
            outside = []
        findings: list[int] = []
        for i in outside:
            if i < first:
                self._take_block(results[id(placed[i].node)], placed[i], document, sink, findings, i)
        taken = len(placed) - (last - first)
        for i in range(first, last):
            block = placed[i]
            if self._block(project, document, block, line_ends, kept.get(id(block.node)), results, sink, run):
                taken += 1
            found = results.get(id(block.node))
            if found is not None and found.diagnostics:
                findings.append(i)
        for i in outside:
            if i >= last:
                self._take_block(results[id(placed[i].node)], placed[i], document, sink, findings, i)
        self.reused += taken * len(BLOCK_RULES)
        entry.block_results = results
        entry.layout = placed
        entry.block_findings = findings
        entry.block_line_ends = line_ends
        entry.blocks_kept = len(results) == len(placed)
        return len(placed)

    @staticmethod
    def _take_block(
        stored: _BlockResult, block: Block, document: Document, sink: list[Diagnostic], findings: list[int], i: int
    ) -> None:
        """A kept block's findings, moved with its row if it moved."""
        row = block.node.row
        if stored.row != row:  # its agent moved with it: so do its findings
            _move_block_result(stored, row, document.path)
        sink.extend(stored.diagnostics)
        findings.append(i)

    # --- one rule --------------------------------------------------------------------------

    def _one(
        self,
        project: Project,
        document: Document,
        agent: Agent | None,
        rule: Callable,
        codes: str,
        results: dict[Callable, _Result],
        sink: list[Diagnostic],
        run: RuleRunner,
        lines: _AgentLines | None = None,
    ) -> None:
        stored = results.get(rule)
        if stored is not None and self._still_valid(stored, project, document):
            sink.extend(stored.diagnostics)
            self.reused += 1
            return
        if (
            stored is not None
            and lines is not None
            and self._moves_with_its_agent(stored, lines.rows(), project, document)
        ):
            # What it asked about another agent is answered by that agent moved (a line added
            # or removed above or inside it): its findings, all on this agent's rows, stand.
            again = _moved_result(stored, 0, document.path, _rebound(stored.reads, project.agent), self._versions())
            results[rule] = again
            sink.extend(again.diagnostics)
            self.reused += 1
            return
        reads = _Reads()
        found: list[Diagnostic] = []
        watched_project = _WatchedProject(project, reads)
        if agent is None or lines is None:
            check = Check(watched_project, document, None, found)
            finished = run(codes, lambda: rule(check))
        else:
            watched_document = _WatchedDocument(document, lines, reads)
            check = Check(watched_project, watched_document, agent, found)  # type: ignore[arg-type]
            finished = run(codes, lambda: rule(check, agent))
        sink.extend(found)
        self.runs.append(RuleRun(document.path, agent.name.text if agent is not None else None, codes))
        if finished:
            results[rule] = _Result(
                tuple(found),
                reads,
                document if reads.own_document else None,
                self._line_ends(document) if reads.own_text else 0,
                self._names_version,
                self._roster_version,
                self._documents_version,
            )
        else:
            results.pop(rule, None)

    def _block(
        self,
        project: Project,
        document: Document,
        block: Block,
        line_ends: int,
        stored: _BlockResult | None,
        results: dict[int, _BlockResult],
        sink: list[Diagnostic],
        run: RuleRunner,
    ) -> bool:
        """One block's findings into `results` and `sink`: its last result (`stored`) when it
        holds (True), moved with the block when the block moved, else found again (False). It
        holds for the very block object (`abl.checks.layout` keeps it while its node is the
        same: the common case, decided first), or for the same node read the same way (its
        agent was read again); the result is the old entry's, which is given up."""
        node = block.node
        if (
            stored is not None
            and stored.line_ends == line_ends
            and (stored.block is block or _read_alike(stored, block))
        ):
            if stored.diagnostics:
                row = node.row
                if stored.row != row:  # its agent moved with it: so do its findings
                    _move_block_result(stored, row, document.path)
                sink.extend(stored.diagnostics)
            stored.block = block
            results[id(node)] = stored
            return True
        reads = _Reads()
        check = Check(_WatchedProject(project, reads), document, None, sink)
        first = len(sink)
        finished = True
        for codes, rule in BLOCK_RULES:
            finished = run(codes, partial(rule, check, block)) and finished
            self.runs.append(RuleRun(document.path, None, codes))
        consulted = (
            reads.agents
            or reads.handed
            or reads.facts
            or reads.namesakes
            or reads.names
            or reads.roster
            or reads.documents
        )
        if finished and not consulted:  # a block rule that asked the project is not kept
            results[id(node)] = _BlockResult(block, node, _shape(block), line_ends, node.row, tuple(sink[first:]))
        return False

    def _moved_entry(
        self, before: _AgentEntry, agent: Agent, project: Project, document: Document
    ) -> _AgentEntry | None:
        """An agent that only moved, all of whose findings the move cannot change (the test of
        `_moved_results`, made once on the settled record of its rules): its settled record,
        moved; None when a rule has to be looked at on its own."""
        stored = before.settled
        if stored is None:
            return None
        # Its sections are the nodes they were (`blocks_of`), each the same text on other rows:
        # when all moved by one number, so did everything in them, and its lines need no reading.
        # Two moved copies of one agent moved alike (`movable.origin`): their rows are not read.
        source, rows_now = movable.origin(agent)
        was, rows_then = movable.origin(before.agent)
        starts, moved = before.starts, before.starts_moved
        if source is was:
            delta = rows_now - rows_then
            moved += delta
        else:
            starts, moved = _starts(agent), 0
            delta = starts[0] - before.starts[0] - before.starts_moved  # its header's: the first section's
            if any(a - b - before.starts_moved != delta for a, b in zip(starts, before.starts, strict=True)):
                return None  # lines were added or removed between its sections
        if not self._moves_with_its_agent(stored, before.rows, project, document, before.on_own_rows):
            return None
        settled = _moved_result(stored, delta, document.path, _rebound(stored.reads, project.agent), self._versions())
        return _AgentEntry(
            agent,
            before.results,
            settled,
            (before.rows[0] + delta, before.rows[1] + delta),
            before.lag + delta,
            before.layout,
            starts,
            moved,
            before.depends,  # the same names asked, answered by the moved agents
            self._checks,
            on_own_rows=True,
        )

    def _moved_results(
        self, before: _AgentEntry, lines: _AgentLines, project: Project, document: Document
    ) -> dict[Callable, _Result]:
        """The results of an agent that only moved (the same blocks, other rows: lines added or
        removed above it, or between its sections), for the rules whose findings the move cannot
        change: everything they consulted gives the same answers, an agent of the same blocks
        counting as the same, and the ranges of each finding lie on rows that all moved by one
        number (`_SectionShifts`), with which they move."""
        shifts = _SectionShifts.between(before, lines.spans())
        if shifts is None:
            return {}  # its sections are not the lengths they were
        moved: dict[Callable, _Result] = {}
        for rule, stored in before.by_rule().items():
            if stored.reads.nothing and not stored.diagnostics:
                moved[rule] = stored  # found nothing, asked nothing: true wherever the agent is
            elif self._moves_with_its_agent(stored, before.rows, project, document, on_rows=True):
                diagnostics = shifts.moved_all(stored.diagnostics, document.path)
                if diagnostics is not None:
                    again = _rebound(stored.reads, project.agent)
                    moved[rule] = _Result(diagnostics, again, None, stored.line_ends, *self._versions())
        return moved

    def _moves_with_its_agent(
        self, stored: _Result, rows: tuple[int, int], project: Project, document: Document, on_rows: bool = False
    ) -> bool:
        """Whether a result made on `rows` holds for its agent moved elsewhere unchanged: it read
        nothing of the file beyond its agent nor every agent or document (one of them changed),
        what it asked is answered the same way (an agent of the same blocks counting as the
        same), and everything it reports lies on those rows (known to, when `on_rows`)."""
        reads = stored.reads
        if reads.own_document or reads.roster or reads.documents:
            return False
        if reads.own_text and stored.line_ends != self._line_ends(document):
            return False
        if not self._versions_hold(stored):
            return False
        if not self._answers_hold(reads, project):
            return False
        return on_rows or all(_on_rows(d, rows, document.path) for d in stored.diagnostics)

    def _versions(self) -> tuple[int, int, int]:
        return (self._names_version, self._roster_version, self._documents_version)

    def _versions_hold(self, stored: _Result) -> bool:
        """Whether the project-wide answers `stored` read (the list of names, the roster, the
        documents) are the ones it was made or last validated with."""
        reads = stored.reads
        return not (
            (reads.names and stored.names_seen != self._names_version)
            or (reads.roster and stored.roster_seen != self._roster_version)
            or (reads.documents and stored.documents_seen != self._documents_version)
        )

    def _answers_hold(self, reads: _Reads, project: Project) -> bool:
        """`_same_answers`, known without asking when every edit since the last check that
        replaced one of the agents asked about only moved agents (each read again from the
        blocks of the one it replaced, in the same order), and the graph says no finding about
        them changed. What namesakes are is asked always: their answers hold positions."""
        reshaped, facts_changed = self._reshaped, self._facts_changed
        if (
            reshaped is not None
            and facts_changed is not None
            and not reads.namesakes
            and reshaped.isdisjoint(reads.agents)
            and reshaped.isdisjoint(reads.handed)
            and all(name not in reshaped and name not in facts_changed for name, _ in reads.facts)
        ):
            return True
        return self._same_answers(reads, project)

    @staticmethod
    def _same_answers(reads: _Reads, project: Project) -> bool:
        """What a rule asked of the project is answered the same way, an agent that only moved
        counting as the same agent."""
        for name, handed in reads.handed.items():
            if project.handed_over(name) != handed:
                return False
        for asked, facts in reads.facts.items():
            if project.graph_facts(*asked) != facts:
                return False
        for name, places in reads.namesakes.items():
            if project.namesakes(name) != places:
                return False
        for name, found in reads.agents.items():
            now = project.agent(name)
            if now is not found and (now is None or found is None or blocks_of(now) != blocks_of(found)):
                return False
        return True

    def _settle(self, results: Iterable[_Result], document: Document, found: tuple[Diagnostic, ...]) -> _Result | None:
        """One record of what several results (an agent's rules, or a whole file's) consulted,
        valid now (each was just made or validated against the project as it is); None when two
        saw different answers to one question, which then stay validated one by one."""
        merged = _Reads()
        for result in results:
            reads = result.reads
            for name, agent in reads.agents.items():
                if merged.agents.setdefault(name, agent) is not agent:
                    return None
            for name, handed in reads.handed.items():
                if merged.handed.setdefault(name, handed) != handed:
                    return None
            for asked, facts in reads.facts.items():
                if merged.facts.setdefault(asked, facts) != facts:
                    return None
            for name, places in reads.namesakes.items():
                if merged.namesakes.setdefault(name, places) != places:
                    return None
            merged.names |= reads.names
            merged.roster |= reads.roster
            merged.documents |= reads.documents
            merged.own_document |= reads.own_document
            merged.own_text |= reads.own_text
        return _Result(
            found,
            merged,
            document if merged.own_document else None,
            self._line_ends(document) if merged.own_text else 0,
            self._names_version,
            self._roster_version,
            self._documents_version,
        )

    def _still_valid(self, stored: _Result, project: Project, document: Document) -> bool:
        reads = stored.reads
        if reads.nothing:
            return True
        if reads.own_document and stored.document is not document:
            return False
        if reads.own_text and stored.line_ends != self._line_ends(document):
            return False
        if not self._versions_hold(stored):
            return False
        # Plain loops: asked for every agent of a file at every keystroke.
        for name, handed in reads.handed.items():
            if project.handed_over(name) != handed:
                return False
        for asked, facts in reads.facts.items():
            if project.graph_facts(*asked) != facts:
                return False
        for name, places in reads.namesakes.items():
            if project.namesakes(name) != places:
                return False
        agent = project.agent
        return all(agent(name) is found for name, found in reads.agents.items())

    def _line_ends(self, document: Document) -> int:
        """The kind of the file's line ends, as fixes judge it: whether its first line ends in
        `\r\n` (`newline_of`), and whether any line does."""
        known = self._ends_of.get(id(document))
        if known is None or known[0] is not document:
            text = document.source.text
            known = (document, 2 * (newline_of(document.source) == "\r\n") + ("\r\n" in text))
            self._ends_of[id(document)] = known
        return known[1]


def _rebound(reads: _Reads, agent_of: Callable[[str], Agent | None]) -> _Reads:
    """What a rule consulted, each agent it asked for answered again (an agent that only moved
    is another object of the same blocks). Only for reads `_moves_with_its_agent` accepts."""
    if reads.nothing:
        return reads
    again = _Reads()
    again.agents = {name: agent_of(name) for name in reads.agents}
    again.handed, again.facts, again.namesakes = reads.handed, reads.facts, reads.namesakes
    again.names, again.own_text = reads.names, reads.own_text
    return again


def _shape(block: Block) -> tuple:
    """How a block is read: its placement, its kind of document and its catalogue section."""
    return (block.placement, block.document, block.match.section if block.match is not None else None)


def _read_alike(stored: _BlockResult, block: Block) -> bool:
    """Whether `block` is the node `stored` was made for, read the same way."""
    return stored.node is block.node and stored.shape == _shape(block)


def _move_block_result(stored: _BlockResult, row: int, path: str) -> None:
    """Move a block's findings with the block, now at `row` (the entry is given up by the
    results it was taken from)."""
    delta = row - stored.row
    stored.row = row
    if stored.diagnostics:
        stored.diagnostics = tuple(moved_diagnostic(d, delta, path) for d in stored.diagnostics)


def _moved_result(stored: _Result, delta: int, path: str, reads: _Reads, versions: tuple[int, int, int]) -> _Result:
    """`stored` for its agent moved `delta` rows, consulting `reads`, valid at `versions`."""
    diagnostics = tuple(moved_diagnostic(d, delta, path) for d in stored.diagnostics) if delta else stored.diagnostics
    return _Result(diagnostics, reads, None, stored.line_ends, *versions)


def _starts(agent: Agent) -> tuple[int, ...]:
    return tuple(section.row for section in agent.sections)


def _depends(reads: _Reads) -> frozenset[str]:
    return frozenset((*reads.agents, *reads.handed, *reads.namesakes, *(name for name, _ in reads.facts)))


def _by_blocks(entry: _FileEntry) -> dict[tuple, _AgentEntry]:
    return {blocks_of(kept.agent): kept for kept in entry.agent_results.values()}


def _on_rows(d: Diagnostic, rows: tuple[int, int], path: str) -> bool:
    """Whether every range of `d` lies on `rows` (first, last) of its own file."""
    first, last = rows
    ranges = [d.range, *(e.range for f in d.fixes for e in f.edits)]
    for where, range_, _ in d.related:
        if where != path:
            return False
        ranges.append(range_)
    return all(first <= r.start.line and (r.end.line <= last or r.end == Position(last + 1, 0)) for r in ranges)


class _SectionShifts:
    """How far the rows of an agent's sections moved: stretches of rows, each moved by one
    number (consecutive sections that moved alike make one stretch, with the rows between)."""

    __slots__ = ("_spans",)

    def __init__(self, spans: list[tuple[int, int, int]]) -> None:
        self._spans = spans  # (first row, last row, rows moved) of each stretch, before the move

    @classmethod
    def between(cls, before: _AgentEntry, now: list[tuple[int, int]]) -> _SectionShifts | None:
        """The stretches from the agent's sections as `before` saw them to their rows `now`;
        None unless each section is as long as it was and they are in row order."""
        base = before.rows[0]
        if len(now) != len(before.layout):
            return None
        spans: list[tuple[int, int, int]] = []
        last_before = -1
        for (a, b), (first, last) in zip(before.layout, now, strict=True):
            if last - first != b - a or a + base <= last_before:
                return None
            delta = first - a - base
            if spans and spans[-1][2] == delta:
                spans[-1] = (spans[-1][0], b + base, delta)  # the rows between moved with both
            else:
                spans.append((a + base, b + base, delta))
            last_before = b + base
        return cls(spans)

    def moved_all(self, found: tuple[Diagnostic, ...], path: str) -> tuple[Diagnostic, ...] | None:
        """Each diagnostic moved with the stretch its ranges lie in; None if one's do not lie in
        one stretch, or are in another file (as `_on_rows` would have it)."""
        moved = []
        for d in found:
            delta = self._delta_of(d, path)
            if delta is None:
                return None
            moved.append(moved_diagnostic(d, delta, path) if delta else d)
        return tuple(moved)

    def _delta_of(self, d: Diagnostic, path: str) -> int | None:
        ranges = [d.range, *(e.range for f in d.fixes for e in f.edits)]
        for where, range_, _ in d.related:
            if where != path:
                return None
            ranges.append(range_)
        found: set[int] = set()
        for r in ranges:
            start, end = r.start, r.end
            placed = False
            for first, last, delta in self._spans:
                # The end may be the start of the row after the stretch (a fix's insertion).
                ends_in = first <= end.line <= last or end == Position(last + 1, 0)
                if ends_in and (first <= start.line <= last or start == end):
                    found.add(delta)
                    placed = True
            if not placed:
                return None
        return found.pop() if len(found) == 1 else None


# --- stand-ins that note what a rule asks ---------------------------------------------------


class _WatchedProject(ProjectView):
    """The project as a rule sees it: answers as the view does, noting each question."""

    __slots__ = ("_reads",)

    def __init__(self, project: Project, reads: _Reads) -> None:
        super().__init__(project)
        self._reads = reads

    def agent(self, name: str) -> Agent | None:
        found = super().agent(name)
        self._reads.agents[name] = found
        return found

    def agent_names(self) -> list[str]:
        self._reads.names = True
        return super().agent_names()

    def namesakes(self, name: str) -> tuple[tuple[str, Range, AgentKind], ...]:
        found = super().namesakes(name)
        self._reads.namesakes[name] = found
        return found

    def handed_over(self, name: str) -> frozenset[str]:
        # Kept by value: an edit elsewhere rebuilds the table, but rarely changes one agent's
        # entry, and an equal answer leaves the rule's result valid (early cutoff).
        found = super().handed_over(name)
        self._reads.handed[name] = found
        return found

    def graph_facts(self, name: str, routes: tuple[int, ...] = ()) -> AgentFacts:
        # Kept by value, like `handed_over`: an edit elsewhere rebuilds the graph, but rarely
        # changes what it says about this agent.
        found = super().graph_facts(name, routes)
        self._reads.facts[(name, routes)] = found
        return found

    def behavior_profiles(self) -> list[Agent]:
        self._reads.roster = True  # valid while every agent is the same object
        return super().behavior_profiles()

    def tool_libraries(self) -> Iterator[tuple[str, list[Tool]]]:
        self._reads.documents = True  # valid while every document is the same object
        return super().tool_libraries()

    # `default_history` is not noted: a change of the setting empties the cache (`begin`).


class _WatchedDocument:
    """An agent rule's own document: its path is free, its source is watched, the rest ties the
    result to this very document."""

    __slots__ = ("_document", "_lines", "_reads", "_source", "path")

    def __init__(self, document: Document, lines: _AgentLines, reads: _Reads) -> None:
        self._document = document
        self._reads = reads
        self._lines = lines
        self._source: _WatchedSource | None = None
        self.path = document.path

    @property
    def source(self) -> _WatchedSource:
        if self._source is None:
            self._source = _WatchedSource(self._document.source, self._lines.spans(), self._reads)
        return self._source

    def __getattr__(self, name: str) -> object:
        self._reads.own_document = True
        return getattr(self._document, name)


class _WatchedSource:
    """The file's tree as an agent rule sees it: the text and a line index that notes which lines
    are asked about."""

    __slots__ = ("_reads", "_source", "index")

    def __init__(self, source: SourceFile, lines: list[tuple[int, int]], reads: _Reads) -> None:
        self._source = source
        self._reads = reads
        self.index = _WatchedIndex(source.index, lines, reads)

    @property
    def text(self) -> str:
        self._reads.own_text = True
        return self._source.text

    @property
    def holds_tab(self) -> bool:
        self._reads.own_text = True  # an answer about the whole text, as reading it is
        return self._source.holds_tab

    def __getattr__(self, name: str) -> object:
        self._reads.own_document = True
        return getattr(self._source, name)


class _WatchedIndex:
    """A line index that answers as the file's does and notes a line outside the agent's own."""

    __slots__ = ("_index", "_lines", "_reads")

    def __init__(self, index: LineIndex, lines: list[tuple[int, int]], reads: _Reads) -> None:
        self._index = index
        self._lines = lines
        self._reads = reads

    def _note(self, line: int) -> None:
        if not any(first <= line <= last for first, last in self._lines):
            self._reads.own_document = True

    def _note_point(self, at: Position) -> None:
        """A point, rather than a line's text: the start of the row after a section is where
        that section ends (a fix inserts there), which moves with it."""
        if at.character != 0 or not any(first <= at.line <= last + 1 for first, last in self._lines):
            self._note(at.line)

    def position(self, offset: int) -> Position:
        found = self._index.position(offset)
        self._note_point(found)
        return found

    def offset(self, pos: Position) -> int:
        self._note_point(pos)
        return self._index.offset(pos)

    def line_text(self, line: int) -> str:
        self._note(line)
        return self._index.line_text(line)

    def __getattr__(self, name: str) -> object:
        self._reads.own_document = True
        return getattr(self._index, name)


class _AgentLines:
    """The rows of an agent's sections (each from its first line to its last descendant's),
    worked out once per check and only if a rule reads the file."""

    __slots__ = ("_agent", "_spans")

    def __init__(self, agent: Agent) -> None:
        self._agent = agent
        self._spans: list[tuple[int, int]] | None = None

    def rows(self) -> tuple[int, int]:
        """The agent's first and last row."""
        spans = self.spans()
        return (min(a for a, _ in spans), max(b for _, b in spans)) if spans else (0, -1)

    def layout(self) -> tuple[tuple[int, int], ...]:
        """The rows of each section, counted from the agent's first row: equal for an agent
        whose sections all moved together."""
        first = self.rows()[0]
        return tuple((a - first, b - first) for a, b in self.spans())

    def spans(self) -> list[tuple[int, int]]:
        if self._spans is None:
            self._spans = []
            for section in self._agent.sections:
                last = section
                while last.children:
                    last = last.children[-1]
                end = max(last.row, last.pipe_end_row, last.row if last.is_item else last.value_end_row)
                self._spans.append((section.row, end))
        return self._spans
