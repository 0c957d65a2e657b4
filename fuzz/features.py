"""Every editor feature of the analysis, called the way an editor would.

The calls are built from `abl.ide.FEATURES` and each method's parameter names, not from a list
kept here: a feature added to the analysis is fuzzed the day it is added. A parameter this
module does not know how to fill, and that has no default, fails loudly.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence

from abl.diagnostics import Diagnostic
from abl.ide import FEATURES, Features, RenameError
from abl.model import Document
from abl.text import Position, Range
from abl.workspace import Project

# Features that build edits across the project: asked at positions only until one answers.
ONCE_PER_FILE = frozenset({"rename"})
NEW_NAME = "Renamed_Name"
QUERY = "a"


class ProjectAnalysis(Features):
    """The features over one project, with its checked diagnostics (what the host provides)."""

    __slots__ = ("_diagnostics", "_project")

    def __init__(self, project: Project, diagnostics: dict[str, list[Diagnostic]]) -> None:
        self._project = project
        self._diagnostics = diagnostics

    def project(self, path: str) -> Project | None:
        return self._project if path in self._project.documents else None

    def projects(self) -> list[Project]:
        return [self._project]

    def document(self, path: str) -> Document | None:
        return self._project.documents.get(path)

    def text(self, path: str) -> str | None:
        return self._project.texts.get(path)

    def diagnostics(self, path: str) -> tuple[Diagnostic, ...]:
        return tuple(self._diagnostics.get(path, ()))


Call = tuple[str, Callable[[], object]]


def file_calls(analysis: Features, path: str, whole: Range, points: Sequence[Position]) -> Iterator[Call]:
    """Each feature of one file: once per point for those that take a position, else once."""
    for name in FEATURES:
        if name in ONCE_PER_FILE:
            continue  # `once_per_file`
        method = getattr(analysis, name)
        wanted = _parameters(method)
        if "query" in wanted:
            continue  # project-wide: `project_calls`
        if "agent" in wanted:
            continue  # per agent: `project_calls`
        if "positions" in wanted:  # an editor asks for its cursors: one at a time here
            for pos in points:
                yield f"{name} at {pos}", _bound(method, wanted, path=path, positions=[pos])
            continue
        if "position" not in wanted:
            yield name, _bound(method, wanted, path=path, within=whole)
            continue
        for pos in points:
            yield f"{name} at {pos}", _bound(method, wanted, path=path, position=pos, within=whole)


def once_per_file(analysis: Features, path: str, whole: Range, points: Sequence[Position]) -> Iterator[list[Call]]:
    """For each feature of `ONCE_PER_FILE`, its calls at every point: the target makes them in
    turn until one is not refused."""
    for name in FEATURES:
        if name in ONCE_PER_FILE:
            method = getattr(analysis, name)
            wanted = _parameters(method)
            yield [
                (f"{name} at {pos}", _bound(method, wanted, path=path, position=pos, within=whole)) for pos in points
            ]


def project_calls(analysis: Features, path: str, agents: Sequence[str]) -> Iterator[Call]:
    """The features that take a query or an agent's name."""
    for name in FEATURES:
        method = getattr(analysis, name)
        wanted = _parameters(method)
        if "query" in wanted:
            yield name, _bound(method, wanted, query=QUERY)
        elif "agent" in wanted:
            for agent in agents:
                yield f"{name} of {agent}", _bound(method, wanted, path=path, agent=agent)


def refused(call: Callable[[], object]) -> tuple[bool, object]:
    """(True, None) when the feature refused (a rename that cannot be done), else its answer."""
    try:
        return False, call()
    except RenameError:
        return True, None


def _parameters(method: Callable[..., object]) -> dict[str, inspect.Parameter]:
    return dict(inspect.signature(method).parameters)


_KNOWN = {"path", "position", "within", "positions", "query", "agent", "new_name"}


def _bound(
    method: Callable[..., object], wanted: dict[str, inspect.Parameter], **given: object
) -> Callable[[], object]:
    given = {**given, "new_name": NEW_NAME}
    arguments = {}
    for name, parameter in wanted.items():
        if name in given and name in _KNOWN:
            arguments[name] = given[name]
        elif parameter.default is inspect.Parameter.empty:
            raise TypeError(f"the editor target cannot fill `{name}` of {method.__name__}")
    return lambda: method(**arguments)
