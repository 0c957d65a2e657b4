"""The project index: every `*.abl` file under a root, its documents, and its agents by name."""

from abl.workspace.index import AgentRef, Project, SourceText, decode, load_project
from abl.workspace.projects import load_projects

__all__ = ["AgentRef", "Project", "SourceText", "decode", "load_project", "load_projects"]
