"""Read and validate `*.abltest.yaml` files into `ConversationFile`s.

Every problem becomes a `FormatError` naming the file and line and saying what to write
instead; unknown keys get a "did you mean". Validation is complete before anything runs, so a
typo never turns into a confusing test failure.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from abl.model.lower_steps import duration_ms
from abl.runtime.testing.format import (
    MODELS,
    RULE_STATUSES,
    SCRIPT_PURPOSES,
    TEST_FILE_SUFFIX,
    Conversation,
    ConversationFile,
    HistoryReceived,
    RuleRef,
    ThreadValues,
    TurnSpec,
)
from abl.runtime.testing.matcher import (
    EventPattern,
    Matcher,
    MatcherError,
    compile_matcher,
    compile_text_matcher,
    show,
)
from abl.runtime.testing.yamlread import FormatError, LineDict, LineList, plain, read_yaml
from abl.suggest import did_you_mean

FILE_KEYS = (
    "project",
    "agent",
    "model",
    "model_options",
    "mocks",
    "scripted",
    "handoff_delays",
    "tests",
    "description",
)
TEST_KEYS = (
    "name",
    "description",
    "setup",
    "greeting",
    "start_events",
    "mocks",
    "scripted",
    "handoff_delays",
    "skip",
    "rule",
    "turns",
)
TURN_KEYS = ("user", "agent", "reply", "events", "no_events", "vars", "history_received", "ended", "scripted", "after")
MODEL_OPTION_KEYS = ("base_url", "model", "timeout")
RULE_KEYS = ("id", "source", "quote", "status", "reason", "reading")

_SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox"})


def discover(paths: Iterable[str | Path]) -> tuple[list[Path], list[str]]:
    """Test files under `paths`: files as given, folders searched for `*.abltest.yaml`.

    Returns (files in a stable order, paths that do not exist).
    """
    files: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
                files.extend(Path(dirpath) / name for name in sorted(filenames) if name.endswith(TEST_FILE_SUFFIX))
        elif path.is_file():
            files.append(path)
        else:
            missing.append(str(raw))
    seen: set[Path] = set()
    unique = []
    for f in files:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique, missing


def load_file(path: str | Path, text: str | None = None) -> ConversationFile:
    """Read one test file. Raises FormatError with the file, line and what is wrong."""
    path = Path(path)
    data = read_yaml(path, text)
    return _FileReader(path).read(data)


class _FileReader:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, line: int | None, message: str) -> FormatError:
        return FormatError(self.path, line, message)

    # --- file ------------------------------------------------------------------------------

    def read(self, data: Any) -> ConversationFile:
        if data is None:
            raise self.fail(1, "the file is empty; it needs `project`, `agent` and `tests`")
        if not isinstance(data, LineDict):
            raise self.fail(_line(data, 1), "the file must be a mapping with `project`, `agent` and `tests`")
        self.known_keys(data, FILE_KEYS, "at the top level")
        project = self.required_text(data, "project")
        agent = self.required_text(data, "agent")
        model = self.text(data, "model")
        if model is not None and model not in MODELS:
            raise self.fail(data.line_of("model"), f"`model` must be one of {', '.join(MODELS)}, not {show(model)}")
        options = self.mapping(data, "model_options")
        self.known_keys(options, MODEL_OPTION_KEYS, "in `model_options` (the API key comes from OPENAI_API_KEY)")
        mocks = self.mocks(data)
        tests = data.get("tests")
        if "tests" not in data:
            raise self.fail(data.line, "missing `tests`: a list of named conversations")
        if not isinstance(tests, LineList) or not tests:
            raise self.fail(data.line_of("tests"), "`tests` must be a non-empty list of conversations")
        file_script = self.script(data)
        conversations = tuple(self.conversation(item, tests.line_of(i), file_script) for i, item in enumerate(tests))
        seen: dict[str, int] = {}
        for conv in conversations:
            if conv.name in seen:
                raise self.fail(
                    conv.line, f"two tests are named {_quote(conv.name)} (the first on line {seen[conv.name]})"
                )
            seen[conv.name] = conv.line
        return ConversationFile(
            path=self.path,
            project=(self.path.parent / project).resolve(),
            agent=agent,
            conversations=conversations,
            model=model,
            model_options=dict(options),
            mocks=mocks,
            scripted=self.script(data),
            handoff_delays=self.delays(data),
        )

    # --- conversations ---------------------------------------------------------------------

    def conversation(self, item: Any, line: int, file_script: dict[str, Any] | None) -> Conversation:
        if not isinstance(item, LineDict):
            raise self.fail(line, f"each test must be a mapping with `name` and `turns`, not {show(item)}")
        self.known_keys(item, TEST_KEYS, "in a test")
        name = self.required_text(item, "name")
        setup = self.mapping(item, "setup")
        for key in setup:
            if not isinstance(key, str):
                raise self.fail(setup.line_of(key), f"`setup` keys are variable names, not {show(key)}")
        greeting = self.text_matcher(item, "greeting")
        skip_value = item.get("skip")
        skip: str | None = None
        if skip_value is True:
            skip = "skipped"
        elif isinstance(skip_value, str) and skip_value.strip():
            skip = skip_value.strip()
        elif skip_value not in (None, False):
            raise self.fail(item.line_of("skip"), "`skip` takes true or a reason")
        turns_value = item.get("turns")
        if "turns" not in item:
            raise self.fail(item.line, f"test {_quote(name)} has no `turns`")
        if not isinstance(turns_value, LineList):
            raise self.fail(item.line_of("turns"), "`turns` must be a list of `- user: ...` entries")
        turns = tuple(self.turn(t, turns_value.line_of(i)) for i, t in enumerate(turns_value))
        start_events = self.events(item, "start_events")
        if not turns and greeting is None and not start_events:
            raise self.fail(item.line_of("turns"), f"test {_quote(name)} has no turns and no `greeting` to check")
        own_script = self.script(item)
        return Conversation(
            name=name,
            line=item.line,
            turns=turns,
            setup={str(k): plain(v) for k, v in setup.items()},
            greeting=greeting,
            start_events=start_events,
            mocks=self.mocks(item),
            scripted=own_script,
            skip=skip,
            handoff_delays=self.delays(item),
            rule=self.rule(item),
        )

    def rule(self, item: LineDict) -> RuleRef | None:
        """The `rule` a test is written against: metadata only, nothing runs differently."""
        if "rule" not in item:
            return None
        block = item["rule"]
        if not isinstance(block, LineDict):
            raise self.fail(item.line_of("rule"), "`rule` must be a mapping with `id`, `source`, `quote` and `status`")
        self.known_keys(block, RULE_KEYS, "in `rule`")
        fields = {key: self.required_text(block, key) for key in ("id", "source", "quote", "status")}
        if fields["status"] not in RULE_STATUSES:
            raise self.fail(
                block.line_of("status"),
                f"`rule.status` must be {' or '.join(_quote(s) for s in RULE_STATUSES)}, not {show(fields['status'])}",
            )
        reason = self.text(block, "reason")
        if fields["status"] == "not run locally" and not reason:
            raise self.fail(block.line_of("status"), "a rule that is not run locally needs a `reason`")
        return RuleRef(**fields, reason=reason, reading=self.text(block, "reading"))

    # --- turns -----------------------------------------------------------------------------

    def turn(self, item: Any, line: int) -> TurnSpec:
        if isinstance(item, str):
            return TurnSpec(user=item, line=line)
        if not isinstance(item, LineDict):
            raise self.fail(line, f"each turn must be a mapping starting with `user:`, not {show(item)}")
        self.known_keys(item, TURN_KEYS, "in a turn")
        if "user" not in item:
            raise self.fail(item.line, "a turn needs `user:` (the customer's message)")
        user_value = item["user"]
        if isinstance(user_value, (LineDict, LineList)) or user_value is None:
            raise self.fail(item.line_of("user"), "`user` must be the message text")
        user = user_value if isinstance(user_value, str) else item.raw.get("user", str(user_value))
        ended = item.get("ended")
        if ended is not None and not isinstance(ended, bool):
            raise self.fail(item.line_of("ended"), "`ended` takes true or false")
        return TurnSpec(
            user=user,
            line=item.line,
            agent=self.text(item, "agent"),
            reply=self.text_matcher(item, "reply"),
            events=self.events(item, "events"),
            no_events=self.events(item, "no_events"),
            vars=self.thread_values(item),
            history_received=self.history_received(item),
            ended=ended,
            scripted=self.turn_script(item),
            after_ms=self.duration(item, "after") or 0,
            key_lines={str(k): v for k, v in item.key_lines.items()},
        )

    def events(self, item: LineDict, key: str) -> tuple[EventPattern, ...]:
        if key not in item:
            return ()
        value = item[key]
        if not isinstance(value, LineList):
            raise self.fail(item.line_of(key), f"`{key}` must be a list of events (`- type: handoff` ...)")
        return tuple(self.event(entry, value.line_of(i), key) for i, entry in enumerate(value))

    def event(self, entry: Any, line: int, key: str) -> EventPattern:
        if isinstance(entry, str):
            return EventPattern(entry, (), line)
        if not isinstance(entry, LineDict):
            raise self.fail(
                line, f"an entry of `{key}` must be an event type or a mapping with `type`, not {show(entry)}"
            )
        event_type = entry.get("type")
        if not isinstance(event_type, str) or not event_type.strip():
            raise self.fail(entry.line, f"an entry of `{key}` needs `type:` (for example `type: handoff`)")
        fields = []
        for name, spec in entry.items():
            if name == "type":
                continue
            fields.append((str(name), self.matcher(spec, entry.line_of(name), f"field `{name}`")))
        return EventPattern(event_type.strip(), tuple(fields), entry.line)

    def thread_values(self, item: LineDict) -> tuple[ThreadValues, ...]:
        if "vars" not in item:
            return ()
        value = item["vars"]
        line = item.line_of("vars")
        if isinstance(value, LineDict) and _is_thread_form(value):
            return (self.one_thread(value),)
        if isinstance(value, LineDict):
            return (ThreadValues(None, self.value_matchers(value), line),)
        if isinstance(value, LineList) and value:
            out = []
            for i, entry in enumerate(value):
                if not isinstance(entry, LineDict) or not _is_thread_form(entry):
                    raise self.fail(
                        value.line_of(i),
                        "each entry of a `vars` list needs `values:` (and `agent:` for a named thread)",
                    )
                out.append(self.one_thread(entry))
            return tuple(out)
        raise self.fail(line, "`vars` must map variable names to expected values (or give `agent:` and `values:`)")

    def one_thread(self, entry: LineDict) -> ThreadValues:
        agent = self.text(entry, "agent")
        values = entry.get("values")
        if not isinstance(values, LineDict):
            raise self.fail(entry.line_of("values"), "`values` must map variable names to expected values")
        return ThreadValues(agent, self.value_matchers(values), entry.line)

    def value_matchers(self, values: LineDict) -> tuple[tuple[str, Matcher], ...]:
        if not values:
            raise self.fail(values.line, "`vars` lists no values to check")
        return tuple((str(k), self.matcher(v, values.line_of(k), f"variable `{k}`")) for k, v in values.items())

    def history_received(self, item: LineDict) -> tuple[HistoryReceived, ...]:
        if "history_received" not in item:
            return ()
        value = item["history_received"]
        entries = [value] if isinstance(value, LineDict) else value
        if not isinstance(entries, LineList) and not isinstance(value, LineDict):
            raise self.fail(
                item.line_of("history_received"), "`history_received` must be `{agent: X, count: N}` or a list of them"
            )
        out = []
        for i, entry in enumerate(entries):
            line = entries.line_of(i) if isinstance(entries, LineList) else value.line
            if not isinstance(entry, LineDict):
                raise self.fail(line, "`history_received` entries must be `{agent: X, count: N}`")
            self.known_keys(entry, ("agent", "count"), "in `history_received`")
            agent = self.required_text(entry, "agent")
            if "count" not in entry:
                raise self.fail(
                    entry.line, "`history_received` needs `count:` (a number or a matcher such as `{gte: 2}`)"
                )
            out.append(
                HistoryReceived(agent, self.matcher(entry["count"], entry.line_of("count"), "`count`"), entry.line)
            )
        return tuple(out)

    # --- small readers ---------------------------------------------------------------------

    def matcher(self, spec: Any, line: int, what: str) -> Matcher:
        try:
            return compile_matcher(plain(spec))
        except MatcherError as err:
            raise self.fail(line, f"{what}: {err}") from err

    def text_matcher(self, item: LineDict, key: str) -> Matcher | None:
        if key not in item:
            return None
        value = item[key]
        if value is None:
            raise self.fail(item.line_of(key), f"`{key}` is empty; give the expected text")
        if not isinstance(value, (str, LineDict, LineList)) and key in item.raw:
            value = item.raw[key]  # `reply: yes` means the text "yes"
        try:
            return compile_text_matcher(plain(value))
        except MatcherError as err:
            raise self.fail(item.line_of(key), f"`{key}`: {err}") from err

    def text(self, item: LineDict, key: str) -> str | None:
        return self._text_value(item, key) if key in item else None

    def required_text(self, item: LineDict, key: str) -> str:
        if key not in item:
            raise self.fail(item.line, f"missing `{key}`")
        return self._text_value(item, key)

    def _text_value(self, item: LineDict, key: str) -> str:
        value = item[key]
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return item.raw.get(key, str(value))
        raise self.fail(item.line_of(key), f"`{key}` must be text, not {show(plain(value))}")

    def mapping(self, item: LineDict, key: str) -> LineDict:
        if key not in item or item[key] is None:
            empty = LineDict()
            empty.line, empty.key_lines, empty.raw = item.line_of(key), {}, {}
            empty.key_spans, empty.value_spans = {}, {}
            return empty
        value = item[key]
        if not isinstance(value, LineDict):
            raise self.fail(item.line_of(key), f"`{key}` must be a mapping")
        return value

    def mocks(self, item: LineDict) -> dict[str, Any]:
        mocks = self.mapping(item, "mocks")
        for key in mocks:
            if not isinstance(key, str):
                raise self.fail(mocks.line_of(key), f"`mocks` keys are tool names, not {show(key)}")
        return {str(k): plain(v) for k, v in mocks.items()}

    def duration(self, item: LineDict, key: str) -> int | None:
        if key not in item:
            return None
        written = item.raw.get(key, item[key])
        ms = duration_ms(str(written)) if isinstance(written, (str, int)) and not isinstance(written, bool) else None
        if ms is None:
            raise self.fail(
                item.line_of(key),
                f"`{key}` takes a duration: milliseconds (`1500`) or a number ending in `ms`, `s`, `m` or `h` (`90s`)",
            )
        return ms

    def delays(self, item: LineDict) -> dict[str, int]:
        """`handoff_delays`: how long each named agent takes to accept a handoff."""
        delays = self.mapping(item, "handoff_delays")
        out: dict[str, int] = {}
        for key in delays:
            ms = self.duration(delays, key)
            out[str(key)] = ms or 0
        return out

    def script(self, item: LineDict) -> dict[str, Any] | None:
        """A file's or test's `scripted` block: per purpose a list (in order) or a mapping."""
        if "scripted" not in item:
            return None
        block = item["scripted"]
        if not isinstance(block, LineDict):
            raise self.fail(item.line_of("scripted"), f"`scripted` must be a mapping with {', '.join(SCRIPT_PURPOSES)}")
        self.known_keys(block, (*SCRIPT_PURPOSES, "fallback"), "in `scripted`")
        out: dict[str, Any] = {}
        for key, value in block.items():
            if key == "fallback":
                if value != "embedded":
                    raise self.fail(block.line_of(key), "`fallback` can only be `embedded` (the offline model)")
                out[key] = value
            elif isinstance(value, (LineDict, LineList)):
                out[key] = plain(value)
            else:
                raise self.fail(
                    block.line_of(key), f"`scripted.{key}` must be a list (used in order) or a mapping (looked up)"
                )
        return out

    def turn_script(self, item: LineDict) -> dict[str, list[Any]] | None:
        """A turn's `scripted` answers: per purpose one answer or a list, for that turn only."""
        if "scripted" not in item:
            return None
        block = item["scripted"]
        if not isinstance(block, LineDict):
            raise self.fail(
                item.line_of("scripted"), f"a turn's `scripted` must be a mapping with {', '.join(SCRIPT_PURPOSES)}"
            )
        self.known_keys(block, SCRIPT_PURPOSES, "in a turn's `scripted`")
        return {str(k): plain(v) if isinstance(v, LineList) else [plain(v)] for k, v in block.items()}

    def known_keys(self, item: LineDict, allowed: tuple[str, ...], where: str) -> None:
        for key in item:
            if key in allowed:
                continue
            close = did_you_mean(str(key), allowed)
            hint = f"; did you mean `{close}`?" if close else f"; expected one of {', '.join(allowed)}"
            raise self.fail(item.line_of(key), f"unknown key `{key}` {where}{hint}")


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _is_thread_form(value: LineDict) -> bool:
    return "values" in value and set(value) <= {"agent", "values"}


def _line(value: Any, default: int) -> int:
    return getattr(value, "line", default)
