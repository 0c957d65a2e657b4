"""The handoff graph of a project: who can pass the conversation to whom, and what goes wrong.

Nodes are the project's supervisors and agents, the tools they declare, the human an
escalation reaches, and the targets a route names that are remote or do not exist. Edges are
`HANDOFF` routes (with their condition, whether they return, the history as the platform reads
it, `PASS` and `MAP`), handoffs written elsewhere (`ON_FAILURE: HANDOFF X`, `ON_ERROR`),
`DELEGATE` entries, `ESCALATE` triggers, tool declarations, and the built-in return of a
returnable child to its parent. Every node and edge keeps the file and range it was written at,
the range anchored to its block (`AnchoredRange`), so that it moves with the block unread.

On top of the edges, three analyses of how the runtime walks them:

- **Roots and reachability.** A project with a supervisor starts there: every supervisor is a
  root, and an agent that no chain of handoffs or delegates from a root reaches never runs.
  A project without a supervisor has its entry agent chosen on deployment, so any agent could
  be it: the roots are the agents nothing routes to (and, for a group that only routes among
  itself, its first agent), and no agent is called unreachable.
- **Hand-backs.** A route whose target is the caller's waiting parent is not a new handoff: the
  parent resumes (seed 004). A route X → T counts as a hand-back when T has a returnable route
  to X, or to an agent from which permanent handoffs lead to X within the runtime's nesting
  limit (the parent is still the one waiting then).
- **Cycles.** The runtime refuses a handoff to an agent already in the active handoff chain
  (`recursion`), and a permanent handoff does not leave the chain. So a loop of handoff routes
  that is not closed by a hand-back is refused when it comes round. Cycles are searched among
  `HANDOFF` routes only (a self-route is `SELF_HANDOFF_TARGET`'s business). A group of agents
  that loop is reported by its first agent in project order, and the groups in that order, so
  that a group no edit touched keeps its place whatever happens to the others.

**Invariants.** Building never raises, on any project (half-typed files, missing targets,
duplicate names: the first agent of a name is the one routes reach, as everywhere). The graph
is a function of the project's agents alone, so it can be rebuilt whenever the roster changes,
and it imports nothing from the checks. An agent's own edges are computed once per agent
object and reused while the agent is unchanged. After an edit that changes where routes lead,
the analyses start from the last assembly's: what the supervisors reach is kept while the
agents they reach lead where they led (and only grown when their handoffs only grew), the
waiting parents are recounted for the returnable routes whose reach changed, and the groups of
looping agents are found again in the region of the changed routes only; each equals what a
build from scratch finds. An edit that only makes routes returnable or not (a `RETURN` toggled)
patches the last graph instead (`GraphBuilder._reroute`): the waiting parents are recounted for
the reach of the changed agents (`abl.workspace.waiting`), and only the agents whose waiting
parents changed have their edges marked, ways back drawn and loops regrouped again.
"""

from __future__ import annotations

import enum
import hashlib
import itertools
from bisect import bisect_right
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace

from abl.model import Agent
from abl.model.incremental import blocks_of
from abl.model.nesting import read_walk
from abl.model.types import AgentKind, HandoffRoute
from abl.suggest import did_you_mean
from abl.syntax.cst import AnchoredRange, Node
from abl.text import Range
from abl.workspace.loops import LoopEnds, loop_ends
from abl.workspace.waiting import NESTING_LIMIT, WaitingParents

ESCALATION_ID = "escalation:human"

_LINEAGES = itertools.count(1)
_SERIALS = itertools.count(1)
# How many earlier graphs a graph remembers the changed findings since (`facts_changed_since`).
_KEPT_DIFFS = 8


class NodeKind(str, enum.Enum):
    SUPERVISOR = "supervisor"
    AGENT = "agent"
    TOOL = "tool"
    ESCALATION = "escalation"  # the human an `ESCALATE` trigger hands the customer to
    REMOTE = "remote"  # a target in another deployment (`REMOTE` / `LOCATION: remote`)
    MISSING = "missing"  # a target no agent of the project is called


class EdgeKind(str, enum.Enum):
    HANDOFF = "handoff"
    DELEGATE = "delegate"
    ESCALATE = "escalate"
    RETURN = "return"  # a returnable child back to its parent
    TOOL = "tool"  # an agent declares (or imports) a tool


@dataclass(frozen=True, slots=True)
class GraphNode:
    id: str
    kind: NodeKind
    label: str  # the name as written
    path: str | None  # where it is declared; None for the human, remote and missing targets
    at: AnchoredRange | Range | None  # `range`: anchored to its block in a project's graph
    # The header line an agent's node was read from: the same node while the agent only moves
    # (lines added above it), as is the range read through its anchor.
    header: Node | None = field(default=None, compare=False, repr=False)

    @property
    def range(self) -> Range | None:
        at = self.at
        return at.range if isinstance(at, AnchoredRange) else at


@dataclass(frozen=True, slots=True)
class GraphEdge:
    source: str
    target: str
    kind: EdgeKind
    path: str
    at: AnchoredRange  # `range`, anchored to the block it is written in
    returnable: bool = False
    history: str | None = None  # the mode as the platform reads it (handoff routes only)
    history_count: int | None = None  # for `last_n`
    condition: str | None = None  # the `WHEN` as written
    passes: tuple[str, ...] = ()  # `PASS` (handoff) or `INPUT` parameters (delegate)
    maps: tuple[tuple[str, str], ...] = ()  # (child field, parent variable)
    via: str | None = None  # where a handoff written outside `HANDOFF:` is, e.g. `ON_FAILURE`
    route: int | None = None  # the index of the `HANDOFF` entry (handoff and return edges)
    hand_back: bool = False  # a route to the waiting parent: the parent resumes

    @property
    def range(self) -> Range:
        return self.at.range

    @property
    def key(self) -> tuple[str, int] | None:
        """What identifies a `HANDOFF` route: its agent and its index."""
        if self.kind is EdgeKind.HANDOFF and self.via is None and self.route is not None:
            return (self.source, self.route)
        return None


@dataclass(frozen=True, slots=True)
class AgentFacts:
    """What the graph says about one agent, as plain values: a rule that reads only these is
    still right after an edit elsewhere that leaves them equal (the check cache compares them)."""

    # The header of the agent of this name the graph keeps (the first: routes reach it), so that
    # a second agent of the name can tell it is not that one; the same while the agent moves.
    declared_by: Node | None
    unreachable: bool
    named_by_typo: bool  # a route names a missing agent that is a near miss of this one
    roots: tuple[str, ...]
    cycles: tuple[tuple[int, LoopEnds], ...]  # (route index, the loop through it, by its ends)


@dataclass(frozen=True, slots=True)
class _Rerouted:
    """A graph that is the graph numbered `serial` with only these routes marked again and the
    nodes of these agents made again (`ProjectGraph.note_rerouted`)."""

    serial: int
    routes: frozenset[tuple[str, int]]
    nodes: tuple[str, ...]


@dataclass(slots=True)
class ProjectGraph:
    """The graph of one project and what the analyses found (see the module docstring)."""

    nodes: dict[str, GraphNode]
    edges: list[GraphEdge]
    roots: tuple[str, ...]
    unreachable: tuple[str, ...]
    # One cycle per group of agents that loop, in route order from the group's first agent (in
    # project order); the groups by the project position of that agent.
    cycles: tuple[tuple[str, ...], ...]
    has_supervisor: bool
    default_history: str = "full"  # what a route without `HISTORY` gets in this project
    _cycle_groups: dict[str, int] = field(default_factory=dict, repr=False)  # agent → its group
    _towards_root: list[dict[str, str]] = field(default_factory=list, repr=False)
    _from_root: list[dict[str, str]] = field(default_factory=list, repr=False)
    _group_roots: list[str] = field(default_factory=list, repr=False)
    _by_route: dict[tuple[str, int], GraphEdge] | None = field(default=None, repr=False)
    _missing: list[str] | None = field(default=None, repr=False)  # names routes give that no agent has
    # agent → the routes asked about → the findings. Graphs of one lineage share the inner
    # tables, so an inner table is never changed once made: a finding added copies it.
    _facts: dict[str, dict[tuple[int, ...], AgentFacts]] = field(default_factory=dict, repr=False)
    _loops: dict[tuple[str, int], LoopEnds] | None = field(default=None, repr=False)  # route → its loop
    # Graphs of one lineage share their analyses (`GraphBuilder`): the edits between them moved
    # agents but changed no route.
    _lineage: int = field(default_factory=lambda: next(_LINEAGES), repr=False)
    # The graph whose findings this one took over (its id: a reference would chain every graph
    # since the first); asked to take them again, it has them already.
    _facts_from: int = field(default=0, repr=False, compare=False)
    _analysis: tuple | None = field(default=None, repr=False, compare=False)  # `_analysis_key`
    # Which agents' findings may differ from those of the graphs this one followed
    # (`follow`): by an earlier graph's serial, their names, or None for any agent's.
    serial: int = field(default_factory=lambda: next(_SERIALS), repr=False, compare=False)
    _changed_since: dict[int, frozenset[str] | None] = field(default_factory=dict, repr=False, compare=False)
    _rerouted: _Rerouted | None = field(default=None, repr=False, compare=False)

    def node(self, node_id: str) -> GraphNode | None:
        return self.nodes.get(node_id)

    def facts(self, agent: str, routes: tuple[int, ...] = ()) -> AgentFacts:
        """The graph's findings about `agent` (and about its routes with the given indexes),
        worked out once per graph: the check cache asks for them after every edit."""
        asked = self._facts.get(agent)
        known = asked.get(routes) if asked is not None else None
        if known is None:
            known = self._find_facts(agent, routes)
            self._facts[agent] = {**asked, routes: known} if asked is not None else {routes: known}
        return known

    def inherit_facts(self, before: ProjectGraph) -> None:
        """Take over the findings of the graph before an edit when the edit changed none of
        what they are made of (the routes' ends, reachability, the loops and the names that lead
        nowhere): the usual keystroke then costs no per-agent search of the graph. A finding of
        an agent whose header was read again is left to be worked out again (it names the header)."""
        if not before._facts or id(before) == self._facts_from:
            return
        self._facts_from = id(before)
        if before._lineage != self._lineage and self._analysis_key() != before._analysis_key():
            return
        # Every finding names its graph's node's header (`facts`), so those of an agent whose
        # node is the same object hold as they are; only re-read or moved agents are looked at.
        facts, nodes, nodes_before = dict(before._facts), self.nodes, before.nodes
        hint = self._rerouted
        if hint is not None and hint.serial == before.serial:
            suspects, renamed = hint.nodes, False  # the same names, other nodes for these only
        else:
            suspects, renamed = tuple(a for a, node in nodes.items() if nodes_before.get(a) is not node), True
        for agent in suspects:
            asked = facts.get(agent)
            kept = _declared_by(asked, nodes[agent].header) if asked is not None else None
            if kept:
                facts[agent] = kept
            elif asked is not None:
                del facts[agent]
        for agent in facts.keys() - nodes.keys() if renamed else ():
            del facts[agent]
        for agent, mine in self._facts.items():
            facts[agent] = {**facts.get(agent, {}), **mine}
        self._facts = facts

    def follow(self, before: ProjectGraph) -> None:
        """Note that this graph replaces `before`: which agents' findings may differ from its
        findings, and from those of the graphs `before` followed (the last few)."""
        changed = self._facts_changed_from(before)
        since: dict[int, frozenset[str] | None] = {}
        for serial, names in list(before._changed_since.items())[-(_KEPT_DIFFS - 1) :]:
            since[serial] = None if names is None or changed is None else names | changed
        since[before.serial] = changed
        self._changed_since = since

    def note_rerouted(self, last: ProjectGraph, keys: list[tuple[str, int]], nodes: tuple[str, ...]) -> None:
        """Note that this graph is `last` with only the routes `keys` (maybe) marked otherwise,
        each leading where it led, the nodes of the agents `nodes` made again, and the loops and
        their groups found again: what its findings are made of (`_analysis_key`) follows from
        `last`'s, and so do the findings it takes over (`inherit_facts`) and the agents whose
        findings differ (`follow`), without a pass over every agent."""
        self._rerouted = _Rerouted(last.serial, frozenset(keys), nodes)
        if last._analysis is None:
            return
        _, _, _, missing, ends, _, _, _ = last._analysis
        ends = dict(ends)
        routes = self._route_edges()
        for key in keys:
            edge = routes[key]
            ends[key] = (edge.target, edge.hand_back)
        self._analysis = (
            self.roots,
            self.unreachable,
            self.cycles,
            missing,
            ends,
            self._cycle_groups,
            self._towards_root,
            self._from_root,
        )

    def facts_changed_since(self, serial: int) -> frozenset[str] | None:
        """The agents whose findings (`facts`, for any routes) may differ from those of the
        graph numbered `serial`, an earlier graph of the project; None when any may, or when
        that graph is not one this graph followed. The header a finding names
        (`AgentFacts.declared_by`) is left out: it changes only with an agent of the name read
        again or dropped, which the project's change log tells."""
        if serial == self.serial:
            return frozenset()
        return self._changed_since.get(serial)

    def _facts_changed_from(self, before: ProjectGraph) -> frozenset[str] | None:
        """`facts_changed_since(before.serial)`, from what the two graphs' findings are made of
        (`_analysis_key`, which taking the findings over compares anyway): a `RETURN` toggled in
        a project of thousands of agents names the few whose reach or loops it changed."""
        if before._lineage == self._lineage:
            return frozenset()  # the same analyses
        now, then = self._analysis_key(), before._analysis_key()
        if now == then:
            return frozenset()
        roots, unreachable, _, missing, routes, _, towards, away = now
        roots_then, unreachable_then, _, missing_then, routes_then, _, towards_then, away_then = then
        if roots != roots_then or missing != missing_then:
            return None  # in every agent's findings (`roots`), or in any agent's (`named_by_typo`)
        changed = set(unreachable).symmetric_difference(unreachable_then)
        # A route's loop is read off its group's two trees of shortest paths and its own ends: it
        # changes with a tree of its group, or with where the route leads or whether it hands back.
        if routes != routes_then:
            hint = self._rerouted
            keys = (
                hint.routes if hint is not None and hint.serial == before.serial else routes.keys() | routes_then.keys()
            )
            changed.update(key[0] for key in keys if routes.get(key) != routes_then.get(key))
        if towards != towards_then or away != away_then:
            group_then = {root: g for g, root in enumerate(before._group_roots)}
            kept: set[int] = set()
            for g, root in enumerate(self._group_roots):
                was = group_then.get(root)
                if was is not None and towards[g] == towards_then[was] and away[g] == away_then[was]:
                    kept.add(was)
                else:
                    changed.add(root)
                    changed.update(towards[g])
            for was, root in enumerate(before._group_roots):
                if was not in kept:
                    changed.add(root)
                    changed.update(towards_then[was])
        return frozenset(changed)

    def _missing_names(self) -> list[str]:
        """The names routes give that no agent of the project has."""
        if self._missing is None:
            self._missing = [n.label for n in self.nodes.values() if n.kind is NodeKind.MISSING]
        return self._missing

    def _analysis_key(self) -> tuple:
        """Everything the findings are made of, comparable between two graphs (worked out once
        per graph; dictionaries rather than sorted tuples: equality ignores their order)."""
        if self._analysis is None:
            self._analysis = (
                self.roots,
                self.unreachable,
                self.cycles,
                Counter(n.label for n in self.nodes.values() if n.kind is NodeKind.MISSING),
                {k: (e.target, e.hand_back) for k, e in self._route_edges().items()},
                self._cycle_groups,
                self._towards_root,
                self._from_root,
            )
        return self._analysis

    def _find_facts(self, agent: str, routes: tuple[int, ...]) -> AgentFacts:
        node = self.node(agent)
        if node is None:
            return AgentFacts(None, False, False, self.roots, ())
        typo = any(did_you_mean(name, [agent]) == agent for name in self._missing_names())
        loops = self._loop_ends()
        cycles = tuple((index, loops[(agent, index)]) for index in routes if (agent, index) in loops)
        return AgentFacts(node.header, agent in self.unreachable, typo, self.roots, cycles)

    def cycle_through(self, agent: str, route: int) -> tuple[str, ...] | None:
        """A cycle the `HANDOFF` route `route` of `agent` lies on, as agent names from the
        route's agent round to the agent before it returns there; None when the route is on no
        cycle (or is a hand-back)."""
        edge = self._route_edges().get((agent, route))
        if edge is None or edge.hand_back or edge.source == edge.target:
            return None
        group = self._cycle_groups.get(edge.source)
        if group is None or self._cycle_groups.get(edge.target) != group:
            return None
        # target → … → group root (walking towards the root), then root → … → source.
        walk = [edge.target]
        towards, away = self._towards_root[group], self._from_root[group]
        while walk[-1] in towards:
            walk.append(towards[walk[-1]])
        tail = [edge.source]
        while tail[-1] in away:
            tail.append(away[tail[-1]])
        walk.extend(reversed(tail[:-1]))
        # The walk runs from the route's target to its agent, which routes back to the target.
        return (edge.source, *_simple_cycle(walk)[:-1])

    def _loop_ends(self) -> dict[tuple[str, int], LoopEnds]:
        """The loop through every route that is on one, by its ends: what `cycle_through` gives,
        worked out for all routes at once (`abl.workspace.loops`), in n·log n time."""
        if self._loops is None:
            by_group: dict[int, list[tuple[tuple[str, int], str, str]]] = {}
            for key, edge in self._route_edges().items():
                if edge.hand_back or edge.source == edge.target:
                    continue
                group = self._cycle_groups.get(edge.source)
                if group is not None and self._cycle_groups.get(edge.target) == group:
                    by_group.setdefault(group, []).append((key, edge.source, edge.target))
            self._loops = {}
            for group, routes in by_group.items():
                root = self._group_roots[group]
                self._loops.update(loop_ends(root, self._from_root[group], self._towards_root[group], routes))
        return self._loops

    def fingerprint(self) -> str:
        """A digest of what the graph says, without positions: equal for two graphs that draw
        the same (lines moving in a file do not change it)."""
        digest = hashlib.blake2b(digest_size=16)
        for node in self.nodes.values():
            digest.update(f"N\0{node.id}\0{node.kind.value}\0{node.label}\0{node.path}\n".encode())
        for e in self.edges:
            digest.update(
                f"E\0{e.source}\0{e.target}\0{e.kind.value}\0{e.returnable}\0{e.history}\0{e.history_count}\0"
                f"{e.condition}\0{e.passes}\0{e.maps}\0{e.via}\0{e.route}\0{e.hand_back}\0{e.path}\n".encode()
            )
        digest.update(f"U\0{self.unreachable}\0C\0{self.cycles}\0R\0{self.roots}".encode())
        return digest.hexdigest()

    def _route_edges(self) -> dict[tuple[str, int], GraphEdge]:
        if self._by_route is None:
            self._by_route = {e.key: e for e in self.edges if e.key is not None}
        return self._by_route


def _declared_by(asked: dict[tuple[int, ...], AgentFacts], header: object) -> dict[tuple[int, ...], AgentFacts] | None:
    """The findings among `asked` that name `header` as the agent's (all of them, the same
    table, in the usual case; None when none does)."""
    if all(facts.declared_by is header for facts in asked.values()):
        return asked
    return {routes: facts for routes, facts in asked.items() if facts.declared_by is header} or None


# --- one agent's edges ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Target:
    """A name an edge points at, resolved against the project when the graph is assembled."""

    name: str
    remote: bool = False


@dataclass(frozen=True, slots=True)
class _Draft:
    """An edge of one agent, with what it names: whether a name is a local agent or a missing
    one is known only once every agent is (`_Share.resolve`)."""

    target: _Target | str  # a node id, when it needs no resolution (tools, the human)
    edge: GraphEdge  # its `target` the id of the node it leads to, whichever kind that is
    back: AnchoredRange | None = None  # a returnable route's: where its way back is drawn (`_return_range`)


@dataclass(frozen=True, slots=True)
class _Tool:
    name: str
    path: str
    at: AnchoredRange


class _Blocks:
    """Anchors a range of an agent to the block it is in: of its sections (its header first,
    in row order, each the top of a block), the last that starts on or above the range."""

    __slots__ = ("_rows", "_sections")

    def __init__(self, agent: Agent) -> None:
        self._sections = agent.sections or [agent.header]
        self._rows = [section.row for section in self._sections]

    def __call__(self, where: Range) -> AnchoredRange:
        k = max(0, bisect_right(self._rows, where.start.line) - 1)
        return AnchoredRange(self._sections[k].anchor, where)


def _agent_drafts(agent: Agent, default_history: str) -> tuple[tuple[_Draft, ...], tuple[_Tool, ...]]:
    """Every edge that leaves `agent`, and the tools it declares. Reads the agent only (and
    the project's default history, for routes that set none)."""
    name, path = agent.name.text, agent.path
    placed = _Blocks(agent)
    drafts: list[_Draft] = []
    for route in agent.handoffs:
        if route.target is None or not route.target.text:
            continue
        history = route.history
        leads_to = _Target(route.target.text, route.remote)
        drafts.append(
            _Draft(
                leads_to,
                GraphEdge(
                    name,
                    _target_id(leads_to),
                    EdgeKind.HANDOFF,
                    path,
                    placed(route.range),
                    returnable=route.is_returnable,
                    history=history.resolved_mode if history is not None else default_history,
                    history_count=history.resolved_count
                    if history is not None and history.resolved_mode == "last_n"
                    else None,
                    condition=route.when.text if route.when is not None else None,
                    passes=tuple(n.text for n in route.passes),
                    maps=_maps(route),
                    route=route.index,
                ),
                placed(_return_range(route)) if route.is_returnable else None,
            )
        )
    for where, target in agent.other_handoff_refs:
        if target.text:
            drafts.append(
                _Draft(
                    _Target(target.text),
                    GraphEdge(name, target.text, EdgeKind.HANDOFF, path, placed(target.range), via=where),
                )
            )
    for delegate in agent.delegates:
        if delegate.target is None or not delegate.target.text:
            continue
        leads_to = _Target(delegate.target.text, delegate.remote)
        drafts.append(
            _Draft(
                leads_to,
                GraphEdge(
                    name,
                    _target_id(leads_to),
                    EdgeKind.DELEGATE,
                    path,
                    placed(delegate.range),
                    condition=delegate.when.text if delegate.when is not None else None,
                    passes=tuple(param.text for param, _ in delegate.inputs),
                    maps=tuple((m.child.text, m.parent.text) for m in delegate.returns),
                ),
            )
        )
    for trigger in agent.escalations:
        condition = trigger.when.text if trigger.when is not None else None
        drafts.append(
            _Draft(
                ESCALATION_ID,
                GraphEdge(name, ESCALATION_ID, EdgeKind.ESCALATE, path, placed(trigger.range), condition=condition),
            )
        )
    tools: list[_Tool] = [_Tool(t.name.text, path, placed(t.name.range)) for t in agent.tools if t.name.text]
    tools.extend(_Tool(n.text, path, placed(n.range)) for imp in agent.tool_imports for n in imp.names if n.text)
    drafts.extend(
        _Draft(_tool_id(tool.name), GraphEdge(name, _tool_id(tool.name), EdgeKind.TOOL, path, tool.at))
        for tool in tools
    )
    return tuple(drafts), tuple(tools)


def _maps(route: HandoffRoute) -> tuple[tuple[str, str], ...]:
    entries = list(route.on_return.map) if route.on_return is not None else []
    entries.extend(route.legacy_map)
    return tuple((e.child.text, e.parent.text) for e in entries)


def _return_range(route: HandoffRoute) -> Range:
    """Where the way back is written: the `ON_RETURN` block, else the `RETURN: true` line."""
    if route.node is not None:
        for child in route.node.children:
            if child.is_entry and child.key.upper() == "ON_RETURN":
                return child.range()
    if route.returns is not None:
        return Range(route.returns.key.range.start, route.returns.value.range.end)
    return route.range


def _tool_id(name: str) -> str:
    return f"tool:{name}"


# --- assembling the graph ---------------------------------------------------------------------


# One agent's part of the graph: the agent (kept alive so that its id stays its own), its
# drafts and tools, and its shape (`_shape`).
_Parts = tuple[Agent, tuple[_Draft, ...], tuple[_Tool, ...], tuple]


class GraphBuilder:
    """Builds a project's graph, keeping each agent's edges while the agent object is the same
    (an edit re-reads only the agents it touched, see `abl.model.incremental`), or while it is
    read from the same blocks: lines added or removed above or between them move the blocks,
    and the edges' ranges, anchored to them, read the new rows, so the very edges are kept.

    Most edits change no route: when every agent has the shape it had at the last build (the
    same names, kinds and edges, positions aside), the analyses of the last graph (roots,
    reachability, hand-backs, cycles, loops and per-agent findings) still hold, and only the
    positions of the agents the edit re-read are taken over (`_reposition`, or `_patch` for a
    few agents). When the edit only made routes returnable or not, the last graph is patched
    around the agents whose waiting parents changed (`_reroute`)."""

    def __init__(self) -> None:
        self._parts: dict[int, _Parts] = {}
        self._by_blocks: dict[tuple, _Parts] = {}
        self._default_history = "full"
        self._last: ProjectGraph | None = None
        self._last_shape: list[tuple] = []  # each roster agent's `_shape`, in roster order
        self._roster: list[Agent] = []
        self._slots = _Slots([], {}, [], [], [0])  # where the last graph's edges are, by agent
        self._reuse = _Reuse()
        # `build_files`: each file's agent list at the last build with its part of the roster
        # (by the list's id), and those parts in file order.
        self._files: dict[int, tuple[list[Agent], list[Agent]]] = {}
        self._file_rosters: list[list[Agent]] = []

    def build(self, agents: Iterable[Agent], default_history: str = "full") -> ProjectGraph:
        self._files, self._file_rosters = {}, []
        return self._build(_roster_of(agents), default_history, None)

    def build_files(self, files: Iterable[list[Agent]], default_history: str = "full") -> ProjectGraph:
        """`build` over the agents of each file in turn. A file whose agent list is the object
        it was at the last build gives its part of the roster without a pass over its agents,
        and the agents an edit replaced are found in the files whose lists are others: a
        keystroke costs a pass over the files, not over every agent."""
        known, before = self._files, self._file_rosters
        if default_history != self._default_history:
            known, before = {}, []
        files_now: dict[int, tuple[list[Agent], list[Agent]]] = {}
        rosters: list[list[Agent]] = []
        changed: list[int] | None = []  # where the roster holds other agents than the last one
        at = 0
        for k, agents in enumerate(files):
            kept = known.get(id(agents))
            mine = kept[1] if kept is not None and kept[0] is agents else _roster_of(agents)
            files_now[id(agents)] = (agents, mine)
            rosters.append(mine)
            if changed is not None:
                was = before[k] if k < len(before) else None
                if was is None or len(was) != len(mine):
                    changed = None  # agents added or removed: the roster is compared whole
                elif was is not mine:
                    changed.extend(at + i for i, (a, b) in enumerate(zip(mine, was, strict=True)) if a is not b)
            at += len(mine)
        if len(rosters) != len(before):
            changed = None
        graph = self._build(list(itertools.chain.from_iterable(rosters)), default_history, changed)
        self._files, self._file_rosters = files_now, rosters
        return graph

    def _build(self, roster: list[Agent], default_history: str, changed: list[int] | None) -> ProjectGraph:
        if default_history != self._default_history:
            self._parts = {}
            self._by_blocks = {}
            self._last = None
            self._roster = []
            self._reuse = _Reuse()
            self._default_history = default_history
        patched = self._patch(roster, changed)
        if patched is not None:
            return patched
        fresh: set[int] = set()
        taken: set[int] = set()  # ids of agents given the part of an agent of the same blocks
        if changed is not None and len(roster) == len(self._roster) and len(changed) <= len(roster) // 4:
            parts, by_blocks, shape = self._parts_replaced(roster, changed, fresh, taken)
        else:
            parts, by_blocks = {}, {}
            for agent in roster:
                parts[id(agent)] = by_blocks[blocks_of(agent)] = self._part_kept(agent, fresh, taken)
            shape = [parts[id(a)][3] for a in roster]
        self._parts, self._by_blocks = parts, by_blocks
        last = self._last
        if last is not None and shape == self._last_shape:
            graph = _reposition(last, roster, parts, fresh, taken)
            self._reuse.follow(roster, parts)
            # Of the same shape, the edges are where they were in the list: so is the layout.
        else:
            # The last assembly's tables are taken over and changed: should this one fail
            # half-way, the next starts from nothing rather than from them.
            before, self._reuse = self._reuse, _Reuse()
            rerouted = self._reroute(roster, changed, parts, shape, before) if changed is not None else None
            if rerouted is not None:
                graph, self._reuse = rerouted
            else:
                graph, self._reuse = _assemble(roster, parts, default_history, before)
                shares = self._reuse.shares
                self._slots = _layout(roster, parts, lambda name: len(shares[name].backs))
        self._last, self._last_shape, self._roster = graph, shape, roster
        return graph

    def _reroute(
        self, roster: list[Agent], changed: list[int], parts: dict[int, _Parts], shape: list[tuple], before: _Reuse
    ) -> tuple[ProjectGraph, _Reuse] | None:
        """A route edit that leaves every route leading where it led, only some made returnable
        or permanent (a `RETURN` toggled): the last graph with the edges of the agents whose
        waiting parents changed marked again, their ways back and loops with them, in time of
        the change rather than of the project; None for any other edit. Takes `before` over."""
        last, slots, shape_before = self._last, self._slots, self._last_shape
        if last is None or len(shape) != len(shape_before) or len(before.names) != len(slots.firsts):
            return None
        if not changed or len(changed) > max(_PATCHED_AGENTS, len(roster) // 4):
            return None
        for i in changed:
            if slots.offsets[i] < 0 or parts[id(roster[i])][2] or not _same_ends(shape[i], shape_before[i]):
                return None  # a second agent of a name, tools (placed project-wide), other ends
        reuse = _Reuse()
        reuse.shares, reuse.waiting, reuse.names, reuse.ids = before.shares, before.waiting, before.names, before.ids
        reuse.positions, reuse.supervisors, reuse.onward = before.positions, before.supervisors, before.onward
        reuse.reached, reuse.reachability = before.reached, before.reachability
        shares, ids = reuse.shares, reuse.ids
        nodes = dict(last.nodes)
        moved: list[str] = []  # the agents whose nodes are others
        remark: set[str] = set()
        for i in changed:
            agent = roster[i]
            name = agent.name.text
            share = shares[name] = _share_of(agent, parts[id(agent)], shares.get(name), ids, True)
            if nodes[name] is not share.node:
                nodes[name] = share.node
                moved.append(name)
            if name in reuse.onward:
                reuse.onward[name] = share.onward  # the same targets
            remark.add(name)
            remark |= reuse.waiting.reroute(name, share.permanent, {child for _, child in share.pairs})
        edges = list(last.edges)
        by_route = dict(last._route_edges())
        loops = dict(before.loops)
        backs: dict[int, list[GraphEdge]] = {}  # by rank: the ways back to an agent marked again
        for name in remark:
            share = shares.get(name) or self._share_again(name, roster, parts, reuse)
            share.mark(reuse.waiting.waits.get(name))
            share.finish(ids)
            at = slots.edges_at(name)
            edges[at : at + len(share.marked)] = share.marked
            by_route.update(share.routes)
            if share.loops:
                loops[name] = share.loops
            else:
                loops.pop(name, None)
            backs[slots.ranks[name]] = share.backs
        slots = slots.splice_backs(edges, backs)
        graph = ProjectGraph(
            nodes,
            edges,
            last.roots,
            last.unreachable,
            (),
            last.has_supervisor,
            last.default_history,
            _by_route=by_route,
        )
        _find_cycles(graph, reuse.names, loops, True, before, reuse, remark)
        graph.note_rerouted(last, [key for name in remark for key in shares[name].routes], tuple(moved))
        self._slots = slots
        return graph, reuse

    def _share_again(self, name: str, roster: list[Agent], parts: dict[int, _Parts], reuse: _Reuse) -> _Share:
        """The share of the agent `name`, dropped when the agent moved (`_Reuse.forget`), made again."""
        agent = roster[self._slots.firsts[self._slots.ranks[name]]]
        share = reuse.shares[name] = _share_of(agent, parts[id(agent)], None, reuse.ids, True)
        return share

    def _part_kept(self, agent: Agent, fresh: set[int], taken: set[int]) -> _Parts:
        """The agent's part: the last build's for this object, else `_part_of`, noted in
        `fresh` (read) or `taken` (an agent's of the same blocks)."""
        kept = self._parts.get(id(agent))
        if kept is not None and kept[0] is agent:
            return kept
        part, read = self._part_of(agent)
        (fresh if read else taken).add(id(agent))
        return part

    def _parts_replaced(
        self, roster: list[Agent], changed: list[int], fresh: set[int], taken: set[int]
    ) -> tuple[dict[int, _Parts], dict[tuple, _Parts], list[tuple]]:
        """`_with_parts_at` the agents' own parts (`_part_kept`), and the last shape with theirs."""
        parts, by_blocks = self._with_parts_at(roster, changed, lambda i: self._part_kept(roster[i], fresh, taken))
        shape = list(self._last_shape)
        for i in changed:
            shape[i] = parts[id(roster[i])][3]
        return parts, by_blocks, shape

    def _with_parts_at(
        self, roster: list[Agent], changed: list[int], part_at: Callable[[int], _Parts]
    ) -> tuple[dict[int, _Parts], dict[tuple, _Parts]]:
        """The last build's parts, by agent and by blocks, with the agents at `changed` (the
        only places where `roster` holds other objects than the last roster) given `part_at`
        theirs: every replaced agent taken out before any is put in, as one may have moved to
        another place of the roster."""
        parts, by_blocks = dict(self._parts), dict(self._by_blocks)
        for i in changed:
            old = self._roster[i]
            old_part = parts.pop(id(old), None)
            if old_part is not None and by_blocks.get(blocks_of(old)) is old_part:
                del by_blocks[blocks_of(old)]
        for i in changed:
            agent = roster[i]
            parts[id(agent)] = by_blocks[blocks_of(agent)] = part_at(i)
        return parts, by_blocks

    def _part_of(self, agent: Agent) -> tuple[_Parts, bool]:
        """An agent's part, not kept for this object, and whether it was read: taken over from
        an agent of the same blocks (its drafts read the blocks' rows now), else read."""
        before = self._by_blocks.get(blocks_of(agent))
        if before is not None:
            return (agent, before[1], before[2], before[3]), False
        drafts, tools = _agent_drafts(agent, self._default_history)
        return (agent, drafts, tools, _shape(agent, drafts)), True

    def _patch(self, roster: list[Agent], changed: list[int] | None = None) -> ProjectGraph | None:
        """The usual keystroke: a few agents of the roster are other objects (at `changed`, when
        known), each of the shape its predecessor had and declaring no tool. The last graph with
        their nodes and edges replaced, in time of the change (None for any other edit)."""
        last, before = self._last, self._roster
        if last is None or len(roster) != len(before):
            return None
        if changed is None:
            changed = [i for i, (a, b) in enumerate(zip(roster, before, strict=True)) if a is not b]
        if not changed or len(changed) > max(_PATCHED_AGENTS, len(roster) // 4):
            return None if changed else last
        news: list[tuple[int, _Parts, bool]] = []
        for i in changed:
            old = self._parts[id(before[i])]
            part, read = self._part_of(roster[i])
            if part[3] != old[3] or part[2] or old[2]:
                return None  # another shape, or tools, whose nodes are placed project-wide
            news.append((i, part, read))
        made = {i: part for i, part, _ in news}
        parts, by_blocks = self._with_parts_at(roster, changed, made.__getitem__)
        nodes, edges = dict(last.nodes), list(last.edges)
        touched: set[str] = set()
        for i, part, read in news:
            agent = roster[i]
            self._reuse.forget(before[i], part)
            at = self._slots.offsets[i]
            if at < 0:
                continue  # a second agent of its name: no node, no edges
            name = agent.name.text
            touched.add(name)
            if not _node_of(nodes[name], agent):
                nodes[name] = _agent_node(agent)
            if not read:
                continue  # the drafts of its blocks: its edges and ways back, anchored to them, stand
            for k, draft in enumerate(part[1]):
                previous = edges[at + k]
                edge = replace(draft.edge, target=previous.target, hand_back=previous.hand_back)
                edges[at + k] = previous if _same_edge(edge, previous) else edge
            mine = edges[at : at + len(part[1])]
            for key, (senders, where) in _ways_back_of(mine, part[1], nodes).items():
                for back_at, sent in zip(self._slots.ways_back(key, edges), senders, strict=False):
                    back = edges[back_at]
                    now = replace(back, path=sent.path, at=where, maps=sent.maps)
                    edges[back_at] = back if _same_edge(now, back) else now
        graph = _with_analyses_of(last, nodes, edges)
        if last._by_route is not None:  # kept by agent: the next route edit starts from it
            by_route = dict(last._by_route)
            for i, part, _ in news:
                at = self._slots.offsets[i]
                for edge in edges[at : at + len(part[1])] if at >= 0 else ():
                    route = edge.key
                    if route is not None:
                        by_route[route] = edge
            graph._by_route = by_route
        # The same analyses: every finding holds, but those of a replaced agent whose header is
        # another (`AgentFacts.declared_by`).
        facts = dict(last._facts)
        for name in touched:
            asked = facts.get(name)
            if asked is None:
                continue
            kept = _declared_by(asked, nodes[name].header)
            if kept:
                facts[name] = kept
            else:
                del facts[name]
        graph._facts = {**facts, **graph._facts} if graph._facts else facts
        graph._facts_from = id(last)
        self._parts, self._by_blocks, self._last, self._roster = parts, by_blocks, graph, roster
        return graph


# At most this many agents (or a quarter of the roster) replaced by one edit for the graph to be
# patched (`_patch`) rather than put together again: a keystroke replaces one, a new line the
# agents below it in its file.
_PATCHED_AGENTS = 8


@dataclass(slots=True)
class _Slots:
    """Where each agent's edges and ways back lie in the last graph's edge list: an edit that
    keeps them there (`_patch`, `_reroute`) writes over an agent's edges in place. The edges
    of the first agent of each name come in roster order, then the ways back, each agent's
    (the ways back to it) together, in the same order."""

    offsets: list[int]  # by roster index: where its edges start (-1: a second agent of a name)
    ranks: dict[str, int]  # name → its place among the first agents of each name
    firsts: list[int]  # by rank: the roster index of the agent
    sizes: list[int]  # by rank: how many ways back lead to it
    backs: list[int]  # by rank: where they start; then where the last ones end

    def edges_at(self, name: str) -> int:
        return self.offsets[self.firsts[self.ranks[name]]]

    def ways_back(self, key: tuple[str, int], edges: list[GraphEdge]) -> list[int]:
        """Where the ways back of the route `key` are in `edges` (the last graph's, or a copy)."""
        rank = self.ranks.get(key[0])
        if rank is None:
            return []
        return [at for at in range(self.backs[rank], self.backs[rank + 1]) if edges[at].route == key[1]]

    def splice_backs(self, edges: list[GraphEdge], backs: dict[int, list[GraphEdge]]) -> _Slots:
        """Put the ways back to the agents of these ranks in `edges` (laid out by these slots)
        in place of those there: the slots of the result."""
        starts = self.backs
        pieces: list[list[GraphEdge]] = []
        at = starts[0]
        for rank in sorted(backs):
            pieces.append(edges[at : starts[rank]])
            pieces.append(backs[rank])
            at = starts[rank + 1]
        pieces.append(edges[at:])
        edges[starts[0] :] = itertools.chain.from_iterable(pieces)
        if all(self.sizes[rank] == len(mine) for rank, mine in backs.items()):
            return self
        sizes = list(self.sizes)
        for rank, mine in backs.items():
            sizes[rank] = len(mine)
        return replace(self, sizes=sizes, backs=list(itertools.accumulate(sizes, initial=starts[0])))


def _layout(roster: list[Agent], parts: dict[int, _Parts], backs: Callable[[str], int]) -> _Slots:
    """The slots of a graph of `roster` whose agent of each name has `backs(name)` ways back."""
    offsets: list[int] = []
    ranks: dict[str, int] = {}
    firsts: list[int] = []
    at = 0
    for index, agent in enumerate(roster):
        name = agent.name.text
        if name in ranks:
            offsets.append(-1)
            continue
        ranks[name] = len(firsts)
        firsts.append(index)
        offsets.append(at)
        at += len(parts[id(agent)][1])
    sizes = list(map(backs, ranks))
    return _Slots(offsets, ranks, firsts, sizes, list(itertools.accumulate(sizes, initial=at)))


def _shape(agent: Agent, drafts: tuple[_Draft, ...]) -> tuple:
    """What the graph's analyses read of an agent: its name, its kind, and where its edges lead
    (a route's condition, history, `PASS` and `MAP` are drawn but not analysed)."""
    return (
        agent.name.text,
        agent.kind,
        tuple((d.target, d.edge.kind, d.edge.returnable, d.edge.via, d.edge.route) for d in drafts),
    )


def _same_ends(now: tuple, then: tuple) -> bool:
    """Whether two shapes of an agent (`_shape`) differ at most in which routes return."""
    return (
        now[:2] == then[:2]
        and len(now[2]) == len(then[2])
        and all(a[:2] == b[:2] and a[3:] == b[3:] for a, b in zip(now[2], then[2], strict=True))
    )


def _roster_of(agents: Iterable[Agent]) -> list[Agent]:
    """The agents a graph has nodes for: every agent with a name, but behavior profiles."""
    return [a for a in agents if a.kind is not AgentKind.BEHAVIOR_PROFILE and a.name.text]


def build_graph(agents: Iterable[Agent], default_history: str = "full") -> ProjectGraph:
    """The graph of these agents (in project order), built from scratch."""
    return GraphBuilder().build(agents, default_history)


class _Reuse:
    """What putting the graph together again can take from the last time, so that an edit that
    changes where one route leads (a `RETURN` toggled) costs its effect, not the project's size:
    each agent's share (`_Share`), which parents may be waiting where (`WaitingParents`), and
    the three analyses with what they were worked out from. Each assembly keeps what it used
    only, and takes over (changes) some of the last one's tables: a `_Reuse` serves once."""

    __slots__ = (
        "cycles",
        "ids",
        "loops",
        "names",
        "onward",
        "positions",
        "reachability",
        "reached",
        "shares",
        "supervisors",
        "waiting",
    )

    def __init__(self) -> None:
        self.shares: dict[str, _Share] = {}  # by agent name
        self.waiting = WaitingParents()
        self.names: list[str] = []  # the agents routes reach, in project order
        self.ids: set[str] = set()  # the same, as a set
        self.positions: dict[str, int] | None = None  # name → its place in `names`, once asked
        self.supervisors: tuple[str, ...] = ()
        self.onward: dict[str, list[str]] = {}  # agent → where its handoffs and delegates lead
        self.reached: set[str] = set()  # what the supervisors reach
        self.reachability: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # roots, unreachable
        self.loops: dict[str, list[str]] = {}  # agent → where its routes that may loop lead
        self.cycles = _Cycles([])

    def position(self) -> dict[str, int]:
        """Each agent's place in project order (`names`)."""
        if self.positions is None:
            self.positions = {name: i for i, name in enumerate(self.names)}
        return self.positions

    def follow(self, roster: list[Agent], parts: dict[int, _Parts]) -> None:
        """After the graph took the last one's analyses over (`_reposition`): each share of an
        agent the roster holds another object of (moved or re-read) `forget`s the one it had."""
        seen: set[str] = set()
        for agent in roster:
            name = agent.name.text
            if name in seen:
                continue  # a second agent of a name: the share is the first one's
            seen.add(name)
            share = self.shares.get(name)
            if share is not None and share.agent is not agent:
                self.forget(share.agent, parts[id(agent)])

    def forget(self, replaced: Agent, part: _Parts) -> None:
        """An agent replaced between assemblies: its share takes the new agent while the drafts
        and tools are the same objects, and is dropped otherwise, so that no share holds on to
        a replaced agent (and through its blocks, the file's text of its time)."""
        name = replaced.name.text
        share = self.shares.get(name)
        if share is None or share.agent is not replaced:
            return
        agent, drafts, tools = part[0], part[1], part[2]
        if share.drafts is drafts and share.tools is tools and agent.name.text == name:
            share.agent = agent
            if not _node_of(share.node, agent):
                share.node = _agent_node(agent)
        else:
            del self.shares[name]


class _Share:
    """One agent's share of an assembly: its node, its edges and what the analyses read of them.
    The next assembly keeps it while the agent's drafts and tools are the same objects; what
    depends on more is worked out again when that changes: where the routes lead among local
    agents when the agent names are others (`resolve`), the hand-back marks when the parents
    that may be waiting while the agent is active are others (`mark`), and what is read of the
    marked edges when they are other objects (`finish`)."""

    __slots__ = (
        "agent",
        "backs",
        "drafts",
        "edges",
        "finished",
        "hand_backs",
        "loops",
        "marked",
        "mentions",
        "node",
        "onward",
        "others",
        "pairs",
        "permanent",
        "routes",
        "tools",
        "unmarked",
        "ways",
        "ways_back",
    )

    def __init__(self, agent: Agent, drafts: tuple[_Draft, ...], tools: tuple[_Tool, ...]) -> None:
        self.agent, self.drafts, self.tools = agent, drafts, tools
        self.node = _agent_node(agent)
        self.edges = [d.edge for d in drafts]
        self.ways = {d.edge.route: d.back for d in drafts if d.back is not None}  # route → where its way back is
        # The nodes other than agents it names, in order; a name is a missing agent's unless local.
        self.mentions: list[GraphNode | str] = [
            GraphNode(_tool_id(t.name), NodeKind.TOOL, t.name, t.path, t.at) for t in tools
        ]
        for d in drafts:
            target = d.target
            if isinstance(target, str):
                if target == ESCALATION_ID:
                    self.mentions.append(GraphNode(target, NodeKind.ESCALATION, "human agent", None, None))
            elif target.remote:
                node_id = f"remote:{target.name}"
                self.mentions.append(GraphNode(node_id, NodeKind.REMOTE, target.name, None, None))
            else:
                self.mentions.append(target.name)
        self.others: list[GraphNode] = []
        self.onward: list[str] = []  # where its handoffs of any kind and delegates lead, among local agents
        self.permanent: list[str] = []  # where its `HANDOFF` routes that do not return lead
        self.pairs: list[tuple[str, str]] = []  # (it, child) of each route that returns
        self.marked: list[GraphEdge] = self.edges
        self.hand_backs: dict[int, tuple[GraphEdge, GraphEdge]] = {}  # id(edge) → (it, its hand-back)
        self.finished: list[GraphEdge] | None = None  # the marked edges `finish` read
        self.loops: list[str] = []  # where its routes that can close a loop lead
        self.routes: dict[tuple[str, int], GraphEdge] = {}  # its `HANDOFF` routes' edges, by key
        self.backs: list[GraphEdge] = []  # the ways back of its returnable routes
        self.ways_back: dict[int, tuple[GraphEdge, AnchoredRange, GraphEdge]] = {}  # id(route) → (it, where, way back)
        self.unmarked = True  # not marked since it was made

    def resolve(self, agent_ids: set[str]) -> None:
        """What depends on which names are local agents."""
        name = self.agent.name.text
        self.others = [
            m if isinstance(m, GraphNode) else _missing_node(m)
            for m in self.mentions
            if isinstance(m, GraphNode) or m not in agent_ids
        ]
        self.onward, self.permanent, self.pairs = [], [], []
        for e in self.edges:
            kind = e.kind
            if (kind is EdgeKind.HANDOFF or kind is EdgeKind.DELEGATE) and e.target in agent_ids:
                self.onward.append(e.target)
                if kind is EdgeKind.HANDOFF and e.via is None:
                    if e.returnable:
                        self.pairs.append((name, e.target))
                    else:
                        self.permanent.append(e.target)
        self.finished = None

    def mark(self, parents: dict[str, int] | None) -> None:
        """Mark the routes to a parent that may be waiting while this agent is active."""
        self.unmarked = False
        if not parents:
            marked = self.edges
            self.hand_backs = {}
        else:
            hand_backs = {}
            marked = []
            for e in self.edges:
                if e.kind is EdgeKind.HANDOFF and e.target in parents:
                    known = self.hand_backs.get(id(e))
                    hand_back = known[1] if known is not None and known[0] is e else replace(e, hand_back=True)
                    hand_backs[id(e)] = (e, hand_back)
                    e = hand_back
                marked.append(e)
            self.hand_backs = hand_backs
        if len(marked) != len(self.marked) or any(a is not b for a, b in zip(marked, self.marked, strict=True)):
            self.marked = marked

    def finish(self, agent_ids: set[str]) -> None:
        """What the analyses and the ways back read of the marked edges."""
        if self.finished is self.marked:
            return
        self.loops, self.routes, self.backs = [], {}, []
        ways_back = {}
        for e in self.marked:
            if e.kind is not EdgeKind.HANDOFF or e.via is not None or e.route is None:
                continue  # not `GraphEdge.key`'s route: spelled out, as this runs over every edge
            self.routes[(e.source, e.route)] = e
            local = e.target in agent_ids
            if local and not e.hand_back and e.source != e.target:
                self.loops.append(e.target)
            where = self.ways.get(e.route) if local and e.returnable else None
            if where is None:
                continue
            known = self.ways_back.get(id(e))
            if known is not None and known[0] is e and known[1] is where:
                back = known[2]
            else:
                back = GraphEdge(
                    e.target, e.source, EdgeKind.RETURN, e.path, where, returnable=True, maps=e.maps, route=e.route
                )
            ways_back[id(e)] = (e, where, back)
            self.backs.append(back)
        self.ways_back = ways_back
        self.finished = self.marked


def _agent_node(agent: Agent) -> GraphNode:
    name = agent.name.text
    kind = NodeKind.SUPERVISOR if agent.kind is AgentKind.SUPERVISOR else NodeKind.AGENT
    return GraphNode(name, kind, name, agent.path, AnchoredRange(agent.header.anchor, agent.name.range), agent.header)


def _missing_node(name: str) -> GraphNode:
    return GraphNode(name, NodeKind.MISSING, name, None, None)


def _target_id(target: _Target | str) -> str:
    if isinstance(target, str):
        return target
    return f"remote:{target.name}" if target.remote else target.name


def _share_of(agent: Agent, part: _Parts, known: _Share | None, agent_ids: set[str], same_agents: bool) -> _Share:
    """The agent's share: the last assembly's while its drafts and tools are the same objects."""
    _, drafts, tools, _ = part
    if known is None or known.drafts is not drafts or known.tools is not tools:
        share = _Share(agent, drafts, tools)
        share.resolve(agent_ids)
        return share
    if known.agent is not agent:
        known.agent, known.node = agent, _agent_node(agent)
    if not same_agents:
        known.resolve(agent_ids)
    return known


def _assemble(
    roster: list[Agent], parts: dict[int, _Parts], default_history: str, before: _Reuse | None = None
) -> tuple[ProjectGraph, _Reuse]:
    reuse = _Reuse()
    if before is None:
        before = _Reuse()
    first: list[Agent] = []
    seen: set[str] = set()
    for agent in roster:
        if agent.name.text not in seen:  # of a duplicate name, routes reach the first one
            seen.add(agent.name.text)
            first.append(agent)
    names = [a.name.text for a in first]
    agent_ids = set(names)
    supervisors = tuple(a.name.text for a in first if a.kind is AgentKind.SUPERVISOR)
    # The analyses can start from the last ones while the agents routes reach are the same.
    same_agents = names == before.names and supervisors == before.supervisors
    reuse.names, reuse.ids, reuse.supervisors = names, agent_ids, supervisors
    if same_agents:
        reuse.positions = before.positions

    shares = reuse.shares
    nodes: dict[str, GraphNode] = {}
    others: dict[str, GraphNode] = {}
    onward: dict[str, list[str]] = {}
    permanent: dict[str, list[str]] = {}
    pairs: list[tuple[str, str]] = []
    for agent, name in zip(first, names, strict=True):
        share = shares[name] = _share_of(agent, parts[id(agent)], before.shares.get(name), agent_ids, same_agents)
        nodes[name] = share.node
        for node in share.others:
            if node.id not in others:
                others[node.id] = node
        if share.onward:
            onward[name] = share.onward
        if share.permanent:
            permanent[name] = share.permanent
        pairs.extend(share.pairs)
    nodes.update(others)

    reuse.waiting, rewaited = before.waiting.recounted(permanent, pairs)
    waits = reuse.waiting.waits
    edges: list[GraphEdge] = []
    backs: list[GraphEdge] = []
    loops: dict[str, list[str]] = {}
    by_route: dict[tuple[str, int], GraphEdge] = {}
    for name, share in shares.items():
        if share.unmarked or name in rewaited:
            share.mark(waits.get(name))
        share.finish(agent_ids)
        edges.extend(share.marked)
        backs.extend(share.backs)
        if share.loops:
            loops[name] = share.loops
        by_route.update(share.routes)
    edges.extend(backs)
    roots, unreachable = _reachability(names, supervisors, onward, same_agents, before, reuse)
    graph = ProjectGraph(nodes, edges, roots, unreachable, (), bool(supervisors), default_history, _by_route=by_route)
    _find_cycles(graph, names, loops, same_agents, before, reuse)
    return graph, reuse


def _reposition(
    last: ProjectGraph, roster: list[Agent], parts: dict[int, _Parts], fresh: set[int], taken: set[int]
) -> ProjectGraph:
    """The graph of agents shaped as at the last build: `last`'s analyses, with the nodes and
    edges of the agents re-read since (`fresh`) made of what they read. Those of an agent given
    the part of one of the same blocks (`taken`) are the last ones: anchored to the blocks,
    they read where the blocks are now. Equal to `_assemble`'s graph of the same agents, in the
    same order."""
    nodes: dict[str, GraphNode] = {}
    first: list[Agent] = []
    reread: set[int] = set(fresh)
    for agent in roster:
        name = agent.name.text
        if name in nodes:
            continue
        node = last.nodes[name]
        if id(agent) in taken and node.header is not agent.header:
            reread.add(id(agent))  # the last graph's node of this name was another agent's
        if id(agent) in reread and not _node_of(node, agent):
            node = _agent_node(agent)
        nodes[name] = node
        first.append(agent)
    edges: list[GraphEdge] = []
    at = 0  # the edges follow the first agents' drafts in order, then come the ways back
    backs: dict[tuple[str, int], tuple[list[GraphEdge], AnchoredRange]] = {}  # re-read routes: `_ways_back_of`
    for agent in first:
        drafts = parts[id(agent)][1]
        if id(agent) not in reread:
            edges.extend(last.edges[at : at + len(drafts)])
        else:
            mine = []
            for draft, previous in zip(drafts, last.edges[at : at + len(drafts)], strict=True):
                # Where the edge leads (and whether it hands back) is the last graph's; what it
                # carries and where it is written are the agent's as it is now.
                edge = replace(draft.edge, target=previous.target, hand_back=previous.hand_back)
                mine.append(previous if _same_edge(edge, previous) else edge)
            edges.extend(mine)
            backs.update(_ways_back_of(mine, drafts, last.nodes))
        at += len(drafts)
    gone_through: Counter[tuple[str, int]] = Counter()  # of each route key, the ways back gone through
    for back in last.edges[at:]:
        if back.route is not None:
            key = (back.target, back.route)
            if key in backs and gone_through[key] < len(backs[key][0]):
                senders, where = backs[key]
                sent = senders[gone_through[key]]
                now = replace(back, path=sent.path, at=where, maps=sent.maps)
                back = back if _same_edge(now, back) else now
            gone_through[key] += 1
        edges.append(back)
    for node_id, node in last.nodes.items():
        if node_id not in nodes:
            nodes[node_id] = node
    if reread:
        _place_tools(nodes, first, parts)
    graph = _with_analyses_of(last, nodes, edges)
    graph.inherit_facts(last)
    return graph


def _node_of(node: GraphNode, agent: Agent) -> bool:
    """Whether `node` is `agent`'s as it is now: read from its very header, to whose block the
    name's range is anchored."""
    return node.header is agent.header and node.path == agent.path


def _same_edge(now: GraphEdge, then: GraphEdge) -> bool:
    """Whether `then` can stand for `now`: equal, and anchored at the same place (an equal edge
    on a block read again would stay behind when the new block moves)."""
    return now == then and now.at.same_place(then.at)


def _ways_back_of(
    edges: list[GraphEdge], drafts: tuple[_Draft, ...], nodes: dict[str, GraphNode]
) -> dict[tuple[str, int], tuple[list[GraphEdge], AnchoredRange]]:
    """Of one agent's edges (made from `drafts`), the routes with a way back, by key, in order,
    with where their ways back are drawn: two routes of one index (two `HANDOFF` sections) share
    the place the last of them gives, and each way back carries its own route's `MAP`."""
    where: dict[tuple[str, int], AnchoredRange] = {}
    senders: dict[tuple[str, int], list[GraphEdge]] = {}
    for edge, draft in zip(edges, drafts, strict=True):
        key = edge.key
        if key is None:
            continue
        if draft.back is not None:
            where[key] = draft.back
        target = nodes.get(edge.target)
        if edge.returnable and target is not None and target.kind in (NodeKind.AGENT, NodeKind.SUPERVISOR):
            senders.setdefault(key, []).append(edge)
    return {key: (sent, where[key]) for key, sent in senders.items() if key in where}


def _with_analyses_of(last: ProjectGraph, nodes: dict[str, GraphNode], edges: list[GraphEdge]) -> ProjectGraph:
    """A graph of these nodes and edges whose routes lead where `last`'s do: its analyses."""
    return ProjectGraph(
        nodes,
        edges,
        last.roots,
        last.unreachable,
        last.cycles,
        last.has_supervisor,
        last.default_history,
        _cycle_groups=last._cycle_groups,
        _towards_root=last._towards_root,
        _from_root=last._from_root,
        _group_roots=last._group_roots,
        _loops=last._loops,
        _lineage=last._lineage,
        _analysis=last._analysis,  # made of where routes lead, not of where they are written
    )


def _place_tools(nodes: dict[str, GraphNode], first: list[Agent], parts: dict[int, _Parts]) -> None:
    """Put each tool's node where its first declaration now is."""
    placed: set[str] = set()
    for agent in first:
        for tool in parts[id(agent)][2]:
            tool_id = _tool_id(tool.name)
            if tool_id in placed:
                continue
            placed.add(tool_id)
            node = nodes[tool_id]
            if node.path != tool.path or not tool.at.same_place(node.at):
                nodes[tool_id] = replace(node, path=tool.path, at=tool.at)


def _reachability(
    names: list[str],
    supervisors: tuple[str, ...],
    onward: dict[str, list[str]],
    same_agents: bool,
    before: _Reuse,
    reuse: _Reuse,
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The roots and the agents no root reaches (module docstring, "Roots and reachability"):
    the last ones while the same agents lead where they led; from what the supervisors reached
    when the handoffs only grew out of it."""
    reuse.onward = onward
    if same_agents and onward == before.onward:
        reuse.reached, reuse.reachability = before.reached, before.reachability
        return before.reachability
    if not supervisors:
        reuse.reachability = (_entry_roots(names, onward), ())
        return reuse.reachability
    reached = _reached_after(before, onward) if same_agents else None
    if reached is before.reached:
        reuse.reached, reuse.reachability = reached, before.reachability
        return before.reachability
    if reached is None:
        reached = _reach(supervisors, onward)
    reuse.reached = reached
    reuse.reachability = (supervisors, tuple(n for n in names if n not in reached))
    return reuse.reachability


def _reached_after(before: _Reuse, onward: dict[str, list[str]]) -> set[str] | None:
    """What the supervisors reach now, from what they reached at the last assembly (the same
    set when that did not change), or None when an agent they reached lost a handoff: then
    what they reach can shrink, and is searched again."""
    reached, was = before.reached, before.onward
    grown: list[str] = []
    for source in onward.keys() | was.keys():
        now, then = onward.get(source), was.get(source)
        if now == then or source not in reached:
            continue  # an agent no supervisor reaches leads nowhere they go
        if not set(then or ()) <= set(now or ()):
            return None
        grown.extend(t for t in now or () if t not in reached)
    if not grown:
        return reached
    reached = reached | set(grown)
    stack = list(set(grown))
    while stack:
        for nxt in onward.get(stack.pop(), ()):
            if nxt not in reached:
                reached.add(nxt)
                stack.append(nxt)
    return reached


def _entry_roots(names: list[str], onward: dict[str, list[str]]) -> tuple[str, ...]:
    """A project without a supervisor: the agents nothing routes to and, for a group that only
    routes among itself, its first agent."""
    routed_to = {t for source, targets in onward.items() for t in targets if t != source}
    roots = [n for n in names if n not in routed_to]
    reached = _reach(roots, onward)
    for name in names:
        if name not in reached:
            roots.append(name)
            reached |= _reach([name], onward)
    return tuple(roots)


def _reach(starts: Iterable[str], adjacency: dict[str, list[str]]) -> set[str]:
    seen = set(starts)
    stack = list(seen)
    while stack:
        for nxt in adjacency.get(stack.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


# --- cycles -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Group:
    """Agents that loop: a strongly connected component of two or more over the routes that can
    close a loop, with the paths from and towards its first agent (its root, in project order)
    that `cycle_through` puts a cycle together from, and its shortest cycle through the root."""

    root: str
    members: frozenset[str]
    from_root: dict[str, str]  # node → the one before it on a shortest path from the root
    towards_root: dict[str, str]  # node → the one after it on a shortest path to the root
    cycle: tuple[str, ...]


class _Cycles:
    """The groups of a graph, by the project position of their roots, with the tables a
    `ProjectGraph` keeps of them (shared by every graph of these groups, never changed)."""

    __slots__ = ("cycles", "from_root", "group_of", "groups", "roots", "towards_root")

    def __init__(self, groups: list[_Group]) -> None:
        self.groups = groups
        self.group_of = {member: index for index, group in enumerate(groups) for member in group.members}
        self.roots = [g.root for g in groups]
        self.from_root = [g.from_root for g in groups]
        self.towards_root = [g.towards_root for g in groups]
        self.cycles = tuple(g.cycle for g in groups)

    def members_of(self, agent: str) -> frozenset[str] | set[str]:
        """The agents in a group with `agent` (itself alone when it is in none)."""
        index = self.group_of.get(agent)
        return {agent} if index is None else self.groups[index].members


def _find_cycles(
    graph: ProjectGraph,
    names: list[str],
    loops: dict[str, list[str]],
    same_agents: bool,
    before: _Reuse,
    reuse: _Reuse,
    changed: Iterable[str] | None = None,
) -> None:
    """Group the agents that loop (strongly connected over `HANDOFF` routes that are not
    hand-backs) and keep, per group, the paths to and from its root, from which `cycle_through`
    puts a cycle together for any route of the group. The groups no changed route touches are
    the last assembly's (`changed`, when given, holds every agent whose loop routes may differ
    from `before`'s)."""
    reuse.loops = loops
    if same_agents and loops == before.loops:
        cycles = before.cycles
    else:
        position = reuse.position()
        if same_agents:
            if changed is None:
                changed = loops.keys() | before.loops.keys()
            moved = [a for a in changed if loops.get(a) != before.loops.get(a)]
            groups = _regroup(before, loops, position, moved)
        else:
            groups = _groups_in(names, loops, loops, position)
        cycles = _Cycles(groups)
    reuse.cycles = cycles
    graph.cycles = cycles.cycles
    graph._cycle_groups = cycles.group_of
    graph._group_roots = cycles.roots
    graph._from_root = cycles.from_root
    graph._towards_root = cycles.towards_root


def _regroup(before: _Reuse, loops: dict[str, list[str]], position: dict[str, int], changed: list[str]) -> list[_Group]:
    """The groups after the loop routes of the agents `changed` changed: those of the region
    the change can regroup (`_touched_region`) found again, the others kept."""
    region = _touched_region(changed, before.cycles, before.loops, loops)
    kept = [g for g in before.cycles.groups if g.root not in region]
    inside = {a: [t for t in loops.get(a, ()) if t in region] for a in region}
    found = _groups_in(sorted(region, key=position.__getitem__), inside, loops, position)
    return sorted(kept + found, key=lambda g: position[g.root])


def _touched_region(
    changed: list[str], cycles: _Cycles, was: dict[str, list[str]], loops: dict[str, list[str]]
) -> set[str]:
    """A set of agents that holds every group, old or new, a changed agent is in, and is made of
    whole groups, old and new: a group no changed agent was in and none is in now is as it was.
    (A loop that came uses a new route out of some group, whose agent's new group is searched;
    one that went used a route that went, whose agent's old group is taken.)"""
    region: set[str] = set()
    searched: set[str] = set()
    for agent in changed:
        members = cycles.members_of(agent)
        region |= members
        if agent in searched:
            continue
        came = set(loops.get(agent, ())).difference(was.get(agent, ()))
        if not came <= members:
            group = _strong_component_of(agent, loops)
            searched |= group
            region |= group
    return region


def _strong_component_of(agent: str, adjacency: dict[str, list[str]]) -> set[str]:
    """The agents `agent` reaches that reach it back (itself included)."""
    ahead = _reach([agent], adjacency)
    back: dict[str, list[str]] = {}
    for source in ahead:
        for target in adjacency.get(source, ()):
            if target in ahead:
                back.setdefault(target, []).append(source)
    return _reach([agent], back)


def _groups_in(
    order: list[str], inside: dict[str, list[str]], loops: dict[str, list[str]], position: dict[str, int]
) -> list[_Group]:
    """The groups among the agents of `order` over the routes of `inside` (which leave none of
    them), by the position of their roots."""
    groups = []
    for component in _strong_components(order, inside):
        if len(component) < 2:
            continue
        component.sort(key=position.__getitem__)
        root, members = component[0], frozenset(component)
        # Towards the root: who leads to each member, members in project order.
        towards: dict[str, list[str]] = {}
        for source in component:
            for target in loops.get(source, ()):
                if target in members:
                    towards.setdefault(target, []).append(source)
        from_root = _bfs_parents(root, loops, members)  # node → the one before it
        towards_root = _bfs_parents(root, towards, members)  # node → the one after it
        groups.append(_Group(root, members, from_root, towards_root, _first_cycle(root, loops, members)))
    groups.sort(key=lambda g: position[g.root])
    return groups


def _bfs_parents(root: str, adjacency: dict[str, list[str]], members: frozenset[str]) -> dict[str, str]:
    parents: dict[str, str] = {}
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for nxt in adjacency.get(node, ()):
            if nxt in members and nxt != root and nxt not in parents:
                parents[nxt] = node
                queue.append(nxt)
    return parents


def _first_cycle(root: str, adjacency: dict[str, list[str]], members: frozenset[str]) -> tuple[str, ...]:
    """The shortest cycle through `root`, in route order: root, …, the agent that routes back."""
    parents: dict[str, str] = {}
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for nxt in adjacency.get(node, ()):
            if nxt == root:
                path = [node]
                while path[-1] != root:
                    path.append(parents[path[-1]])
                return tuple(reversed(path))
            if nxt in members and nxt not in parents:
                parents[nxt] = node
                queue.append(nxt)
    return (root,)


def _simple_cycle(walk: list[str]) -> list[str]:
    """A closed walk (its last node routes back to its first) without repeated nodes: a loop
    between two visits of one node is cut out, keeping the first and last nodes."""
    out: list[str] = []
    at: dict[str, int] = {}
    for node in walk:
        if node in at:
            for dropped in out[at[node] + 1 :]:
                del at[dropped]
            del out[at[node] + 1 :]
            continue
        at[node] = len(out)
        out.append(node)
    return out


def _strong_components(order: list[str], adjacency: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, without recursion (a long chain of agents must
    not hit Python's recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []
    counter = 0
    for start in order:
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(adjacency.get(start, ())))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(adjacency.get(nxt, ()))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                groups.append(group)
    return groups


# --- the way back of a returnable child -------------------------------------------------------


def ends_own_thread(agent: Agent) -> bool:
    """Whether an agent can end its thread by itself, which returns a waiting parent: a
    `COMPLETE` rule, the built-in return of a reasoning agent (every agent without `FLOW`), or
    a `FLOW` with a step that completes or returns, or a reasoning step."""
    if agent.complete or agent.flow is None:
        return True
    for node in agent.sections:
        for n in read_walk(node):
            if not n.is_entry:
                continue
            key = n.key.upper()
            value = n.value.strip().strip("\"'").upper()
            if key in ("COMPLETE", "RETURN_TO_PARENT"):
                return True
            if key == "THEN" and value.split(" ")[0] in ("COMPLETE", "RETURN", "RETURN_TO_PARENT"):
                return True
            if key == "REASONING" and value == "TRUE":
                return True
    return False


def way_back(parent: str, child: Agent, lookup: Callable[[str], Agent | None]) -> bool:
    """Whether a returnable `child` of `parent` can give control back: it, or an agent its
    permanent handoffs lead to (the parent still waits meanwhile), ends its own thread or hands
    off to the parent. Looks agents up through `lookup` only, so a caller can track what it read."""
    seen = {child.name.text}
    frontier = [child]
    for _ in range(NESTING_LIMIT):
        step: list[Agent] = []
        for agent in frontier:
            if ends_own_thread(agent):
                return True
            for route in agent.handoffs:
                if route.target is None or route.remote:
                    continue
                name = route.target.text
                if name == parent:
                    return True
                if route.is_returnable or name in seen:
                    continue
                seen.add(name)
                found = lookup(name)
                if found is not None:
                    step.append(found)
        if not step:
            return False
        frontier = step
    return True  # deeper than the runtime nests: not this check's to judge
