"""What an agent declares that runs on the platform but not in this engine: the one catalogue.

Each entry names the construct, the agent, where it is written and what a local run does
instead. The engine's trace says it once per thread (`warning` `not_run_locally`); `abl run`
and `abl test` print it on standard error before the first message, and the editor's run panel
shows it with the run (`abl/run/start`'s `notEnforced`), all from `not_enforced` below.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from abl.model.types import Agent, HandoffRoute
from abl.text import Range
from abl.workspace import Project

# Sections the local runtime does not run, and what happens instead.
SECTIONS_NOT_RUN = {
    "CONSTRAINTS": "constraints are not enforced",
    "GUARDRAILS": "guardrails do not check messages or handoffs",
    "POLICIES": "policies are not enforced",
    "HOOKS": "hooks do not run",
    "NLU": "NLU patterns and entities are not used (INTENTS classify the message)",
    "ATTACHMENTS": "no files can be uploaded",
    "ROUTING": "ROUTING does not route (HANDOFF does)",
    "ACTION_HANDLERS": "only a step's own ON_ACTION answers a button",
    "BEHAVIOR_PROFILE": "behavior profiles are not applied",
    "USE BEHAVIOR_PROFILE": "behavior profiles are not applied",
    "USE_BEHAVIOR_PROFILE": "behavior profiles are not applied",
}

# A route or delegate to another deployment is not called: the project's agent of that name runs.
REMOTE_KEYS = ("REMOTE", "LOCATION", "ENDPOINT", "PROTOCOL")
REMOTE_INSTEAD = "no remote call is made; the project's agent of that name runs, and one not in the project fails"


@dataclass(frozen=True, slots=True)
class NotEnforced:
    construct: str  # as written: `CONSTRAINTS`, "AWAIT_ATTACHMENT in step `ask`"
    agent: str
    path: str
    range: Range  # where the construct is written
    instead: str  # what a local run does instead

    @property
    def text(self) -> str:
        """`construct: what happens instead`, as the trace's warning lists it."""
        return f"{self.construct}: {self.instead}"

    @property
    def line(self) -> int:
        """1-based, as messages show it."""
        return self.range.start.line + 1


def not_enforced(agent: Agent) -> tuple[NotEnforced, ...]:
    """Everything `agent` declares that the local runtime does not run, in the order written."""
    return tuple(sorted(_found(agent), key=lambda n: (n.range.start.line, n.range.start.character)))


def reachable_not_enforced(project: Project, entry: str) -> list[NotEnforced]:
    """What a session started at `entry` may meet: the entry agent's entries, then those of each
    agent its routes and delegates lead to, breadth first (each agent once)."""
    found: list[NotEnforced] = []
    for agent in _reachable(project, entry):
        found.extend(not_enforced(agent))
    return found


def notice(command: str, items: Iterable[NotEnforced], shown_path: dict[str, str] | None = None) -> list[str]:
    """The lines `abl run` and `abl test` print: a heading, then `path:line: Agent: construct:
    instead` for each; nothing when there is nothing to say. `shown_path` maps a file to how
    the command names it."""
    listed = list(items)
    if not listed:
        return []
    names = shown_path or {}
    heading = f"{command}: the local runtime does not enforce what runs on the platform:"
    return [heading, *(f"  {names.get(i.path, i.path)}:{i.line}: {i.agent}: {i.text}" for i in listed)]


def _found(agent: Agent) -> Iterator[NotEnforced]:
    name, path = agent.name.text, agent.path

    def entry(construct: str, where: Range, instead: str) -> NotEnforced:
        return NotEnforced(construct, name, path, where, instead)

    for node in agent.sections[1:]:
        instead = SECTIONS_NOT_RUN.get(node.key.upper())
        if instead is not None:
            yield entry(node.key, node.key_range, instead)
    persistent = [v.name.range for v in agent.memory if v.scope == "persistent"] + [r.range for r in agent.remember]
    if persistent:
        where = min(persistent, key=lambda r: (r.start.line, r.start.character))
        yield entry("MEMORY persistent/remember", where, "nothing is stored beyond the session")
    memory = agent.section("MEMORY")
    for part in memory.children if memory is not None else ():
        if part.is_entry and part.key.lower() == "recall":
            yield entry("MEMORY recall", part.key_range, "nothing is recalled into the conversation")
    if agent.on_start is not None:
        for key in agent.on_start.not_run:
            yield entry(f"{key.text} in ON_START", key.range, "the greeting is given without it")
    for delegate in agent.delegates:
        if delegate.remote:
            target = delegate.target.text if delegate.target is not None else "?"
            yield entry(f"REMOTE of the delegate to `{target}`", delegate.range, REMOTE_INSTEAD)
    for step in agent.flow.written if agent.flow is not None else ():
        for key in step.not_run:
            yield entry(f"{key.text} in step `{step.name.text}`", key.range, "the step goes on without it")
    for route in agent.handoffs:
        if route.remote:
            target = route.target.text if route.target is not None else "?"
            yield entry(f"REMOTE of the route to `{target}`", _remote_key(route), REMOTE_INSTEAD)
        when = route.enabled_when
        if when is not None and when.is_natural_language:
            target = route.target.text if route.target is not None else "?"
            yield entry(
                f"ENABLED_WHEN of the route to `{target}`",
                when.range,
                "a natural-language condition is not judged; the route stays enabled",
            )


def _remote_key(route: HandoffRoute) -> Range:
    """Where the route says it is remote (`REMOTE:`, `LOCATION:`, ...), else its dash."""
    for part in route.node.children if route.node is not None else ():
        if part.is_entry and part.key.upper() in REMOTE_KEYS:
            return part.key_range
    return route.dash_range


def _reachable(project: Project, entry: str) -> Iterator[Agent]:
    seen: set[str] = set()
    queue = [entry]
    while queue:
        name = queue.pop(0)
        if name in seen:
            continue
        seen.add(name)
        agent = project.agent(name)
        if agent is None:
            continue
        yield agent
        queue.extend(r.target.text for r in agent.handoffs if r.target is not None)
        queue.extend(d.target.text for d in agent.delegates if d.target is not None)
