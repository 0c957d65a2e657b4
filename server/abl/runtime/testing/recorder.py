"""Turn a conversation that was just run into a conversation test (`abl run --record`).

Each turn keeps the user's message, the active agent after it, the reply, and the key trace
events with the fields that describe a routing decision (who handed off to whom, returnable or
not, how many history messages, what came back, how a handoff ended). Timing, ids and
sequence numbers are left out, so the recorded test stays true on a re-run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

# Event types worth asserting on, with the fields recorded for each (when present).
KEY_EVENTS: Mapping[str, tuple[str, ...]] = {
    "handoff": ("from", "to", "returnExpected", "reasonCode", "historyMessages", "passed"),
    "handoff_completed": ("to", "outcome", "code"),
    "handoff_return_handler": ("from", "to", "action", "mappedFields", "setFields", "clearedFields"),
    "thread_resume": ("agent",),
    "resume_intent": ("resumeWith", "depth"),
    "resume_intent_depth_limit": (),
    "memory_error": ("target", "code"),
    "complete": ("terminal",),
    "escalate": (),
    "tool_result": ("tool", "success"),
    "error": ("code",),
    "digression": ("intent", "scope"),
    "sub_intent": ("intent",),
    "correction": ("field", "value"),
    "action_handler_executed": ("step", "action"),
    "multi_intent_plan_built": ("strategy",),
    "multi_intent_queued": ("intents",),
}


@dataclass(frozen=True)
class RecordedTurn:
    user: str
    replies: tuple[tuple[str, str], ...]
    active_agent: str
    events: tuple[Mapping[str, Any], ...]
    ended: bool = False
    after_ms: int = 0  # time that passed before the message (`/wait` in the chat)


@dataclass
class Recording:
    """Everything a recorded test needs; `turns` grows as the conversation goes on."""

    project: Path
    agent: str
    name: str = "recorded conversation"
    model: str = "embedded"
    model_options: dict[str, Any] = field(default_factory=dict)
    mocks: dict[str, Any] = field(default_factory=dict)
    greeting: tuple[tuple[str, str], ...] = ()
    start_events: tuple[Mapping[str, Any], ...] = ()  # what ON_START did
    turns: list[RecordedTurn] = field(default_factory=list)

    def add(self, turn: RecordedTurn) -> None:
        self.turns.append(turn)


def key_events(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The events worth asserting on, trimmed to their stable fields."""
    out = []
    for event in events:
        kind = event.get("type")
        if kind not in KEY_EVENTS:
            continue
        entry: dict[str, Any] = {"type": kind}
        for key in KEY_EVENTS[str(kind)]:
            if key in event and event[key] is not None:
                entry[key] = event[key]
        out.append(entry)
    return out


def to_document(recording: Recording, test_path: Path) -> dict[str, Any]:
    """The test file as plain data; `project` is written relative to the test file's folder."""
    doc: dict[str, Any] = {
        "project": _relative(recording.project, test_path.parent),
        "agent": recording.agent,
    }
    if recording.model != "embedded":
        doc["model"] = recording.model
        options = {k: v for k, v in recording.model_options.items() if k in ("base_url", "model", "timeout")}
        if options:
            doc["model_options"] = options
    if recording.mocks:
        doc["mocks"] = recording.mocks
    test: dict[str, Any] = {"name": recording.name}
    if recording.greeting:
        test["greeting"] = _reply_text(recording.greeting)
    start_events = key_events(recording.start_events)
    if start_events:
        test["start_events"] = start_events
    test["turns"] = [_turn(t) for t in recording.turns]
    doc["tests"] = [test]
    return doc


def dump(recording: Recording, test_path: Path) -> str:
    """The recorded test as YAML text."""
    header = (
        "# Recorded with `abl run --record`. Loosen the reply checks (`contains`, `regex`) where the\n"
        "# exact wording does not matter, and keep the events that state what must happen.\n"
    )
    body = yaml.safe_dump(to_document(recording, test_path), sort_keys=False, allow_unicode=True, width=100)
    return header + body


def write(recording: Recording, test_path: Path) -> None:
    """Write the test file atomically (a temporary file, then a rename)."""
    test_path = Path(test_path)
    test_path.parent.mkdir(parents=True, exist_ok=True)
    temporary = test_path.with_name(test_path.name + ".tmp")
    temporary.write_text(dump(recording, test_path), encoding="utf-8")
    os.replace(temporary, test_path)


def _turn(turn: RecordedTurn) -> dict[str, Any]:
    entry: dict[str, Any] = {"user": turn.user}
    if turn.after_ms:
        entry["after"] = f"{turn.after_ms}ms"
    entry["agent"] = turn.active_agent
    if turn.replies:
        entry["reply"] = _reply_text(turn.replies)
    events = key_events(turn.events)
    if events:
        entry["events"] = events
    if turn.ended:
        entry["ended"] = True
    return entry


def _reply_text(replies: Sequence[tuple[str, str]]) -> str:
    return "\n".join(text for _, text in replies)


def _relative(target: Path, base: Path) -> str:
    try:
        rel = os.path.relpath(Path(target).resolve(), Path(base).resolve())
    except ValueError:  # another drive on Windows
        return str(Path(target).resolve())
    return Path(rel).as_posix()
