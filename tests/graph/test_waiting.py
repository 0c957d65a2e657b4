"""Which parents may be waiting while each agent is active (`abl.workspace.waiting`): changed in
place agent by agent (`WaitingParents.reroute`), the table must equal one counted from scratch,
and name every agent whose waiting parents changed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from abl.workspace.waiting import WaitingParents

SIZE = 14  # agents A0..A13: chains of permanent handoffs longer than the nesting limit fit

# agent → (where its permanent handoffs lead, the children of its returnable routes)
Ends = dict[str, tuple[list[str], set[str]]]

names = st.sampled_from([f"A{i}" for i in range(SIZE)])
ends_of_one = st.tuples(st.lists(names, max_size=3), st.sets(names, max_size=2))
projects = st.dictionaries(names, ends_of_one, max_size=SIZE)


def counted(ends: Ends) -> WaitingParents:
    permanent = {agent: targets for agent, (targets, _) in ends.items() if targets}
    pairs = [(agent, child) for agent, (_, children) in ends.items() for child in sorted(children)]
    table, _ = WaitingParents().recounted(permanent, pairs)
    return table


def waits(table: WaitingParents) -> dict[str, dict[str, int]]:
    return {agent: dict(parents) for agent, parents in table.waits.items() if parents}


@settings(max_examples=300, deadline=None)
@given(projects, st.lists(st.tuples(names, ends_of_one), min_size=1, max_size=8))
def test_changes_agent_by_agent_equal_a_count_from_scratch(start: Ends, changes: list[tuple[str, tuple]]) -> None:
    ends = dict(start)
    table = counted(ends)
    for agent, (targets, children) in changes:
        before = waits(table)
        rewaited = table.reroute(agent, targets, children)
        ends[agent] = (targets, children)
        fresh = counted(ends)
        assert waits(table) == waits(fresh)
        assert table.pairs.keys() == fresh.pairs.keys()
        assert table.within == fresh.within
        now = waits(table)
        changed = {a for a in before.keys() | now.keys() if before.get(a, {}).keys() != now.get(a, {}).keys()}
        assert changed <= rewaited


def test_a_chain_longer_than_the_limit_reaches_no_further() -> None:
    """A0 waits for A1, which hands on for good along a chain: A0 waits while A1 and the next
    ten are active, not the twelfth. Cutting the chain in the middle shortens the reach."""
    chain = {f"A{i}": ([f"A{i + 1}"], set()) for i in range(1, SIZE - 1)}
    ends: Ends = {"A0": ([], {"A1"}), **chain}
    table = counted(ends)
    assert set(table.waits) == {f"A{i}" for i in range(1, 12)}
    rewaited = table.reroute("A5", [], set())
    assert set(table.waits) == {f"A{i}" for i in range(1, 6)}
    assert rewaited >= {f"A{i}" for i in range(6, 12)}
