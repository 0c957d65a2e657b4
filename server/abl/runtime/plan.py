"""`AgentPlan`: the facts about one agent the engine needs on every turn, computed once.

Route order, the intents each route compares `intent.category` with (read from the parsed
`WHEN`), what the agent may write, which names are sensitive, its flow steps by name, and the
tools a reasoning agent may call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from abl.expr import compared_texts
from abl.model.fields import WriteAccess, own_assignments
from abl.model.steps import FlowStep
from abl.model.types import Agent, HandoffRoute, ReturnHandler, Scalar, Tool
from abl.runtime.evaluation import referenced_paths
from abl.runtime.local_limits import NotEnforced, not_enforced
from abl.runtime.models import IntentOption, ToolParamSpec, ToolSpec
from abl.runtime.templates import MaskRule
from abl.workspace import Project

DEFAULT_REASONING_ITERATIONS = 10  # tool calls a reasoning agent may make for one message
INTENT_PATH = ("intent", "category")


@dataclass(slots=True)
class AgentPlan:
    agent: Agent
    routes: tuple[HandoffRoute, ...]  # evaluation order: PRIORITY, then position; `WHEN: true` last
    routes_read_intent: bool
    intent_options: tuple[IntentOption, ...]
    write_access: WriteAccess  # what a returning child may write into this agent
    sensitive: frozenset[str]  # declared sensitive, or computed from a sensitive value (see `sensitive_names`)
    masks: dict[str, MaskRule]  # how each sensitive name is shown to the customer
    declared_sensitive: frozenset[str]  # marked `sensitive` in the file (trace fields of these names are redacted)
    handlers: dict[str, ReturnHandler]
    route_intents: dict[int, tuple[str, ...]]  # route index -> intent names its WHEN compares with
    scope_text: str  # what the agent is about, for the built-in return to the parent
    steps: dict[str, FlowStep]  # flow steps by name (the first of a name)
    tools: tuple[ToolSpec, ...]  # what the agent may call when it reasons
    max_iterations: int
    not_run: tuple[NotEnforced, ...]  # what the agent declares that does not run locally (`local_limits`)

    @property
    def name(self) -> str:
        return self.agent.name.text

    def tool_specs(self, names: tuple[str, ...]) -> tuple[ToolSpec, ...]:
        """The agent's tools limited to `names` (a reasoning step's `AVAILABLE_TOOLS`), or all."""
        if not names:
            return self.tools
        return tuple(t for t in self.tools if t.name in names)


def build_plan(agent: Agent, project: Project) -> AgentPlan:
    def order(route: HandoffRoute) -> tuple[int, int, int]:
        fallback = route.when is not None and route.when.parse.content.strip().lower() == "true"
        # An unreadable PRIORITY (reported by the checker) keeps the authored position.
        written = route.priority.text.strip() if route.priority is not None else ""
        priority = int(written) if re.fullmatch(r"[+-]?\d+", written) else route.index + 1
        return (1 if fallback else 0, priority, route.index)

    routes = tuple(sorted((r for r in agent.handoffs if r.target is not None), key=order))
    reads_intent = False
    route_intents: dict[int, tuple[str, ...]] = {}
    for route in routes:
        if route.when is None or route.when.parse.expr is None:
            continue
        paths = referenced_paths(route.when.parse)
        if any(p == "intent" or p.startswith("intent.") for p in paths):
            reads_intent = True
            route_intents[route.index] = tuple(compared_texts(route.when.parse.expr, INTENT_PATH))
    masks = sensitive_names(agent, project)
    scope_parts = [agent.goal.text if agent.goal else "", agent.description.text if agent.description else ""]
    for f in agent.gather:
        scope_parts.append(f.prompt.text if f.prompt else f.name.text.replace("_", " "))
        if f.description:
            scope_parts.append(f.description.text)
    steps: dict[str, FlowStep] = {}
    if agent.flow is not None:
        for step in agent.flow.written:
            steps.setdefault(step.name.text, step)
    limit = agent.max_reasoning_iterations
    return AgentPlan(
        agent=agent,
        routes=routes,
        routes_read_intent=reads_intent,
        intent_options=tuple(IntentOption(i.name.text, i.description) for i in agent.intents),
        write_access=WriteAccess(agent),
        sensitive=frozenset(masks),
        masks=masks,
        declared_sensitive=frozenset(
            [f.name.text for f in agent.all_gather_fields() if f.sensitive]
            + [v.name.text for v in agent.memory if v.sensitive]
        ),
        handlers={h.name.text: h for h in agent.return_handlers},
        route_intents=route_intents,
        scope_text=" ".join(p for p in scope_parts if p),
        steps=steps,
        tools=tuple(_spec(tool) for tool in callable_tools(agent, project)),
        max_iterations=int(limit.text)
        if limit is not None and limit.text.strip().isdigit()
        else DEFAULT_REASONING_ITERATIONS,
        not_run=not_enforced(agent),
    )


def sensitive_names(agent: Agent, project: Project | None = None) -> dict[str, MaskRule]:
    """The agent's sensitive names, each with how it is shown.

    Declared: `GATHER` fields and `MEMORY` variables marked sensitive (their own
    `sensitive_display`/`mask_config`). Computed: a variable that a `SET` fills from a sensitive
    one (`code_upper = UPPER(code)`, `label = "ID{{code}}"`), or that a return `MAP` fills from a
    sensitive field of the child, is sensitive too and shown like its source; so a value never
    loses its protection by being copied or reshaped.
    """
    masks: dict[str, MaskRule] = {}
    for gathered in agent.all_gather_fields():
        if gathered.sensitive:
            masks.setdefault(gathered.name.text, mask_rule(gathered.display, gathered.mask, gathered.name.text))
    for variable in agent.memory:
        if variable.sensitive:
            masks.setdefault(variable.name.text, mask_rule(variable.display, variable.mask, variable.name.text))
    copies = [(a.target.text, _names_read(a.expr)) for a in own_assignments(agent)]
    if project is not None:
        for route in agent.handoffs:
            child = project.agent(route.target.text) if route.target is not None else None
            if child is None or route.on_return is None:
                continue
            child_sensitive = {f.name.text for f in child.all_gather_fields() if f.sensitive}
            child_sensitive |= {v.name.text for v in child.memory if v.sensitive}
            copies.extend(
                (m.parent.text, {m.child.text}) for m in route.on_return.map if m.child.text in child_sensitive
            )
    changed = True
    while changed:  # until no copy of a sensitive name is left unmarked (each round marks one more, at least)
        changed = False
        for target, read in copies:
            if target in masks:
                continue
            source = next((name for name in sorted(read) if name in masks), None)
            if source is not None:
                masks[target] = masks[source]
                changed = True
    return masks


def mask_rule(display: Scalar | None, config: tuple[tuple[str, str], ...], name: str) -> MaskRule:
    """`sensitive_display` (`mask` by default) and `mask_config` (`showFirst` 0, `showLast` 4,
    `char` `*`) as a rule; an unreadable setting (reported by the checker) keeps its default."""
    kind = display.text.strip().lower() if display is not None else "mask"
    if kind == "redact":
        return MaskRule("redact")
    if kind == "replace":
        return MaskRule("replace", replacement=f"[{name}]")
    options = {key.strip().lower().replace("_", ""): value.strip() for key, value in config}
    char = options.get("char", "*").strip("\"'")[:1] or "*"
    return MaskRule("mask", _small_count(options.get("showfirst"), 0), _small_count(options.get("showlast"), 4), char)


def _small_count(text: str | None, default: int) -> int:
    return int(text) if text is not None and text.isdigit() and len(text) <= 3 else default


_TAG = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_QUOTED = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _names_read(expression: str) -> set[str]:
    """The names a `SET` right-hand side may read: identifiers outside quotes and inside
    `{{ }}` tags (a quoted text is a template). Generous on purpose: a name read by mistake
    only masks one more variable."""
    inside_tags = " ".join(_TAG.findall(expression))
    outside_quotes = _QUOTED.sub(" ", expression)
    return set(_IDENTIFIER.findall(inside_tags)) | set(_IDENTIFIER.findall(outside_quotes))


def cached_plan(agent: Agent, project: Project) -> AgentPlan:
    """The agent's plan, built once per lowered agent and kept with its document, so that many
    sessions on one project (a test run, a benchmark) share it. A project a session runs on is
    not edited while it runs (the editor runs a private copy), so an entry is valid while the
    document holds the very same agent object."""
    document = project.documents.get(agent.path)
    if document is None:
        return build_plan(agent, project)
    key = f"runtime.plan:{agent.name.text}"
    kept = document.memo.get(key)
    if isinstance(kept, tuple) and kept[0] is agent and kept[1] is project:
        return kept[2]
    plan = build_plan(agent, project)
    document.memo[key] = (agent, project, plan)
    return plan


def callable_tools(agent: Agent, project: Project) -> list[Tool]:
    """The agent's own `TOOLS`, then the library tools it imports (all of a file when no names
    are listed)."""
    tools = list(agent.tools)
    known = {t.name.text for t in tools}
    for imported in agent.tool_imports:
        wanted = {n.text for n in imported.names}
        target = imported.path.text.lstrip("./")
        for path, document in sorted(project.documents.items()):
            if not path.endswith(target):
                continue
            for tool in document.library_tools:
                if (not wanted or tool.name.text in wanted) and tool.name.text not in known:
                    tools.append(tool)
                    known.add(tool.name.text)
    return tools


def _spec(tool: Tool) -> ToolSpec:
    description = next((value.text for key, value in tool.properties if key == "description"), "")
    params = tuple(ToolParamSpec(p.name, p.type or "string", not p.optional, p.default) for p in tool.params)
    return ToolSpec(tool.name.text, description, params)
