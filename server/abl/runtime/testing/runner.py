"""Run conversation tests against the embedded runtime.

Each conversation gets a fresh session on the file's project and entry agent, with the
file's mocks and model (scripted decisions when given; a turn's own answers are handed to the
model just before its message and belong to that turn only). After every turn the runner reads
the turn's events from the full trace (all levels, whatever the display level) and the session
state, and checks the turn's expectations. A conversation that cannot start (unknown agent, a
project with errors) or a runtime failure in the middle is reported as that test's error; the
other tests still run.

Whether a project may run is the loader's question: `abl test` and the pytest plugin pass the
one loader (`abl.launch`); the default here only reads the files.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from abl.runtime.models import ScriptedModel, create_model
from abl.runtime.session import Session
from abl.runtime.session_types import RuntimeOptions, SessionError
from abl.runtime.testing.expectations import (
    Failure,
    Observed,
    ObservedThread,
    check_events,
    check_reply,
    check_turn,
    unexpected_errors,
)
from abl.runtime.testing.format import Conversation, ConversationFile, TurnSpec
from abl.workspace import Project, load_project

Status = Literal["passed", "failed", "skipped", "error"]


class ProjectProblem(Exception):
    """The project a test file names cannot be used; `problems` says why, one line each."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


ProjectLoader = Callable[[Path], Project]
"""Reads the project at a path and judges whether it may run; raises ProjectProblem."""


def load_plain_project(path: Path) -> Project:
    """Read the `.abl` files under `path` (a file or a folder). Raises ProjectProblem."""
    if not path.exists():
        raise ProjectProblem([f"the project {path} does not exist"])
    project, unreadable = load_project([str(path)])
    if unreadable:
        raise ProjectProblem([f"cannot read {p}" for p in unreadable])
    if not project.documents:
        raise ProjectProblem([f"no .abl files under {path}"])
    return project


@dataclass(frozen=True)
class TurnOutcome:
    number: int  # 1-based position in the conversation
    spec: TurnSpec
    observed: Observed
    failures: tuple[Failure, ...]


@dataclass(frozen=True)
class ConversationResult:
    file: ConversationFile
    conversation: Conversation
    status: Status
    turns: tuple[TurnOutcome, ...] = ()
    greeting: tuple[tuple[str, str], ...] = ()
    failures: tuple[Failure, ...] = ()  # failures not tied to a turn (greeting, session)
    error: str | None = None
    trace: tuple[Mapping[str, Any], ...] = ()  # every event of the session (for coverage)

    @property
    def name(self) -> str:
        return self.conversation.name

    @property
    def failed_turns(self) -> list[TurnOutcome]:
        return [t for t in self.turns if t.failures]


class Runner:
    """Runs conversations; projects are loaded once per path and shared across files."""

    def __init__(self, load: ProjectLoader = load_plain_project) -> None:
        self._load = load
        self._projects: dict[Path, Project | ProjectProblem] = {}

    def project(self, path: Path) -> Project:
        """The loaded project at `path` (cached). Raises ProjectProblem."""
        key = path.resolve()
        if key not in self._projects:
            try:
                self._projects[key] = self._load(key)
            except ProjectProblem as problem:
                self._projects[key] = problem
        cached = self._projects[key]
        if isinstance(cached, ProjectProblem):
            raise cached
        return cached

    def run(self, test_file: ConversationFile, conversation: Conversation) -> ConversationResult:
        if conversation.skip is not None:
            return ConversationResult(test_file, conversation, "skipped", error=conversation.skip)
        try:
            project = self.project(test_file.project)
        except ProjectProblem as problem:
            return _error(test_file, conversation, "the project cannot be used:\n" + "\n".join(problem.problems))
        return _Conversation(project, test_file.agent, test_file, conversation).run()


def options_for(test_file: ConversationFile, conversation: Conversation) -> RuntimeOptions:
    """The RuntimeOptions a conversation runs with. A scripted model is built here, so that each
    turn's own answers can be handed to it (`ScriptedModel.begin_turn`)."""
    model_name = test_file.model_for(conversation)
    model_options: dict[str, Any] = dict(test_file.model_options)
    if model_name == "openai":
        key = os.environ.get("OPENAI_API_KEY")
        if key:
            model_options.setdefault("api_key", key)
    model: Any = model_name
    if model_name == "scripted":
        model = ScriptedModel(**script_options(test_file.script_for(conversation) or {}))
        model_options = {}
    return RuntimeOptions(
        model=model,
        model_options=model_options,
        mocks=test_file.mocks_for(conversation),
        trace_level="debug",
        initial_values=dict(conversation.setup),
        handoff_delays=test_file.delays_for(conversation),
    )


def script_options(script: Mapping[str, Any]) -> dict[str, Any]:
    """The scripted model's constructor options; `fallback: embedded` becomes the offline model."""
    options = {k: v for k, v in script.items() if k != "fallback"}
    if script.get("fallback") == "embedded":
        options["fallback"] = create_model("embedded")
    return options


class _Conversation:
    def __init__(self, project: Project, agent: str, test_file: ConversationFile, conversation: Conversation) -> None:
        self.project = project
        self.agent = agent
        self.file = test_file
        self.conversation = conversation

    def run(self) -> ConversationResult:
        options = options_for(self.file, self.conversation)
        try:
            session = Session.start(self.project, self.agent, options)
        except SessionError as err:
            problems = getattr(err, "problems", None) or [str(err)]
            return _error(self.file, self.conversation, "the session cannot start:\n" + "\n".join(problems))
        try:
            return self._converse(session)
        except Exception as err:  # an engine failure fails this test only, with what happened
            return _error(
                self.file,
                self.conversation,
                f"the runtime failed: {type(err).__name__}: {err}",
                trace=_events(session),
            )

    def _converse(self, session: Session) -> ConversationResult:
        greeting = tuple((r.agent, r.text) for r in getattr(session, "greeting", ()) or ())
        # What ON_START did: its events are checked like a turn's (`start_events`).
        start = _events(session)
        loose: list[Failure] = []
        if self.conversation.start_events:
            loose.extend(check_events(self.conversation.start_events, start, "start_events"))
        loose.extend(
            dataclasses.replace(f, summary=f"before the first message, {f.summary}")
            for f in unexpected_errors(self.conversation.start_events, start)
        )
        if self.conversation.greeting is not None:
            failure = check_reply("greeting", self.conversation.greeting, greeting)
            if failure is not None:
                loose.append(failure)
        outcomes: list[TurnOutcome] = []
        # Every turn is sent, also after the session ended: the runtime then answers that the
        # conversation is over, which a test may check (`ended: true`, `reply`).
        for number, spec in enumerate(self.conversation.turns, start=1):
            outcomes.append(self._turn(session, number, spec))
        status: Status = "failed" if loose or any(o.failures for o in outcomes) else "passed"
        return ConversationResult(
            self.file,
            self.conversation,
            status,
            tuple(outcomes),
            greeting,
            tuple(loose),
            trace=_events(session),
        )

    def _turn(self, session: Session, number: int, spec: TurnSpec) -> TurnOutcome:
        before = len(session.trace)
        model = session.options.model
        if isinstance(model, ScriptedModel):
            model.begin_turn(spec.scripted)
        if spec.after_ms:
            session.wait(spec.after_ms)
        turn = session.send(spec.user)
        events = tuple(e.to_dict() for e in list(session.trace)[before:])
        state = session.state()
        observed = Observed(
            replies=tuple((r.agent, r.text) for r in turn.replies),
            active_agent=turn.active_agent,
            events=events,
            values=dict(state.values),
            threads=tuple(ObservedThread(t.agent, t.status, dict(t.values)) for t in state.threads),
            ended=bool(turn.ended),
        )
        return TurnOutcome(number, spec, observed, tuple(check_turn(spec, observed)))


def _events(session: Session) -> tuple[Mapping[str, Any], ...]:
    return tuple(e.to_dict() for e in session.trace)


def _error(
    test_file: ConversationFile, conversation: Conversation, message: str, trace: tuple = ()
) -> ConversationResult:
    return ConversationResult(test_file, conversation, "error", error=message, trace=trace)
