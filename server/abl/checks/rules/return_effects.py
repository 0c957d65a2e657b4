"""What a return writes into the parent: the writes the runtime refuses, and a repeated `MAP` key.

## What it does
- `RETURN_TARGET_NOT_DECLARED`: on a returnable route, a `MAP` parent variable, an `ON_RETURN`
  `SET` or `CLEAR` target, or the `CLEAR` of a return handler the route names, that the parent
  does not declare in `MEMORY` or `GATHER`.
- `RETURN_TARGET_NOT_WRITABLE`: the same targets, when the parent declares them as persistent
  paths it may only read (`ACCESS: read`, or under `READS:`).
Both ask `abl.model.WriteAccess`, the runtime's own answer. Names starting with `_` are the
runtime's own and are left to `RESERVED_VARIABLE_NAME`.
- `DUPLICATE_KEY`: a child field mapped twice in one return map.

## Why is this bad?
Seed 004: "If one target is not writable, the runtime applies none of the return effects", so
one undeclared `SET` loses every mapped value too. A repeated `MAP` key is one entry on the
platform (a map holds one value per child field) and two in this tool's runtime.

## Fix safety
Declaring the variable makes the return's effects apply: unsafe. A repeated `MAP` key gets no
fix: which copy the author needs is a choice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from abl.checks.context import Check, agent_rule
from abl.checks.handoff_text import insert_lines, newline_of
from abl.diagnostics import Fix, TextEdit
from abl.model import Agent, HandoffRoute, MapEntry, WriteAccess, produced_fields
from abl.model.fields import RESERVED_TARGET, declaring_names, root
from abl.model.nesting import holds_value, read_children
from abl.model.types import MemoryVar, Name
from abl.syntax.cst import Node, SourceFile, find_entry
from abl.text import Position, Range

_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@agent_rule("RETURN_TARGET_NOT_DECLARED", "RETURN_TARGET_NOT_WRITABLE")
def return_target_not_writable(check: Check, agent: Agent) -> None:
    access = WriteAccess(agent)
    reported: set[tuple[str, Range]] = set()
    for route in agent.handoffs:
        if not route.is_returnable:
            continue  # `ON_RETURN` never runs: HANDOFF_ON_RETURN_WITHOUT_RETURN says so
        child = route.target.text if route.target is not None else "the child"
        for what, name in _targets(check, agent, route):
            text = name.text.strip()
            if not text or (text, name.range) in reported:
                continue
            refusal = access.refusal(text)
            if refusal is None or refusal.code == RESERVED_TARGET:
                continue  # a reserved `_` name is RESERVED_VARIABLE_NAME's
            reported.add((text, name.range))
            refused = (
                f"so when {child} returns, the runtime refuses this {what} and applies none of the "
                "return's effects (no `MAP`, `SET` or `CLEAR`)"
            )
            declaration = refusal.declaration
            if declaration is None:
                check.report(
                    "RETURN_TARGET_NOT_DECLARED",
                    f"`{text}` is not declared in the `MEMORY` or `GATHER` of {agent.name.text}, {refused}; "
                    "declare it under `MEMORY` `session:`",
                    name.range,
                    fixes=_declare(check, agent, text),
                )
                continue
            check.report(
                "RETURN_TARGET_NOT_WRITABLE",
                f"`{text}` is not writable by {agent.name.text}: its `MEMORY` grants it only read access "
                f"({_granted(declaration)}), {refused}; {_advice(declaration)}, or return the value into "
                "a session variable",
                name.range,
                related=(
                    (
                        check.document.path,
                        declaration.access_range or declaration.name.range,
                        "read access granted here",
                    ),
                ),
                fixes=_allow_writing(declaration),
            )


def _granted(declaration: MemoryVar) -> str:
    path = declaration.name.text
    if declaration.access_key == "ACCESS":
        return f"`ACCESS: read` on `{path}`"
    return f"`{path}` is listed under `READS:`"


def _advice(declaration: MemoryVar) -> str:
    path = declaration.name.text
    if declaration.access_key == "ACCESS":
        return f"give `{path}` `ACCESS: readwrite`"
    return f"declare `{path}` outside `READS:` with `ACCESS: readwrite`"


def _allow_writing(declaration: MemoryVar) -> tuple[Fix, ...]:
    """`ACCESS: read` → `ACCESS: readwrite`; a path under `READS:` gets no fix (moving it out
    of the shorthand list is the author's to arrange)."""
    if declaration.access_key != "ACCESS" or declaration.access_range is None:
        return ()
    title = f"Allow {declaration.name.text} to be written (`ACCESS: readwrite`)"
    return (Fix(title, (TextEdit(declaration.access_range, "readwrite"),), False),)


@agent_rule("DUPLICATE_KEY")
def repeated_map_key(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        entries = list(route.on_return.map) if route.on_return is not None else []
        for group in (entries, list(route.legacy_map)):
            for earlier, later in _repeats(group):
                gap = later.child.range.start.line - earlier.child.range.start.line
                where = f"{gap} line{'s' if gap != 1 else ''} below" if gap else "later on this line"
                check.report(
                    "DUPLICATE_KEY",
                    f"child field `{earlier.child.text}` is mapped again {where} (into `{later.parent.text}`); "
                    "a `MAP` holds one entry per child field, so the platform keeps only one of them, "
                    "while this tool's runtime applies every entry; map each child field once",
                    earlier.child.range,
                    related=((check.document.path, later.child.range, "the same child field, mapped again"),),
                )


def _targets(check: Check, agent: Agent, route: HandoffRoute) -> Iterator[tuple[str, Name]]:
    """(what, name) for every variable a return through `route` writes into the parent. A `MAP`
    entry whose child field the child does not produce is left out: the compiler rejects it
    (UNKNOWN_HANDOFF_RETURN_FIELD, often with MAP_DIRECTION_REVERSED), so it never runs."""
    produced = _child_fields(check, route)
    on_return = route.on_return
    for entry in [*(on_return.map if on_return is not None else ()), *route.legacy_map]:
        if produced is None or root(entry.child.text) in produced:
            yield "`MAP` entry", entry.parent
    if on_return is None:
        return
    for assignment in on_return.set:
        yield "`SET`", assignment.target
    for name in on_return.clear:
        yield "`CLEAR`", name
    handler_name = on_return.handler.text.strip() if on_return.handler is not None else None
    for handler in agent.return_handlers:
        if handler.name.text == handler_name:
            for name in handler.clear:
                yield f"`CLEAR` of handler `{handler_name}`", name


def _child_fields(check: Check, route: HandoffRoute) -> set[str] | None:
    """What the route's target produces; None when it is remote or not in the project."""
    if route.target is None or route.remote:
        return None
    child = check.project.agent(route.target.text)
    return produced_fields(child) if child is not None else None


def _repeats(entries: list[MapEntry]) -> Iterator[tuple[MapEntry, MapEntry]]:
    """(entry, the next entry with the same child field) for each repeated child field."""
    last: dict[str, MapEntry] = {}
    for entry in reversed(entries):
        key = entry.child.text
        if key in last:
            yield entry, last[key]
        last[key] = entry


def _declare(check: Check, agent: Agent, target: str) -> tuple[Fix, ...]:
    """`- name` in the parent's `MEMORY` session list, creating the list or the section, where
    `name` is the target's root. Only when declaring it makes the target writable (`n` declares
    `n.x` and `n[0]`, not `n[[`) and it reads back as itself (`- n:` would declare `n`): either
    way the target would stay refused and the fix would repeat."""
    name = root(target)
    if _VARIABLE.fullmatch(name) is None or name not in declaring_names(target):
        return ()
    source = check.document.source
    title = f"Declare `{name}` in `MEMORY`"
    memory = agent.section("MEMORY")
    if memory is not None:
        edit = _declaration_in_memory(source, memory, name)
        return (Fix(title, (edit,), False),) if edit is not None else ()
    handoff = agent.section("HANDOFF")  # a returnable route lives there: the new section goes above it
    if handoff is None:
        return ()
    nl = newline_of(source)
    at = Position(handoff.row, 0)
    text = f"MEMORY:{nl}  session:{nl}    - {name}{nl}{nl}"
    return (Fix(title, (TextEdit(Range(at, at), text),), False),)


def _declaration_in_memory(source: SourceFile, memory: Node, name: str) -> TextEdit | None:
    """`- name` at the end of the `session:` list the model reads (the later of two, as
    DUPLICATE_KEY says), or a new `session:` list when there is none. None when no line added
    there would be read: under a value (`session: [a]`, `MEMORY: none`), or an empty list."""
    read = read_children(memory)
    session = find_entry(read, "session")
    if session is None:
        if not read:
            return None
        lines = ["session:", f"  - {name}"]
        return insert_lines(source, read[-1], read[0].col, lines)
    items = read_children(session)
    if holds_value(session) or not items:
        return None
    last = items[-1]
    # Items appended to one list: several declarations go in together, in one pass.
    return insert_lines(source, last, last.col, [f"- {name}"], stacks=True)
