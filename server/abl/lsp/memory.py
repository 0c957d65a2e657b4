"""Keeping Python's cyclic garbage collector out of keystrokes.

A language server holds a large, long-lived heap (every tree of the workspace). A full
collection walks all of it, and one landing inside an edit costs more than the edit itself.
So: after indexing, the heap is collected once and frozen (the collector ignores it from then
on); full collections are made rare; an edit's work runs with the collector paused, and what
it leaves alive (the new trees, copies and diagnostics) joins the frozen heap, so the first
allocation after it does not walk them all (at 20,000 lines, that walk was a fifth of an
Enter); and while the editor is idle, a full collection runs, after which the survivors are
frozen again. Trees replaced by edits are freed by reference counting meanwhile (they hold no
cycles), so memory does not wait for the idle collection. What the protocol had in flight when
an edit's survivors were frozen (tasks, futures, messages) can die later in cycles, which no
collection sees until the heap is unfrozen. So that an editor that never pauses does not grow
by them, every `EDITS_BETWEEN_FULL_COLLECTIONS` edits without an idle collection, one runs at
the end of an edit (about 175 ms at 20,000 lines, one edit in 250).
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from abl.ide import paused_gc

# Seconds without a message before an idle collection runs.
IDLE_COLLECTION_DELAY_S = 5.0
# The third threshold: how many generation-1 collections before a full one is considered.
_RARE_FULL_COLLECTIONS = 1_000
# Edits whose survivors are frozen before a full collection runs at the end of one, when the
# editor has not paused long enough for the idle collection.
EDITS_BETWEEN_FULL_COLLECTIONS = 250


class HeapKeeper:
    def __init__(self, busy: Callable[[], bool]) -> None:
        self._busy = busy
        self._timer: asyncio.TimerHandle | None = None
        self._frozen_edits = 0  # edits frozen since the last full collection

    def settle(self) -> None:
        """Collect once and freeze what is left: call after indexing a workspace."""
        first, second, _ = gc.get_threshold()
        gc.set_threshold(first, second, _RARE_FULL_COLLECTIONS)
        gc.collect()
        gc.freeze()
        self._frozen_edits = 0

    @contextmanager
    def quiet(self) -> Iterator[None]:
        """Around the work of one edit: no collection inside it, and what it leaves alive is
        frozen with the rest of the heap (the idle collection looks at it again)."""
        with paused_gc():
            yield
            self._frozen_edits += 1
            if self._frozen_edits >= EDITS_BETWEEN_FULL_COLLECTIONS:
                self._collect_all()
            else:
                gc.freeze()

    def after_activity(self) -> None:
        """Restart the idle timer; the collection runs once the editor has been quiet."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_event_loop().call_later(IDLE_COLLECTION_DELAY_S, self._collect_when_idle)

    def _collect_when_idle(self) -> None:
        self._timer = None
        if self._busy():
            self.after_activity()
            return
        self._collect_all()

    def _collect_all(self) -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self._frozen_edits = 0
