"""The project index: every `*.abl` file under a root, its documents, and its agents by name."""

from abl.workspace.index import AgentRef, Project, SourceText, decode, load_project

__all__ = ["AgentRef", "Project", "SourceText", "decode", "load_project"]
