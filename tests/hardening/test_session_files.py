"""A saved session is untrusted input: it loads, or it is refused with one clear line.

Kept here: every file that once hung or crashed the loader (`"ids": {"thread": 10**12}` looped
forever; `clock_ticks: 1e400`, a trace entry that is a number, `"active": ""`, 100,000-deep JSON
and a lone surrogate raised tracebacks), a mutation fuzzer over a saved journal that accepts
only `SessionError` or success (and then a turn and a save), and the journal itself: one line
per turn, resumed exactly, a cut-off last line dropped.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abl.runtime import RuntimeOptions, Session, SessionError, start_session
from abl.runtime.session_file import MAX_SESSION_BYTES, SessionFileError, read_session
from abl.workspace import Project, load_project

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LOAN_SCRIPT = ("I want a loan offer", "85,000", "what rates can I get?", "thanks")


def loan_project() -> Project:
    project, problems = load_project([str(EXAMPLES / "loan-supervisor")])
    assert not problems
    return project


PROJECT = loan_project()


def journal_text(tmp_path: Path, turns: int = 4) -> str:
    session = start_session(PROJECT, "Loan_Supervisor", RuntimeOptions())
    path = tmp_path / "s.session"
    journal = session.journal(path)
    journal.write()
    for message in LOAN_SCRIPT[:turns]:
        session.send(message)
        journal.write()
    return path.read_text(encoding="utf-8")


def load(content: str | bytes) -> Session:
    return Session.from_dict(PROJECT, read_session(content))


def snapshot() -> dict[str, Any]:
    session = start_session(PROJECT, "Loan_Supervisor", RuntimeOptions())
    session.send("I want a loan offer")
    return json.loads(json.dumps(session.to_dict()))


def damaged(change) -> str:
    data = snapshot()
    change(data)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (lambda: damaged(lambda d: d["ids"].update(thread=10**12)), "$.ids.thread: expected a number from 0"),
        (lambda: damaged(lambda d: d.update(clock_ticks=1e400)), "$.clock_ticks: expected a whole number, got inf"),
        (lambda: damaged(lambda d: d["trace"].append(5)), "expected a trace event (an object), got 5"),
        (lambda: damaged(lambda d: d["state"].update(active="")), "$.state.active: no thread has the id ''"),
        (lambda: "[" * 100_000 + "]" * 100_000, "not valid JSON: nested too deeply"),
        (lambda: damaged(lambda d: d["state"]["threads"][0]["values"].update(x="\ud800")), "lone surrogate"),
        (lambda: damaged(lambda d: d["state"]["log"][0].update(text=None)), "$.state.log[0].text: expected a text"),
        (lambda: damaged(lambda d: d["state"]["threads"][0].update(status="asleep")), "expected one of active"),
        (lambda: damaged(lambda d: d["state"]["threads"][0]["values"].update(n=10**40)), "more than 30 digits"),
        (lambda: damaged(lambda d: d["state"].update(stack=[{"parent": "nobody"}])), "no thread has the id 'nobody'"),
        (lambda: '{"format":"abl-session","version":2,"clock_ticks":' + "1" * 5000 + "}", "not valid JSON"),
    ],
    ids=[
        "huge-id-count",
        "infinite-clock",
        "number-as-event",
        "empty-active",
        "deep-json",
        "lone-surrogate",
        "text-null",
        "unknown-status",
        "long-number",
        "dangling-frame",
        "int-of-5000-digits",
    ],
)
def test_files_that_once_failed_are_refused_with_one_line(content, problem: str) -> None:
    with pytest.raises(SessionError) as caught:
        load(content())
    message = str(caught.value)
    assert problem in message
    assert "\n" not in message


def test_a_session_file_over_the_size_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "big.session"
    with path.open("wb") as handle:
        handle.truncate(MAX_SESSION_BYTES + 1)
    with pytest.raises(SessionFileError, match="sessions over 268,435,456 bytes are not loaded"):
        Session.load(PROJECT, path)


def test_the_journal_adds_one_line_per_turn_and_resumes_exactly(tmp_path: Path) -> None:
    text = journal_text(tmp_path, turns=3)
    assert len(text.splitlines()) == 4  # the snapshot, then one delta per turn
    resumed = load(text)
    straight = start_session(PROJECT, "Loan_Supervisor", RuntimeOptions())
    for message in LOAN_SCRIPT[:3]:
        straight.send(message)
    assert resumed.to_dict() == straight.to_dict()
    assert [r.text for r in resumed.send("thanks").replies] == [r.text for r in straight.send("thanks").replies]


def test_a_last_line_cut_off_by_a_crash_is_dropped(tmp_path: Path) -> None:
    text = journal_text(tmp_path, turns=2)
    cut = text[: len(text) - 40]  # the last delta, half written and without its newline
    resumed = load(cut)
    assert resumed.state().active_agent == load(text.rsplit("\n", 2)[0] + "\n").state().active_agent
    with pytest.raises(SessionFileError, match="line 2: not valid JSON"):
        load(text.replace("\n", "\n{broken\n", 1))  # a damaged line in the middle is an error


def test_a_journal_whose_file_was_replaced_is_written_whole_again(tmp_path: Path) -> None:
    session = start_session(PROJECT, "Loan_Supervisor", RuntimeOptions())
    path = tmp_path / "s.session"
    journal = session.journal(path)
    journal.write()
    path.write_text("", encoding="utf-8")  # someone emptied it
    session.send("I want a loan offer")
    journal.write()
    assert len(path.read_text(encoding="utf-8").splitlines()) == 1
    assert load(path.read_bytes()).state().active_agent == session.state().active_agent


# --- the mutation fuzzer ------------------------------------------------------------------------------

HOSTILE: list[Any] = [
    None,
    "",
    "\ud800",
    -1,
    0,
    10**12,
    10**40,
    1.5,
    True,
    [],
    {},
    [[[[]]]],
    {"type": "handoff"},
    "x" * 300,
    "thread-1",
    "respond:",
]


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value[:6]):
            found.extend(_paths(item, (*prefix, index)))
    return found


def _mutate(lines: list[dict[str, Any]], line: int, path: tuple, action: str, replacement: Any) -> str:
    mutated = copy.deepcopy(lines)
    if not path:
        mutated[line] = replacement
    else:
        parent = mutated[line]
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        if action == "delete":
            del parent[key]
        elif action == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        else:
            parent[key] = replacement
    return "".join(json.dumps(item) + "\n" for item in mutated)


@pytest.fixture(scope="module")
def saved_lines(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    text = journal_text(tmp_path_factory.mktemp("journal"), turns=4)
    return [json.loads(line) for line in text.splitlines()]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mutated_sessions_load_or_are_refused(saved_lines: list[dict[str, Any]], data: st.DataObject) -> None:
    line = data.draw(st.integers(0, len(saved_lines) - 1))
    path = data.draw(st.sampled_from(_paths(saved_lines[line])))
    action = data.draw(st.sampled_from(["replace", "delete", "duplicate"])) if path else "replace"
    replacement = data.draw(st.sampled_from(HOSTILE))
    try:
        content = _mutate(saved_lines, line, path, action, replacement)
    except (TypeError, IndexError, KeyError):
        return  # the mutation does not apply to this spot
    raw = data.draw(st.booleans())
    if raw:  # a byte-level mutation on top: cut, or a character put in
        at = data.draw(st.integers(0, len(content)))
        content = content[:at] + data.draw(st.sampled_from(["", "{", "]", '"', "\\", "\x00", "9" * 50]))
    try:
        session = load(content)
    except SessionError:
        return
    # Loaded: it must also run a turn and save again.
    session.send("what rates can I get?")
    read_session(json.dumps(session.to_dict()))
