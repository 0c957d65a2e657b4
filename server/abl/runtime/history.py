"""Which earlier messages a handoff target receives, as pure functions over message lists.

Seed 000 is the rule book:

- `full`: the calling agent's conversation, plus the customer messages that earlier child agents
  handled (so the target sees every customer turn), minus every message from a child that
  gathered a sensitive field;
- `last_n`: the most recent N messages of the calling agent's conversation, counted in messages;
  a tool call and its result are one unit that is never split, and when the newest unit alone is
  larger than N the target receives nothing;
- `none` and `summary_only`: no messages;
- `auto`: `summary_only` when the route's SUMMARY has text, else the last 5 messages.

On the way back, a returnable child's replies join the parent's conversation with `full` and
`last_n`, and stay out of it otherwise.

`Entry` is the engine's stored message: besides role and text it remembers the thread it was
said in (`thread`) and its place in the session (`seq`). The same customer message can sit in
several threads (it is forwarded on a handoff); `seq` identifies it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

AUTO_FALLBACK_LAST_N = 5
# A `count` past this is every message of any conversation; the count is kept in a saved session,
# which holds counts up to this.
MAX_LAST_N = 10**9


@dataclass(frozen=True, slots=True)
class Entry:
    """One stored message: `role` is user, assistant, tool or system."""

    role: str
    text: str
    agent: str
    seq: int
    thread: str
    tool_call_id: str | None = None
    tool: str | None = None  # the tool a call (or its result) is about

    @property
    def is_user(self) -> bool:
        return self.role == "user"

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "role": self.role,
            "text": self.text,
            "agent": self.agent,
            "seq": self.seq,
            "thread": self.thread,
        }
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        if self.tool is not None:
            data["tool"] = self.tool
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Entry:
        return cls(
            data["role"],
            data["text"],
            data["agent"],
            data["seq"],
            data["thread"],
            data.get("tool_call_id"),
            data.get("tool"),
        )


@dataclass(frozen=True, slots=True)
class Selection:
    """The history a target gets: the mode actually used, its count (last_n only), the messages."""

    mode: str
    count: int | None
    messages: tuple[Entry, ...]


def add_in_order(history: list[Entry], entry: Entry) -> None:
    """Add a message to a thread's history where it belongs in the session (a replayed request
    forwarded to a new agent is older than the history copied to it), and only once."""
    if history and history[-1].seq < entry.seq:
        history.append(entry)
        return
    if any(e.seq == entry.seq for e in history):
        return
    at = next((i for i, e in enumerate(history) if e.seq > entry.seq), len(history))
    history.insert(at, entry)


# --- units ---------------------------------------------------------------------------------------


def units(messages: Sequence[Entry]) -> list[tuple[Entry, ...]]:
    """Group messages into units: a tool call with its results is one unit, anything else alone.

    A tool call is a non-tool message with a `tool_call_id`; the `tool` messages right after it
    that carry the same id are its results.
    """
    out: list[tuple[Entry, ...]] = []
    i = 0
    while i < len(messages):
        first = messages[i]
        j = i + 1
        if first.tool_call_id is not None and first.role != "tool":
            while j < len(messages) and messages[j].role == "tool" and messages[j].tool_call_id == first.tool_call_id:
                j += 1
        out.append(tuple(messages[i:j]))
        i = j
    return out


def last_n(messages: Sequence[Entry], n: int) -> tuple[Entry, ...]:
    """The most recent messages that fit in `n`, taking whole units from the newest backwards.

    Stops at the first unit that does not fit, so the window is always a contiguous tail; when
    the newest unit alone is larger than `n`, the result is empty.
    """
    if n <= 0:
        return ()
    taken: list[tuple[Entry, ...]] = []
    size = 0
    for unit in reversed(units(messages)):
        if size + len(unit) > n:
            break
        taken.append(unit)
        size += len(unit)
    return tuple(entry for unit in reversed(taken) for entry in unit)


# --- full ----------------------------------------------------------------------------------------


def full(
    caller: Sequence[Entry],
    handled_by_children: Iterable[Entry],
    excluded_threads: Collection[str] = (),
) -> tuple[Entry, ...]:
    """The caller's conversation plus customer messages its earlier children handled.

    Messages said in an excluded thread (a child that gathered a sensitive field) are left out,
    wherever they sit. The result is in session order; a message present twice (a forwarded
    customer message) appears once.
    """
    seen: set[int] = set()
    merged: list[Entry] = []
    for entry in caller:
        if entry.thread in excluded_threads or entry.seq in seen:
            continue
        seen.add(entry.seq)
        merged.append(entry)
    for entry in handled_by_children:
        if entry.is_user and entry.thread not in excluded_threads and entry.seq not in seen:
            seen.add(entry.seq)
            merged.append(entry)
    merged.sort(key=lambda e: e.seq)
    return tuple(merged)


# --- selection -----------------------------------------------------------------------------------


def resolve_mode(mode: str, count: int | None, summary_text: str) -> tuple[str, int | None]:
    """The mode and count used at thread creation; `auto` becomes one of its two readings."""
    if mode == "auto":
        return ("summary_only", None) if summary_text.strip() else ("last_n", AUTO_FALLBACK_LAST_N)
    if mode == "last_n":
        if count is None or count <= 0:
            return "full", None
        return "last_n", min(count, MAX_LAST_N)
    if mode in ("none", "summary_only", "full"):
        return mode, None
    return "full", None


def select(
    mode: str,
    count: int | None,
    summary_text: str,
    caller: Sequence[Entry],
    handled_by_children: Iterable[Entry] = (),
    excluded_threads: Collection[str] = (),
) -> Selection:
    """Apply a route's history setting to the caller's conversation."""
    used, n = resolve_mode(mode, count, summary_text)
    if used == "full":
        return Selection("full", None, full(caller, handled_by_children, excluded_threads))
    if used == "last_n":
        assert n is not None
        return Selection("last_n", n, last_n(caller, n))
    return Selection(used, None, ())


def joins_parent(mode: str) -> bool:
    """Whether a returning child's replies join the parent's conversation (seed 000)."""
    return mode in ("full", "last_n")


def replies_joining_parent(mode: str, child_messages: Iterable[Entry], child_threads: Collection[str]) -> list[Entry]:
    """The child's own replies (said in one of `child_threads`, tool calls left out) that join
    the parent on return."""
    if not joins_parent(mode):
        return []
    return [e for e in child_messages if e.role == "assistant" and e.tool is None and e.thread in child_threads]
