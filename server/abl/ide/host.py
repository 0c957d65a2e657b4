"""The one owner of the workspace's analysis: projects, their check caches and diagnostics.

An editor sends many small changes and asks many questions. Everything that changes the
analysis goes through `AnalysisHost` (open, edit, close, a file changing on disk, a folder
added); everything that reads it goes through `AnalysisHost.analysis()`, which first brings
the analysis up to date with every change received so far. Both run on one thread, one call at
a time, so a reader never sees a project half way through an edit: this is the consistency
model (see ARCHITECTURE.md). An `Analysis` is a view valid until the next change; using it
afterwards raises `StaleAnalysis` rather than answering from a mix of old and new trees.

Changes are coalesced: `set_text` only records the newest text of a file, and the next
`analyse` (or `analysis()`) reads each changed file once, however many edits arrived. Reading
(parsing and lowering, what hover and completion need) and checking (what diagnostics need) are
two phases: a view reads every pending change at once and checks only when a diagnostic is
asked for, so a request right after a keystroke does not wait for the checks.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from abl.checks.cache import CheckCache
from abl.checks.engine import DEFAULT_OPTIONS, CheckOptions, check_file
from abl.config import DEFAULT as DEFAULT_CONFIG
from abl.config import Config, ConfigProblem, find_config, load_config
from abl.diagnostics import Diagnostic, Severity
from abl.gcpause import paused_gc
from abl.ide.features import Features
from abl.identity import same_objects
from abl.model import Agent, Document
from abl.syntax.limits import LIMIT_CODE, MAX_FILE_BYTES, file_message
from abl.text import Range
from abl.workspace import AgentRef, Project, decode
from abl.workspace.index import discover
from abl.workspace.projects import has_manifest, project_files, project_of

# Above this size a file is read for syntax only: parsing stays fast, checking would stall.
LARGE_FILE_BYTES = 2_000_000


class StaleAnalysis(RuntimeError):
    """An `Analysis` was used after the host changed."""


@dataclass(slots=True)
class _ProjectState:
    project: Project
    cache: CheckCache = field(default_factory=CheckCache)
    diagnostics: dict[str, tuple[Diagnostic, ...]] = field(default_factory=dict)
    config: Config = DEFAULT_CONFIG
    config_problems: tuple[ConfigProblem, ...] = ()
    # Per file: the checker's findings, the text and the configuration they were filtered
    # with, what the filter kept, and the cache's settled record of them (`CheckCache.settled`);
    # a file no edit reached is not filtered again, nor checked while its record holds.
    filtered: dict[str, tuple[list[Diagnostic], str, Config, tuple[Diagnostic, ...], object | None]] = field(
        default_factory=dict
    )


@dataclass(frozen=True, slots=True)
class AnalysisResult:
    """What one round of analysis changed: files whose diagnostics differ from the last round
    (removed files map to an empty tuple)."""

    diagnostics: dict[str, tuple[Diagnostic, ...]]
    analysed_files: int


class AnalysisHost:
    def __init__(self, options: CheckOptions = DEFAULT_OPTIONS) -> None:
        self._options = options
        self._roots: list[Path] = []  # workspace folders, resolved
        self._projects: dict[str, _ProjectState] = {}  # project root → state
        self._project_of: dict[str, str] = {}  # file path → project root
        self._pending: dict[str, str | None] = {}  # path → newest text (None: removed)
        self._open: dict[str, int] = {}  # paths the editor holds open → their version
        self._large: set[str] = set()
        self._generation = 0
        self._stale: set[str] = set()  # project roots whose documents changed since their check
        self._unpublished: dict[str, tuple[Diagnostic, ...]] = {}  # changes not yet taken
        self._published: dict[str, tuple[Diagnostic, ...]] = {}
        # Decoding problems of files read from disk, until the file is next analysed.
        self._read_diagnostics: dict[str, tuple[Diagnostic, ...]] = {}

    # --- changes ------------------------------------------------------------------------

    @property
    def generation(self) -> int:
        return self._generation

    def set_options(self, options: CheckOptions) -> None:
        self._options = options
        for root, state in self._projects.items():
            state.cache = CheckCache()
            self._stale.add(root)

    def add_folder(self, folder: str) -> list[str]:
        """Index every `*.abl` file under a workspace folder. Returns the files found. A
        workspace opened on one file is that file with its project, as when it is opened alone."""
        if os.path.isfile(folder):
            return self._add_lone_file(folder)
        root = Path(folder).resolve()
        if root not in self._roots:
            self._roots.append(root)
        files, _ = discover([str(root)])
        for f in files:
            self._read_from_disk(str(f))
        return [str(f) for f in files]

    def remove_folder(self, folder: str) -> None:
        root = Path(folder).resolve()
        if root in self._roots:
            self._roots.remove(root)
        for path in [p for p in self._project_of if _is_under(Path(p), root)]:
            if path not in self._open:
                self._pending[path] = None
        self._generation += 1

    def open(self, path: str, text: str, version: int) -> None:
        self._open[path] = version
        self._ensure_context(path)
        self.set_text(path, text, version)

    def set_text(self, path: str, text: str, version: int | None = None) -> None:
        """The newest text of a file (an editor's buffer); read on the next analysis."""
        if version is not None:
            self._open[path] = version
        self._pending[path] = text
        self._generation += 1

    def close(self, path: str) -> None:
        """The editor let go of a file: from now on its text is what is on disk (a file that
        is not on disk, such as an unsaved new one, is dropped)."""
        self._open.pop(path, None)
        if os.path.isfile(path):
            self._read_from_disk(path)
        else:
            self.file_deleted(path)

    def file_changed_on_disk(self, path: str) -> None:
        """A file was created or changed on disk; an open file keeps the editor's text."""
        if path in self._open:
            return
        if not path.endswith(".abl") or (not self._inside_workspace(path) and path not in self._project_of):
            return
        if not os.path.isfile(path):
            self.file_deleted(path)
            return
        self._read_from_disk(path)

    def config_changed(self, path: str) -> None:
        """A configuration file (`abl.toml`, `pyproject.toml`) appeared, changed or went: read
        the configuration again for every project it may govern."""
        folder = Path(path).parent
        for root, state in self._projects.items():
            if _is_under(Path(root), folder) or state.config.path == Path(path):
                self._configure(state)
                self._stale.add(root)
        self._generation += 1

    def file_deleted(self, path: str) -> None:
        if path in self._open:
            return
        doomed = [p for p in self._project_of if p == path or _is_under(Path(p), Path(path))]
        for p in doomed:
            self._pending[p] = None
        if doomed:
            self._generation += 1

    def version(self, path: str) -> int | None:
        return self._open.get(path)

    def is_open(self, path: str) -> bool:
        return path in self._open

    def open_paths(self) -> list[str]:
        return sorted(self._open)

    # --- analysis -----------------------------------------------------------------------

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    def analyse(self) -> AnalysisResult:
        """Read every changed file once and re-check what the changes touched. The result holds
        the files whose diagnostics changed since the last `take_changes` (or `analyse`)."""
        read = self._sync()
        self._check_stale()
        return AnalysisResult(self.take_changes(), read)

    def analysis(self) -> Analysis:
        """A consistent view of the workspace, with every change received so far applied.
        Files are read now; checks run when a diagnostic is first asked for."""
        self._sync()
        return Analysis(self, self._generation)

    def take_changes(self) -> dict[str, tuple[Diagnostic, ...]]:
        """Files whose diagnostics changed since the last call (removed files: empty)."""
        changes, self._unpublished = self._unpublished, {}
        return changes

    @property
    def needs_checking(self) -> bool:
        return bool(self._pending or self._stale)

    # --- the two phases -------------------------------------------------------------------

    def _sync(self) -> int:
        """Apply every pending change to the projects' documents. Returns how many files."""
        if not self._pending:
            return 0
        pending, self._pending = self._pending, {}
        with paused_gc():
            for path, text in pending.items():
                self._stale.add(self._apply(path, text))
                if text is None and self._published.get(path):
                    self._note({path: ()})
        return len(pending)

    def _check_stale(self) -> None:
        """Re-check the projects changed since their last check."""
        if not self._stale:
            return
        stale, self._stale = self._stale, set()
        with paused_gc():
            for root in sorted(stale):
                state = self._projects.get(root)
                if state is not None:
                    self._note(self._check(state))

    def _note(self, changed: dict[str, tuple[Diagnostic, ...]]) -> None:
        for path, diags in changed.items():
            self._unpublished[path] = diags
            if diags:
                self._published[path] = diags
            else:
                self._published.pop(path, None)

    # --- internals ------------------------------------------------------------------------

    def _apply(self, path: str, text: str | None) -> str:
        """Set (or drop) one file in its project. Returns the project root."""
        root = self._project_of.get(path) or self._root_for(path)
        state = self._projects.get(root)
        if state is None:
            state = self._projects[root] = _ProjectState(Project(root))
            self._configure(state)
        if text is None:
            state.project.remove(path)
            state.diagnostics.pop(path, None)
            state.filtered.pop(path, None)
            self._project_of.pop(path, None)
            self._large.discard(path)
            return root
        self._project_of[path] = root
        if len(text) > MAX_FILE_BYTES:
            # Not read at all, as `abl check` skips it: parsing would take the server's time and memory.
            self._read_diagnostics[path] = (_too_large(len(text)),)
            text = ""
        if len(text) > LARGE_FILE_BYTES:
            self._large.add(path)
        else:
            self._large.discard(path)
        if path in state.project.documents:
            state.project.edit(path, text)
        else:
            state.project.update(path, text)
        state.project.read_diagnostics[path] = self._read_diagnostics.pop(path, ())
        return root

    def _configure(self, state: _ProjectState) -> None:
        """Read the project's configuration file, as `abl check` does for the same folder."""
        found = find_config(Path(state.project.root))
        config, problems = load_config(found) if found is not None else (DEFAULT_CONFIG, [])
        state.config = config
        state.config_problems = tuple(problems)
        if state.project.default_history != config.default_history:
            state.project.default_history = config.default_history
            state.cache = CheckCache()  # every rule that read the default must run again

    def _check(self, state: _ProjectState) -> dict[str, tuple[Diagnostic, ...]]:
        changed: dict[str, tuple[Diagnostic, ...]] = {}
        project = state.project
        config = state.config
        with state.cache.session(project):
            for path in sorted(project.documents):
                if path in self._large:
                    diags = tuple(project.read_diagnostics.get(path, ())) + tuple(
                        project.documents[path].source.diagnostics
                    )
                elif not config.is_included(path):
                    diags = ()  # read to resolve names, not reported (`exclude`)
                else:
                    text = project.texts[path]
                    known = state.filtered.get(path)
                    if (
                        known is not None
                        and known[4] is not None
                        and known[1] is text
                        and known[2] is config
                        and state.cache.take_untouched(project.documents[path], known[4])
                    ):
                        continue  # findings that settled and hold as they are: nothing to look at
                    found = check_file(project, path, self._options, state.cache)
                    if known is not None and known[1] is text and known[2] is config and same_objects(known[0], found):
                        diags = known[3]
                    else:
                        diags = tuple(config.filter(path, text, found))
                    state.filtered[path] = (found, text, config, diags, state.cache.settled(path))
                if state.diagnostics.get(path) != diags:
                    state.diagnostics[path] = diags
                    changed[path] = diags
        return changed

    def _read_from_disk(self, path: str) -> None:
        if path in self._open:
            return  # the editor's text wins over the file on disk
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)  # enough to tell that a file is over the limit
        except OSError:
            self.file_deleted(path)
            return
        if len(data) > MAX_FILE_BYTES:
            self._read_diagnostics[path] = (_too_large(len(data)),)
            self._pending[path] = ""
            self._generation += 1
            return
        source = decode(data)
        self._read_diagnostics[path] = source.diagnostics
        self._pending[path] = source.text
        self._generation += 1

    def _add_lone_file(self, path: str) -> list[str]:
        file = str(Path(path).absolute())
        self._ensure_context(file)
        self._read_from_disk(file)
        return [p for p, root in self._project_of.items() if root == self._project_of.get(file)]

    def _ensure_context(self, path: str) -> None:
        """A file opened outside every indexed project brings its project along (bounded by
        `abl.workspace.projects.MAX_PROJECT_FILES`), so that the names it uses in other files
        resolve. Every file read belongs to that project, whatever its own folder."""
        if path in self._project_of or path in self._pending:
            return
        root = self._root_for(path)
        self._project_of[path] = root
        if root in self._projects:
            return
        files = project_files(Path(root))
        for f in files or ():
            if str(f) != path and str(f) not in self._project_of:
                self._project_of[str(f)] = root
                self._read_from_disk(str(f))

    def _root_for(self, path: str) -> str:
        """The project a file belongs to. Inside a workspace folder: the nearest folder with a
        manifest up to that workspace folder, else the workspace folder. Outside every one: the
        project `abl check FILE` reads for it (`abl.workspace.projects.project_of`)."""
        file = Path(path)
        folder_root = next((r for r in self._roots if _is_under(file, r)), None)
        if folder_root is None:
            return str(project_of(file).root)
        folder = file.parent
        while not has_manifest(folder) and folder != folder_root and folder.parent != folder:
            folder = folder.parent
        return str(folder) if has_manifest(folder) else str(folder_root)

    def _inside_workspace(self, path: str) -> bool:
        return any(_is_under(Path(path), r) for r in self._roots)


def _is_under(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


class Analysis(Features):
    """A read-only view of the analysed workspace, valid until the host's next change; its
    editor features are `Features`'."""

    __slots__ = ("_generation", "_host")

    def __init__(self, host: AnalysisHost, generation: int) -> None:
        self._host = host
        self._generation = generation

    def _live(self) -> AnalysisHost:
        if self._host.generation != self._generation:
            raise StaleAnalysis("the workspace changed after this analysis was taken")
        return self._host

    # --- files ----------------------------------------------------------------------------

    def paths(self) -> list[str]:
        return sorted(self._live()._project_of)

    def project(self, path: str) -> Project | None:
        host = self._live()
        root = host._project_of.get(path)
        state = host._projects.get(root) if root is not None else None
        return state.project if state is not None else None

    def projects(self) -> list[Project]:
        return [s.project for _, s in sorted(self._live()._projects.items())]

    def document(self, path: str) -> Document | None:
        project = self.project(path)
        return project.documents.get(path) if project is not None else None

    def text(self, path: str) -> str | None:
        project = self.project(path)
        return project.texts.get(path) if project is not None else None

    def version(self, path: str) -> int | None:
        return self._live().version(path)

    def is_large(self, path: str) -> bool:
        return path in self._live()._large

    def diagnostics(self, path: str) -> tuple[Diagnostic, ...]:
        host = self._live()
        host._check_stale()
        root = host._project_of.get(path)
        state = host._projects.get(root) if root is not None else None
        return state.diagnostics.get(path, ()) if state is not None else ()

    def all_diagnostics(self) -> Iterator[tuple[str, tuple[Diagnostic, ...]]]:
        host = self._live()
        host._check_stale()
        for state in host._projects.values():
            yield from sorted(state.diagnostics.items())

    def config_problems(self) -> list[ConfigProblem]:
        """Problems of every configuration file in use (each with its file and position)."""
        seen: dict[str, ConfigProblem] = {}
        for state in self._live()._projects.values():
            for problem in state.config_problems:
                seen.setdefault(str(problem), problem)
        return list(seen.values())

    # --- names ----------------------------------------------------------------------------

    def agent(self, path: str, name: str) -> AgentRef | None:
        """The agent called `name` in the project of `path`."""
        project = self.project(path)
        refs = project.agents_by_name().get(name) if project is not None else None
        return refs[0] if refs else None

    def agents(self) -> Iterable[tuple[Project, AgentRef]]:
        for project in self.projects():
            for ref in project.all_agents():
                yield project, ref

    def agent_at_row(self, path: str, row: int) -> Agent | None:
        """The agent whose document holds line `row` of the file."""
        doc = self.document(path)
        if doc is None:
            return None
        found = None
        for agent in doc.agents:
            if agent.header.row <= row:
                found = agent
        return found


def _too_large(size: int) -> Diagnostic:
    return Diagnostic(LIMIT_CODE, Severity.ERROR, file_message(size), Range.empty(0, 0))
