"""Session state as plain data: threads, the stack of waiting parents, the handoff chain.

Everything here serialises to JSON (`to_data`/`from_data`) and back without loss, so a saved
session resumes exactly where it stopped. Lists keep their order and dicts their insertion
order; nothing depends on set iteration.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from abl.runtime.history import Entry

ACTIVE = "active"
WAITING = "waiting"
COMPLETED = "completed"


@dataclass(slots=True)
class Thread:
    """One activation of an agent: its own conversation and data."""

    id: str
    agent: str
    status: str = ACTIVE
    values: dict[str, Any] = field(default_factory=dict)
    gathered: list[str] = field(default_factory=list)
    history: list[Entry] = field(default_factory=list)
    origin: str | None = None  # the thread whose handoff created this one
    returnable: bool = False
    history_mode: str = "full"  # resolved when the thread was created
    history_count: int | None = None
    asked: str | None = None  # the GATHER field the last prompt asked for
    attempts: dict[str, int] = field(default_factory=dict)
    fired: list[int] = field(default_factory=list)  # non-terminal COMPLETE rules already shown
    sensitive: bool = False  # asked for or gathered a sensitive field
    waiting_for_input: list[str] = field(default_factory=list)
    suspended_turn: int | None = None  # the turn in which it gave control back with a question open
    warned: list[str] = field(default_factory=list)  # one-time warnings already given
    flow: dict[str, Any] = field(default_factory=dict)  # FLOW position: step, waiting, turns, done, ...
    intents: dict[str, Any] = field(default_factory=dict)  # multi-intent queue and open questions

    def set_value(self, name: str, value: Any, gathered: bool = False) -> None:
        self.values[name] = value
        if gathered and name not in self.gathered:
            self.gathered.append(name)

    def clear_value(self, name: str) -> None:
        self.values.pop(name, None)
        if name in self.gathered:
            self.gathered.remove(name)

    def to_data(self, with_history: bool = True) -> dict[str, Any]:
        """The thread as plain data; without its history when a writer sends that apart."""
        data = {
            "id": self.id,
            "agent": self.agent,
            "status": self.status,
            "values": self.values,
            "gathered": self.gathered,
            "history": [e.to_data() for e in self.history] if with_history else [],
            "origin": self.origin,
            "returnable": self.returnable,
            "history_mode": self.history_mode,
            "history_count": self.history_count,
            "asked": self.asked,
            "attempts": self.attempts,
            "fired": self.fired,
            "sensitive": self.sensitive,
            "waiting_for_input": self.waiting_for_input,
            "suspended_turn": self.suspended_turn,
            "warned": self.warned,
            "flow": self.flow,
            "intents": self.intents,
        }
        if not with_history:
            del data["history"]
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Thread:
        return cls(
            id=data["id"],
            agent=data["agent"],
            status=data["status"],
            values=dict(data["values"]),
            gathered=list(data["gathered"]),
            history=[Entry.from_data(e) for e in data["history"]],
            origin=data["origin"],
            returnable=data["returnable"],
            history_mode=data["history_mode"],
            history_count=data["history_count"],
            asked=data["asked"],
            attempts=dict(data["attempts"]),
            fired=list(data["fired"]),
            sensitive=data["sensitive"],
            waiting_for_input=list(data["waiting_for_input"]),
            suspended_turn=data["suspended_turn"],
            warned=list(data.get("warned", [])),
            flow=dict(data.get("flow", {})),
            intents=dict(data.get("intents", {})),
        )


@dataclass(slots=True)
class Frame:
    """A parent waiting for a returnable child: what to do when control comes back."""

    parent: str  # the waiting thread
    child: str  # the thread the route created (a later permanent handoff may replace it)
    route: int  # index of the route in the parent's HANDOFF list; -1 for a flow's own handoff
    utterance: Entry  # the customer message that triggered the handoff
    chain_length: int  # length of the handoff chain before the child joined it
    history_mode: str  # the route's resolved history mode
    started_ms: int = 0  # on the session's timeline
    timeout_ms: int | None = None  # the route's TIMEOUT: how long the parent waits
    on_timeout: str = "escalate"  # what the parent does then: continue | escalate | respond:<text>

    def to_data(self) -> dict[str, Any]:
        return {
            "parent": self.parent,
            "child": self.child,
            "route": self.route,
            "utterance": self.utterance.to_data(),
            "chain_length": self.chain_length,
            "history_mode": self.history_mode,
            "started_ms": self.started_ms,
            "timeout_ms": self.timeout_ms,
            "on_timeout": self.on_timeout,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Frame:
        return cls(
            data["parent"],
            data["child"],
            data["route"],
            Entry.from_data(data["utterance"]),
            data["chain_length"],
            data["history_mode"],
            data.get("started_ms", 0),
            data.get("timeout_ms"),
            data.get("on_timeout", "escalate"),
        )


@dataclass(slots=True)
class SessionData:
    """Everything that changes while a session runs."""

    entry_agent: str
    threads: dict[str, Thread] = field(default_factory=dict)
    active: str = ""
    stack: list[Frame] = field(default_factory=list)
    chain: list[str] = field(default_factory=list)  # agents in the active handoff chain
    turn: int = 0
    seq: int = 0
    log: list[Entry] = field(default_factory=list)  # the conversation as the customer saw it
    ended: bool = False
    end_reason: str | None = None
    greeting: list[tuple[str, str]] = field(default_factory=list)
    tool_calls: dict[str, int] = field(default_factory=dict)  # mock results used, per tool
    unique_ids: int = 0
    declared_ms: int = 0  # time the conversation declared to pass (see `runtime.timeline`)

    @property
    def active_thread(self) -> Thread:
        return self.threads[self.active]

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def waiting_parent(self) -> Thread | None:
        """The thread the active child returns to, if any."""
        if not self.stack:
            return None
        return self.threads[self.stack[-1].parent]

    def descendants(self, thread_id: str) -> list[Thread]:
        """Threads created, directly or not, by handoffs from `thread_id`, oldest first."""
        found: set[str] = {thread_id}
        out: list[Thread] = []
        for thread in self.threads.values():  # creation order: an origin always comes first
            if thread.origin is not None and thread.origin in found and thread.id not in found:
                found.add(thread.id)
                out.append(thread)
        return out

    def to_data(self) -> dict[str, Any]:
        return {
            "threads": [t.to_data() for t in self.threads.values()],
            "log": [e.to_data() for e in self.log],
            **self.small_data(),
        }

    def small_data(self) -> dict[str, Any]:
        """Everything but the threads and the log: what stays small however long the session."""
        return {
            "entry_agent": self.entry_agent,
            "active": self.active,
            "stack": [f.to_data() for f in self.stack],
            "chain": self.chain,
            "turn": self.turn,
            "seq": self.seq,
            "ended": self.ended,
            "end_reason": self.end_reason,
            "greeting": [list(pair) for pair in self.greeting],
            "tool_calls": self.tool_calls,
            "unique_ids": self.unique_ids,
            "declared_ms": self.declared_ms,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> SessionData:
        threads = [Thread.from_data(t) for t in data["threads"]]
        return cls(
            entry_agent=data["entry_agent"],
            threads={t.id: t for t in threads},
            active=data["active"],
            stack=[Frame.from_data(f) for f in data["stack"]],
            chain=list(data["chain"]),
            turn=data["turn"],
            seq=data["seq"],
            log=[Entry.from_data(e) for e in data["log"]],
            ended=data["ended"],
            end_reason=data["end_reason"],
            greeting=[(a, t) for a, t in data["greeting"]],
            tool_calls=dict(data["tool_calls"]),
            unique_ids=data["unique_ids"],
            declared_ms=data.get("declared_ms", 0),
        )
