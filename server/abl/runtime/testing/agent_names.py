"""Where a conversation-test file names an agent: what renaming the agent must rewrite there.

A test names agents in these places (docs/conversation-tests.md): the file's `agent`; a turn's
`agent`; the `agent` of a `vars` thread and of a `history_received` entry; the keys of
`handoff_delays` and of the scripted `replies` and `tool_calls` (file, test or turn); and in
expected events (`start_events`, `events`, `no_events`) the envelope's `agent` and the fields
`AGENT_FIELDS` lists for the event's type, written as a plain value or inside `equals`, `not`
and `any_of`. In the reply checks (a turn's `reply`, a test's `greeting`) the name is renamed
where it stands as a word of its own: a reply names its agent (the embedded model's stand-in
answer starts with `(Agent_Name)`), and an identifier such as `Offer_Agent` inside prose is that
agent. Any other text is left as it is.
"""

from __future__ import annotations

import re
from typing import Any

from abl.runtime.events import AGENT_FIELDS
from abl.runtime.testing.yamlread import FormatError, LineDict, LineList, Span, read_yaml

_EVENT_KEYS = ("start_events", "events", "no_events")
_NAMING_MATCHERS = ("equals", "not", "any_of")
_SCRIPTED_BY_AGENT = ("replies", "tool_calls")
_REPLY_CHECKS = ("reply", "greeting")
_WORD = "A-Za-z0-9_"


def agent_name_spans(text: str, name: str) -> list[Span]:
    """The character offsets (start, end) of every place `text` names the agent `name`, in
    order, quotes excluded; none in a file that is not a readable test file: `abl test`
    reports what is wrong with it, and a rename leaves it as it is."""
    try:
        data = read_yaml("<test>", text)
    except FormatError:
        return []
    found = _Finder(text, name)
    if isinstance(data, LineDict):
        found.file(data)
    return sorted(found.spans)


class _Finder:
    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name
        self.spans: set[Span] = set()

    def file(self, data: LineDict) -> None:
        self.value(data, "agent")
        self.scripted_and_delays(data)
        for test in _items(data.get("tests")):
            if isinstance(test, LineDict):
                self.scripted_and_delays(test)
                self.events(test)
                self.words(test, "greeting")
                for turn in _items(test.get("turns")):
                    if isinstance(turn, LineDict):
                        self.turn(turn)

    def turn(self, turn: LineDict) -> None:
        self.value(turn, "agent")
        self.words(turn, "reply")
        self.scripted_and_delays(turn)
        self.events(turn)
        for key in ("vars", "history_received"):
            entries = turn.get(key)
            for entry in [entries] if isinstance(entries, LineDict) else _items(entries):
                if isinstance(entry, LineDict) and (key == "history_received" or "values" in entry):
                    self.value(entry, "agent")

    def scripted_and_delays(self, item: LineDict) -> None:
        self.keys(item.get("handoff_delays"))
        scripted = item.get("scripted")
        if isinstance(scripted, LineDict):
            for purpose in _SCRIPTED_BY_AGENT:
                answers = scripted.get(purpose)
                for answer in [answers] if isinstance(answers, LineDict) else _items(answers):
                    self.keys(answer)

    def events(self, item: LineDict) -> None:
        for key in _EVENT_KEYS:
            for entry in _items(item.get(key)):
                if not isinstance(entry, LineDict):
                    continue
                event_type = entry.get("type")
                for field in ("agent", *AGENT_FIELDS.get(event_type if isinstance(event_type, str) else "", ())):
                    self.matcher(entry, field)

    def matcher(self, owner: LineDict | LineList, key: Any) -> None:
        """A value matcher naming an agent: the name itself, or an operator around names."""
        value = owner.get(key) if isinstance(owner, LineDict) else owner[key]
        if isinstance(value, LineDict):
            for operator in _NAMING_MATCHERS:
                if operator in value:
                    self.matcher(value, operator)
        elif isinstance(value, LineList):
            for index in range(len(value)):
                self.matcher(value, index)
        elif isinstance(owner, LineDict):
            self.value(owner, key)
        else:
            self.add(owner.item_spans[key] if value == self.name else None)

    def words(self, owner: LineDict | LineList, key: Any) -> None:
        """The name as a word of its own in a reply check's texts, whatever the matchers around them."""
        value = owner.get(key) if isinstance(owner, LineDict) else owner[key]
        if isinstance(value, LineDict):
            for inner in value:
                self.words(value, inner)
        elif isinstance(value, LineList):
            for index in range(len(value)):
                self.words(value, index)
        elif isinstance(value, str) and self.name in value:
            span = owner.value_spans.get(key) if isinstance(owner, LineDict) else owner.item_spans[key]
            if span is not None:
                pattern = f"(?<![{_WORD}]){re.escape(self.name)}(?![{_WORD}])"
                written = self.text[span[0] : span[1]]
                self.spans.update((span[0] + m.start(), span[0] + m.end()) for m in re.finditer(pattern, written))

    def value(self, item: LineDict, key: Any) -> None:
        if item.get(key) == self.name:
            self.add(item.value_spans.get(key))

    def keys(self, mapping: Any) -> None:
        if isinstance(mapping, LineDict) and self.name in mapping:
            self.add(mapping.key_spans.get(self.name))

    def add(self, span: Span | None) -> None:
        """The name's own characters in `span`: inside the quotes of a quoted scalar, and only
        where the name is written as itself (no escapes, no folding)."""
        if span is None:
            return
        start, end = span
        written = self.text[start:end]
        if written == self.name:
            self.spans.add(span)
        elif len(written) == len(self.name) + 2 and written[0] in "'\"" and written[1:-1] == self.name:
            self.spans.add((start + 1, end - 1))


def _items(value: Any) -> list[Any]:
    return list(value) if isinstance(value, LineList) else []
