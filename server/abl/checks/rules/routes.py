"""What a route does around the handoff: failure policy, order, passed fields, legacy keys.

## What it does
- `INVALID_HANDOFF_FAILURE_ACTION`: `ON_FAILURE` is not `continue`, `escalate` or
  `respond "<message>"` (keywords in any case);
- `ON_FAILURE_NOT_SET` (hint): a route with no failure policy (seed 004's checklist);
- `LEGACY_HANDOFF_GRANT_MEMORY_SHORTHAND`: `grant_memory:` instead of `memory_grants:`;
- `UNREACHABLE_ROUTE`: a route after an unconditional `WHEN: true`, or after an earlier route
  with the same `WHEN` (routes are tried in `PRIORITY` order, then as written);
- `PASS_FIELD_UNKNOWN`: `PASS` names a variable the calling agent does not have.

## Fix safety
Every failure action and every other passed field changes what runs, so those fixes are
unsafe. Rewriting `grant_memory` paths as read-only `memory_grants` keeps the access the
shorthand granted, so it is safe.
"""

from __future__ import annotations

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.checks.handoff_text import find_entry, indentation, nested_note, nested_route_key, newline_of, route_anchor
from abl.diagnostics import Fix, TextEdit
from abl.expr.ast import Literal
from abl.model import Agent, FailureKind, HandoffRoute, declared_variables
from abl.model.fields import root
from abl.suggest import did_you_mean_name
from abl.syntax.cst import Node
from abl.syntax.values import quote, unquote
from abl.text import Position, Range

# Names a route may pass without declaring them: the runtime's own session values.
_BUILT_IN_ROOTS = frozenset({"session", "user", "context", "channel", "language", "intent", "input", "_meta"})


@agent_rule("INVALID_HANDOFF_FAILURE_ACTION")
def invalid_failure_action(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        failure = route.on_failure
        if failure is None or failure.kind in (FailureKind.CONTINUE, FailureKind.ESCALATE, FailureKind.RESPOND):
            continue
        raw = failure.value.raw.strip()
        where = failure.value.range
        offered: list[Fix] = []
        word, _, rest = raw.partition(" ")
        if word.lower().rstrip(":") == "respond" and rest.strip():
            # The message was meant; quoting it makes the platform send it: a change to what runs.
            # Double quotes become single ones, so that the message reads the same to a reader
            # that takes no escapes; a backslash must be escaped, or it would escape the closing quote.
            message = quote(unquote(rest.strip())[0].replace('"', "'"))
            offered.append(fixes.replace("Quote the message", where, f"RESPOND {message}", safe=False))
            advice = 'the message after `RESPOND` must be quoted: `RESPOND "<message>"`'
        else:
            advice = 'use `continue`, `escalate` or `RESPOND "<message>"`'
        offered.extend(
            fixes.replace(f"Use `{choice}`", where, choice, safe=False) for choice in ("continue", "escalate")
        )
        check.report(
            "INVALID_HANDOFF_FAILURE_ACTION",
            f"`ON_FAILURE: {raw}` is not a failure action the platform accepts, so the project does not "
            f"compile; {advice}",
            where,
            fixes=offered,
        )


@agent_rule("ON_FAILURE_NOT_SET")
def on_failure_not_set(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        if route.on_failure is not None or _has_key(route, "ON_FAILURE", "ON_FAIL"):
            continue
        target = route.target.text if route.target else "the target"
        nested = nested_route_key(route, "ON_FAILURE", "ON_FAIL")
        written = "sets no `ON_FAILURE`" if nested is None else f"reads no `ON_FAILURE` ({nested_note(nested)})"
        check.report(
            "ON_FAILURE_NOT_SET",
            f"the route to {target} {written}: if the handoff fails before {target} accepts it, "
            "the agent carries on (`continue`) and the customer is not told; set it on purpose",
            route_anchor(route),
        )


@agent_rule("LEGACY_HANDOFF_GRANT_MEMORY_SHORTHAND")
def grant_memory_shorthand(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        key = route.grant_memory
        if key is None:
            continue
        offered = []
        node = find_entry(route.node, key.range) if route.node is not None else None
        if node is not None:
            fix = _grants_fix(check, node)
            if fix is not None:
                offered.append(fix)
        check.report(
            "LEGACY_HANDOFF_GRANT_MEMORY_SHORTHAND",
            f"`{key.text}` is no longer accepted; the compiler rejects it: write `memory_grants`, "
            "a list of `path` and `access` entries",
            key.range,
            fixes=offered,
        )


@agent_rule("UNREACHABLE_ROUTE")
def unreachable_route(check: Check, agent: Agent) -> None:
    # One pass in evaluation order, remembering the first earlier route of each kind that can
    # shadow a later one, so that a supervisor with thousands of routes is checked in linear time.
    fallback: HandoffRoute | None = None  # the first literal `WHEN: true` tried
    first_with: dict[str, HandoffRoute] = {}  # condition -> the first route tried on it
    first_permanent_with: dict[str, HandoffRoute] = {}  # condition -> the first non-returnable one
    for route in sorted(agent.handoffs, key=_evaluation_order):
        condition = _condition_key(route)
        if route.target is not None:
            # A returnable route is shadowed by an identical earlier one only if that one is
            # permanent: several returnable routes on one condition are the fan-out pattern.
            earlier = None
            if condition is not None:
                earlier = (first_permanent_with if route.is_returnable else first_with).get(condition)
            if earlier is not None:
                # An identical earlier `WHEN` really wins; a literal `WHEN: true` is only tried last.
                check.report("UNREACHABLE_ROUTE", _same_condition_message(route, earlier), route.target.range)
            elif fallback is not None:
                check.report("UNREACHABLE_ROUTE", _after_fallback_message(route, fallback), route.target.range)
        if _is_unconditional(route):
            fallback = fallback or route
        elif condition is not None and route.enabled_when is None:
            first_with.setdefault(condition, route)
            if not route.is_returnable:
                first_permanent_with.setdefault(condition, route)


@agent_rule("PASS_FIELD_UNKNOWN")
def pass_field_unknown(check: Check, agent: Agent) -> None:
    known = declared_variables(agent)
    candidates = sorted(n for n in known if "." not in n)
    for route in agent.handoffs:
        for name in route.passes:
            if root(name.text) in known or root(name.text) in _BUILT_IN_ROOTS:
                continue
            guess = did_you_mean_name(name.text, candidates)
            offered = []
            if guess is not None:
                # A different variable is passed: a change to what runs.
                offered.append(fixes.replace(f"Pass `{guess}`", name.range, guess, safe=False))
            hint = f"; did you mean `{guess}`" if guess else ""
            target = route.target.text if route.target else "the target"
            check.report(
                "PASS_FIELD_UNKNOWN",
                f"`PASS` names `{name.text}`, which {agent.name.text} neither declares nor produces, so "
                f"nothing is passed for it and {target} has to ask again{hint}",
                name.range,
                fixes=offered,
            )


# --- internals ----------------------------------------------------------------------------------


def _has_key(route: HandoffRoute, *keys: str) -> bool:
    if route.node is None:
        return False
    wanted = {k.upper() for k in keys}
    return any(c.is_entry and c.key.upper() in wanted for c in route.node.children)


def _evaluation_order(route: HandoffRoute) -> tuple[float, int]:
    """Lower `PRIORITY` first; without one a route's priority is its position."""
    if route.priority is not None:
        try:
            return float(route.priority.text.strip()), route.index
        except ValueError:
            pass  # an unreadable priority is reported by the value checks; keep the position
    return float(route.index), route.index


def _is_unconditional(route: HandoffRoute) -> bool:
    when = route.when
    if when is None or route.enabled_when is not None:
        return False
    expr = when.parse.expr
    return isinstance(expr, Literal) and expr.value is True and not when.parse.errors


def _condition_key(route: HandoffRoute) -> str | None:
    """The route's `WHEN` as compared with other routes' (whitespace does not count)."""
    if route.when is None:
        return None
    return _normalised(route.when.parse.content or route.when.text)


def _after_fallback_message(route: HandoffRoute, fallback: HandoffRoute) -> str:
    name = route.target.text if route.target else "the target"
    other = fallback.target.text if fallback.target else "another agent"
    return (
        f"the route to {name} comes after `WHEN: true` (the route to {other}), so it reads as unreachable; "
        "the platform keeps a literal `WHEN: true` as the fallback and tries it last, so move that route "
        "to the end"
    )


def _same_condition_message(route: HandoffRoute, earlier: HandoffRoute) -> str:
    name = route.target.text if route.target else "the target"
    other = earlier.target.text if earlier.target else "another agent"
    return (
        f"the route to {name} is never taken: the route to {other} before it has the same `WHEN` and "
        "the first match wins; change one of the conditions or remove this route"
    )


def _normalised(text: str) -> str:
    return " ".join(text.split())


def _grants_fix(check: Check, node: Node) -> Fix | None:
    """`grant_memory: [a, b]` as `memory_grants` entries with `access: read`, which is what the
    old shorthand granted: the target keeps exactly that access, so the rewrite is safe."""
    paths = _listed_paths(node)
    if not paths:
        return None
    source = check.document.source
    nl = newline_of(source)
    indent = indentation(source, node.row, node.col + 2)
    lines = ["memory_grants:"]
    for path in paths:
        lines.append(f"{indent}- path: {path}")
        lines.append(f"{indent}  access: read")
    last = max(node.walk(), key=lambda n: n.row)
    end = Position(last.row, len(source.index.line_text(last.row)))
    return Fix(
        "Rewrite as `memory_grants` with read access",
        (TextEdit(Range(node.key_range.start, end), nl.join(lines)),),
        True,
    )


def _listed_paths(node: Node) -> list[str]:
    paths: list[str] = []
    value = node.value.strip()
    if value.startswith("[") and value.endswith("]"):
        paths.extend(p.strip().strip("\"'") for p in value[1:-1].split(",") if p.strip())
    elif value:
        paths.append(value.strip("\"'"))
    for child in node.children:
        content = child.content if child.is_item else child
        if content is not None and content.is_text:
            paths.append(content.value.strip().strip("\"'"))
    return paths
