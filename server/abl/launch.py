"""Whether a project can run, answered once for `abl run`, `abl test`, pytest and the editor.

A project runs when it has no errors (`abl check`'s errors: the same rules, so `E330` and
`E331` among them) and the entry agent exists: the agent asked for, else the project's only
supervisor, else its only agent. The answer is a `Launch` (the project and the agent) or a
`LaunchRefused` that lists every reason, one line each (`path:line:col: error[CODE] message`).
This module sits above the checks and the runtime, so that neither needs the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from abl.checks.engine import check_project
from abl.config import DEFAULT as DEFAULT_CONFIG
from abl.config import find_config, load_config
from abl.diagnostics import Diagnostic, Severity
from abl.model.types import AgentKind
from abl.runtime.testing.runner import ProjectLoader, ProjectProblem
from abl.suggest import did_you_mean
from abl.wording import count
from abl.workspace import Project, load_project

# What a project is, for a refusal that blames an agent the author did not ask to run.
PROJECT_MEANING = (
    "A project is the nearest folder holding `project.json` (or `abl.lock`) and every `.abl` file under it "
    "(without one, the folder opened); its agents are checked and run together, so an error in any of them "
    "stops every run."
)


class LaunchRefused(Exception):
    """The project cannot run; `problems` says why, one line each; `errors` are the project's
    errors themselves (file and diagnostic), for a caller that links to them."""

    def __init__(
        self, message: str, problems: list[str] | None = None, errors: list[tuple[str, Diagnostic]] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.problems = list(problems or [])
        self.errors = list(errors or [])


@dataclass(frozen=True)
class Launch:
    project: Project
    agent: str


def read_project(path: str | Path) -> Project:
    """The `.abl` files under `path` (a file or a folder), read but not yet judged."""
    where = Path(path)
    if not where.exists():
        raise LaunchRefused(f"{path} does not exist")
    project, unreadable = load_project([str(where)])
    if unreadable:
        raise LaunchRefused(f"cannot read {', '.join(unreadable)}", [f"cannot read {p}" for p in unreadable])
    if not project.documents:
        raise LaunchRefused(f"no .abl files under {path}")
    project.default_history = configured_default_history(where)
    return project


def configured_default_history(where: Path) -> str:
    """What the configuration that applies to `where` gives a route without `HISTORY`.
    Its problems are `abl check`'s to report; what can be read applies."""
    found = find_config(where)
    return load_config(found)[0].default_history if found is not None else DEFAULT_CONFIG.default_history


def launch(project: Project, agent: str | None = None, *, where: str | None = None, naming: str = "") -> Launch:
    """The one answer to "can this project run, and with which agent?". `where` names the
    project in messages; `naming` says how the caller names an agent (` with --agent`)."""
    return Launch(judge(project, where), entry_agent(project, agent, where, naming))


def judge(project: Project, where: str | None = None) -> Project:
    """The project itself when it may run; its errors otherwise (`LaunchRefused`)."""
    errors = error_diagnostics(project)
    if errors:
        fix = f" (`abl check {where}`)" if where else ""
        raise LaunchRefused(
            f"the project has {count(len(errors), 'error')}; fix them first{fix}",
            [format_diagnostic(path, d) for path, d in errors],
            errors,
        )
    return project


def project_errors(project: Project) -> list[str]:
    """Every error of the project as `path:line:col: error[CODE] message`."""
    return [format_diagnostic(path, d) for path, d in error_diagnostics(project)]


def error_diagnostics(project: Project) -> list[tuple[str, Diagnostic]]:
    """Every error of the project, with its file."""
    return [
        (path, d)
        for path, diagnostics in check_project(project).items()
        for d in diagnostics
        if d.severity is Severity.ERROR
    ]


def format_diagnostic(path: str, diagnostic: Diagnostic) -> str:
    start = diagnostic.range.start
    return f"{path}:{start.line + 1}:{start.character + 1}: {diagnostic.severity.value}[{diagnostic.code}] {diagnostic.message}"


def runnable_agents(project: Project) -> list[str]:
    """Names of the agents and supervisors a session can start with."""
    return [
        name
        for name in project.agent_names()
        if (agent := project.agent(name)) is not None and agent.kind is not AgentKind.BEHAVIOR_PROFILE
    ]


def entry_agent(project: Project, wanted: str | None, where: str | None = None, naming: str = "") -> str:
    """The agent to start: the one asked for, else the project's only supervisor (or only agent)."""
    names = runnable_agents(project)
    place = where or "the project"
    if not names:
        raise LaunchRefused(
            f"{place} declares no agent to run: no `AGENT:` or `SUPERVISOR:` line "
            "(a tools library or a behavior profile cannot run on its own)"
        )
    known = f"known agents: {', '.join(names)}"
    if wanted:
        if wanted in names:
            return wanted
        close = did_you_mean(wanted, names)
        hint = f"; did you mean {close}?" if close else ""
        raise LaunchRefused(f"no agent named {wanted} in {place}{hint}", [known])
    supervisors = [n for n in names if (a := project.agent(n)) is not None and a.kind is AgentKind.SUPERVISOR]
    if len(supervisors) == 1:
        return supervisors[0]
    if len(names) == 1:
        return names[0]
    raise LaunchRefused(f"name the entry agent{naming}; {known}")


class Launcher:
    """The loader for many conversations on a few projects (`abl test`, pytest): each project is
    read and judged once."""

    def __init__(self) -> None:
        self._judged: dict[Path, Project | LaunchRefused] = {}

    def project(self, path: Path) -> Project:
        judged = self._judged.get(path)
        if judged is None:
            try:
                judged = judge(read_project(path), str(path))
            except LaunchRefused as refused:
                judged = refused
            self._judged[path] = judged
        if isinstance(judged, LaunchRefused):
            raise judged
        return judged


def conversation_loader(launcher: Launcher | None = None) -> ProjectLoader:
    """The loader conversation tests run with (`abl test`, pytest): a project's errors
    (`path:line:col: error[CODE] message`) fail its tests, as they stop `abl run`. A caller
    that reads the projects itself first passes its `launcher`, so each is judged once."""
    launcher = launcher if launcher is not None else Launcher()

    def load(path: Path) -> Project:
        try:
            return launcher.project(path)
        except LaunchRefused as refused:
            raise ProjectProblem([*refused.problems, refused.message]) from None

    return load
