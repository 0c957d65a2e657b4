"""The ends of the handoff loop through each route of a group of agents that loop, in
n·log n time for the whole group.

`ProjectGraph.cycle_through` puts the loop through one route together by walking: from the
route's target towards the group's first agent (the root) along shortest paths, then from the
root to the route's agent, cutting out what the two walks share. A walk is as long as the group
is deep, so asking it for every route of a ring of thousands of agents is quadratic, and so is
keeping every loop. A message shows only a loop's ends, so this module finds, for every route
at once, exactly what that walk would give, but keeps only the first and last agents.

How. Let A be the walk from the target t towards the root r (the "in-tree" of shortest paths to
r) and B the path from r to the route's agent s (the "out-tree" of shortest paths from r). The
cut happens at x, the first agent of A that is also on B (r if none is): the loop is s, then A
up to x, then B after x up to (not including) s again. Since x is the deepest in-tree ancestor
of t that is an out-tree ancestor of s, a depth-first walk of the out-tree that marks the agents
on the current path answers every route from one agent with one "deepest marked in-tree
ancestor" query: a segment tree over the in-tree's visiting order, with a stack per segment,
answers it in log time. Any agent on A or B is then found by depth (a level-ancestor query on
the visiting order).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

RouteKey = TypeVar("RouteKey", bound=Hashable)  # how the caller names a route

# A loop of at most this many agents is kept whole; a longer one by this many at each end.
KEPT_AT_EACH_END = 4


@dataclass(frozen=True, slots=True)
class LoopEnds:
    """The loop through one route, starting at the route's agent: every agent when it has
    at most `2 * KEPT_AT_EACH_END`, else the first and the last `KEPT_AT_EACH_END`."""

    head: tuple[str, ...]
    tail: tuple[str, ...]  # empty when `head` is the whole loop
    length: int


class _Tree:
    """A tree given by each node's parent, with depths, visiting order and level ancestors."""

    def __init__(self, root: str, parent: dict[str, str]) -> None:
        self.root = root
        self.parent = parent
        children: dict[str, list[str]] = {}
        for node, up in parent.items():
            children.setdefault(up, []).append(node)
        self.children = children
        self.depth: dict[str, int] = {root: 0}
        self.enter: dict[str, int] = {}
        self.leave: dict[str, int] = {}
        by_depth: dict[int, list[tuple[int, str]]] = {}
        clock = 0
        stack: list[tuple[str, bool]] = [(root, False)]
        while stack:  # no recursion: a group may be thousands of agents deep
            node, done = stack.pop()
            if done:
                self.leave[node] = clock - 1
                continue
            self.enter[node] = clock
            by_depth.setdefault(self.depth[node], []).append((clock, node))
            clock += 1
            stack.append((node, True))
            for child in reversed(children.get(node, ())):
                self.depth[child] = self.depth[node] + 1
                stack.append((child, False))
        self.size = clock
        # Visiting order grows along each depth's list, so it is sorted for bisection.
        self._order_at = {d: [order for order, _ in row] for d, row in by_depth.items()}
        self._node_at = {d: [node for _, node in row] for d, row in by_depth.items()}

    def ancestor_at(self, node: str, depth: int) -> str:
        """The ancestor of `node` (or `node` itself) at `depth`: among the nodes at that depth,
        the last one visited before `node`."""
        row = self._order_at[depth]
        return self._node_at[depth][bisect_right(row, self.enter[node]) - 1]


class _DeepestMarked:
    """Marked intervals of the in-tree's visiting order (nested or disjoint, as subtrees are);
    `deepest(point)` is the deepest marked node whose interval holds the point. Marks are added
    and removed last-in first-out, as a depth-first walk does."""

    def __init__(self, size: int) -> None:
        self.width = max(1, size)
        self.stacks: list[list[tuple[int, str]]] = [[] for _ in range(2 * self.width)]
        self.touched: list[list[int]] = []

    def mark(self, low: int, high: int, depth: int, node: str) -> None:
        segments = []
        low += self.width
        high += self.width + 1
        while low < high:
            if low & 1:
                segments.append(low)
                low += 1
            if high & 1:
                high -= 1
                segments.append(high)
            low >>= 1
            high >>= 1
        for segment in segments:
            stack = self.stacks[segment]
            # Each stack keeps its deepest entry on top, so a query reads one entry per segment.
            stack.append((depth, node) if not stack or stack[-1][0] < depth else stack[-1])
        self.touched.append(segments)

    def unmark_last(self) -> None:
        for segment in self.touched.pop():
            self.stacks[segment].pop()

    def deepest(self, point: int) -> str | None:
        best: tuple[int, str] | None = None
        segment = point + self.width
        while segment >= 1:
            stack = self.stacks[segment]
            if stack and (best is None or stack[-1][0] > best[0]):
                best = stack[-1]
            segment >>= 1
        return best[1] if best is not None else None


def loop_ends(
    root: str,
    from_root: dict[str, str],
    towards_root: dict[str, str],
    routes: Sequence[tuple[RouteKey, str, str]],
) -> dict[RouteKey, LoopEnds]:
    """The loop through each route `(key, agent, target)` of one group, as
    `ProjectGraph.cycle_through` finds it. `from_root` maps an agent to the one before it on a
    shortest path from the root; `towards_root` to the one after it on a shortest path to it."""
    out_tree = _Tree(root, from_root)
    in_tree = _Tree(root, towards_root)
    by_agent: dict[str, list[tuple[RouteKey, str]]] = {}
    for key, agent, target in routes:
        by_agent.setdefault(agent, []).append((key, target))
    marks = _DeepestMarked(in_tree.size)
    found: dict[RouteKey, LoopEnds] = {}
    stack: list[tuple[str, bool]] = [(root, False)]
    while stack:
        agent, done = stack.pop()
        if done:
            marks.unmark_last()
            continue
        marks.mark(in_tree.enter[agent], in_tree.leave[agent], in_tree.depth[agent], agent)
        for key, target in by_agent.get(agent, ()):
            cut = marks.deepest(in_tree.enter[target])
            assert cut is not None  # the root is marked, and its interval holds every agent
            found[key] = _ends(agent, target, cut, out_tree, in_tree)
        stack.append((agent, True))
        stack.extend((child, False) for child in reversed(out_tree.children.get(agent, ())))
    return found


def _ends(agent: str, target: str, cut: str, out_tree: _Tree, in_tree: _Tree) -> LoopEnds:
    """The loop is `agent`, then the walk from `target` up the in-tree to `cut` (inclusive),
    then the out-tree path below `cut` down to the agent before `agent`."""
    up = in_tree.depth[target] - in_tree.depth[cut]  # steps from the target to the cut
    below = out_tree.depth[cut]  # the cut's place on the path from the root to `agent`
    length = 1 + up + (out_tree.depth[agent] - below)

    def at(position: int) -> str:
        if position == 0:
            return agent
        step = position - 1
        if step <= up:
            return in_tree.ancestor_at(target, in_tree.depth[target] - step)
        return out_tree.ancestor_at(agent, below + step - up)

    if length <= 2 * KEPT_AT_EACH_END:
        return LoopEnds(tuple(at(p) for p in range(length)), (), length)
    head = tuple(at(p) for p in range(KEPT_AT_EACH_END))
    tail = tuple(at(p) for p in range(length - KEPT_AT_EACH_END, length))
    return LoopEnds(head, tail, length)
