"""Definition, references, highlights, rename and the handoff call hierarchy.

Every answer comes from the project's `ReferenceIndex`, so the same name means the same thing
to each of them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from abl.diagnostics import TextEdit
from abl.ide.edits import WorkspaceEdit
from abl.ide.references import Occurrence, ReferenceIndex, Symbol, SymbolKind
from abl.ide.test_renames import agent_rename_in_tests
from abl.model import Agent
from abl.model.types import AgentKind
from abl.text import Position, Range
from abl.workspace import Project

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_AGENT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*\Z")


@dataclass(frozen=True, slots=True)
class Location:
    path: str
    range: Range


@dataclass(frozen=True, slots=True)
class Highlight:
    range: Range
    write: bool


class RenameError(ValueError):
    """Why a rename cannot be done here; shown to the user as is."""


def occurrence_at(project: Project, path: str, pos: Position) -> Occurrence | None:
    return ReferenceIndex.of(project).at(path, pos)


def definition(project: Project, path: str, pos: Position) -> list[Location]:
    index = ReferenceIndex.of(project)
    occ = index.at(path, pos)
    if occ is None:
        return []
    return [Location(d.path, d.range) for d in index.definitions(occ.symbol)]


def references(project: Project, path: str, pos: Position, include_declaration: bool = True) -> list[Location]:
    index = ReferenceIndex.of(project)
    occ = index.at(path, pos)
    if occ is None:
        return []
    found = index.occurrences(occ.symbol) if include_declaration else index.uses(occ.symbol)
    return sorted((Location(o.path, o.range) for o in found), key=lambda loc: (loc.path, loc.range.start))


def highlights(project: Project, path: str, pos: Position) -> list[Highlight]:
    index = ReferenceIndex.of(project)
    occ = index.at(path, pos)
    if occ is None:
        return []
    return [Highlight(o.range, o.is_write) for o in index.occurrences(occ.symbol) if o.path == path]


def prepare_rename(project: Project, path: str, pos: Position) -> tuple[Range, str]:
    """The range of the name under the cursor and its text; `RenameError` when the cursor is
    not on a name the author chose (keywords, values, built-ins)."""
    index = ReferenceIndex.of(project)
    occ = index.at(path, pos)
    if occ is None:
        raise RenameError(
            "only names can be renamed: agents, variables, fields, return handlers, tools, intents and steps"
        )
    if not index.definitions(occ.symbol):
        raise RenameError(f"`{occ.symbol.name}` is not declared in this project, so there is nothing to rename it with")
    return occ.range, occ.symbol.name


def rename(project: Project, path: str, pos: Position, new_name: str, folders: Iterable[str] = ()) -> WorkspaceEdit:
    """The edits of a rename across the project; an agent is renamed in the conversation tests
    that run the project too (those found under `folders`)."""
    prepare_rename(project, path, pos)
    index = ReferenceIndex.of(project)
    occ = index.at(path, pos)
    assert occ is not None  # prepare_rename checked it
    symbol = occ.symbol
    pattern = _AGENT_NAME if symbol.kind is SymbolKind.AGENT else _NAME
    if not pattern.match(new_name):
        raise RenameError(f"`{new_name}` is not a valid {symbol.kind.value.replace('_', ' ')} name")
    clash = Symbol(symbol.kind, new_name, symbol.scope)
    if new_name != symbol.name and index.definitions(clash):
        where = index.definitions(clash)[0]
        raise RenameError(
            f"`{new_name}` already names {_with_article(symbol.kind.value.replace('_', ' '))} "
            f"({os.path.basename(where.path)}, line {where.range.start.line + 1})"
        )
    edit = WorkspaceEdit()
    for o in index.occurrences(symbol):
        edit.add(o.path, TextEdit(o.range, new_name))
    if symbol.kind is SymbolKind.AGENT and new_name != symbol.name:
        for test_file, edits in agent_rename_in_tests(project, symbol.name, new_name, folders).items():
            for e in edits:
                edit.add(test_file, e)
    return edit


def _with_article(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


# --- call hierarchy over handoffs ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AgentItem:
    name: str
    kind: AgentKind
    path: str
    range: Range  # the whole document's header line
    selection: Range  # the name


@dataclass(frozen=True, slots=True)
class Call:
    """An agent reached from (or reaching) another, with the places the route is written: in
    `path`, the calling agent's file (the caller's for an incoming call, the asked agent's for an
    outgoing one)."""

    agent: AgentItem
    from_ranges: tuple[Range, ...]
    path: str


def agent_item(project: Project, name: str) -> AgentItem | None:
    refs = project.agents_by_name().get(name)
    if not refs:
        return None
    return _item_of(refs[0].agent)


def hierarchy_item(project: Project, path: str, pos: Position) -> AgentItem | None:
    occ = occurrence_at(project, path, pos)
    if occ is None or occ.symbol.kind is not SymbolKind.AGENT:
        return None
    return agent_item(project, occ.symbol.name)


def incoming_calls(project: Project, name: str) -> list[Call]:
    """Agents that hand off (or delegate) to `name`, with the target names in their routes."""
    index = ReferenceIndex.of(project)
    # Callers by object, not by name: two agents of one name (an error, still shown) are two callers.
    by_caller: dict[int, tuple[Agent, list[Range]]] = {}
    for use in index.uses(Symbol(SymbolKind.AGENT, name, None)):
        caller = _agent_at(project, use.path, use.range.start)
        if caller is None or not caller.name.text or use.role == "profile use":
            continue
        by_caller.setdefault(id(caller), (caller, []))[1].append(use.range)
    calls = [
        Call(_item_of(caller), tuple(ranges), caller.path)
        for caller, ranges in sorted(by_caller.values(), key=lambda entry: (entry[0].name.text, entry[0].path))
    ]
    return calls


def _item_of(agent: Agent) -> AgentItem:
    return AgentItem(agent.name.text, agent.kind, agent.path, agent.header.head_range, agent.name.range)


def outgoing_calls(project: Project, name: str) -> list[Call]:
    """The agents `name` hands off or delegates to, with the places those routes are written."""
    item = agent_item(project, name)
    if item is None:
        return []
    index = ReferenceIndex.of(project)
    by_target: dict[str, list[Range]] = {}
    agent = project.agent(name)
    for occ in index.in_file(item.path):
        if occ.symbol.kind is not SymbolKind.AGENT or occ.definition or occ.role == "profile use":
            continue
        if _agent_at(project, occ.path, occ.range.start) is not agent:
            continue
        by_target.setdefault(occ.symbol.name, []).append(occ.range)
    calls = []
    for target, ranges in sorted(by_target.items()):
        target_item = agent_item(project, target)
        if target_item is not None:
            calls.append(Call(target_item, tuple(ranges), item.path))
    return calls


def _agent_at(project: Project, path: str, pos: Position) -> Agent | None:
    doc = project.documents.get(path)
    if doc is None:
        return None
    found = None
    for agent in doc.agents:
        if agent.header.row <= pos.line:
            found = agent
    return found
