"""What a rule sees and how it reports.

Rules are plain functions registered with `@agent_rule` (called once per agent), `@block_rule`
(called once per column-0 block of a file, with that block's placement) or `@document_rule`
(called once per file). They report through `Check.report`, which takes the code's severity from
the registry, so no rule repeats what the registry says about a code.

A rule sees the project through `ProjectView`: the questions a rule may ask across files, and
nothing else (no `__getattr__`, so reading anything outside it fails, loudly under
`strict_rules`). The check cache records each answer to know when a stored result is stale,
so every question here is one it knows how to validate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from abl.checks.registry import lookup
from abl.diagnostics import Diagnostic, Fix
from abl.model import Agent, Document
from abl.model.types import AgentKind, Tool
from abl.text import Range
from abl.workspace import Project
from abl.workspace.graph import AgentFacts


class ProjectView:
    """What a rule may ask of the project beyond its own agent and file."""

    __slots__ = ("_project",)

    def __init__(self, project: Project) -> None:
        self._project = project

    @property
    def default_history(self) -> str:
        """The history mode a route without `HISTORY` sends (the project's configuration)."""
        return self._project.default_history

    def agent(self, name: str) -> Agent | None:
        """The agent routes to `name` reach (the first of that name), None when there is none."""
        return self._project.agent(name)

    def agent_names(self) -> list[str]:
        """Every agent name, sorted (shared: read it, don't modify it)."""
        return self._project.agent_names()

    def namesakes(self, name: str) -> tuple[tuple[str, Range, AgentKind], ...]:
        """Where each agent called `name` is declared: (path, name range, kind), in project order."""
        return self._project.namesakes(name)

    def handed_over(self, name: str) -> frozenset[str]:
        """The root names the callers of `name` hand it (`Project.handed_over`)."""
        return self._project.handed_over(name)

    def graph_facts(self, name: str, routes: tuple[int, ...] = ()) -> AgentFacts:
        """What the handoff graph says about agent `name` and its routes `routes`."""
        return self._project.graph_facts(name, routes)

    def behavior_profiles(self) -> list[Agent]:
        """Every `BEHAVIOR_PROFILE` of the project, in project order."""
        profile = AgentKind.BEHAVIOR_PROFILE
        return [agent for doc in self._project.documents.values() for agent in doc.agents if agent.kind is profile]

    def tool_libraries(self) -> Iterator[tuple[str, list[Tool]]]:
        """Each file's path and the tools its root `TOOLS:` declares (empty for most files)."""
        for path, doc in self._project.documents.items():
            yield path, doc.library_tools


@dataclass(slots=True)
class Check:
    project: ProjectView
    document: Document
    agent: Agent | None
    sink: list[Diagnostic] = field(default_factory=list)

    def report(
        self,
        code: str,
        message: str,
        range: Range,
        fixes: Iterable[Fix] = (),
        related: Iterable[tuple[str, Range, str]] = (),
    ) -> None:
        entry = lookup(code)
        self.sink.append(Diagnostic(code, entry.severity, message, range, tuple(fixes), tuple(related)))


AgentRule = Callable[[Check, Agent], None]
DocumentRule = Callable[[Check], None]

# A block rule takes a `layout.Block` (typed loosely here: the layout module lives with the
# rules, which import this one).
BlockRule = Callable[[Check, Any], None]

AGENT_RULES: list[tuple[str, AgentRule]] = []
BLOCK_RULES: list[tuple[str, BlockRule]] = []
DOCUMENT_RULES: list[tuple[str, DocumentRule]] = []


def agent_rule(*codes: str) -> Callable[[AgentRule], AgentRule]:
    """Register a rule that looks at one agent (and may consult the project index)."""

    def register(fn: AgentRule) -> AgentRule:
        for code in codes:
            lookup(code)  # an unknown code is a programming error: fail at import
        AGENT_RULES.append((",".join(codes), fn))
        return fn

    return register


def document_rule(*codes: str) -> Callable[[DocumentRule], DocumentRule]:
    """Register a rule that looks at one file as a whole."""

    def register(fn: DocumentRule) -> DocumentRule:
        for code in codes:
            lookup(code)
        DOCUMENT_RULES.append((",".join(codes), fn))
        return fn

    return register


def block_rule(*codes: str) -> Callable[[BlockRule], BlockRule]:
    """Register a rule that looks at one column-0 block at a time and at nothing outside it.
    Such a rule's findings for a block an edit did not touch are kept (and moved with the
    block), so a keystroke re-walks one block, not the whole file."""

    def register(fn: BlockRule) -> BlockRule:
        for code in codes:
            lookup(code)
        BLOCK_RULES.append((",".join(codes), fn))
        return fn

    return register
