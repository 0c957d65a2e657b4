"""GATHER fields: the order `depends_on` imposes, and optional fields that carry a default.

## What it does
- `INVALID_DEPENDS_ON_REF`: `depends_on` names a field the same GATHER does not declare.
- `CIRCULAR_DEPENDS_ON`: fields wait for each other in a circle; reported once per cycle, at
  the dependency written by the cycle's first field, with every field on it named.
- `W822`: a field has both `required: false` and a `default`.

A top-level `GATHER` and the `GATHER` of each flow step are separate blocks; a dependency is
looked up in the block of the field that declares it.

## Why is this bad?
A field that waits for a field that does not exist, or for itself through others, is never
asked for, and the compiler rejects the project. An optional field with a default can no longer
tell "not answered" from "answered with the default".

## Fix safety
The suggested field name changes the order of the questions: unsafe.
"""

from __future__ import annotations

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.diagnostics import Fix
from abl.model import Agent, GatherField, Name
from abl.suggest import did_you_mean_name

_FALSE_WORDS = ("false", "no", "optional")


def _groups(agent: Agent) -> list[list[GatherField]]:
    """Fields that share one block: the top-level GATHER, then all flow-step fields together
    (the model does not keep which step a field came from)."""
    groups = [agent.gather]
    if agent.flow is not None and agent.flow.gather:
        groups.append(agent.flow.gather)
    return [g for g in groups if g]


@agent_rule("INVALID_DEPENDS_ON_REF")
def invalid_depends_on_ref(check: Check, agent: Agent) -> None:
    for fields in _groups(agent):
        names = [f.name.text for f in fields]
        for f in fields:
            for dep in f.depends_on:
                if dep.text in names:
                    continue
                message = (
                    f"`{f.name.text}` depends on `{dep.text}`, which this GATHER does not declare, so "
                    "it would wait forever and the compiler rejects it"
                )
                found: tuple[Fix, ...] = ()
                better = did_you_mean_name(dep.text, [n for n in names if n != f.name.text])
                if better is not None:
                    message += f"; did you mean `{better}`?"
                    found = (fixes.replace(f"Depend on `{better}`", dep.range, better, safe=False),)
                check.report("INVALID_DEPENDS_ON_REF", message, dep.range, found)


@agent_rule("CIRCULAR_DEPENDS_ON")
def circular_depends_on(check: Check, agent: Agent) -> None:
    for fields in _groups(agent):
        by_name = {f.name.text: f for f in fields}
        reported: set[frozenset[str]] = set()
        for start in fields:
            cycle = _cycle_from(start, by_name)
            if cycle is None or frozenset(cycle) in reported:
                continue
            reported.add(frozenset(cycle))
            first = min(cycle, key=lambda n: _order(fields, n))
            loop = _rotate(cycle, first)
            edge = _edge(by_name[first], loop[1 % len(loop)])
            path = " -> ".join(f"`{n}`" for n in [*loop, loop[0]])
            check.report(
                "CIRCULAR_DEPENDS_ON",
                f"`depends_on` forms a cycle ({path}): none of these fields can be asked for first, "
                "so the compiler rejects it",
                edge.range,
            )


@agent_rule("W822")
def optional_field_with_default(check: Check, agent: Agent) -> None:
    for f in agent.all_gather_fields():
        if f.required is None or f.default is None or f.required.lower not in _FALSE_WORDS:
            continue
        where = f.default.key_range or f.default.range
        # `- quantity: optional` in a flow step says it with one word, not a `required:` key.
        written = "is marked `optional`" if f.required.lower == "optional" else f"has `required: {f.required.text}`"
        check.report(
            "W822",
            f"`{f.name.text}` {written} and a `default`; with the default "
            f"in place `{f.name.text} IS SET` no longer tells whether the customer answered, so "
            "keep only the one you mean",
            where,
        )


def _cycle_from(start: GatherField, by_name: dict[str, GatherField]) -> list[str] | None:
    """The cycle through `start`, in dependency order, or None when `start` is on none."""
    target = start.name.text
    stack: list[tuple[str, list[str]]] = [(target, [target])]
    seen: set[str] = set()
    while stack:
        name, path = stack.pop()
        field = by_name.get(name)
        if field is None:
            continue
        for dep in field.depends_on:
            if dep.text == target:
                return path
            if dep.text in seen or dep.text not in by_name:
                continue
            seen.add(dep.text)
            stack.append((dep.text, [*path, dep.text]))
    return None


def _order(fields: list[GatherField], name: str) -> int:
    for i, f in enumerate(fields):
        if f.name.text == name:
            return i
    return len(fields)


def _rotate(cycle: list[str], first: str) -> list[str]:
    i = cycle.index(first)
    return cycle[i:] + cycle[:i]


def _edge(field: GatherField, to: str) -> Name:
    for dep in field.depends_on:
        if dep.text == to:
            return dep
    return field.depends_on[0] if field.depends_on else field.name
