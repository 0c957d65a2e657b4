"""Load a project from disk (or from memory) and answer cross-file questions about it.

A document is re-lowered only when its text changed (`Project.update`), so an editor can keep
one `Project` and feed it edits. Name resolution is case-sensitive, as on the platform.
"""

from __future__ import annotations

import os
import stat
import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from abl.diagnostics import Diagnostic, Severity
from abl.model import Agent, AgentKind, Document, load_document
from abl.model.fields import root as name_root
from abl.model.incremental import blocks_of, changed_agents, relower
from abl.syntax.incremental import reparse
from abl.syntax.limits import MAX_FILE_BYTES
from abl.text import Range

if TYPE_CHECKING:
    from abl.workspace.graph import AgentFacts, GraphBuilder, ProjectGraph

_SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox"})


@dataclass(frozen=True, slots=True)
class SourceText:
    text: str
    diagnostics: tuple[Diagnostic, ...]


def decode(data: bytes) -> SourceText:
    """Decode a file as UTF-8; bad bytes become U+FFFD and an `INVALID_ENCODING` error."""
    try:
        return SourceText(data.decode("utf-8"), ())
    except UnicodeDecodeError as err:
        good = data[: err.start].decode("utf-8", errors="replace")
        line = good.count("\n")
        col = len(good) - (good.rfind("\n") + 1)
        text = data.decode("utf-8", errors="replace")
        diag = Diagnostic(
            "INVALID_ENCODING",
            Severity.ERROR,
            f"the file is not valid UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start}); "
            "bad bytes are read as U+FFFD, and `abl check --fix` leaves the file as it is (writing it "
            "back would replace them); save it as UTF-8",
            Range.on_line(line, col, col + 1),
        )
        return SourceText(text, (diag,))


@dataclass(frozen=True, slots=True)
class AgentRef:
    agent: Agent
    document: Document


@dataclass(frozen=True, slots=True)
class AgentChanges:
    """What one edit did to a file's agents. Agents not listed are the same objects as before."""

    path: str
    changed: tuple[Agent, ...]  # agents read afresh: new, edited, or moved to other rows
    removed: tuple[Agent, ...]  # agents of the previous text that were dropped or read afresh


@dataclass(slots=True)
class Project:
    """All documents of a project, keyed by path."""

    root: str
    documents: dict[str, Document] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    read_diagnostics: dict[str, tuple[Diagnostic, ...]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # "path: why" for files found but not read
    _agents: dict[str, list[AgentRef]] | None = None
    # `namesakes()` by name, with the `agents_by_name()` list each was made from: every agent's
    # checks ask; an edit drops the names of the file it changed (no entry keeps an old agent).
    _namesakes: dict[str, tuple[list[AgentRef], tuple[tuple[str, Range, AgentKind], ...]]] = field(default_factory=dict)
    _names: list[str] | None = None  # `agent_names()`, sorted once per change: every agent's checks ask
    _handed: _HandedOver = field(default_factory=lambda: _HandedOver())
    _handed_synced: bool = False
    _handed_at: int = -1  # the revision `_handed` was last brought up to
    _graph: ProjectGraph | None = None
    _graph_before: ProjectGraph | None = None  # the graph before the last change, until rebuilt
    _graph_builder: GraphBuilder | None = None
    last_edit: AgentChanges | None = None
    # Bumped whenever a document is replaced or removed; `replaced_since` says what each bump did.
    revision: int = 0
    # The latest `_KEPT_CHANGES` bumps: (revision, agents dropped, agents read afresh), held
    # weakly so that the log keeps no replaced tree alive.
    _log: list[tuple[int, tuple[weakref.ref[Agent], ...], tuple[weakref.ref[Agent], ...]]] = field(default_factory=list)
    # Which folder this is and why it is a project (for a user asking which files were read).
    origin: str = ""
    # The files the user asked about, when the others were read only to resolve names.
    focus: frozenset[str] | None = None
    # The history a route without `HISTORY` gets: `full` unless the project's configuration
    # (`abl.config`) sets a deployment's default (seed 000 allows a project-level default).
    default_history: str = "full"

    def update(self, path: str, text: str, read_diagnostics: tuple[Diagnostic, ...] = ()) -> Document:
        """Set a file's text; re-lowers it only when the text changed."""
        if self.texts.get(path) == text and path in self.documents:
            return self.documents[path]
        old = self.documents.get(path)
        doc = load_document(text, path)
        self.documents[path] = doc
        self.texts[path] = text
        self.read_diagnostics[path] = read_diagnostics
        self._agents_changed()
        self._logged(tuple(old.agents) if old is not None else (), tuple(doc.agents))
        return doc

    def edit(self, path: str, text: str) -> AgentChanges:
        """Set a file's text as an editor does, re-reading only the blocks and agents it changed.

        The previous tree of the file hands its unchanged nodes to the new one, so read the
        file only through `documents` afterwards.
        """
        old = self.documents.get(path)
        if old is None:
            doc = self.update(path, text)
            changes = AgentChanges(path, tuple(doc.agents), ())
        elif self.texts.get(path) == text:
            changes = AgentChanges(path, (), ())
        else:
            doc = relower(old, reparse(old.source, text))
            changed, removed = changed_agents(old, doc)
            self.documents[path] = doc
            self.texts[path] = text
            self.read_diagnostics[path] = ()
            table, names, sakes = self._agents, self._names, self._namesakes
            self._agents_changed()
            if table is not None:
                self._agents, keys_changed = _retabled(table, path, old, doc, self.documents)
                self._names = None if keys_changed else names
                for agent in (*old.agents, *doc.agents):
                    sakes.pop(agent.name.text, None)
                self._namesakes = sakes
            changes = AgentChanges(path, tuple(changed), tuple(removed))
            self._logged(changes.removed, changes.changed)
        self.last_edit = changes
        return changes

    def remove(self, path: str) -> None:
        old = self.documents.pop(path, None)
        self.texts.pop(path, None)
        self.read_diagnostics.pop(path, None)
        self._agents_changed()
        if old is not None:
            self._logged(tuple(old.agents), ())

    def replaced_since(self, revision: int) -> list[tuple[list[Agent], list[Agent]]] | None:
        """What each replacement or removal of a document since `revision` (a past `revision`)
        did, in order: (agents dropped, agents read afresh). An agent not listed is the object it
        was, and a document changed only where one was listed; an agent since freed is left out
        (no reader held it). None when the log no longer reaches back that far."""
        if revision == self.revision:
            return []
        log = self._log
        if revision > self.revision or not log or log[0][0] > revision + 1:
            return None
        return [(_alive(dropped), _alive(read)) for at, dropped, read in log if at > revision]

    def _logged(self, dropped: tuple[Agent, ...], read: tuple[Agent, ...]) -> None:
        self.revision += 1
        self._log.append((self.revision, tuple(map(weakref.ref, dropped)), tuple(map(weakref.ref, read))))
        if len(self._log) > _KEPT_CHANGES:
            del self._log[: len(self._log) - _KEPT_CHANGES]

    def _agents_changed(self) -> None:
        self._agents = None
        self._names = None
        self._namesakes = {}
        self._handed_synced = False
        if self._graph is not None:
            self._graph_before = self._graph  # its findings may carry over to the next graph
        self._graph = None

    # --- queries ------------------------------------------------------------------------

    def all_agent_objects(self) -> list[Agent]:
        """Every agent, in project order (a new list)."""
        return [agent for doc in self.documents.values() for agent in doc.agents]

    def agents_by_name(self) -> dict[str, list[AgentRef]]:
        if self._agents is None:
            table: dict[str, list[AgentRef]] = {}
            for doc in self.documents.values():
                for agent in doc.agents:
                    if agent.name.text:
                        table.setdefault(agent.name.text, []).append(AgentRef(agent, doc))
            self._agents = table
        return self._agents

    def agent(self, name: str) -> Agent | None:
        refs = self.agents_by_name().get(name)
        return refs[0].agent if refs else None

    def namesakes(self, name: str) -> tuple[tuple[str, Range, AgentKind], ...]:
        """Where every agent called `name` is declared: (path, name range, kind), in project
        order. Plain values, so that an answer can be compared after an edit."""
        refs = self.agents_by_name().get(name, [])
        known = self._namesakes.get(name)
        if known is not None and known[0] is refs:
            return known[1]
        places = tuple((ref.document.path, ref.agent.name.range, ref.agent.kind) for ref in refs)
        if refs:
            self._namesakes[name] = (refs, places)
        return places

    def agent_names(self) -> list[str]:
        """Every agent name, sorted. The list is shared until the next change: read it, don't modify it."""
        if self._names is None:
            self._names = sorted(self.agents_by_name())
        return self._names

    def all_agents(self) -> Iterator[AgentRef]:
        for doc in self.documents.values():
            for agent in doc.agents:
                yield AgentRef(agent, doc)

    def parents_of(self, child: str) -> list[Agent]:
        """Agents with a route to `child`."""
        return [
            ref.agent
            for ref in self.all_agents()
            if any(r.target is not None and r.target.text == child for r in ref.agent.handoffs)
        ]

    def callees_of(self, agent: Agent) -> tuple[str, ...]:
        """The agents `agent` (an agent of this project) hands names to, through its routes and
        delegates: those whose `handed_over` answer depends on it."""
        self._sync_handed()
        return self._handed.callees_of(agent)

    def _sync_handed(self) -> None:
        if not self._handed_synced:
            replaced = self.replaced_since(self._handed_at) if self._handed_at >= 0 else None
            if replaced is None:
                self._handed.sync(self.all_agent_objects())
            else:
                for dropped, read in replaced:  # only what the edits since replaced
                    self._handed.replace(dropped, read)
            self._handed_at = self.revision
            self._handed_synced = True

    def handed_over(self, name: str) -> frozenset[str]:
        """Root names the callers of agent `name` give it: `PASS`ed variables and `CONTEXT.set`
        targets of routes into it, and the parameter names of `DELEGATE` entries that call it."""
        self._sync_handed()
        return self._handed.get(name)

    def graph_facts(self, name: str, routes: tuple[int, ...] = ()) -> AgentFacts:
        """What the handoff graph says about the agent `name` and its routes `routes`."""
        return self.graph().facts(name, routes)

    def graph(self) -> ProjectGraph:
        """The handoff graph of the project (`abl.workspace.graph`), rebuilt after a change from
        the edges of the agents the change touched and those kept from before."""
        if self._graph is None:
            from abl.workspace.graph import GraphBuilder

            if self._graph_builder is None:
                self._graph_builder = GraphBuilder()
            files = [doc.agents for doc in self.documents.values()]
            self._graph = self._graph_builder.build_files(files, self.default_history)
            if self._graph_before is not None:
                self._graph.inherit_facts(self._graph_before)
                self._graph.follow(self._graph_before)
                self._graph_before = None
        if self._graph.default_history != self.default_history:  # the configuration changed it
            self._graph = None
            return self.graph()
        return self._graph


# How many document changes a project remembers for `replaced_since`: a reader (the check cache)
# asks after every batch of edits, and a longer gap makes it look at the whole project instead.
_KEPT_CHANGES = 64


def _alive(refs: tuple[weakref.ref[Agent], ...]) -> list[Agent]:
    return [agent for agent in (ref() for ref in refs) if agent is not None]


def _retabled(
    table: dict[str, list[AgentRef]], path: str, old: Document, new: Document, documents: dict[str, Document]
) -> tuple[dict[str, list[AgentRef]], bool]:
    """The agents-by-name table after `path` changed from `old` to `new`: only the names either
    declares are looked at (each keeps project order). Also whether a name came or went."""
    mine: dict[str, list[AgentRef]] = {}
    for agent in new.agents:
        if agent.name.text:
            mine.setdefault(agent.name.text, []).append(AgentRef(agent, new))
    names = set(mine)
    names.update(agent.name.text for agent in old.agents if agent.name.text)
    table = dict(table)
    keys_changed = False
    order: dict[str, int] | None = None
    for name in names:
        refs = [ref for ref in table.get(name, ()) if ref.document.path != path]
        own = mine.get(name, [])
        if own and refs:
            if order is None:
                order = {p: i for i, p in enumerate(documents)}
            at = order[path]
            k = 0
            while k < len(refs) and order[refs[k].document.path] < at:
                k += 1
            refs[k:k] = own
        else:
            refs = refs or own
        if refs:
            keys_changed |= name not in table
            table[name] = refs
        elif name in table:
            del table[name]
            keys_changed = True
    return table, keys_changed


def _handed_by(caller: Agent) -> tuple[tuple[str, frozenset[str]], ...]:
    """What one agent hands to each agent it calls: (callee, root names)."""
    found: dict[str, set[str]] = {}
    for route in caller.handoffs:
        if route.target is not None and route.target.text:
            names = found.setdefault(route.target.text, set())
            names.update(name_root(p.text) for p in route.passes)
            names.update(name_root(a.target.text) for a in route.set)
    for delegate in caller.delegates:
        if delegate.target is not None and delegate.target.text:
            names = found.setdefault(delegate.target.text, set())
            names.update(name_root(param.text) for param, _ in delegate.inputs)
    return tuple((target, frozenset(names)) for target, names in found.items())


class _HandedOver:
    """The names each agent is handed by its callers, kept up to date agent by agent: an edit
    re-reads a few agents, and only the callees of those are worked out again.

    A caller is known by the blocks it is read from (`blocks_of`): an agent that only moved (a
    line added above it) hands over the same names, so its copy takes its place without a
    callee's answer being worked out again."""

    def __init__(self) -> None:
        # blocks of a caller → (the caller, kept alive so that the ids in its key stay its
        # blocks'; what it hands over)
        self._callers: dict[tuple, tuple[Agent, tuple[tuple[str, frozenset[str]], ...]]] = {}
        self._by_callee: dict[str, dict[tuple, frozenset[str]]] = {}
        self._merged: dict[str, frozenset[str]] = {}

    def sync(self, agents: Iterable[Agent]) -> None:
        """Bring the table to exactly `agents`."""
        current = {blocks_of(agent): agent for agent in agents}
        for key in [k for k in self._callers if k not in current]:
            self._drop(key)
        for key, agent in current.items():
            self._put(key, agent)

    def replace(self, dropped: Iterable[Agent], read: Iterable[Agent]) -> None:
        """Bring the table up to date with one change: `dropped` are gone, `read` came."""
        gone: dict[tuple, Agent] = {}
        for agent in dropped:
            key = blocks_of(agent)
            kept = self._callers.get(key)
            if kept is not None and kept[0] is agent:
                gone[key] = agent
        for agent in read:
            key = blocks_of(agent)
            gone.pop(key, None)
            self._put(key, agent)
        for key in gone:
            self._drop(key)

    def _put(self, key: tuple, agent: Agent) -> None:
        """`agent`, read from the blocks `key`, in the table: a caller of those blocks already
        there (one that only moved) hands over the same names, and the agent takes its place."""
        kept = self._callers.get(key)
        if kept is None:
            self._add(key, agent)
        elif kept[0] is not agent:
            self._callers[key] = (agent, kept[1])

    def _drop(self, key: tuple) -> None:
        _, handed = self._callers.pop(key)
        for callee, _names in handed:
            self._by_callee[callee].pop(key, None)
            self._merged.pop(callee, None)

    def _add(self, key: tuple, agent: Agent) -> None:
        handed = _handed_by(agent)
        self._callers[key] = (agent, handed)
        for callee, names in handed:
            self._by_callee.setdefault(callee, {})[key] = names
            self._merged.pop(callee, None)

    def callees_of(self, agent: Agent) -> tuple[str, ...]:
        kept = self._callers.get(blocks_of(agent))
        handed = kept[1] if kept is not None and kept[0] is agent else _handed_by(agent)
        return tuple(callee for callee, _ in handed)

    def get(self, callee: str) -> frozenset[str]:
        merged = self._merged.get(callee)
        if merged is None:
            merged = self._merged[callee] = frozenset().union(*self._by_callee.get(callee, {}).values())
        return merged


def discover(paths: Iterable[str], skipped: list[str] | None = None) -> tuple[list[Path], list[str]]:
    """Files to check: given files as they are, folders searched for `*.abl`. Returns (files, missing).

    In a folder only regular files inside it are taken (see `unsafe_reason`); the others are
    added to `skipped` as "path: why". Folder links are not followed, so a loop cannot recur.
    """
    files: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            try:
                root = p.resolve()
            except (OSError, RuntimeError):
                missing.append(raw)
                continue
            files.extend(walk(p, root, skipped))
        elif p.is_file():
            files.append(p)
        else:
            missing.append(raw)
    return files, missing


def walk(
    folder: Path, root: Path, skipped: list[str] | None = None, enter: Callable[[Path], bool] | None = None
) -> Iterator[Path]:
    """The `*.abl` files under `folder` that may be read, in a stable order, one at a time (so a
    caller can stop early). A sub-folder is entered only when `enter` (if given) allows it."""
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and (enter is None or enter(here / d)))
        for f in sorted(filenames):
            if not f.endswith(".abl"):
                continue
            path = here / f
            why = unsafe_reason(path, root)
            if why is None:
                yield path
            elif skipped is not None:
                skipped.append(f"{path}: {why}")


def unsafe_reason(path: Path, root: Path | None = None) -> str | None:
    """Why `path` must not be read, or None. Only regular files are read (a FIFO would block,
    a device never ends), up to MAX_FILE_BYTES, and a link only when its target is inside
    `root` (a link to a system file must not have its lines echoed)."""
    try:
        own = os.lstat(path)
        if stat.S_ISLNK(own.st_mode):
            target = path.resolve(strict=True)  # raises on a loop or a dangling link
            if root is not None and not target.is_relative_to(root):
                return "skipped: a link to a file outside the project folder"
        info = os.stat(path)
    except RuntimeError:
        return "skipped: a symbolic link loop"
    except OSError as err:
        return f"skipped: {err.strerror or err}"
    if not stat.S_ISREG(info.st_mode):
        return "skipped: not a regular file"
    if info.st_size > MAX_FILE_BYTES:
        return f"skipped: larger than {MAX_FILE_BYTES // (1024 * 1024)} MB ({info.st_size} bytes)"
    return None


def holds_abl(folder: Path) -> bool:
    """Whether `discover` finds at least one `*.abl` file under `folder` (stops at the first)."""
    for _, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
        if any(f.endswith(".abl") for f in filenames):
            return True
    return False


def load_project(paths: Iterable[str]) -> tuple[Project, list[str]]:
    """Read every file under `paths` into one project. Returns the project and unreadable paths."""
    paths = list(paths)
    files, problems = discover(paths)
    root = str(Path(paths[0]).resolve()) if paths else os.getcwd()
    project = Project(root)
    read_files(project, files, problems)
    return project, problems


def read_files(project: Project, files: Iterable[Path], problems: list[str]) -> None:
    """Add `files` to `project`; a file that cannot be read is added to `problems`."""
    for f in files:
        why = unsafe_reason(f)
        if why is not None:
            project.skipped.append(f"{f}: {why}")
            continue
        try:
            with open(f, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)  # the file may have grown since the check
        except OSError as err:
            problems.append(f"{f}: {err.strerror or err}")
            continue
        if len(data) > MAX_FILE_BYTES:
            project.skipped.append(f"{f}: skipped: larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
            continue
        source = decode(data)
        project.update(str(f), source.text, source.diagnostics)
