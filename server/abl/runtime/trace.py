"""Trace events: what the runtime did on each turn, in a form tests can assert on.

A `Trace` is an append-only list of `TraceEvent`s. Each event carries a fixed envelope
(`type`, `seq`, `turn`, `thread`, `agent`, `ts`) and free-form `fields`. Timestamps come from an
injected `Clock` and thread/session ids from an injected `IdSource`, so two runs of the same
conversation give byte-identical JSONL.

Every event type has a verbosity level (`minimal` < `standard` < `verbose` < `debug`), given
with its fields in `abl.runtime.events`. The trace always keeps everything; a level only
decides what a view or an export shows. A few fields are debug-only (the full message list of
a `model_call`).

Sensitive values never leave the trace in clear: fields named as sensitive and registered
secret values are replaced by `"[redacted]"` when an event is stored and again when it is
exported.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import IO, Any, Protocol

from abl.runtime.events import DEBUG_ONLY_FIELDS, ENVELOPE_KEYS, EVENT_LEVELS, TraceLevel, event_level

__all__ = [
    "DEBUG_ONLY_FIELDS",
    "DEFAULT_START",
    "ENVELOPE_KEYS",
    "EVENT_LEVELS",
    "REDACTED",
    "Clock",
    "CounterIds",
    "FixedClock",
    "IdSource",
    "JsonlStream",
    "Redactor",
    "Trace",
    "TraceEvent",
    "TraceLevel",
    "event_level",
    "format_timestamp",
    "read_jsonl",
    "redact_value",
    "to_json",
    "to_json_data",
]

REDACTED = "[redacted]"
_ENVELOPE = frozenset(ENVELOPE_KEYS)


# --- Clock and ids ----------------------------------------------------------------------------


class Clock(Protocol):
    """Source of the current time. The runtime never reads the wall clock directly. A clock
    that tells real time says so with a `real_time = True` attribute: durations and timeouts
    then count real time too (see `runtime.timeline`)."""

    def now(self) -> datetime:
        """The current instant, timezone-aware (UTC)."""
        ...


class IdSource(Protocol):
    """Source of session, thread and call ids."""

    def next_id(self, prefix: str) -> str:
        """A fresh id that starts with `prefix`."""
        ...


DEFAULT_START = datetime(2026, 1, 1, tzinfo=timezone.utc)


class FixedClock:
    """A deterministic clock: the first call returns `start`, each later call one `step` more."""

    def __init__(self, start: datetime = DEFAULT_START, step: timedelta = timedelta(seconds=1)) -> None:
        if start.tzinfo is None:
            start = start.replace(tzinfo=timezone.utc)
        self._next = start.astimezone(timezone.utc)
        self._step = step

    def now(self) -> datetime:
        current = self._next
        self._next = current + self._step
        return current


class CounterIds:
    """Ids `prefix-1`, `prefix-2`, ... counted separately for each prefix."""

    def __init__(self, counts: Mapping[str, int] | None = None) -> None:
        """`counts`: how many ids of each prefix were handed out before (a resumed session)."""
        self._counts: dict[str, int] = dict(counts or {})

    def next_id(self, prefix: str) -> str:
        count = self._counts.get(prefix, 0) + 1
        self._counts[prefix] = count
        return f"{prefix}-{count}"


def format_timestamp(instant: datetime) -> str:
    """ISO 8601 in UTC with millisecond precision and a `Z` suffix (fixed width, sorts as text)."""
    if instant.tzinfo is not timezone.utc:
        instant = (instant.replace(tzinfo=timezone.utc) if instant.tzinfo is None else instant).astimezone(timezone.utc)
    # One of these is written for every event: isoformat is the quick way (it truncates to
    # milliseconds, as the fixed width wants), and its `+00:00` becomes `Z`.
    return instant.isoformat(timespec="milliseconds")[:-6] + "Z"


# --- Redaction --------------------------------------------------------------------------------


class Redactor:
    """Replaces sensitive values with `"[redacted]"` anywhere inside event fields.

    Two things are sensitive: any field whose key is a registered sensitive name (at any
    depth, e.g. `values.pin`), and any registered secret value, wherever it appears. A secret
    is found in any letter case and, when it has at least `SPELLED_OUT` letters and digits,
    also inside longer words and with other separators between its characters (`ID AB 12` holds
    the secret `ab-12`), since templates and functions (`UPPER`, `REPLACE`) reshape values. A
    shorter secret is replaced only where it stands as a whole word, so that a PIN digit does
    not eat every number of the trace; one of more than `SPELLED_OUT_UP_TO` letters and digits
    (a long text typed into a sensitive field) is found as written, in any letter case, since a
    pattern allowing separators between thousands of characters takes seconds to compile.
    `version` counts changes, so a writer knows when text it already wrote must be scrubbed
    again.
    """

    SPELLED_OUT = 4
    SPELLED_OUT_UP_TO = 256

    def __init__(self, sensitive_names: Iterable[str] = (), secrets: Iterable[object] = ()) -> None:
        self._names: set[str] = set()
        self._secrets: set[str] = set()
        self._folded: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self.version = 0
        for name in sensitive_names:
            self.add_name(name)
        for secret in secrets:
            self.add_secret(secret)

    def add_name(self, name: str) -> None:
        """Treat every field with this key as sensitive."""
        if name not in self._names:
            self._names.add(name)
            self.version += 1

    def add_secret(self, value: object) -> None:
        """Treat this value as sensitive wherever it appears. Empty values and booleans (whose
        text is every `true` of the trace) are ignored."""
        if isinstance(value, bool) or value is None:
            return
        text = _plain_text(value)
        if not text.strip() or text == REDACTED or text in self._secrets:
            return
        self._secrets.add(text)
        self._folded.add(text.casefold())
        self.version += 1
        # Longest first, so a secret that contains another is replaced whole.
        ordered = sorted(self._secrets, key=len, reverse=True)
        self._pattern = re.compile("|".join(_secret_pattern(secret) for secret in ordered), re.IGNORECASE)

    @property
    def is_empty(self) -> bool:
        return not self._names and not self._secrets

    def apply(self, value: Any) -> Any:
        """A copy of `value` (JSON-like data) with every sensitive part replaced."""
        if self.is_empty:
            return value
        return self._walk(value)

    def apply_event(self, event: TraceEvent) -> TraceEvent:
        """`event` with its fields redacted (the same event when nothing had to change)."""
        if self.is_empty:
            return event
        fields = self._walk(event.fields)
        return event if fields == event.fields else dataclasses.replace(event, fields=fields)

    def text(self, text: str) -> str:
        """`text` with every registered secret replaced (names do not apply to plain text)."""
        if not self._secrets:
            return text
        return self._scrub_text(text)

    def _walk(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {key: REDACTED if key in self._names else self._walk(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._walk(item) for item in value]
        if isinstance(value, str):
            return self._scrub_text(value)
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, (int, float)) and _plain_text(value) in self._secrets:
            return REDACTED
        return value

    def _scrub_text(self, text: str) -> str:
        if text.casefold() in self._folded:
            return REDACTED
        if self._pattern is None:
            return text
        return self._pattern.sub(REDACTED, text)


def _secret_pattern(secret: str) -> str:
    """The regular expression that finds one secret in text (see `Redactor`)."""
    characters = [c for c in secret if c.isalnum()]
    if len(characters) < Redactor.SPELLED_OUT:
        return rf"(?<![0-9A-Za-z]){re.escape(secret)}(?![0-9A-Za-z])"
    if len(characters) > Redactor.SPELLED_OUT_UP_TO:
        return re.escape(secret)
    return r"[^0-9A-Za-z]{0,3}".join(re.escape(c) for c in characters)


def redact_value(value: object, sensitive: bool) -> object:
    """`value` itself, or the redaction marker when the value is sensitive and set."""
    if sensitive and value is not None:
        return REDACTED
    return value


def _plain_text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# --- Events -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One thing the runtime did. `fields` holds JSON-ready data with sorted keys."""

    type: str
    seq: int
    turn: int
    thread: str
    agent: str
    ts: str
    fields: dict[str, Any]

    def get(self, key: str, default: Any = None) -> Any:
        """A field value, or `default` when the event does not have it."""
        return self.fields.get(key, default)

    @property
    def level(self) -> TraceLevel:
        return event_level(self.type)

    def to_dict(self) -> dict[str, Any]:
        """The envelope in fixed order, then the fields in sorted order."""
        out: dict[str, Any] = {
            "type": self.type,
            "seq": self.seq,
            "turn": self.turn,
            "thread": self.thread,
            "agent": self.agent,
            "ts": self.ts,
        }
        out.update(self.fields)
        return out

    def at_level(self, level: TraceLevel) -> TraceEvent | None:
        """This event as a view at `level` shows it: None when hidden, debug-only parts removed."""
        if self.level > level:
            return None
        hidden = DEBUG_ONLY_FIELDS.get(self.type, ())
        if level >= TraceLevel.DEBUG or not hidden:
            return self
        fields = self.fields
        for path in hidden:
            fields = _without_path(fields, path)
        if fields is self.fields:
            return self
        return dataclasses.replace(self, fields=fields)


def to_json(event: TraceEvent) -> str:
    """One compact JSON line with a stable key order; non-ASCII text is kept as is."""
    return json.dumps(event.to_dict(), ensure_ascii=False, separators=(",", ":"))


def _without_path(fields: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    head, rest = path[0], path[1:]
    if head not in fields:
        return fields
    if not rest:
        return {key: value for key, value in fields.items() if key != head}
    inner = fields[head]
    if not isinstance(inner, dict):
        return fields
    trimmed = _without_path(inner, rest)
    if trimmed is inner:
        return fields
    return {**fields, head: trimmed}


_SCALARS = frozenset({str, bool, type(None)})
# Python refuses to write an int of more than 4,300 digits as text; this stays well below.
_MAX_JSON_INT = 10**1000


def json_number(value: int | float) -> int | float | str:
    """A number as JSON can hold it: one that JSON has no way to write (infinity, NaN) or that
    is too long to print becomes a short text saying so, never an exception."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return (
            value
            if -_MAX_JSON_INT < value < _MAX_JSON_INT
            else f"[a number of about {round(value.bit_length() * 0.30103):,} digits]"
        )
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _first(pair: tuple[str, Any]) -> str:
    return pair[0]


def to_json_data(value: Any) -> Any:
    """Turn a field value into JSON-ready data: dicts with sorted string keys, lists, scalars.

    Dates become ISO strings, enums their values, dataclasses dicts, sets sorted lists. Any
    other object is a programming error and raises TypeError naming its type.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    # Plain dicts and lists of plain values are most fields of most events: the fast way.
    if kind is dict:
        try:
            keys = sorted(value)
        except TypeError:  # keys of several types: sorted as text below
            keys = None
        if keys is not None and (not keys or type(keys[0]) is str):
            return {key: item if type(item := value[key]) in _SCALARS else to_json_data(item) for key in keys}
        pairs = sorted(((str(key), item) for key, item in value.items()), key=_first)
        return {key: item if type(item) in _SCALARS else to_json_data(item) for key, item in pairs}
    if kind is list or kind is tuple:
        return [item if type(item) in _SCALARS else to_json_data(item) for item in value]
    if kind is int and -_MAX_JSON_INT < value < _MAX_JSON_INT:
        return value
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return json_number(value)
    if isinstance(value, float):
        return json_number(value)
    if isinstance(value, enum.Enum):
        return to_json_data(value.value)
    if isinstance(value, datetime):
        return format_timestamp(value)
    if isinstance(value, date):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_json_data({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    if isinstance(value, Mapping):
        items = [(str(key), to_json_data(item)) for key, item in value.items()]
        return dict(sorted(items, key=lambda pair: pair[0]))
    if isinstance(value, (set, frozenset)):
        return sorted((to_json_data(item) for item in value), key=lambda item: json.dumps(item, sort_keys=True))
    if isinstance(value, (list, tuple)):
        return [to_json_data(item) for item in value]
    raise TypeError(f"trace fields cannot hold a {type(value).__name__}: {value!r}")


TraceListener = Callable[[TraceEvent], None]


class Trace:
    """The ordered events of one session; `seq` counts from 1.

    The engine calls `emit`; views and exports pick a level. Listeners see each event as it
    is stored (for live printing or streaming JSONL).
    """

    def __init__(self, clock: Clock | None = None, redactor: Redactor | None = None) -> None:
        self.clock: Clock = clock if clock is not None else FixedClock()
        self.redactor = redactor if redactor is not None else Redactor()
        self._events: list[TraceEvent] = []
        self._listeners: list[TraceListener] = []

    def emit(
        self,
        event_type: str,
        fields: Mapping[str, Any] | None = None,
        *,
        turn: int,
        thread: str,
        agent: str,
    ) -> TraceEvent:
        """Store one event and tell the listeners. Field names may not repeat envelope keys."""
        data = fields or {}
        if not _ENVELOPE.isdisjoint(data):
            clash = sorted(key for key in data if key in _ENVELOPE)
            raise ValueError(f"trace event {event_type!r}: field names {clash} are reserved for the envelope")
        clean = self.redactor.apply(to_json_data(data if type(data) is dict else dict(data)))
        event = TraceEvent(
            type=event_type,
            seq=len(self._events) + 1,
            turn=turn,
            thread=thread,
            agent=agent,
            ts=format_timestamp(self.clock.now()),
            fields=clean,
        )
        self._events.append(event)
        for listener in list(self._listeners):
            listener(event)
        return event

    def protect(self, value: object) -> None:
        """Register a secret value and redact it from every event already stored."""
        self.redactor.add_secret(value)
        self._rescrub()

    def protect_field(self, name: str) -> None:
        """Register a field name whose values are always redacted, also in stored events."""
        self.redactor.add_name(name)
        self._rescrub()

    def _rescrub(self) -> None:
        for index, event in enumerate(self._events):
            clean = self.redactor.apply(event.fields)
            if clean != event.fields:
                self._events[index] = dataclasses.replace(event, fields=clean)

    def restore(self, events: Iterable[TraceEvent]) -> None:
        """Put back the events of a saved session; the next emitted event continues their `seq`."""
        if self._events:
            raise ValueError("a trace can only be restored while it is empty")
        self._events.extend(events)

    def subscribe(self, listener: TraceListener) -> Callable[[], None]:
        """Call `listener` for each new event; the returned function stops it."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    @property
    def events(self) -> tuple[TraceEvent, ...]:
        """Every stored event, at full detail."""
        return tuple(self._events)

    def events_since(self, count: int) -> list[TraceEvent]:
        """The stored events after the first `count` (what a writer has not written yet)."""
        return self._events[count:]

    def __len__(self) -> int:
        return len(self._events)

    def at_level(self, level: TraceLevel | str) -> list[TraceEvent]:
        """The events a reader at `level` sees, with debug-only fields removed below debug."""
        wanted = TraceLevel.parse(level) if isinstance(level, str) else level
        shown = (event.at_level(wanted) for event in self._events)
        return [event for event in shown if event is not None]

    def of_type(self, *types: str) -> list[TraceEvent]:
        """The stored events whose type is one of `types`, in order."""
        return [event for event in self._events if event.type in types]

    def to_jsonl(self, level: TraceLevel | str = TraceLevel.DEBUG) -> str:
        """The events visible at `level`, one JSON object per line, each line ending in a newline."""
        return "".join(self._export_line(event) for event in self.at_level(level))

    def write_jsonl(self, target: str | Path | IO[str], level: TraceLevel | str = TraceLevel.DEBUG) -> None:
        """Write `to_jsonl(level)` to a path (replaced) or an open text stream."""
        text = self.to_jsonl(level)
        if isinstance(target, (str, Path)):
            Path(target).write_text(text, encoding="utf-8")
        else:
            target.write(text)

    def _export_line(self, event: TraceEvent) -> str:
        # Secrets registered after an event was stored are caught here as well.
        clean = dataclasses.replace(event, fields=self.redactor.apply(event.fields))
        return to_json(clean) + "\n"


class JsonlStream:
    """A trace listener that writes each visible event to a stream as it happens."""

    def __init__(self, stream: IO[str], redactor: Redactor, level: TraceLevel = TraceLevel.DEBUG) -> None:
        self._stream = stream
        self._redactor = redactor
        self._level = level

    def __call__(self, event: TraceEvent) -> None:
        shown = event.at_level(self._level)
        if shown is None:
            return
        clean = dataclasses.replace(shown, fields=self._redactor.apply(shown.fields))
        self._stream.write(to_json(clean) + "\n")
        self._stream.flush()


def read_jsonl(text: str) -> list[dict[str, Any]]:
    """Parse exported JSONL back into plain dicts (for tests and trace viewers)."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]
