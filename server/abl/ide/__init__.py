"""The editor API: `AnalysisHost` owns the workspace, `Analysis` answers every editor feature
(`Features`, one method each), and the plain types those answers are made of.

This package is all `abl.lsp` may import (a test holds it to that), so the plain helpers a
protocol layer needs (positions, diagnostics, the code registry, ...) are named here too.
Names are loaded when first asked for, so that `abl format` does not import the runtime.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from abl import __version__
    from abl.checks.registry import BY_CODE
    from abl.diagnostics import Diagnostic, Severity, TextEdit
    from abl.gcpause import paused_gc
    from abl.ide.actions import Action
    from abl.ide.completion import Completion, ItemKind
    from abl.ide.edits import WorkspaceEdit
    from abl.ide.event_sources import LocatedEvent
    from abl.ide.features import FEATURES, Features
    from abl.ide.folding import COMMENT, IMPORTS, Fold, SelectionRange
    from abl.ide.format import FormatOptions
    from abl.ide.graph import GraphView, fingerprint, graph_view, merge_views, project_label, to_json
    from abl.ide.host import LARGE_FILE_BYTES, Analysis, AnalysisHost, StaleAnalysis
    from abl.ide.lens import Lens, LensKind
    from abl.ide.navigation import AgentItem, Call, Highlight, Location, RenameError
    from abl.ide.runs import RunError, RunManager
    from abl.ide.symbols import OutlineItem, OutlineKind, WorkspaceSymbol
    from abl.ide.tokens import TOKEN_MODIFIERS, TOKEN_TYPES, SemanticTokens, Token
    from abl.model.types import AgentKind
    from abl.resources import docs_uri
    from abl.runtime.local_limits import NotEnforced
    from abl.runtime.testing.yamlread import FormatError, LineDict, plain, read_yaml
    from abl.text import LineIndex, Position, ProtocolLines, Range, common_prefix, common_suffix
    from abl.wording import count
    from abl.workspace import Project

_WHERE: dict[str, tuple[str, ...]] = {
    "abl": ("__version__",),
    "abl.checks.registry": ("BY_CODE",),
    "abl.diagnostics": ("Diagnostic", "Severity", "TextEdit"),
    "abl.gcpause": ("paused_gc",),
    "abl.ide.actions": ("Action",),
    "abl.ide.completion": ("Completion", "ItemKind"),
    "abl.ide.edits": ("WorkspaceEdit",),
    "abl.ide.event_sources": ("LocatedEvent",),
    "abl.ide.features": ("FEATURES", "Features"),
    "abl.ide.folding": ("COMMENT", "IMPORTS", "Fold", "SelectionRange"),
    "abl.ide.format": ("FormatOptions",),
    "abl.ide.graph": ("GraphView", "fingerprint", "graph_view", "merge_views", "project_label", "to_json"),
    "abl.ide.host": ("LARGE_FILE_BYTES", "Analysis", "AnalysisHost", "StaleAnalysis"),
    "abl.ide.lens": ("Lens", "LensKind"),
    "abl.ide.navigation": ("AgentItem", "Call", "Highlight", "Location", "RenameError"),
    "abl.ide.runs": ("RunError", "RunManager"),
    "abl.ide.symbols": ("OutlineItem", "OutlineKind", "WorkspaceSymbol"),
    "abl.ide.tokens": ("TOKEN_MODIFIERS", "TOKEN_TYPES", "SemanticTokens", "Token"),
    "abl.model.types": ("AgentKind",),
    "abl.resources": ("docs_uri",),
    "abl.runtime.local_limits": ("NotEnforced",),
    "abl.runtime.testing.yamlread": ("FormatError", "LineDict", "plain", "read_yaml"),
    "abl.text": ("LineIndex", "Position", "ProtocolLines", "Range", "common_prefix", "common_suffix"),
    "abl.wording": ("count",),
    "abl.workspace": ("Project",),
}
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}

__all__ = [
    "BY_CODE",
    "COMMENT",
    "FEATURES",
    "IMPORTS",
    "LARGE_FILE_BYTES",
    "TOKEN_MODIFIERS",
    "TOKEN_TYPES",
    "Action",
    "AgentItem",
    "AgentKind",
    "Analysis",
    "AnalysisHost",
    "Call",
    "Completion",
    "Diagnostic",
    "Features",
    "Fold",
    "FormatError",
    "FormatOptions",
    "GraphView",
    "Highlight",
    "ItemKind",
    "Lens",
    "LensKind",
    "LineDict",
    "LineIndex",
    "LocatedEvent",
    "Location",
    "NotEnforced",
    "OutlineItem",
    "OutlineKind",
    "Position",
    "Project",
    "ProtocolLines",
    "Range",
    "RenameError",
    "RunError",
    "RunManager",
    "SelectionRange",
    "SemanticTokens",
    "Severity",
    "StaleAnalysis",
    "TextEdit",
    "Token",
    "WorkspaceEdit",
    "WorkspaceSymbol",
    "__version__",
    "common_prefix",
    "common_suffix",
    "count",
    "docs_uri",
    "fingerprint",
    "graph_view",
    "merge_views",
    "paused_gc",
    "plain",
    "project_label",
    "read_yaml",
    "to_json",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'abl.ide' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # asked once
    return value
