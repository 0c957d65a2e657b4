"""Shared setup for the engine's conversation tests: projects from files or text, event lookups."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from abl.runtime import RuntimeOptions, Session, Turn, start_session
from abl.runtime.trace import TraceEvent
from abl.workspace import Project, load_project

PROJECTS = Path(__file__).parent / "projects"
RETAIL = PROJECTS / "retail"
LOAN = PROJECTS / "loan" / "loan.agent.abl"


def project_dir(name: str) -> Project:
    project, problems = load_project([str(PROJECTS / name)])
    assert not problems, problems
    return project


def project_text(*texts: str) -> Project:
    """A project from ABL texts, one file each."""
    project = Project("<memory>")
    for i, text in enumerate(texts):
        project.update(f"/mem/file{i}.agent.abl", text)
    return project


def retail_project(**replaced: str) -> Project:
    """Seed 000's four files, with some files' texts replaced (keyed by file name)."""
    texts = [replaced.pop(path.name, None) or path.read_text(encoding="utf-8") for path in sorted(RETAIL.glob("*.abl"))]
    assert not replaced, f"unknown files: {sorted(replaced)}"
    return project_text(*texts)


def loan_text(*replacements: tuple[str, str]) -> str:
    """Seed 004's minimal example, with textual replacements (each must apply)."""
    text = LOAN.read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def loan(*replacements: tuple[str, str], extra: str = "", **options: Any) -> Session:
    text = loan_text(*replacements) + extra
    return start_session(project_text(text), "Loan_Supervisor", RuntimeOptions(**options))


def retail(**options: Any) -> Session:
    return start_session(project_dir("retail"), "Retail_Hub", RuntimeOptions(**options))


def of_type(events: Iterable[TraceEvent], *types: str) -> list[TraceEvent]:
    return [e for e in events if e.type in types]


def one(events: Iterable[TraceEvent], event_type: str) -> TraceEvent:
    found = of_type(events, event_type)
    assert len(found) == 1, f"expected one {event_type}, got {[e.to_dict() for e in found]}"
    return found[0]


def types(turn: Turn | Iterable[TraceEvent], *keep: str) -> list[str]:
    events = turn.events if isinstance(turn, Turn) else turn
    return [e.type for e in events if not keep or e.type in keep]


def texts(turn: Turn) -> list[str]:
    return [r.text for r in turn.replies]


def turn_events(session: Session, index: int) -> list[TraceEvent]:
    """Every event of one turn, at full detail (whatever the session's trace level)."""
    return [e for e in session.trace if e.turn == index]


def thread_of(session: Session, agent: str) -> Any:
    """The internal thread of `agent` (the most recent one)."""
    threads = [t for t in session._engine.data.threads.values() if t.agent == agent]
    assert threads, f"no thread for {agent}"
    return threads[-1]
