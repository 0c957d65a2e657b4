"""The editor features of an `Analysis`, one method per feature.

Shaped like an IDE library's one entry point: every method takes a file's path plus, where the
feature needs one, a position or a range (code points), and answers plain data from the other
`ide` modules; a file outside the analysis gets the empty answer (None, or an empty list). No
method knows the protocol: `abl.lsp` converts the input and the answer and does nothing else.

Adding a feature is one `ide` module, one method here and one protocol handler. The in-process
handler tests and the fuzzer's editor target call every method of `FEATURES`, so a new one is
exercised the day it is added.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from abl.diagnostics import Diagnostic, TextEdit
from abl.ide import actions, inlay, lens, links, navigation, tokens
from abl.ide import completion as completing
from abl.ide import folding as folds
from abl.ide import hover as hovering
from abl.ide import symbols as outline
from abl.ide.edits import WorkspaceEdit
from abl.ide.format import FormatOptions, format_edits
from abl.ide.graph import GraphView, graph_view
from abl.text import Position, Range

if TYPE_CHECKING:
    from abl.model import Document
    from abl.workspace import Project


class Features:
    """What an editor asks of the analysis. `Analysis` (in `host`) provides the reads below."""

    __slots__ = ()

    # The reads the features are built on, provided by `Analysis`.
    def project(self, path: str) -> Project | None:
        raise NotImplementedError

    def projects(self) -> list[Project]:
        raise NotImplementedError

    def document(self, path: str) -> Document | None:
        raise NotImplementedError

    def text(self, path: str) -> str | None:
        raise NotImplementedError

    def diagnostics(self, path: str) -> tuple[Diagnostic, ...]:
        raise NotImplementedError

    def _owner(self, path: str) -> Project | None:
        """The project that holds `path` as one of its documents."""
        project = self.project(path)
        return project if project is not None and path in project.documents else None

    # --- understanding the text -------------------------------------------------------------

    def hover(self, path: str, position: Position) -> hovering.Hover | None:
        project = self._owner(path)
        return hovering.hover(project, path, position) if project is not None else None

    def completion(self, path: str, position: Position) -> list[completing.Completion]:
        project = self._owner(path)
        return completing.complete(project, path, position) if project is not None else []

    def semantic_tokens(self, path: str, within: Range | None = None) -> tokens.SemanticTokens:
        project = self.project(path)
        return tokens.semantic_tokens(project, path, within) if project is not None else tokens.SemanticTokens(())

    def inlay_hints(self, path: str, within: Range) -> list[inlay.InlayHint]:
        doc, project = self.document(path), self.project(path)
        if doc is None or project is None:
            return []
        return inlay.inlay_hints(doc, within, project.default_history)

    # --- navigation --------------------------------------------------------------------------

    def definition(self, path: str, position: Position) -> list[navigation.Location]:
        project = self._owner(path)
        return navigation.definition(project, path, position) if project is not None else []

    def references(self, path: str, position: Position, include_declaration: bool = True) -> list[navigation.Location]:
        project = self._owner(path)
        if project is None:
            return []
        return navigation.references(project, path, position, include_declaration)

    def highlights(self, path: str, position: Position) -> list[navigation.Highlight]:
        project = self._owner(path)
        return navigation.highlights(project, path, position) if project is not None else []

    def prepare_rename(self, path: str, position: Position) -> tuple[Range, str] | None:
        """The name's range and text; raises `RenameError` when the name cannot be renamed."""
        project = self._owner(path)
        return navigation.prepare_rename(project, path, position) if project is not None else None

    def rename(self, path: str, position: Position, new_name: str, folders: Iterable[str] = ()) -> WorkspaceEdit | None:
        """The edits of a rename; `folders` are searched for conversation tests (the project's
        own folder when none is given). Raises `RenameError` when the rename is refused."""
        project = self._owner(path)
        if project is None:
            return None
        return navigation.rename(project, path, position, new_name, list(folders) or [project.root])

    def call_hierarchy(self, path: str, position: Position) -> navigation.AgentItem | None:
        project = self._owner(path)
        return navigation.hierarchy_item(project, path, position) if project is not None else None

    def incoming_calls(self, path: str, agent: str) -> list[navigation.Call]:
        project = self.project(path)
        return navigation.incoming_calls(project, agent) if project is not None else []

    def outgoing_calls(self, path: str, agent: str) -> list[navigation.Call]:
        project = self.project(path)
        return navigation.outgoing_calls(project, agent) if project is not None else []

    def document_links(self, path: str) -> list[links.Link]:
        project = self.project(path)
        return links.document_links(project, path) if project is not None else []

    # --- structure ---------------------------------------------------------------------------

    def symbols(self, path: str) -> list[outline.OutlineItem]:
        doc = self.document(path)
        return outline.document_outline(doc) if doc is not None else []

    def workspace_symbols(self, query: str) -> list[outline.WorkspaceSymbol]:
        return outline.workspace_symbols(self.projects(), query)

    def folding(self, path: str) -> list[folds.Fold]:
        doc = self.document(path)
        return folds.folding_ranges(doc) if doc is not None else []

    def selection_ranges(self, path: str, positions: Sequence[Position]) -> list[folds.SelectionRange]:
        doc = self.document(path)
        return folds.selection_ranges(doc, positions) if doc is not None else []

    def code_lenses(self, path: str, can_run: bool = True, can_debug: bool = False) -> list[lens.Lens]:
        project = self.project(path)
        return lens.code_lenses(project, path, can_run=can_run, can_debug=can_debug) if project is not None else []

    def graph(self, path: str, agent: str | None = None, depth: int | None = None) -> GraphView | None:
        """The handoff graph of the project of `path` (or `agent`'s neighbourhood in it)."""
        project = self.project(path)
        if project is None:
            return None
        problems = {p: self.diagnostics(p) for p in project.documents}
        return graph_view(project.graph(), problems, agent, depth)

    # --- changing the text -------------------------------------------------------------------

    def code_actions(
        self,
        path: str,
        within: Range,
        diagnostics: Sequence[Diagnostic] | None = None,
        quick_fixes: bool = True,
        fix_all: bool = True,
    ) -> list[actions.Action]:
        """The quick fixes of the diagnostics touching `within`, then "fix all" (each when asked).
        `diagnostics`: those the editor shows (the file's own by default)."""
        text = self.text(path)
        if text is None:
            return []
        shown = list(self.diagnostics(path) if diagnostics is None else diagnostics)
        found = actions.quick_fixes(path, shown, within) if quick_fixes else []
        every = actions.fix_all(path, text, shown) if fix_all else None
        return [*found, every] if every is not None else found

    def formatting(
        self, path: str, within: Range | None = None, options: FormatOptions | None = None
    ) -> list[TextEdit]:
        """The formatter's edits for the file, or for the lines `within` spans."""
        text = self.text(path)
        if text is None:
            return []
        lines = (within.start.line, within.end.line) if within is not None else None
        return format_edits(text, options or FormatOptions(), lines)


def _public(cls: type) -> tuple[str, ...]:
    return tuple(
        name
        for name, member in vars(cls).items()
        if inspect.isfunction(member) and not name.startswith("_") and name not in _READS
    )


_READS = frozenset({"project", "projects", "document", "text", "diagnostics"})

# Every editor feature of the analysis, by method name: diagnostics, then those above (the
# other reads they are built on left out).
FEATURES: tuple[str, ...] = ("diagnostics", *_public(Features))
