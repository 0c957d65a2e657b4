"""The server keeps the collector out of an edit's work and freezes what the work leaves alive,
so the next allocation does not walk it; the collector is back on afterwards, failure or not."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from abl.lsp.memory import EDITS_BETWEEN_FULL_COLLECTIONS, HeapKeeper


@pytest.fixture
def collector_on() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        gc.unfreeze()
        if not was_enabled:
            gc.disable()


def test_what_an_edit_leaves_alive_joins_the_frozen_heap(collector_on: None) -> None:
    keeper = HeapKeeper(busy=lambda: False)
    before = gc.get_freeze_count()
    with keeper.quiet():
        assert not gc.isenabled()
        kept = [[n] for n in range(5_000)]  # lists: objects the collector tracks
    assert gc.isenabled()
    assert gc.get_freeze_count() >= before + len(kept)


def test_the_collector_is_back_on_after_a_failure(collector_on: None) -> None:
    keeper = HeapKeeper(busy=lambda: False)
    with pytest.raises(RuntimeError), keeper.quiet():
        raise RuntimeError("analysis failed")
    assert gc.isenabled()


def test_garbage_frozen_by_edits_is_collected_after_enough_of_them(collector_on: None) -> None:
    """A cycle alive when an edit froze the heap and dropped afterwards is freed within
    `EDITS_BETWEEN_FULL_COLLECTIONS` edits, though the editor never pauses."""
    keeper = HeapKeeper(busy=lambda: False)
    keeper.settle()

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    in_flight = Cycle()
    alive = weakref.ref(in_flight)
    with keeper.quiet():
        pass  # frozen with everything alive now, the cycle too
    del in_flight
    gc.collect()
    assert alive() is not None  # frozen: no collection sees it
    for _ in range(EDITS_BETWEEN_FULL_COLLECTIONS - 1):
        with keeper.quiet():
            pass
    assert alive() is None
