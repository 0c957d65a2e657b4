"""One index of every named thing in a project: where it is defined and where it is used.

Go to definition, find references, rename, document highlights, code lens counts and call
hierarchy all read this index, so they always agree on what a name means.

Names and their scopes:
- documents (agents, supervisors, behavior profiles) are project-wide by name;
- tools are project-wide by name (an agent's own `TOOLS:` and `.tools.abl` libraries);
- variables (memory, gather fields, `SET` targets, call results, names read by conditions
  and templates), return handlers, intents and FLOW steps belong to one agent. A returnable
  route's `MAP` reads the child's field in the child's scope and writes the parent's variable
  in the parent's: renaming a child's gather field renames the `MAP` keys that read it.

Each file's occurrences depend on that file alone, so they are computed once per document
object (an edit makes a new document) and merged per project.
"""

from __future__ import annotations

import enum
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import NamedTuple

from abl.checks.layout import offset_range
from abl.checks.rules.conditions import conditions
from abl.checks.rules.templates import TEMPLATE_KEYS
from abl.expr.query import names as condition_names
from abl.identity import same_objects
from abl.model import Agent, Document
from abl.model.fields import own_assignments
from abl.model.fields import root as name_root
from abl.model.types import AgentKind, Condition, Name
from abl.schema.keywords.profiles import USE_BEHAVIOR_PROFILE
from abl.syntax.cst import Node
from abl.text import LineIndex, Position, Range
from abl.workspace import Project

_USE_PROFILE_KEYS = frozenset(s.upper() for s in USE_BEHAVIOR_PROFILE.spellings)
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]\w*)")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class SymbolKind(enum.Enum):
    AGENT = "agent"  # agents, supervisors and behavior profiles: one namespace of documents
    TOOL = "tool"
    VARIABLE = "variable"  # memory variables and gather fields alike: both hold a value
    HANDLER = "return_handler"
    INTENT = "intent"
    STEP = "step"


class Symbol(NamedTuple):
    # A tuple, not a dataclass: the index hashes every occurrence's symbol, and a tuple's hash
    # is computed in C.
    kind: SymbolKind
    name: str
    scope: str | None  # the agent a local name belongs to; None for project-wide names


@dataclass(frozen=True, slots=True)
class Occurrence:
    symbol: Symbol
    path: str
    range: Range
    definition: bool
    role: str  # what the text does with the name: "header", "route target", "gather field", ...

    @property
    def is_write(self) -> bool:
        return self.definition or self.role in _WRITES


_WRITES = frozenset({"set", "map into", "call result", "clear"})


class ReferenceIndex:
    """Every occurrence of every symbol of one project."""

    def __init__(self, files: Iterable[tuple[str, list[Occurrence]]]) -> None:
        """`files`: each file's occurrences, in the project's order of files."""
        self._by_path: dict[str, list[Occurrence]] = {}
        for path, occurrences in files:
            self._by_path.setdefault(path, []).extend(occurrences)
        self._symbols: dict[Symbol, list[Occurrence]] | None = None
        # Each file's occurrences in groups with the rows they span (one group per agent), when
        # known: the occurrence under a cursor is looked for in its own agent only.
        self._groups: dict[str, list[_Group]] = {}

    @property
    def _by_symbol(self) -> dict[Symbol, list[Occurrence]]:
        # Built on the first question about a symbol: what is under the cursor needs one file.
        if self._symbols is None:
            table: dict[Symbol, list[Occurrence]] = defaultdict(list)
            for occurrences in self._by_path.values():
                for occ in occurrences:
                    table[occ.symbol].append(occ)
            self._symbols = table
        return self._symbols

    @staticmethod
    def of(project: Project) -> ReferenceIndex:
        """The project's index, built once per state of the project (its set of documents)."""
        documents = tuple(project.documents.values())
        cached = _PROJECT_CACHE.get(id(project))
        if cached is not None and cached[0] is project and same_objects(cached[1], documents):
            return cached[2]
        index = ReferenceIndex((doc.path, document_occurrences(doc)) for doc in documents)
        for doc in documents:
            groups = doc.memo.get("ide.references.groups")
            if isinstance(groups, list) and doc.path not in index._groups:
                index._groups[doc.path] = groups
            else:
                index._groups.pop(doc.path, None)  # two documents of one path: read them all
        _PROJECT_CACHE.pop(id(project), None)
        _PROJECT_CACHE[id(project)] = (project, documents, index)
        while len(_PROJECT_CACHE) > _PROJECTS_KEPT:
            del _PROJECT_CACHE[next(iter(_PROJECT_CACHE))]  # the least recently built
        return index

    def at(self, path: str, pos: Position) -> Occurrence | None:
        """The occurrence under a position (the narrowest when they nest)."""
        groups = self._groups.get(path)
        if groups is None:
            return _narrowest(self._by_path.get(path, ()), pos)
        best = None
        for first, last, occurrences in groups:
            if first <= pos.line <= last:
                found = _narrowest(occurrences, pos)
                if found is not None and (best is None or _width(found.range) < _width(best.range)):
                    best = found
        return best

    def occurrences(self, symbol: Symbol) -> list[Occurrence]:
        return list(self._by_symbol.get(symbol, ()))

    def definitions(self, symbol: Symbol) -> list[Occurrence]:
        return [o for o in self._by_symbol.get(symbol, ()) if o.definition]

    def uses(self, symbol: Symbol) -> list[Occurrence]:
        return [o for o in self._by_symbol.get(symbol, ()) if not o.definition]

    def in_file(self, path: str) -> list[Occurrence]:
        return list(self._by_path.get(path, ()))

    def symbols(self, kind: SymbolKind | None = None) -> list[Symbol]:
        return [s for s in self._by_symbol if kind is None or s.kind is kind]


# Keyed by the project's id; each entry holds the project and its documents themselves, so no id
# can be reused by another object while the entry lives. A few projects are kept (a workspace
# rarely has more open at once), the oldest dropped first.
_PROJECTS_KEPT = 16
_PROJECT_CACHE: dict[int, tuple[Project, tuple[Document, ...], ReferenceIndex]] = {}


def _width(r: Range) -> tuple[int, int]:
    return (r.end.line - r.start.line, r.end.character - r.start.character)


def _narrowest(occurrences: Iterable[Occurrence], pos: Position) -> Occurrence | None:
    best = None
    for occ in occurrences:
        if occ.range.start <= pos <= occ.range.end and (best is None or _width(occ.range) < _width(best.range)):
            best = occ
    return best


# Occurrences that lie within rows `first..last`.
_Group = tuple[int, int, list[Occurrence]]


def _group(occurrences: list[Occurrence]) -> _Group:
    if not occurrences:
        return (0, -1, occurrences)
    return (
        min(o.range.start.line for o in occurrences),
        max(o.range.end.line for o in occurrences),
        occurrences,
    )


# --- one document -------------------------------------------------------------------------


def document_occurrences(doc: Document) -> list[Occurrence]:
    cached = doc.memo.get("ide.references")
    if cached is None:
        groups = _Collector(doc).groups()
        doc.memo["ide.references.groups"] = groups
        cached = doc.memo["ide.references"] = list(chain.from_iterable(g[2] for g in groups))
    return cached  # type: ignore[return-value]


# Each file's agents' occurrences, kept per agent object: an edit re-reads only the agents it
# touched, and an agent object it did not touch is on the same rows with the same text, so its
# occurrences (positions included) still hold. A file's entry holds its current agents only
# (with the agents themselves, so no id is another agent's while it lives).
_BY_FILE: dict[str, dict[int, tuple[Agent, _Group]]] = {}


class _Collector:
    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.path = doc.path
        self.index: LineIndex = doc.source.index

    def groups(self) -> list[_Group]:
        """The library's tools, then each agent's occurrences, with the rows each group spans."""
        out = [_group([self.occ(SymbolKind.TOOL, None, tool.name, True, "tool") for tool in self.doc.library_tools])]
        before = _BY_FILE.get(self.path, {})
        now: dict[int, tuple[Agent, _Group]] = {}
        for agent in self.doc.agents:
            kept = before.get(id(agent))
            if kept is None or kept[0] is not agent:
                kept = (agent, _group(list(self.agent(agent))))
            now[id(agent)] = kept
            out.append(kept[1])
        _BY_FILE[self.path] = now
        return out

    def occ(self, kind: SymbolKind, scope: str | None, name: Name, definition: bool, role: str) -> Occurrence:
        return Occurrence(Symbol(kind, name.text, scope), self.path, name.range, definition, role)

    def agent(self, agent: Agent) -> Iterator[Occurrence]:
        me = agent.name.text or None
        if agent.name.text:
            role = "profile" if agent.kind is AgentKind.BEHAVIOR_PROFILE else agent.kind.value
            yield self.occ(SymbolKind.AGENT, None, agent.name, True, role)
        yield from self.documents_used(agent)
        yield from self.tools(agent, me)
        yield from self.variables(agent, me)
        for handler in agent.return_handlers:
            yield self.occ(SymbolKind.HANDLER, me, handler.name, True, "return handler")
        for intent in agent.intents:
            yield self.occ(SymbolKind.INTENT, me, intent.name, True, "intent")
        if agent.flow is not None:
            for step in agent.flow.steps:
                yield self.occ(SymbolKind.STEP, me, step, True, "flow step")
            for step in agent.flow.listed_steps:
                yield self.occ(SymbolKind.STEP, me, step, False, "steps list")

    def documents_used(self, agent: Agent) -> Iterator[Occurrence]:
        for route in agent.handoffs:
            if route.target is not None and route.target.text:
                yield self.occ(SymbolKind.AGENT, None, route.target, False, "route target")
        for delegate in agent.delegates:
            if delegate.target is not None and delegate.target.text:
                yield self.occ(SymbolKind.AGENT, None, delegate.target, False, "delegate target")
        for where, name in agent.other_handoff_refs:
            if name.text:
                yield self.occ(SymbolKind.AGENT, None, name, False, where.lower())
        for node in agent.sections[1:]:
            if node.is_entry and node.key.upper() in _USE_PROFILE_KEYS and node.has_value:
                yield from self.names_in_value(node, SymbolKind.AGENT, None, "profile use")

    def tools(self, agent: Agent, me: str | None) -> Iterator[Occurrence]:
        for tool in agent.tools:
            yield self.occ(SymbolKind.TOOL, None, tool.name, True, "tool")
        for imported in agent.tool_imports:
            for name in imported.names:
                yield self.occ(SymbolKind.TOOL, None, name, False, "tool import")
        if agent.on_start is not None:
            for name in agent.on_start.calls:
                yield self.occ(SymbolKind.TOOL, None, name, False, "call")

    def variables(self, agent: Agent, me: str | None) -> Iterator[Occurrence]:
        var = SymbolKind.VARIABLE
        for memory in agent.memory:
            yield self.occ(var, me, memory.name, True, f"{memory.scope} variable")
        for field in agent.all_gather_fields():
            yield self.occ(var, me, field.name, True, "gather field")
            for dep in field.depends_on:
                yield self.occ(var, me, dep, False, "depends on")
        for assignment in own_assignments(agent):
            yield self.rooted(var, me, assignment.target, "set")
        for name in agent.call_results + (agent.flow.call_results if agent.flow else []):
            yield self.rooted(var, me, name, "call result")
        for route in agent.handoffs:
            target = route.target.text if route.target is not None and route.target.text else None
            for passed in route.passes:
                yield self.rooted(var, me, passed, "pass")
            for assignment in route.set:  # `CONTEXT.set` writes into the target's variables
                if target is not None:
                    yield self.rooted(var, target, assignment.target, "set")
            maps = list(route.legacy_map)
            if route.on_return is not None:
                maps += route.on_return.map
                for name in route.on_return.clear:
                    yield self.rooted(var, me, name, "clear")
                handler_ref = route.on_return.handler or route.on_return.shorthand
                if handler_ref is not None and handler_ref.text:
                    yield Occurrence(
                        Symbol(SymbolKind.HANDLER, handler_ref.text, me),
                        self.path,
                        handler_ref.range,
                        False,
                        "on_return handler",
                    )
            for entry in maps:
                if target is not None:
                    yield self.rooted(var, target, entry.child, "map from child")
                yield self.rooted(var, me, entry.parent, "map into")
        for delegate in agent.delegates:
            for entry in delegate.returns:
                if delegate.target is not None and delegate.target.text:
                    yield self.rooted(var, delegate.target.text, entry.child, "map from child")
                yield self.rooted(var, me, entry.parent, "map into")
        for handler in agent.return_handlers:
            for name in handler.clear:
                yield self.rooted(var, me, name, "clear")
        for _, condition in conditions(agent, with_complete=True):
            yield from self.condition_reads(condition, me)
        yield from self.template_reads(agent, me)

    def rooted(self, kind: SymbolKind, scope: str | None, name: Name, role: str) -> Occurrence:
        """A dotted name (`order.total`) counts as its root."""
        root = name_root(name.text)
        where = name.range
        if root != name.text and where.start.line == where.end.line:
            where = Range.on_line(where.start.line, where.start.character, where.start.character + len(root))
        return Occurrence(Symbol(kind, root, scope), self.path, where, False, role)

    def condition_reads(self, condition: Condition, me: str | None) -> Iterator[Occurrence]:
        parsed = condition.parse
        if parsed.natural_language or parsed.expr is None:
            return
        for ref in condition_names(parsed.expr):
            if ref.root in ("intent", "routing_intent"):
                continue
            where = offset_range(self.index, condition.range.start, *ref.root_span)
            yield Occurrence(Symbol(SymbolKind.VARIABLE, ref.root, me), self.path, where, False, "condition")

    def template_reads(self, agent: Agent, me: str | None) -> Iterator[Occurrence]:
        text = self.doc.source.text
        for node in _nodes(agent.sections[1:]):
            if not node.is_entry or node.key.upper() not in TEMPLATE_KEYS or not node.has_value:
                continue
            start = node.value_start
            end = node.end if node.is_pipe else node.value_end
            for m in _PLACEHOLDER.finditer(text, start, end):
                where = Range(self.index.position(m.start(1)), self.index.position(m.end(1)))
                yield Occurrence(Symbol(SymbolKind.VARIABLE, m.group(1), me), self.path, where, False, "template")

    def names_in_value(self, node: Node, kind: SymbolKind, scope: str | None, role: str) -> Iterator[Occurrence]:
        value = node.value
        for m in _IDENTIFIER.finditer(value):
            start = node.value_start + m.start()
            where = Range(self.index.position(start), self.index.position(start + len(m.group(0))))
            yield Occurrence(Symbol(kind, m.group(0), scope), self.path, where, False, role)


def _nodes(roots: list[Node]) -> Iterator[Node]:
    """Every node under `roots`, in no particular order, without recursion (nesting can be
    arbitrarily deep in a file being typed)."""
    todo = list(roots)
    while todo:
        node = todo.pop()
        yield node
        todo.extend(node.children)
