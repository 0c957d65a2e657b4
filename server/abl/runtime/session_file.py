"""The saved-session file: reading it as untrusted input, and the records a journal appends.

A session file is JSON Lines. The first line is a snapshot: the whole session as
`Session.to_dict()` gives it (`format: abl-session`, `version`, `state`, `trace`, `clock_ticks`,
`ids`, `trace_level`). Each later line is a delta written after one turn (`Session.journal`):
the trace events and conversation log entries added since the line before, the threads that
changed (a thread's history only by its new messages when the older ones are unchanged), and
the session's small fields. So saving after every turn costs what the turn added, not the size
of the whole conversation. A file written by `Session.save` is one snapshot line; an older
version-1 file (one indented JSON document) is read as a snapshot.

`read_session` is the one loader: text or bytes in, the merged session data out, or a
`SessionFileError` whose one-line message says where (line, and the path inside the JSON) and
what is wrong. It never raises anything else, whatever the input: the size, the nesting, the
numbers, the strings (lone surrogates), the types and the references between threads are all
checked against the schema below before anything is built. A last line cut off by a crash in
the middle of a write (no newline at its end) is dropped: the session resumes before that turn.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from abl.expr.values import MAX_INT
from abl.runtime.events import EVENTS
from abl.runtime.session_types import SessionError
from abl.syntax.limits import MAX_FILE_BYTES

FORMAT = "abl-session"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)

MAX_SESSION_BYTES = 256 * 2**20
MAX_VALUE_DEPTH = 64  # lists and objects inside each other in a value or a trace field
MAX_COUNT = 10**9  # turns, sequence numbers, clock ticks, ids handed out
MAX_MS = 10**13  # declared time, in milliseconds (about 300 years)
# Integers in values are below MAX_INT, the bound of what expressions give (larger ones become floats).
# Characters of an agent, thread or variable name: each is read from a source file (a `SET`
# target, an `AS` name), so none is longer than the largest file the project reads.
MAX_NAME = MAX_FILE_BYTES

HISTORY_MODES = ("full", "none", "summary_only", "auto", "last_n")
THREAD_STATUSES = ("active", "waiting", "completed")
ROLES = ("user", "assistant", "tool", "system")
TRACE_LEVELS = ("minimal", "standard", "verbose", "debug")


class SessionFileError(SessionError):
    """A saved session that cannot be loaded, with where the problem is."""

    def __init__(self, message: str, line: int | None = None, where: str | None = None, source: str = "") -> None:
        self.line = line
        self.where = where
        self.reason = message
        self.source = source
        place = [source] if source else []
        if line is not None:
            place.append(f"line {line}")
        if where:
            message = f"the saved session is incomplete or damaged at {where}: {message}"
        super().__init__(f"{', '.join(place)}: {message}" if place else message)

    def from_file(self, source: str) -> SessionFileError:
        """The same problem, said of the file `source`."""
        return SessionFileError(self.reason, self.line, self.where, source)


# --- reading ------------------------------------------------------------------------------------


def read_session(content: str | bytes) -> dict[str, Any]:
    """The session in `content` (a file's text or bytes), merged and checked. Raises
    SessionFileError, and nothing else."""
    if isinstance(content, (bytes, bytearray)):
        if len(content) > MAX_SESSION_BYTES:
            raise SessionFileError(_too_large(len(content)))
        try:
            text = bytes(content).decode("utf-8")
        except UnicodeDecodeError as err:
            raise SessionFileError(f"the file is not UTF-8 text (byte {err.start})") from None
    else:
        text = content
        if len(text) > MAX_SESSION_BYTES:
            raise SessionFileError(_too_large(len(text)))
    lines = text.split("\n")
    try:
        first = _decode(lines[0])
    except SessionFileError:
        first = None
    if not isinstance(first, dict):
        # One JSON document over several lines: a version-1 file.
        data = _parse(text, 1)
        return validate_session(data)
    data = first
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        finished = number < len(lines)  # a line without its newline was being written when the writer stopped
        delta = _json_line(line, number, last=not finished)
        if delta is None:
            break
        _apply_delta(data, delta, number)
    return validate_session(data)


def _too_large(size: int) -> str:
    return f"the session is {size:,} bytes; sessions over {MAX_SESSION_BYTES:,} bytes are not loaded"


def _json_line(line: str, number: int, last: bool) -> Any:
    """One line's JSON; None for an unfinished last line (cut off by a crash)."""
    try:
        return _decode(line)
    except SessionFileError:
        if last:
            return None
        raise SessionFileError("not valid JSON", number) from None


def _parse(text: str, line: int) -> Any:
    try:
        return _decode(text)
    except SessionFileError as err:
        raise SessionFileError(err.reason, line if err.line is None else err.line) from None


def _decode(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise SessionFileError(f"not valid JSON: {err.msg} (column {err.colno})", err.lineno) from None
    except RecursionError:
        raise SessionFileError("not valid JSON: nested too deeply") from None
    except ValueError as err:  # an integer of thousands of digits
        raise SessionFileError(f"not valid JSON: {err}") from None


# --- deltas ---------------------------------------------------------------------------------------

_DELTA_KEYS = ("delta", "state", "threads", "log", "trace", "clock_ticks", "ids")


def _apply_delta(data: dict[str, Any], delta: Any, line: int) -> None:
    """Merge one delta line into the snapshot data (both plain JSON); checked as it goes, and the
    merged whole is checked again by `validate_session`."""
    if not isinstance(delta, dict) or not isinstance(delta.get("delta"), int):
        raise SessionFileError("a line after the first must be a turn's delta (`delta: <turn>`)", line)
    unknown = sorted(set(delta) - set(_DELTA_KEYS))
    if unknown:
        raise SessionFileError(f"unknown key `{unknown[0]}` in a delta", line)
    state = data.get("state")
    if not isinstance(state, dict) or not isinstance(state.get("threads"), list):
        raise SessionFileError("the first line holds no session state to continue", 1)
    small = _typed(delta.get("state", {}), dict, line, "$.state")
    if "threads" in small or "log" in small:
        raise SessionFileError("a delta's state cannot replace `threads` or `log`", line, "$.state")
    state.update(small)
    threads = {t["id"]: t for t in state["threads"] if isinstance(t, dict) and isinstance(t.get("id"), str)}
    for index, change in enumerate(_typed(delta.get("threads", []), list, line, "$.threads")):
        where = f"$.threads[{index}]"
        change = _typed(change, dict, line, where)
        ident = change.get("id")
        if not isinstance(ident, str):
            raise SessionFileError("a changed thread needs its `id`", line, where)
        added = change.pop("history_added", None)
        known = threads.get(ident)
        if known is None:
            if added is not None:
                raise SessionFileError(f"thread `{_clip(ident)}` is new, so its whole history is needed", line, where)
            state["threads"].append(change)
            threads[ident] = change
            continue
        known.update(change)
        if added is not None:
            history = known.get("history")
            if not isinstance(history, list):
                raise SessionFileError(f"thread `{_clip(ident)}` has no history to add to", line, where)
            history.extend(_typed(added, list, line, f"{where}.history_added"))
    log = state.get("log")
    if "log" in delta:
        if not isinstance(log, list):
            raise SessionFileError("the session has no log to add to", line, "$.log")
        log.extend(_typed(delta["log"], list, line, "$.log"))
    if "trace" in delta:
        trace = data.get("trace")
        if not isinstance(trace, list):
            raise SessionFileError("the session has no trace to add to", line, "$.trace")
        trace.extend(_typed(delta["trace"], list, line, "$.trace"))
    for key in ("clock_ticks", "ids"):
        if key in delta:
            data[key] = delta[key]


def _typed(value: Any, kind: type, line: int, where: str) -> Any:
    if not isinstance(value, kind):
        raise SessionFileError(f"expected {_KIND_NAMES[kind]}, got {_describe(value)}", line, where)
    return value


# --- the schema ---------------------------------------------------------------------------------------


def validate_session(data: Any) -> dict[str, Any]:
    """`data` itself when it is a complete, consistent saved session; SessionFileError otherwise."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SessionFileError("this is not a saved session (no `format: abl-session`)")
    version = data.get("version")
    if isinstance(version, bool) or version not in READABLE_VERSIONS:
        raise SessionFileError(
            f"saved session version {_describe(version)} is not supported (expected {FORMAT_VERSION})"
        )
    check = _Checker()
    check.object(
        data,
        "$",
        {
            "format": check.text,
            "version": check.integer(1, FORMAT_VERSION),
            "state": check.state,
            "trace": check.list_of(check.event),
            "clock_ticks": check.integer(0, MAX_COUNT),
            "ids": check.mapping(check.name, check.integer(0, MAX_COUNT)),
        },
        optional={"trace_level": check.one_of(TRACE_LEVELS)},
    )
    return data


class _Checker:
    """Checks plain JSON data against the session schema, naming the path of the first problem."""

    def __init__(self) -> None:
        self.thread_ids: set[str] = set()

    # --- building blocks -------------------------------------------------------------------

    def fail(self, where: str, message: str) -> None:
        raise SessionFileError(message, where=where)

    def object(
        self,
        value: Any,
        where: str,
        required: Mapping[str, Callable[[Any, str], None]],
        optional: Mapping[str, Callable[[Any, str], None]] | None = None,
    ) -> None:
        if not isinstance(value, dict):
            self.fail(where, f"expected an object, got {_describe(value)}")
        optional = optional or {}
        for key in value:
            if key not in required and key not in optional:
                self.fail(where, f"unknown key {_clip(str(key))!r}")
        for key, check in required.items():
            if key not in value:
                self.fail(where, f"the key `{key}` is missing")
            check(value[key], f"{where}.{key}")
        for key, check in optional.items():
            if key in value:
                check(value[key], f"{where}.{key}")

    def text(self, value: Any, where: str) -> None:
        if not isinstance(value, str):
            self.fail(where, f"expected a text, got {_describe(value)}")
        self._unicode(value, where)

    def name(self, value: Any, where: str) -> None:
        self.text(value, where)
        if not value or len(value) > MAX_NAME:
            self.fail(where, f"expected a name of 1 to {MAX_NAME:,} characters")

    def optional(self, check: Callable[[Any, str], None]) -> Callable[[Any, str], None]:
        def run(value: Any, where: str) -> None:
            if value is not None:
                check(value, where)

        return run

    def flag(self, value: Any, where: str) -> None:
        if not isinstance(value, bool):
            self.fail(where, f"expected true or false, got {_describe(value)}")

    def integer(self, low: int, high: int) -> Callable[[Any, str], None]:
        def run(value: Any, where: str) -> None:
            if isinstance(value, bool) or not isinstance(value, int):
                self.fail(where, f"expected a whole number, got {_describe(value)}")
            if not low <= value <= high:
                self.fail(where, f"expected a number from {low:,} to {high:,}, got {_describe(value)}")

        return run

    def one_of(self, allowed: tuple[str, ...]) -> Callable[[Any, str], None]:
        def run(value: Any, where: str) -> None:
            if value not in allowed:
                self.fail(where, f"expected one of {', '.join(allowed)}, got {_describe(value)}")

        return run

    def list_of(self, item: Callable[[Any, str], None]) -> Callable[[Any, str], None]:
        def run(value: Any, where: str) -> None:
            if not isinstance(value, list):
                self.fail(where, f"expected a list, got {_describe(value)}")
            for index, entry in enumerate(value):
                item(entry, f"{where}[{index}]")

        return run

    def mapping(self, key: Callable[[Any, str], None], item: Callable[[Any, str], None]) -> Callable[[Any, str], None]:
        def run(value: Any, where: str) -> None:
            if not isinstance(value, dict):
                self.fail(where, f"expected an object, got {_describe(value)}")
            for name, entry in value.items():
                key(name, f"{where} (a key)")
                item(entry, f"{where}.{_clip(name)}")

        return run

    def value(self, value: Any, where: str) -> None:
        """Any JSON value a variable or a trace field may hold, within the limits."""
        pending: list[tuple[Any, str, int]] = [(value, where, 0)]
        while pending:
            item, path, depth = pending.pop()
            if isinstance(item, str):
                self._unicode(item, path)
            elif isinstance(item, bool) or item is None:
                continue
            elif isinstance(item, int):
                if not -MAX_INT < item < MAX_INT:
                    self.fail(path, f"the number has more than {len(str(MAX_INT)) - 1} digits")
            elif isinstance(item, float):
                if not math.isfinite(item):
                    self.fail(path, "the number is not finite")
            elif isinstance(item, (list, dict)):
                if depth >= MAX_VALUE_DEPTH:
                    self.fail(path, f"values are nested more than {MAX_VALUE_DEPTH} deep")
                if isinstance(item, list):
                    pending.extend((entry, f"{path}[{i}]", depth + 1) for i, entry in enumerate(item))
                else:
                    for key, entry in item.items():
                        self._unicode(key, f"{path} (a key)")
                        pending.append((entry, f"{path}.{_clip(key)}", depth + 1))
            else:
                self.fail(path, f"unexpected {_describe(item)}")

    def _unicode(self, text: str, where: str) -> None:
        if text.isascii():
            return
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            self.fail(where, "the text holds a lone surrogate (half of a UTF-16 pair), which is not a character")

    # --- the session ---------------------------------------------------------------------------

    def state(self, value: Any, where: str) -> None:
        if not isinstance(value, dict):
            self.fail(where, f"expected an object, got {_describe(value)}")
        threads = value.get("threads")
        if isinstance(threads, list):
            ids = [t.get("id") for t in threads if isinstance(t, dict)]
            self.thread_ids = {i for i in ids if isinstance(i, str)}
            if len(self.thread_ids) != len(threads):
                self.fail(f"{where}.threads", "every thread needs an `id` of its own")
        count = self.integer(0, MAX_COUNT)
        self.object(
            value,
            where,
            {
                "entry_agent": self.name,
                "threads": self.list_of(self.thread),
                "active": self.thread_ref,
                "stack": self.list_of(self.frame),
                "chain": self.list_of(self.name),
                "turn": count,
                "seq": count,
                "log": self.list_of(self.entry),
                "ended": self.flag,
                "end_reason": self.optional(self.text),
                "greeting": self.list_of(self.greeting),
                "tool_calls": self.mapping(self.name, count),
                "unique_ids": count,
            },
            optional={"declared_ms": self.integer(0, MAX_MS)},
        )
        if not value["threads"]:
            self.fail(f"{where}.threads", "a session has at least one thread")

    def thread_ref(self, value: Any, where: str) -> None:
        self.text(value, where)
        if value not in self.thread_ids:
            self.fail(where, f"no thread has the id {_describe(value)}")

    def thread(self, value: Any, where: str) -> None:
        names = self.list_of(self.name)
        count = self.integer(0, MAX_COUNT)
        self.object(
            value,
            where,
            {
                "id": self.name,
                "agent": self.name,
                "status": self.one_of(THREAD_STATUSES),
                "values": self.mapping(self.name, self.value),
                "gathered": names,
                "history": self.list_of(self.entry),
                "origin": self.optional(self.thread_ref),
                "returnable": self.flag,
                "history_mode": self.one_of(HISTORY_MODES),
                "history_count": self.optional(count),
                "asked": self.optional(self.name),
                "attempts": self.mapping(self.name, count),
                "fired": self.list_of(count),
                "sensitive": self.flag,
                "waiting_for_input": names,
                "suspended_turn": self.optional(count),
            },
            optional={"warned": names, "flow": self.flow, "intents": self.intents},
        )

    def entry(self, value: Any, where: str) -> None:
        self.object(
            value,
            where,
            {
                "role": self.one_of(ROLES),
                "text": self.text,
                "agent": self.text,
                "seq": self.integer(0, MAX_COUNT),
                "thread": self.text,
            },
            optional={"tool_call_id": self.optional(self.text), "tool": self.optional(self.name)},
        )

    def frame(self, value: Any, where: str) -> None:
        self.object(
            value,
            where,
            {
                "parent": self.thread_ref,
                "child": self.thread_ref,
                "route": self.integer(-1, MAX_COUNT),
                "utterance": self.entry,
                "chain_length": self.integer(0, MAX_COUNT),
                "history_mode": self.one_of(HISTORY_MODES),
            },
            optional={
                "started_ms": self.integer(0, MAX_MS),
                "timeout_ms": self.optional(self.integer(0, MAX_MS)),
                "on_timeout": self.on_timeout,
            },
        )

    def on_timeout(self, value: Any, where: str) -> None:
        self.text(value, where)
        word = value.strip().lower()  # sessions saved before the action was normalised kept its case
        if word not in ("continue", "escalate") and not word.startswith("respond:"):
            self.fail(where, f"expected continue, escalate or respond:<text>, got {_describe(value)}")

    def greeting(self, value: Any, where: str) -> None:
        if not isinstance(value, list) or len(value) != 2:
            self.fail(where, f"expected [agent, text], got {_describe(value)}")
        self.text(value[0], f"{where}[0]")
        self.text(value[1], f"{where}[1]")

    def flow(self, value: Any, where: str) -> None:
        names = self.list_of(self.name)
        self.object(
            value,
            where,
            {},
            optional={
                "step": self.optional(self.name),
                "waiting": self.optional(self.one_of(("gather", "choice", "input", "retry", "reasoning"))),
                "done": self.flag,
                "attempts": self.mapping(self.name, self.integer(0, MAX_COUNT)),
                "trail": names,
                "visited": names,
                "recollect": names,
                "turns": self.integer(0, MAX_COUNT),
            },
        )

    def intents(self, value: Any, where: str) -> None:
        queued = self.list_of(
            lambda item, at: self.object(
                item, at, {"intent": self.name, "text": self.text, "at": self.integer(0, MAX_MS)}
            )
        )
        self.object(value, where, {}, optional={"queue": queued, "offer": self.offer})

    def offer(self, value: Any, where: str) -> None:
        kind = value.get("kind") if isinstance(value, dict) else None
        if kind == "queue":
            self.object(value, where, {"kind": self.text, "intent": self.name, "text": self.text})
        elif kind == "choose":
            option = lambda item, at: self.object(item, at, {"intent": self.name, "text": self.text})  # noqa: E731
            self.object(value, where, {"kind": self.text, "intents": self.list_of(option)})
        else:
            self.fail(where, "expected an offer of kind `queue` or `choose`")

    def event(self, value: Any, where: str) -> None:
        if not isinstance(value, dict):
            self.fail(where, f"expected a trace event (an object), got {_describe(value)}")
        kind = value.get("type")
        if not isinstance(kind, str) or kind not in EVENTS:
            self.fail(f"{where}.type", f"unknown trace event type {_describe(kind)}")
        for key, check in (
            ("seq", self.integer(1, MAX_COUNT)),
            ("turn", self.integer(0, MAX_COUNT)),
            ("thread", self.text),
            ("agent", self.text),
            ("ts", self.text),
        ):
            if key not in value:
                self.fail(where, f"the key `{key}` is missing")
            check(value[key], f"{where}.{key}")
        for key, field in value.items():
            if key not in ("type", "seq", "turn", "thread", "agent", "ts"):
                self._unicode(key, f"{where} (a key)")
                self.value(field, f"{where}.{_clip(key)}")


_KIND_NAMES: dict[type, str] = {dict: "an object", list: "a list"}


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = (
            repr(value) if isinstance(value, float) else (str(value) if abs(value) < 10**40 else "a very long number")
        )
        return text
    if isinstance(value, str):
        return repr(_clip(value))
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _clip(text: str, limit: int = 40) -> str:
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    # Shown in a message: a lone surrogate would stop the message itself from being printed.
    return shown.encode("utf-8", "replace").decode("utf-8")
