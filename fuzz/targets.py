"""What is run on every fuzzed input, and what must hold.

A target takes a project as `{path: bytes}` and raises `Broken` when an invariant does not
hold; any other exception is a crash. The invariants are the documented ones:

- `parse`: never raises; `to_text()` gives the input back; every diagnostic lies in the text.
- `lower`: never raises (lowering is total).
- `check`: every rule runs (`strict_rules`: a rule's exception is a crash, not `RULE_FAILED`);
  every diagnostic and every fix edit lies inside its file; every line is looked at by the
  lowering or the catalogue walk or covered by a diagnostic, and every line under a value the
  lowering reads is read or reported by `KEY_UNDER_VALUE`, never both (`fuzz.reading`).
- `fix`: `--fix` never raises; the fixed project reports nothing new (no code more often than
  before, the fixed diagnostics aside), a second `--fix` changes nothing, and no diagnostic
  still offers a fix that `--fix` would apply (outside blocks the parser could not read), so
  `abl check` never calls fixable what `--fix` leaves. With unsafe fixes (which change meaning
  by definition) nothing the parser cannot read, and the same two last rules.
- `ide`: every editor feature at every position (and at negative and out-of-range ones) never
  raises, and what it returns points inside the files; formatting is idempotent. The server's
  copy of each file, after random incremental changes typed as an editor sends them (every
  kind of line break, and the characters `str.splitlines` breaks at), equals the editor's,
  and each position the server reports names the character it names in the server's text.
- `edits`: a project checked with a rule cache, then edited as typing does (lines added and
  removed, which move the agents below; characters typed; a route's `RETURN: true` written
  `True`; a mutation), reports after every edit exactly what a check from scratch reports, and
  its handoff graph (patched or repositioned from the last one) draws what a graph built from
  scratch draws.
- `session`, `mocks`, `test_file`: the loaders of untrusted runtime files raise only their
  own error type, with a message.
- `run`: a project that `abl run` accepts, run on a conversation (hostile messages among
  ordinary ones) as `abl run` runs it: starting the session raises nothing but `SessionError`,
  a turn raises nothing at all and takes no longer than 1 s per 10 KB of the project, its
  message and the longest message before it (which a replay reads again); afterwards the trace file holds every event as JSON, the saved session loads back
  in the same state, and the recorded conversation test reads back.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import random
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Container, Iterator
from pathlib import Path

from lsprotocol import types as lsp

from abl.checks.autofix import FixOutcome, applicable, fix_project
from abl.checks.cache import CheckCache
from abl.checks.engine import CheckOptions, check_file, check_project
from abl.checks.fixes import UNREADABLE_CODES
from abl.cli.driver import Driver
from abl.cli.run import UsageProblem, read_mocks
from abl.config import DEFAULT
from abl.diagnostics import Diagnostic
from abl.ide.format import format_text
from abl.ide.locate import locate
from abl.launch import LaunchRefused, entry_agent, judge, runnable_agents
from abl.lsp.convert import Positions
from abl.lsp.documents import SplicedTextDocument
from abl.model import load_document
from abl.runtime import RuntimeOptions, Session, SessionError, start_session
from abl.runtime.session_file import SessionFileError, read_session
from abl.runtime.testing.loader import load_file
from abl.runtime.testing.recorder import Recording
from abl.runtime.testing.yamlread import FormatError
from abl.syntax import parse
from abl.text import LineIndex, Position, Range
from abl.workspace import Project, decode
from fuzz.conversations import CONVERSATION, read_conversation
from fuzz.editor import ClientBuffer, typed_edits
from fuzz.features import ProjectAnalysis, file_calls, once_per_file, project_calls, refused
from fuzz.mutate import mutate
from fuzz.reading import unread_lines_unreported

STRICT = CheckOptions(strict_rules=True)
# The slowest any one run (or, in the editor target, any one request) may be, per 10 KB of input.
SLOW_SECONDS_PER_10KB = 1.0
# Above this many characters a file's positions are sampled instead of all visited.
EVERY_POSITION_UP_TO = 3_000
SAMPLED_POSITIONS = 400

Files = dict[str, bytes]


class Broken(AssertionError):
    """An invariant that does not hold (as opposed to an exception escaping the code)."""


# --- helpers ------------------------------------------------------------------------------------


def load(files: Files) -> Project:
    project = Project("/project")
    for path, data in files.items():
        source = decode(data)
        project.update(path, source.text, source.diagnostics)
    return project


def inside(text: str, rng: Range) -> bool:
    lengths = _line_lengths(text)
    for pos in (rng.start, rng.end):
        if pos.line < 0 or pos.character < 0 or pos.line >= len(lengths):
            return False
        if pos.character > lengths[pos.line]:
            return False
    return (rng.start.line, rng.start.character) <= (rng.end.line, rng.end.character)


@functools.lru_cache(maxsize=16)
def _line_lengths(text: str) -> tuple[int, ...]:
    # Asked for every range of every answer at every position: splitting the text each time
    # made the harness, not the features under test, the slow part of the editor target.
    return tuple(len(line) for line in text.split("\n"))


# Model, tree and catalogue objects an answer holds on to (`locate`'s site): their ranges are
# the lowering's business, and walking them would visit the whole tree at every position.
_NOT_ANSWERS = ("abl.model", "abl.syntax", "abl.schema", "abl.expr", "abl.workspace")


def _ranges(found: object, path: str, files: Container[str], depth: int = 0) -> Iterator[tuple[str, Range]]:
    """Every Range inside an answer (dataclasses, lists, dicts), with the file it is in: the
    nearest enclosing object's `path` (or a `(path, range)` pair's, or a `{path: edits}` key's),
    else the file asked about."""
    if depth > 12 or found is None or isinstance(found, (str, bytes, int, float, bool)):
        return
    if isinstance(found, Range):
        yield path, found
        return
    if isinstance(found, dict):
        for key, value in found.items():
            yield from _ranges(value, key if isinstance(key, str) and key in files else path, files, depth + 1)
        return
    if isinstance(found, (list, tuple, set, frozenset)):
        items = list(found)
        if isinstance(found, tuple) and items and isinstance(items[0], str) and items[0] in files:
            path = items[0]
        for value in items:
            yield from _ranges(value, path, files, depth + 1)
        return
    if dataclasses.is_dataclass(found) and not type(found).__module__.startswith(_NOT_ANSWERS):
        own = getattr(found, "path", None)
        where = own if isinstance(own, str) else path
        for item in dataclasses.fields(found):
            yield from _ranges(getattr(found, item.name), where, files, depth + 1)


def _answers_inside(project: Project, what: str, found: object, path: str) -> None:
    for where, rng in _ranges(found, path, project.texts):
        text = project.texts.get(where)
        if text is not None and not inside(text, rng):
            raise Broken(f"{what} answered a range outside {where}: {rng}")


def _diagnostics_inside(project: Project, results: dict[str, list[Diagnostic]]) -> None:
    for path, diags in results.items():
        text = project.texts[path]
        for d in diags:
            if not inside(text, d.range):
                raise Broken(f"{path}: {d.code} at {d.range} is outside the text")
            for fix in d.fixes:
                for edit in fix.edits:
                    if not inside(text, edit.range):
                        raise Broken(f"{path}: a fix of {d.code} edits outside the text: {edit.range}")


# --- targets ------------------------------------------------------------------------------------


def target_parse(files: Files) -> None:
    for path, data in files.items():
        text = decode(data).text
        tree = parse(text)
        if tree.to_text() != text:
            raise Broken(f"{path}: the tree does not give the text back")
        for d in tree.diagnostics:
            if not inside(text, d.range):
                raise Broken(f"{path}: {d.code} at {d.range} is outside the text")
        for _ in tree.walk():
            pass


def target_lower(files: Files) -> None:
    for path, data in files.items():
        load_document(decode(data).text, path)


def target_check(files: Files) -> None:
    project = load(files)
    results = check_project(project, STRICT)
    _diagnostics_inside(project, results)
    for path in project.documents:
        broken = unread_lines_unreported(project, path, results[path])
        if broken:
            raise Broken(f"{path}: {broken[0]}")


def _reported(project: Project, path: str) -> list[Diagnostic]:
    """What `abl check --all` reports for a file (the default configuration, hints included)."""
    return DEFAULT.filter(path, project.texts[path], check_file(project, path, STRICT))


def _codes(project: Project) -> Counter[str]:
    return Counter(d.code for path in project.documents for d in _reported(project, path))


def _unreadable(project: Project) -> int:
    """Problems of the parser itself (not of what a section holds) over the whole project."""
    return sum(1 for doc in project.documents.values() for d in doc.source.diagnostics if d.code in UNREADABLE_CODES)


def _fix(project: Project, unsafe: bool) -> FixOutcome:
    return fix_project(project, sorted(project.documents), lambda path: _reported(project, path), unsafe=unsafe)


def target_fix(files: Files) -> None:
    for unsafe in (False, True):
        project = load(files)
        before = _codes(project)
        unreadable_before = _unreadable(project)
        outcome = _fix(project, unsafe)
        reported = {path: _reported(project, path) for path in project.documents}
        after = Counter(d.code for found in reported.values() for d in found)
        if unsafe:
            # Unsafe fixes change what runs, by definition (and what a renamed section must hold);
            # they may not make the text unreadable to the parser.
            if _unreadable(project) > unreadable_before:
                raise Broken("unsafe fixes made the text unreadable to the parser")
        else:
            fixed = Counter(d.code for diags in outcome.fixed.values() for d in diags)
            new = after - (before - fixed)
            if new:
                raise Broken(f"safe fixes brought new or left fixed diagnostics: {sorted(new)}")
        again = _fix(project, unsafe)
        if again.changed:
            # Named by the codes fixed the second time, so that different causes are kept apart.
            codes = ", ".join(sorted({d.code for found in again.fixed.values() for d in found}))
            raise Broken(f"a second --fix{' --unsafe-fixes' if unsafe else ''} changed the files again ({codes})")
        left = _fixable_left(project, unsafe, reported)  # what was reported still holds: nothing changed
        if left and outcome.settled:
            # `abl check` would still say "fixable with --fix" of what --fix does not apply.
            raise Broken(
                f"--fix{' --unsafe-fixes' if unsafe else ''} leaves fixes it does not apply ({', '.join(left)})"
            )
        _diagnostics_inside(project, check_project(project, STRICT))


def _fixable_left(project: Project, unsafe: bool, reported: dict[str, list[Diagnostic]]) -> list[str]:
    """The codes still offering a fix that --fix would apply."""
    return sorted({d.code for path in project.documents for d, _ in applicable(project, path, reported[path], unsafe)})


def positions(text: str, rng_seed: int = 0) -> list[Position]:
    """Every position of the text (each character and each line's end), or a sample of them
    for a long text, plus negative and out-of-range ones."""
    lines = text.split("\n")
    every = [Position(line, char) for line, body in enumerate(lines) for char in range(len(body) + 1)]
    if len(every) > EVERY_POSITION_UP_TO:
        step = max(1, len(every) // SAMPLED_POSITIONS)
        every = every[rng_seed % step :: step] + [Position(line, 0) for line in range(len(lines))]
    return [*every, Position(-1, -1), Position(0, -7), Position(len(lines) + 3, 0), Position(0, 10**6)]


class Slow(Broken):
    """One editor request (or one turn) took longer than the limit for the input's size."""


# The slowest single request (an editor request, a turn) of the last `ide` or `run` run: its
# seconds, and its seconds per 10 KB of the input it is held to (what its limit is about).
slowest_request = 0.0
slowest_request_rate = 0.0


def _reset_slowest() -> None:
    global slowest_request, slowest_request_rate
    slowest_request = slowest_request_rate = 0.0


def _timed(size: int, what: str, call: Callable[[], object]) -> object:
    """`call()`, held to the limit for an input of `size` bytes: 1 s per 10 KB."""
    global slowest_request, slowest_request_rate
    started = time.perf_counter()
    found = call()
    seconds = time.perf_counter() - started
    rate = seconds / max(1.0, size / 10_240)
    slowest_request = max(slowest_request, seconds)
    slowest_request_rate = max(slowest_request_rate, rate)
    if rate > SLOW_SECONDS_PER_10KB:
        raise Slow(f"{what} took {seconds:.2f} s")
    return found


def target_ide(files: Files) -> None:
    _reset_slowest()
    project = load(files)
    # Each request is held to the same limit as a whole input elsewhere: 1 s per 10 KB.
    size = sum(len(d) for d in files.values())
    analysis = ProjectAnalysis(project, check_project(project))
    for path, text in project.texts.items():
        document = project.documents[path]
        whole = Range(Position(0, 0), Position(text.count("\n") + 1, 0))
        points = positions(text)
        for name, call in file_calls(analysis, path, whole, points):
            _ask(project, path, size, name, call)
        for calls in once_per_file(analysis, path, whole, points):
            for name, call in calls:
                if _ask(project, path, size, name, call):
                    break
        for pos in points:
            _timed(size, f"locate at {pos}", lambda pos=pos, document=document: locate(document, pos))
        formatted = format_text(text)
        if format_text(formatted) != formatted:
            raise Broken(f"{path}: formatting is not idempotent")
    first = next(iter(project.texts), None)
    if first is not None:
        for name, call in project_calls(analysis, first, sorted(project.agent_names())):
            _ask(project, first, size, name, call)
    for path, text in project.texts.items():
        _typed_into(path, text)


def _ask(project: Project, path: str, size: int, name: str, call: Callable[[], object]) -> bool:
    """Ask one feature, held to the time limit and to answers inside the files; False when it
    refused (a rename that cannot be done)."""
    was_refused, found = refused(lambda: _timed(size, name, call))
    if not was_refused:
        _answers_inside(project, name, found, path)
    return not was_refused


# Changes typed into each file by the editor target, and positions compared after them.
TYPED_CHANGES = 40
COMPARED_POSITIONS = 60
# The editor's model counts one character at a time: a longer file is typed into at its start.
TYPED_TEXT_LIMIT = 20_000


def _typed_into(path: str, text: str) -> None:
    """Type into the file as an editor does, and hold the server's copy and positions to it."""
    text = text[:TYPED_TEXT_LIMIT]
    rng = random.Random(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest())
    client = ClientBuffer(text)
    server = SplicedTextDocument("file:///project/typed.abl", text, sync_kind=lsp.TextDocumentSyncKind.Incremental)
    for number in range(TYPED_CHANGES):
        change = typed_edits(client, rng)
        client.apply(change)
        server.apply_change(change)
        if server.source != client.text:
            raise Broken(
                f"{path}: after change {number + 1} ({change.range}, {change.text!r}) the server's copy differs"
            )
    typed = client.text
    positions = Positions(LineIndex(typed), lsp.PositionEncodingKind.Utf16)
    for offset in rng.sample(range(len(typed) + 1), min(COMPARED_POSITIONS, len(typed) + 1)):
        if 0 < offset < len(typed) and typed[offset - 1 : offset + 1] == "\r\n":
            continue  # inside a line break: no position names it
        reported = positions.to_client(positions.index.position(offset))
        if client.offset(reported) != offset:
            raise Broken(
                f"{path}: offset {offset} is reported at {reported}, where the editor has {client.offset(reported)}"
            )
        if positions.index.offset(positions.from_client(client.position(offset))) != offset:
            raise Broken(
                f"{path}: the editor's {client.position(offset)} is read at another place than offset {offset}"
            )


# --- runtime loaders ----------------------------------------------------------------------------


def target_session(files: Files) -> None:
    for data in files.values():
        try:
            read_session(data)
        except SessionFileError as problem:
            if not str(problem).strip():
                raise Broken("a session file was refused without a message") from problem


def _write_temporary(data: bytes, suffix: str) -> str:
    handle, name = tempfile.mkstemp(suffix=suffix)
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    return name


def target_mocks(files: Files) -> None:
    for data in files.values():
        name = _write_temporary(data, ".yaml")
        try:
            read_mocks(name)
        except UsageProblem as problem:
            if not str(problem).strip():
                raise Broken("a mocks file was refused without a message") from problem
        finally:
            os.unlink(name)


def target_test_file(files: Files) -> None:
    for path, data in files.items():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # the loader reads files as UTF-8 and says so; text is what is fuzzed here
        try:
            load_file(Path(path), text)
        except FormatError as problem:
            if not str(problem).strip():
                raise Broken("a test file was refused without a message") from problem


# --- the runtime ----------------------------------------------------------------------------------

# Projects judged by `abl run`'s loader, by their files: a project is mutated less often than its
# conversation, and judging it is a whole `abl check`. None: refused (or no agent to run).
_JUDGED: dict[bytes, tuple[Project, list[str]] | None] = {}
_JUDGED_KEPT = 128


def _runnable(files: Files) -> tuple[Project, list[str]] | None:
    key = hashlib.blake2b(b"".join(p.encode() + b"\0" + d + b"\0" for p, d in sorted(files.items()))).digest()
    if key in _JUDGED:
        return _JUDGED[key]
    project = load(files)
    try:
        judge(project)
        agents = runnable_agents(project)
        found = (project, agents) if agents else None
    except LaunchRefused:
        found = None
    if len(_JUDGED) >= _JUDGED_KEPT:
        del _JUDGED[next(iter(_JUDGED))]
    _JUDGED[key] = found
    return found


def _entry(project: Project, agents: list[str], wanted: str | None) -> str:
    if wanted in agents:
        return str(wanted)
    try:
        return entry_agent(project, None)
    except LaunchRefused:  # several agents and no one supervisor: `abl run` would ask; take the first
        return agents[0]


def target_run(files: Files) -> None:
    """A conversation (`fuzz.conversations`) run through the project as `abl run` runs it, with
    every file it can write kept up to date after each turn; then each file is read back."""
    _reset_slowest()
    script = read_conversation(files.get(CONVERSATION, b""))
    sources = {path: data for path, data in files.items() if path != CONVERSATION}
    judged = _runnable(sources)
    if judged is None:
        return  # refused by `abl run` (the project has errors): not the runtime's to run
    project, agents = judged
    agent = _entry(project, agents, script.agent)
    size = sum(len(d) for d in sources.values())
    options = RuntimeOptions(mocks=script.mocks, trace_level="debug")
    with tempfile.TemporaryDirectory(prefix="abl-fuzz-run-") as folder:
        out = Path(folder)
        try:
            session = _timed(size, "starting the session", lambda: start_session(project, agent, options))
        except SessionError:
            return  # the one error starting a session may raise
        assert isinstance(session, Session)
        recording = Recording(
            project=out / "project",
            agent=agent,
            mocks=dict(script.mocks),
            greeting=tuple((r.agent, r.text) for r in session.greeting),
            start_events=tuple(e.to_dict() for e in session.trace),
        )
        driver = Driver(
            session=session,
            project=project,
            agent=agent,
            trace_out=out / "trace.jsonl",
            session_file=out / "session.jsonl",
            recording=recording,
            record_path=out / "recorded.abltest.yaml",
        )
        driver.persist()
        longest = 0  # a turn may read an earlier message again (a replay after a return)
        for number, step in enumerate(script.steps, start=1):
            if isinstance(step, int):
                driver.wait(step)
                continue
            length = len(step.encode("utf-8", "surrogatepass"))
            held_to = size + length + longest
            longest = max(longest, length)
            _timed(held_to, f"turn {number} ({len(step):,} characters)", lambda text=step: driver.send(text))
        if driver.problems:
            raise Broken(f"a file of the run could not be written: {driver.problems[0]}")
        _read_back(project, session, options, driver)


def _read_back(project: Project, session: Session, options: RuntimeOptions, driver: Driver) -> None:
    """The trace file holds every event as JSON, the saved session loads, the recorded test reads."""
    assert driver.trace_out is not None and driver.session_file is not None and driver.record_path is not None
    # JSON Lines are split at "\n" only (a U+2028 inside a text is not a line break there).
    lines = driver.trace_out.read_text(encoding="utf-8").split("\n")[:-1]
    if len(lines) != session.trace_length:
        raise Broken(f"{len(lines)} lines for {session.trace_length} events: the trace file is not one line per event")
    for line in lines:
        json.loads(line)
    try:
        resumed = Session.load(project, driver.session_file, options)
    except SessionError as problem:
        raise Broken(f"{'; '.join(problem.problems)}: the saved session cannot be loaded back") from problem
    if resumed.state() != session.state():
        raise Broken("the saved session loads back in another state")
    recording = driver.recording
    if recording is not None and recording.checkable:
        try:
            load_file(driver.record_path)
        except FormatError as problem:
            raise Broken(f"{problem}: the recorded test cannot be read back") from problem
    elif recording is not None and driver.record_path.exists():
        raise Broken("a recording with nothing to check was written as a test the loader refuses")


# Edits made by the `edits` target on each input, one file at a time.
EDITS_PER_INPUT = 6
_TYPED_LINES = ("", "# a note", "  ", "  - TO: Extra_Agent", "    RETURN: true", "AGENT: Extra_Agent", "GOAL: g")


def _edited(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    at = rng.randrange(len(lines) + 1)
    kind = rng.randrange(5)
    if kind == 0:
        return "\n".join([*lines[:at], rng.choice(_TYPED_LINES), *lines[at:]])
    if kind == 1 and len(lines) > 1:
        return "\n".join(lines[: min(at, len(lines) - 1)] + lines[min(at, len(lines) - 1) + 1 :])
    if kind == 2 and "RETURN: true" in text:
        return text.replace("RETURN: true", "RETURN: True", 1)
    if kind == 3 and "RETURN: True" in text:
        return text.replace("RETURN: True", "RETURN: true", 1)
    offset = rng.randrange(len(text) + 1)
    return text[:offset] + rng.choice('x :-"#') + text[offset:]


def _graph_drawn(project: Project) -> tuple:
    graph = project.graph()
    facts = {}
    for name in graph.nodes:
        found = graph.facts(name, tuple(e.route for e in graph.edges if e.key and e.source == name))
        # The header a finding names is a node of its own project's tree: compared by its row.
        header = found.declared_by.row if found.declared_by is not None else None
        facts[name] = (header, found.unreachable, found.named_by_typo, found.roots, found.cycles)
    return (list(graph.nodes.items()), list(graph.edges), graph.roots, graph.unreachable, graph.cycles, facts)


def target_edits(files: Files) -> None:
    _reset_slowest()
    project = load(files)
    cache = CheckCache()
    check_project(project, STRICT, cache)
    texts = dict(project.texts)
    # Seeded by the text without its last line ends, which a written case adds (`write_case`).
    rng = random.Random(hashlib.sha256(b"\0".join(d.rstrip(b"\r\n") for d in files.values())).digest())
    for number in range(EDITS_PER_INPUT):
        path = rng.choice(sorted(texts))
        if rng.random() < 0.2:
            texts[path] = decode(mutate(texts[path].encode("utf-8", "surrogatepass"), rng)).text
        else:
            texts[path] = _edited(texts[path], rng)
        size = sum(len(t) for t in texts.values())
        # Each edit is held to the limit on its own, as an editor's request is (`ide`).
        _timed(
            size,
            f"edit {number + 1}",
            lambda path=path, number=number: _edit_and_compare(project, cache, texts, path, number),
        )


def _edit_and_compare(project: Project, cache: CheckCache, texts: dict[str, str], path: str, number: int) -> None:
    project.edit(path, texts[path])
    after = check_project(project, STRICT, cache)
    fresh = Project("/project")
    for other, text in texts.items():  # what decoding the bytes said stays said
        fresh.update(other, text, project.read_diagnostics.get(other, ()))
    if after != check_project(fresh, STRICT):
        raise Broken(f"{path}: after edit {number + 1} the diagnostics differ from a check from scratch")
    if _graph_drawn(project) != _graph_drawn(fresh):
        raise Broken(f"{path}: after edit {number + 1} the handoff graph differs from one built from scratch")


# What each target is fed: ABL projects, or the runtime's own files.
ABL_TARGETS: dict[str, Callable[[Files], None]] = {
    "parse": target_parse,
    "lower": target_lower,
    "check": target_check,
    "fix": target_fix,
    "ide": target_ide,
    "edits": target_edits,
}
RUNTIME_TARGETS: dict[str, Callable[[Files], None]] = {
    "session": target_session,
    "mocks": target_mocks,
    "test_file": target_test_file,
}
# Fed a project and a conversation (`fuzz.conversations`).
RUN_TARGETS: dict[str, Callable[[Files], None]] = {"run": target_run}
TARGETS = {**ABL_TARGETS, **RUNTIME_TARGETS, **RUN_TARGETS}
