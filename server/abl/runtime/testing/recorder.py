"""Turn a conversation that was just run into a conversation test (`abl run --record`).

Each turn keeps the user's message, the active agent after it, the reply, and the key trace
events with the fields that describe a routing decision (who handed off to whom, returnable or
not, how many history messages, what came back, how a handoff ended). Timing, ids and
sequence numbers are left out, so the recorded test stays true on a re-run.

`write` writes a test file whole; `RecordingFile` keeps one up to date as the conversation goes
on, appending each turn's lines to the file (the turns are the document's last entry, so the
file is a complete test after every turn and a long conversation costs time in proportion to
its length, not to its square).
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

    @property
    def checkable(self) -> bool:
        """Whether the test would check anything: a test with no turn and no greeting is one
        the test loader refuses, so such a recording is not written."""
        return bool(self.turns or self.greeting)


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


class _Dumper(yaml.SafeDumper):
    """Writes a value repeated in the document in full each time, never as an `*alias` of an
    earlier one: a turn's lines then read the same whether written alone or with the rest."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _yaml(value: Any) -> str:
    return yaml.dump(value, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


_HEADER = (
    "# Recorded with `abl run --record`. Loosen the reply checks (`contains`, `regex`) where the\n"
    "# exact wording does not matter, and keep the events that state what must happen.\n"
)


def dump(recording: Recording, test_path: Path) -> str:
    """The recorded test as YAML text."""
    return _HEADER + _yaml(to_document(recording, test_path))


def turn_lines(turn: RecordedTurn) -> str:
    """One turn as the lines `dump` writes for it at the end of the file: an item of the one
    test's `turns` (written inside a document of the same shape, whose first lines are dropped,
    so its indentation and line breaks are those of the whole file)."""
    text = _yaml({"tests": [{"turns": [_turn(turn)]}]})
    return text.split("\n", 2)[2]


def write(recording: Recording, test_path: Path) -> None:
    """Write the test file atomically (a temporary file, then a rename), into a folder that exists."""
    test_path = Path(test_path)
    temporary = test_path.with_name(test_path.name + ".tmp")
    temporary.write_text(dump(recording, test_path), encoding="utf-8")
    os.replace(temporary, test_path)


class RecordingFile:
    """A test file kept up to date with a recording: written whole while it holds no turn, after
    the recording started over (a reset) or when the file was changed by someone else; otherwise
    each new turn's lines are appended, in one write, so an interrupted run leaves every turn
    before the last one whole. While the recording has nothing to check, there is no file: it
    is not created, and one this recording wrote is removed (after a reset to a silent start)."""

    def __init__(self, recording: Recording, path: Path) -> None:
        self._recording = recording
        self._path = Path(path)
        self._written = 0  # turns in the file
        self._start: tuple[object, object] | None = None  # the greeting and start events written
        self._size = -1

    def write(self) -> None:
        recording = self._recording
        start = (recording.greeting, recording.start_events)
        turns = recording.turns
        if not recording.checkable:
            if self._size >= 0:  # the file holds this recording's earlier start
                self._path.unlink(missing_ok=True)
            self._written, self._start, self._size = 0, None, -1
            return
        if (
            self._written == 0
            or len(turns) < self._written
            or self._start is None
            or start[0] is not self._start[0]
            or start[1] is not self._start[1]
            or not self._unchanged()
        ):
            write(recording, self._path)
            self._written, self._start = len(turns), start
            self._size = self._path.stat().st_size
            return
        if len(turns) == self._written:
            return
        data = "".join(turn_lines(turn) for turn in turns[self._written :]).encode("utf-8")
        with open(self._path, "ab") as handle:
            handle.write(data)
        self._written = len(turns)
        self._size += len(data)

    def _unchanged(self) -> bool:
        try:
            return self._path.stat().st_size == self._size
        except OSError:
            return False


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
