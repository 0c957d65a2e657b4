"""Which names a condition or a template of one agent may read, shared by the rules that ask.

An agent reads its own variables (`abl.model.declared_variables`: gather fields, memory, `SET`
targets, tool results, return-map targets, intents), what the runtime provides to every agent
(`intent`, `input`, `session`, ...), and what the agents that call it hand over: the `PASS`
names and `SET` targets of routes into it, and the `INPUT` parameters of delegates to it.
Names starting with `_` belong to the runtime and are always readable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from abl.checks.context import ProjectView
from abl.model import Agent, declared_variables
from abl.model.fields import root

# Roots the runtime provides (ABL-REFERENCE §4.2, §4.6), readable in every condition and template.
RUNTIME_ROOTS = frozenset(
    {
        "intent",
        "input",
        "input_transcript",
        "recent_input",
        "channel",
        "language",
        "session",
        "user",
        "context",
        "match",
        "handoff",
        "escalate",
        "human",
        "routing_intent",
        "all_fields_gathered",
        "result",
        "tool_failures",
        "constraint_failures",
        "sentiment_trajectory",
        "conversation_history",
        "secure",
    }
)

# Template namespaces resolved from configuration and secrets rather than agent variables.
TEMPLATE_NAMESPACES = frozenset({"config", "env", "secrets", "session", "_secret", "secure", "sip", "route", "this"})

_TOOL_RESULT = re.compile(r"last_\w+_result")


@dataclass(frozen=True, slots=True)
class AgentScope:
    """The names one agent may read, split by where they come from."""

    own: frozenset[str]  # declared or produced by the agent itself
    inherited: frozenset[str]  # handed over by callers (route PASS/SET, delegate INPUT)
    any_tool_result: bool  # an import without a name list brings every `last_<tool>_result`

    def knows(self, name: str) -> bool:
        base = root(name)
        if base in RUNTIME_ROOTS or base.startswith("_"):
            return True
        if base in self.own or base in self.inherited:
            return True
        return self.any_tool_result and _TOOL_RESULT.fullmatch(base) is not None

    def variables(self) -> list[str]:
        """The agent's own and inherited names, for "did you mean" suggestions."""
        return sorted(self.own | self.inherited)


def agent_scope(project: ProjectView, agent: Agent) -> AgentScope:
    own = set(declared_variables(agent))
    any_tool_result = False
    for imported in agent.tool_imports:
        if not imported.names:
            any_tool_result = True
        for name in imported.names:
            own.add(name.text)
            own.add(f"last_{name.text}_result")
    return AgentScope(frozenset(own), project.handed_over(agent.name.text), any_tool_result)
