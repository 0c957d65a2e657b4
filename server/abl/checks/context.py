"""What a rule sees and how it reports.

Rules are plain functions registered with `@agent_rule` (called once per agent, with the
project index for cross-file questions), `@block_rule` (called once per column-0 block of a
file, with that block's placement) or `@document_rule` (called once per file). They
report through `Check.report`, which takes the code's severity from the registry, so no rule
repeats what the registry says about a code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from abl.checks.registry import lookup
from abl.diagnostics import Diagnostic, Fix
from abl.model import Agent, Document
from abl.text import Range
from abl.workspace import Project


@dataclass(slots=True)
class Check:
    project: Project
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
