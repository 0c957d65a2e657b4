"""Which parents may be waiting while an agent is active: what makes a route a hand-back
(`abl.workspace.graph`'s docstring, "Hand-backs"), kept from one assembly of the graph to the
next so that a changed route costs the agents it reaches, not the project.

A returnable route from a parent to a child makes the parent wait while the child, or any agent
the child hands on to for good within the runtime's nesting limit (the child's *reach*), is
active. The table counts, for each agent, the (parent, child) pairs that have it in reach, so
that a pair that comes or goes, or a reach that changes, is one step per agent of that reach.
"""

from __future__ import annotations

# The runtime's nesting limit (waiting parents, the active agent and one-way hops): a
# hand-back through permanent handoffs is looked for no deeper than this.
NESTING_LIMIT = 10


class WaitingParents:
    """The waiting parents of every agent, with what they were counted from. An assembly that
    recounts takes the table over (`recounted`); one that patches changes it in place
    (`reroute`): either way the object it came from is not read again."""

    __slots__ = ("_children", "_into", "_parents", "pairs", "permanent", "waits", "within")

    def __init__(self) -> None:
        self.permanent: dict[str, list[str]] = {}  # agent → where its permanent handoffs lead
        self.pairs: dict[tuple[str, str], None] = {}  # (parent, child) of every returnable route
        self.within: dict[str, set[str]] = {}  # child of a pair → its reach
        self.waits: dict[str, dict[str, int]] = {}  # agent → parent → the pairs that count it
        # Made when a patch first needs them, then kept by patches: agent → the agents whose
        # permanent handoffs lead to it; child → its parents; parent → its children.
        self._into: dict[str, list[str]] | None = None
        self._parents: dict[str, set[str]] | None = None
        self._children: dict[str, set[str]] | None = None

    def recounted(
        self, permanent: dict[str, list[str]], returnable: list[tuple[str, str]]
    ) -> tuple[WaitingParents, set[str]]:
        """The table for these permanent handoffs and returnable pairs: this one's, changed by
        the pairs that came, went, or whose child's reach is another. Also the agents whose
        waiting parents are others than before."""
        now = WaitingParents()
        now.permanent = permanent
        was = self.permanent
        # A reach is the same while no agent in it leads elsewhere by a permanent handoff: the
        # search that found it followed the routes of those agents only.
        changed = {a for a in permanent.keys() | was.keys() if permanent.get(a) != was.get(a)}
        pairs = dict.fromkeys(returnable)
        waits = self.waits  # taken over
        rewaited: set[str] = set()
        for parent, child in self.pairs:
            if (parent, child) not in pairs:
                _count(waits, self.within[child], parent, -1, rewaited)
        for parent, child in pairs:
            reach = now.within.get(child)
            if reach is None:
                reach = self.within.get(child)
                if reach is None or not changed.isdisjoint(reach):
                    reach = reach_of(child, permanent)
                now.within[child] = reach
            if (parent, child) in self.pairs:
                counted = self.within[child]
                if counted is reach:
                    continue
                _count(waits, counted, parent, -1, rewaited)
            _count(waits, reach, parent, 1, rewaited)
        now.pairs, now.waits = pairs, waits
        return now, rewaited

    def reroute(self, agent: str, permanent: list[str], children: set[str]) -> set[str]:
        """In place: `agent`'s permanent handoffs now lead to `permanent` and its returnable
        routes to `children`. The agents whose waiting parents changed (a superset)."""
        into, parents, kids = self._indexes()
        rewaited: set[str] = set()
        was = self.permanent.get(agent, [])
        stale: set[str] = set()
        if permanent != was:
            # The children whose reach held `agent`: the agents that reach it, over the
            # permanent handoffs of before, within the limit.
            stale = reach_of(agent, into)
            for target in was:
                sources = into[target]
                sources.remove(agent)
                if not sources:
                    del into[target]
            for target in permanent:
                into.setdefault(target, []).append(agent)
            if permanent:
                self.permanent[agent] = permanent
            else:
                self.permanent.pop(agent, None)
        mine = kids.get(agent, set())
        for child in mine - children:
            self._unpair(agent, child, rewaited, parents, kids)
        for child in stale:
            reach = self.within.get(child)
            if reach is None:
                continue
            now = reach_of(child, self.permanent)
            if now == reach:
                continue
            self.within[child] = now
            for parent in parents[child]:
                _count(self.waits, reach, parent, -1, rewaited)
                _count(self.waits, now, parent, 1, rewaited)
        for child in children - mine:
            reach = self.within.get(child)
            if reach is None:
                reach = self.within[child] = reach_of(child, self.permanent)
            self.pairs[(agent, child)] = None
            parents.setdefault(child, set()).add(agent)
            kids.setdefault(agent, set()).add(child)
            _count(self.waits, reach, agent, 1, rewaited)
        return rewaited

    def _unpair(
        self,
        parent: str,
        child: str,
        rewaited: set[str],
        parents_of: dict[str, set[str]],
        children_of: dict[str, set[str]],
    ) -> None:
        """The returnable route from `parent` to `child` went: `parent` no longer waits while
        the child's reach is active (and the reach is dropped with the child's last parent)."""
        del self.pairs[(parent, child)]
        _count(self.waits, self.within[child], parent, -1, rewaited)
        parents, children = parents_of[child], children_of[parent]
        parents.discard(parent)
        children.discard(child)
        if not parents:
            del parents_of[child], self.within[child]
        if not children:
            del children_of[parent]

    def _indexes(self) -> tuple[dict[str, list[str]], dict[str, set[str]], dict[str, set[str]]]:
        if self._into is None or self._parents is None or self._children is None:
            self._into, self._parents, self._children = {}, {}, {}
            for source, targets in self.permanent.items():
                for target in targets:
                    self._into.setdefault(target, []).append(source)
            for parent, child in self.pairs:
                self._parents.setdefault(child, set()).add(parent)
                self._children.setdefault(parent, set()).add(child)
        return self._into, self._parents, self._children


def reach_of(start: str, adjacency: dict[str, list[str]], limit: int = NESTING_LIMIT) -> set[str]:
    """`start` and every agent `limit` steps or fewer away from it over `adjacency`."""
    seen = {start}
    frontier = [start]
    for _ in range(limit):
        step = []
        for node in frontier:
            for nxt in adjacency.get(node, ()):
                if nxt not in seen:
                    seen.add(nxt)
                    step.append(nxt)
        if not step:
            break
        frontier = step
    return seen


def _count(waits: dict[str, dict[str, int]], reach: set[str], parent: str, step: int, rewaited: set[str]) -> None:
    """Count `parent` as waiting (`step` 1) or no longer (-1) while each agent of `reach` is
    active, noting in `rewaited` the agents for which it starts or stops waiting."""
    for active in reach:
        parents = waits.setdefault(active, {})
        count = parents.get(parent, 0) + step
        if count and parent in parents:
            parents[parent] = count
            continue
        rewaited.add(active)
        if count:
            parents[parent] = count
            continue
        del parents[parent]
        if not parents:
            del waits[active]
