"""Returnable handoffs (seed 004): `RETURN`, `ON_RETURN`, `MAP` and `RETURN_HANDLERS`.

## What it does
Checks what happens when a child gives control back:
- the platform's own codes: `UNKNOWN_HANDOFF_RETURN_FIELD` (a `MAP` source the child does not
  have, also when the child lives in another file), `HANDOFF_ON_RETURN_WITHOUT_RETURN`,
  `HANDOFF_ON_RETURN_ACTION_AND_HANDLER`, `UNSUPPORTED_HANDOFF_ON_RETURN_ACTION`,
  `UNKNOWN_HANDOFF_ON_RETURN_HANDLER`, `RETURN_HANDLER_NAME_COLLISION` and
  `LEGACY_HANDOFF_ON_RETURN_SHORTHAND`;
- the seed's silent traps: `RETURN_NOT_LOWERCASE_TRUE` (`True`, `"true"`, `yes` read as false),
  `RETURN_VALUE_NOT_MAPPED`, `MAP_DIRECTION_REVERSED`, `RETURNABLE_TARGET_CANNOT_RETURN`,
  `RETURN_PATH_WITHOUT_ON_RETURN_MAP_HANDLER` and `LEGACY_TOP_LEVEL_MAP`.

## Why is this bad?
Only mapped fields come back, only lowercase `true` makes a route returnable, and an unknown
action quietly runs `continue`: each mistake passes the compiler and then loses the value the
parent was waiting for, or keeps the customer in the child for good.

## Fix safety
Fixes that change what runs after the return (`RETURN: true`, another handler or child field,
a swapped map entry) are unsafe, and so is deleting an `ON_RETURN` that never runs: it keeps what
runs, but it throws away lines the author wrote. Writing `continue` for an unsupported action and
moving a legacy `MAP` under `ON_RETURN` keep what runs and are safe (the move only on a returnable
route: on a permanent one it lands in an `ON_RETURN` that never runs).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.checks.handoff_text import (
    add_lines_fix,
    indentation,
    key_column,
    nested_note,
    nested_route_key,
    newline_of,
    reindented,
    route_anchor,
    route_entry,
)
from abl.checks.layout import block_end, last_row
from abl.diagnostics import Fix, TextEdit
from abl.expr.query import names as condition_names
from abl.model import Agent, Condition, HandoffRoute, MapEntry, declared_variables, produced_fields
from abl.model.fields import root
from abl.suggest import did_you_mean, did_you_mean_name, ranked
from abl.syntax.cst import Node
from abl.text import Position, Range, split_lines
from abl.workspace.graph import way_back

BUILT_IN_ACTIONS = ("continue", "resume_intent")
# Spellings an author writes for "yes"; all of them read as false (only `true` is true).
_TRUE_LOOKALIKES = frozenset({"true", "yes", "y", "on", "1"})
_TEMPLATE_NAME = re.compile(r"\{\{\s*([A-Za-z_][\w]*)")


# --- RETURN and ON_RETURN on the route ---------------------------------------------------------


@agent_rule("RETURN_NOT_LOWERCASE_TRUE")
def return_not_lowercase_true(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        flag = route.returns
        if flag is None or flag.is_true:
            continue
        raw = flag.value.raw.strip()
        if flag.value.text.strip().lower() not in _TRUE_LOOKALIKES:
            continue
        target = route.target.text if route.target else "the target"
        # Writing `true` makes the route returnable: meant, but a change to what runs.
        fix = fixes.replace("Write `true`", flag.value.range, "true", safe=False)
        check.report(
            "RETURN_NOT_LOWERCASE_TRUE",
            f"`{flag.key.text}: {raw}` reads as false: only lowercase `true` makes the route returnable, "
            f"so the handoff to {target} is permanent and nothing comes back; write `true`",
            flag.value.range,
            fixes=(fix,),
        )


@agent_rule("HANDOFF_ON_RETURN_WITHOUT_RETURN")
def on_return_without_return(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        if route.on_return is None or route.is_returnable:
            continue
        nested = nested_route_key(route, "RETURN", "EXPECT_RETURN") if route.returns is None else None
        if nested is not None:
            why = f"{nested_note(nested)}, so the route is permanent"
        elif route.returns is None:
            why = "the route has no `RETURN`, so it is permanent"
        else:
            why = f"`{route.returns.key.text}: {route.returns.value.raw.strip()}` makes the route permanent"
        offered: list[Fix] = []
        # With a `RETURN` nested under a value, KEY_UNDER_VALUE's fix moves it where it is read.
        set_true = _set_return_true(check, route) if nested is None else None
        if set_true is not None:
            offered.append(set_true)
        node = route_entry(route, "ON_RETURN")
        if node is not None:
            # It keeps what runs (`ON_RETURN` never ran), but deletes what the author wrote.
            offered.append(Fix("Remove `ON_RETURN`", (_delete_block(check, node),), False))
        if _meant_permanent(route):
            offered.reverse()  # seed 004: on a `RETURN: false` route, remove `ON_RETURN`
        key = route.returns.key.text if route.returns is not None else "RETURN"
        check.report(
            "HANDOFF_ON_RETURN_WITHOUT_RETURN",
            f"`ON_RETURN` never runs: {why}; write `{key}: true` or remove `ON_RETURN`",
            route.on_return.key_range,
            fixes=offered,
        )


def _meant_permanent(route: HandoffRoute) -> bool:
    """`RETURN` is written, and not as a spelling of true (`True`, `"true"`, `yes`): the author
    chose a permanent route, so `ON_RETURN` is the part that was copied by mistake."""
    flag = route.returns
    return flag is not None and flag.value.text.strip().lower() not in _TRUE_LOOKALIKES


@agent_rule("HANDOFF_ON_RETURN_ACTION_AND_HANDLER")
def action_and_handler(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        on_return = route.on_return
        if on_return is None or on_return.action is None or on_return.handler is None:
            continue
        offered: list[Fix] = []
        node = _on_return_entry(route, "action")
        if node is not None:
            # The handler alone then decides what the parent does: a change to what runs.
            offered.append(Fix("Remove `action` and keep the handler", (_delete_block(check, node),), False))
        where = on_return.handler.key_range or on_return.handler.range
        check.report(
            "HANDOFF_ON_RETURN_ACTION_AND_HANDLER",
            f"`ON_RETURN` names both `action: {on_return.action.text}` and `handler: {on_return.handler.text}`; "
            "the compiler rejects it: choose a built-in action or a named handler, not both",
            where,
            fixes=offered,
        )
    for handler in agent.return_handlers:
        if handler.respond is None or not handler.flag(handler.resume_intent):
            continue
        assert handler.resume_intent is not None
        where = handler.resume_intent.key_range or handler.resume_intent.range
        check.report(
            "HANDOFF_ON_RETURN_ACTION_AND_HANDLER",
            f"return handler `{handler.name.text}` combines `RESPOND` with `RESUME_INTENT`; the compiler "
            "rejects it: keep one of the two",
            where,
        )


@agent_rule("UNSUPPORTED_HANDOFF_ON_RETURN_ACTION")
def unsupported_action(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        on_return = route.on_return
        if on_return is None or on_return.action is None or on_return.handler is not None:
            continue
        word = on_return.action.text.strip()
        if word.lower() in BUILT_IN_ACTIONS:
            continue
        where = on_return.action.range
        # The runtime already runs `continue`, so writing it keeps what runs.
        offered = [
            fixes.replace("Write `continue` (what runs today)", where, "continue", safe=True),
            fixes.replace("Write `resume_intent`", where, "resume_intent", safe=False),
        ]
        check.report(
            "UNSUPPORTED_HANDOFF_ON_RETURN_ACTION",
            f"`ON_RETURN` action `{word}` is not supported at runtime, so the parent runs `continue`; "
            "the supported actions are `continue` and `resume_intent`",
            where,
            fixes=offered,
        )


@agent_rule("UNKNOWN_HANDOFF_ON_RETURN_HANDLER")
def unknown_handler(check: Check, agent: Agent) -> None:
    declared = [h.name.text for h in agent.return_handlers]
    for route in agent.handoffs:
        on_return = route.on_return
        if on_return is None or on_return.handler is None:
            continue
        name = on_return.handler.text.strip()
        if not name or name in declared:
            continue
        guess = did_you_mean_name(name, declared)
        offered = fixes.use_instead(guess, on_return.handler.range)
        if name.lower() in BUILT_IN_ACTIONS:
            advice = f"`{name}` is a built-in action: write `action: {name.lower()}`"
        elif declared:
            advice = f"declared handlers: {', '.join(declared)}" + (f"; did you mean `{guess}`" if guess else "")
        else:
            advice = "this agent has no `RETURN_HANDLERS` section"
        check.report(
            "UNKNOWN_HANDOFF_ON_RETURN_HANDLER",
            f"`ON_RETURN` handler `{name}` is not declared in `RETURN_HANDLERS`; the compiler rejects it; {advice}",
            on_return.handler.range,
            fixes=offered,
        )


@agent_rule("RETURN_HANDLER_NAME_COLLISION")
def handler_name_collision(check: Check, agent: Agent) -> None:
    for handler in agent.return_handlers:
        if handler.name.text.lower() not in BUILT_IN_ACTIONS:
            continue
        check.report(
            "RETURN_HANDLER_NAME_COLLISION",
            f"return handler `{handler.name.text}` has the name of a built-in action; the compiler rejects "
            "it: give the handler a name of its own",
            handler.name.range,
        )


@agent_rule("LEGACY_HANDOFF_ON_RETURN_SHORTHAND")
def shorthand_matches_nothing(check: Check, agent: Agent) -> None:
    declared = [h.name.text for h in agent.return_handlers]
    for route in agent.handoffs:
        on_return = route.on_return
        if on_return is None or on_return.shorthand is None:
            continue
        word = on_return.shorthand.text.strip()
        if word.lower() in BUILT_IN_ACTIONS or word in declared:
            continue
        guess = did_you_mean(word, [*BUILT_IN_ACTIONS, *declared]) if word else None
        offered = fixes.use_instead(guess, on_return.shorthand.range)
        hint = f"; did you mean `{guess}`" if guess else ""
        check.report(
            "LEGACY_HANDOFF_ON_RETURN_SHORTHAND",
            f"`ON_RETURN: {on_return.shorthand.raw.strip()}` is neither a built-in action (`continue`, "
            f"`resume_intent`) nor a declared return handler, so the parent runs `continue`{hint}",
            on_return.shorthand.range,
            fixes=offered,
        )


@agent_rule("LEGACY_TOP_LEVEL_MAP")
def legacy_top_level_map(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        if not route.legacy_map:
            continue
        node = route_entry(route, "MAP")
        if node is None:
            continue
        offered = []
        move = _move_map_under_on_return(check, route, node)
        if move is not None:
            offered.append(move)
        check.report(
            "LEGACY_TOP_LEVEL_MAP",
            "`MAP` at the route's top level is the legacy place for the return map; whether the platform "
            "still copies these fields back depends on its version; move it under `ON_RETURN`",
            node.key_range,
            fixes=offered,
        )


# --- MAP against the child ------------------------------------------------------------------------


@agent_rule("UNKNOWN_HANDOFF_RETURN_FIELD", "MAP_DIRECTION_REVERSED")
def map_sources(check: Check, agent: Agent) -> None:
    # Computed once per agent, not per route: a supervisor may have thousands of routes to a few children.
    parent_names: set[str] | None = None
    produced_by: dict[int, set[str]] = {}
    for route in agent.handoffs:
        child = _local_child(check, route)
        if child is None:
            continue
        produced = produced_by.get(id(child))
        if produced is None:
            produced = produced_by[id(child)] = produced_fields(child)
        if parent_names is None:
            parent_names = declared_variables(agent)
        for entry in _map_entries(route):
            source = entry.child.text
            if root(source) in produced:
                continue
            parent = entry.parent.text
            # Reversed: the left side is the parent's variable and the right side the child's field.
            reversed_entry = parent != source and root(parent) in produced and root(source) in parent_names
            if route.is_returnable:
                _unknown_return_field(check, child, entry, produced)
            if reversed_entry:
                # Which side is the child's is the author's call: the swap changes the copy.
                swap = Fix(
                    "Swap the two sides",
                    (TextEdit(entry.child.range, parent), TextEdit(entry.parent.range, source)),
                    False,
                )
                check.report(
                    "MAP_DIRECTION_REVERSED",
                    f"`{source}: {parent}` looks reversed: {child.name.text} produces `{parent}`, not `{source}`; "
                    f"`MAP` entries are `child_field: parent_variable`, so write `{parent}: {source}`",
                    Range(entry.child.range.start, max(entry.parent.range.end, entry.child.range.end)),
                    fixes=(swap,),
                )


def _unknown_return_field(check: Check, target: Agent, entry: MapEntry, produced: set[str]) -> None:
    source = entry.child.text
    child = target.name.text
    fields = sorted(n for n in produced if not n.startswith("last_") and n.isidentifier())
    guess = did_you_mean_name(source, fields)
    # One fix per field the child produces, the likeliest first: the author may have misspelt the
    # name, or named a field the child never had (then no name is close, and every one is offered).
    close = ranked(source, fields, limit=len(fields))
    offered = tuple(
        fixes.replace(f"Map `{name}` from the child", entry.child.range, name, safe=False)
        for name in [*close, *(f for f in fields if f not in close)]
    )
    hint = f'; did you mean "{guess}"' if guess else ""
    check.report(
        "UNKNOWN_HANDOFF_RETURN_FIELD",
        f'HANDOFF ON_RETURN maps child field "{source}" from "{child}" into parent field "{entry.parent.text}", '
        f'but "{child}" does not declare or obviously produce "{source}"{hint}',
        entry.child.range,
        fixes=offered,
        related=((target.path, target.name.range, f"`{child}` is declared here"),),
    )


@agent_rule("RETURN_VALUE_NOT_MAPPED")
def return_value_not_mapped(check: Check, agent: Agent) -> None:
    reads = _parent_reads(agent)
    for route in agent.handoffs:
        if not route.is_returnable:
            continue
        child = _local_child(check, route)
        if child is None:
            continue
        # What the return writes into the parent: the parent side of each map entry, and SETs.
        brought_back = {root(e.parent.text) for e in _map_entries(route)}
        if route.on_return is not None:
            brought_back |= {root(a.target.text) for a in route.on_return.set}
        owned = _owned_by_parent(route)
        gathered = [f.name.text for f in child.all_gather_fields()]
        missing = [
            name for name in dict.fromkeys(gathered) if name in reads and name not in brought_back and name not in owned
        ]
        if not missing:
            continue
        where = route.on_return.key_range if route.on_return is not None else route_anchor(route)
        for name in missing:
            fix = _add_map_entry(check, route, name)
            check.report(
                "RETURN_VALUE_NOT_MAPPED",
                f"`{name}` does not come back from {child.name.text}: only mapped fields return, and this "
                f"route has no `MAP` entry for it, yet {agent.name.text} reads it in {reads[name]}; "
                f"add `{name}: {name}` under `ON_RETURN.MAP`",
                where,
                fixes=(fix,) if fix is not None else (),
            )


@agent_rule("RETURN_PATH_WITHOUT_ON_RETURN_MAP_HANDLER")
def handler_without_map(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        on_return = route.on_return
        if on_return is None or on_return.handler is None or not route.is_returnable:
            continue
        if _map_entries(route):
            continue
        target = route.target.text if route.target else "the child"
        check.report(
            "RETURN_PATH_WITHOUT_ON_RETURN_MAP_HANDLER",
            f"`ON_RETURN` runs handler `{on_return.handler.text}` but has no `MAP`, so no value comes back "
            f"from {target}; add a `MAP` entry on the route for each value the parent needs",
            on_return.handler.range,
        )


@agent_rule("RETURNABLE_TARGET_CANNOT_RETURN")
def target_cannot_return(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        if not route.is_returnable or route.target is None:
            continue
        child = _local_child(check, route)
        if child is None or child is agent:
            continue
        if way_back(agent.name.text, child, check.project.agent):
            continue
        check.report(
            "RETURNABLE_TARGET_CANNOT_RETURN",
            f"{child.name.text} can never give control back: it has no `COMPLETE`, it runs a `FLOW` (so it has "
            f"no built-in return) and it has no route back to {agent.name.text}, nor has any agent it hands on "
            "to for good; the conversation stays with it and `ON_RETURN` never runs",
            route.target.range,
        )


# --- internals ----------------------------------------------------------------------------------


def _map_entries(route: HandoffRoute) -> list[MapEntry]:
    """The route's return map: `ON_RETURN.MAP`, plus a legacy top-level `MAP` (read the same way)."""
    entries = list(route.on_return.map) if route.on_return is not None else []
    return entries + list(route.legacy_map)


def _local_child(check: Check, route: HandoffRoute) -> Agent | None:
    """The target agent, looked up across the whole project; `None` when remote or unknown."""
    if route.target is None or route.remote:
        return None
    return check.project.agent(route.target.text)


def _owned_by_parent(route: HandoffRoute) -> set[str]:
    """Fields the route hands to the child with `PASS`: the parent already holds them, and the
    child's own GATHER of the same name only asks when nothing was passed. A field the route's
    own `WHEN` tests is left out: gating on a value while passing it is the seed's trap."""
    gate: set[str] = set()
    if route.when is not None:
        gate = {ref.root for ref in condition_names(route.when.parse.expr)}
    return {root(n.text) for n in route.passes} - gate


def _parent_reads(agent: Agent) -> dict[str, str]:
    """Variables the agent reads, each with where it first reads it (for messages)."""
    reads: dict[str, str] = {}

    def note(name: str, where: str) -> None:
        reads.setdefault(root(name), where)

    for cond, where in _conditions(agent):
        for ref in condition_names(cond.parse.expr):
            note(ref.root, where)
    for route in agent.handoffs:
        for name in route.passes:
            note(name.text, "a `PASS` list")
        if route.summary is not None:
            for name in _TEMPLATE_NAME.findall(route.summary.text):
                note(name, "a `SUMMARY`")
    for rule in agent.complete:
        if rule.respond is not None:
            for name in _TEMPLATE_NAME.findall(rule.respond.text):
                note(name, "a `RESPOND`")
    for handler in agent.return_handlers:
        if handler.respond is not None:
            for name in _TEMPLATE_NAME.findall(handler.respond.text):
                note(name, "a `RESPOND`")
    if agent.on_start is not None and agent.on_start.respond is not None:
        for name in _TEMPLATE_NAME.findall(agent.on_start.respond.text):
            note(name, "a `RESPOND`")
    for gather in agent.all_gather_fields():
        if gather.prompt is not None:
            for name in _TEMPLATE_NAME.findall(gather.prompt.text):
                note(name, "a `PROMPT`")
    return reads


def _conditions(agent: Agent) -> Iterator[tuple[Condition, str]]:
    for route in agent.handoffs:
        if route.when is not None:
            yield route.when, "a `WHEN`"
        if route.enabled_when is not None:
            yield route.enabled_when, "an `ENABLED_WHEN`"
    for rule in agent.complete:
        if rule.when is not None:
            yield rule.when, "a `COMPLETE` `WHEN`"
    for delegate in agent.delegates:
        if delegate.when is not None:
            yield delegate.when, "a `DELEGATE` `WHEN`"
    for trigger in agent.escalations:
        if trigger.when is not None:
            yield trigger.when, "an `ESCALATE` `WHEN`"


def _on_return_entry(route: HandoffRoute, key: str) -> Node | None:
    node = route_entry(route, "ON_RETURN")
    if node is None:
        return None
    return node.find(key)


def _set_return_true(check: Check, route: HandoffRoute) -> Fix | None:
    """`RETURN: true`, replacing the current value or adding the line. The route becomes
    returnable, so the parent waits: unsafe."""
    if route.returns is not None:
        return fixes.replace("Write `RETURN: true`", route.returns.value.range, "true", safe=False)
    if route.node is None:
        return None
    return add_lines_fix(
        "Add `RETURN: true`", check.document.source, route.node, key_column(route.node), ["RETURN: true"], safe=False
    )


def _delete_block(check: Check, node: Node) -> TextEdit:
    """Delete whole lines: `node` and everything nested under it."""
    index = check.document.source.index
    start = index.position(node.line_start)
    end = index.position(block_end(node))
    return TextEdit(Range(start, end), "")


def _add_map_entry(check: Check, route: HandoffRoute, name: str) -> Fix | None:
    """Add `name: name` to the route's `ON_RETURN.MAP`, creating the blocks it needs. The value
    then comes back to the parent: unsafe."""
    if route.node is None:
        return None
    source = check.document.source
    title = f"Add `{name}: {name}` to `ON_RETURN.MAP`"
    on_return = route_entry(route, "ON_RETURN")
    if on_return is None:
        column = key_column(route.node)
        return add_lines_fix(
            title, source, route.node, column, ["ON_RETURN:", "  MAP:", f"    {name}: {name}"], safe=False
        )
    if on_return.has_value and not on_return.children:
        return None  # one-line `ON_RETURN: x`; rewriting it as a block is the author's call
    map_node = on_return.find("MAP")
    if map_node is None:
        column = key_column(on_return)
        return add_lines_fix(title, source, on_return, column, ["MAP:", f"  {name}: {name}"], safe=False)
    if map_node.has_value:
        return None  # a one-line `{a: b}` map; left for the author to extend
    return add_lines_fix(title, source, map_node, key_column(map_node), [f"{name}: {name}"], safe=False)


def _move_map_under_on_return(check: Check, route: HandoffRoute, map_node: Node) -> Fix | None:
    """Move a top-level `MAP` block under `ON_RETURN` (created when missing). This tool already
    reads it as the return map, so the move keeps what the checks and runtime see: safe."""
    source = check.document.source
    nl = newline_of(source)
    on_return = route_entry(route, "ON_RETURN")
    text = source.text[map_node.line_start : block_end(map_node)]
    if not text.endswith(("\n", "\r")):
        text += nl
    lines = split_lines(text)
    delete = _delete_block(check, map_node)
    if on_return is None:
        at = _insertion_point(check, route.node, skip=map_node)
        base = indentation(source, max(at.line - 1, 0), map_node.col)
        moved = [base + "ON_RETURN:"] + [reindented(line, map_node.col, base + "  ") for line in lines]
        insert = TextEdit(Range(at, at), "".join(line + nl for line in moved))
        # On a permanent route the moved map would sit in an `ON_RETURN` that never runs.
        return Fix("Move `MAP` under a new `ON_RETURN`", (delete, insert), route.is_returnable)
    if on_return.has_value and not on_return.children:
        return None  # one-line `ON_RETURN: x` cannot take a nested block
    if on_return.find("MAP") is not None:
        return None  # two maps would need merging; left to the author
    base = indentation(source, last_row(source.index, on_return), key_column(on_return))
    moved = [reindented(line, map_node.col, base) for line in lines]
    at = check.document.source.index.position(block_end(on_return))
    prefix = nl if block_end(on_return) > 0 and source.text[block_end(on_return) - 1] != "\n" else ""
    insert = TextEdit(Range(at, at), prefix + "".join(line + nl for line in moved))
    return Fix("Move `MAP` under `ON_RETURN`", (delete, insert), route.is_returnable)


def _insertion_point(check: Check, item: Node | None, skip: Node) -> Position:
    """Where a new last key of the route goes: after its last block that is not `skip`."""
    index = check.document.source.index
    assert item is not None
    ends = [block_end(c) for c in item.children if c is not skip]
    return index.position(max(ends) if ends else block_end(item))
