"""Names: agent names that clash or are not identifiers, and variables the runtime reserves.

## What it does
- `DUPLICATE_AGENT_NAME`: two `AGENT`/`SUPERVISOR` documents in the project share a name
  (every file of the workspace, open or not); reported at each declaration, pointing at the others.
- `INVALID_AGENT_NAME`: a name that does not start with a letter, has characters other than
  letters, digits and `_`, or is longer than the platform's 100 characters.
- `RESERVED_VARIABLE_NAME`: a `SET` (anywhere: `ON_START`, `COMPLETE`, flow steps, hooks, error
  handlers, `ON_RETURN`, a route's `SET`) writes `match` or a name starting with `_` other than
  `_meta.*`.

## Why is this bad?
Targets are looked up by name in one registry per project, so a clash makes routes ambiguous and
the platform rejects the project; so does a name that is not an identifier. A reserved variable
belongs to the runtime, which may overwrite it or act on it at any time.

## Fix safety
Renaming an agent is unsafe (other projects and deployments may use the old name); the fix
rewrites the declaration and the references in the same file only.
"""

from __future__ import annotations

import re

from abl.checks.context import Check, agent_rule, document_rule
from abl.checks.handoff_text import clipped
from abl.diagnostics import Fix, TextEdit
from abl.model import Agent, AgentKind, Assignment, Document
from abl.model.fields import handoff_assignments, own_assignments, root
from abl.text import Range

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
MAX_NAME_LENGTH = 100  # Studio's limit on agent names
_AGENT_KINDS = (AgentKind.AGENT, AgentKind.SUPERVISOR)
_META_ROOT = "_meta"
_RESERVED_ROOTS = frozenset({"match"})
# Namesakes named in one message; the rest are counted.
_SHOWN_PLACES = 5


@document_rule("DUPLICATE_AGENT_NAME")
def duplicate_agent_name(check: Check) -> None:
    path = check.document.path
    # By value (where each namesake is declared), so that an edit elsewhere that leaves the
    # namesakes where they were keeps this file's result. Asked once per name: a file that
    # repeats one name thousands of times must not make each copy walk all the others.
    declared: dict[str, list[tuple[str, Range]]] = {}
    for agent in check.document.agents:
        name = agent.name.text
        if agent.kind not in _AGENT_KINDS or not name:
            continue
        if name not in declared:
            declared[name] = [
                (there, where) for there, where, kind in check.project.namesakes(name) if kind in _AGENT_KINDS
            ]
        everywhere = declared[name]
        if len(everywhere) < 2:
            continue
        me = (path, agent.name.range)
        shown = [place for place in everywhere[: _SHOWN_PLACES + 1] if place != me][:_SHOWN_PLACES]
        more = len(everywhere) - 1 - len(shown)
        places = ", ".join(f"{_short_path(there)}:{where.start.line + 1}" for there, where in shown)
        if more > 0:
            places += f" and {more:,} more"
        check.report(
            "DUPLICATE_AGENT_NAME",
            f"agent name `{name}` is also declared at {places}; names must be unique in "
            "the project, so the platform rejects it",
            agent.name.range,
            related=tuple((there, where, "also declared here") for there, where in shown),
        )


@agent_rule("INVALID_AGENT_NAME")
def invalid_agent_name(check: Check, agent: Agent) -> None:
    if agent.kind not in _AGENT_KINDS:
        return
    name = agent.name.text
    if not name:
        check.report(
            "INVALID_AGENT_NAME",
            f"`{agent.header.key}:` has no name; write a name such as `Returns_Agent` after the colon",
            agent.header.key_range,
        )
        return
    if _IDENTIFIER.fullmatch(name) and len(name) <= MAX_NAME_LENGTH:
        return
    if len(name) > MAX_NAME_LENGTH and _IDENTIFIER.fullmatch(name):
        problem = f"is {len(name)} characters long; the limit is {MAX_NAME_LENGTH}"
        check.report("INVALID_AGENT_NAME", f"agent name `{clipped(name)}` {problem}", agent.name.range)
        return
    better = _identifier(name)
    check.report(
        "INVALID_AGENT_NAME",
        f"agent name `{name}` must start with a letter and use only letters, digits and `_`; "
        f"the platform rejects it (for example `{better}`)",
        agent.name.range,
        (_rename_fix(check, agent, better),),
    )


@agent_rule("RESERVED_VARIABLE_NAME")
def reserved_variable_name(check: Check, agent: Agent) -> None:
    for assignment in _assignments(agent):
        name = assignment.target.text
        base = root(name)
        if base == _META_ROOT:
            continue
        if base in _RESERVED_ROOTS:
            why = "holds the captures of the last `matches` test"
        elif base.startswith("_"):
            why = "starts with `_`, a prefix the runtime keeps for its own state"
        else:
            continue
        check.report(
            "RESERVED_VARIABLE_NAME",
            f"`SET` writes `{name}`, which {why}; the runtime may overwrite the value at any time, so use another name",
            assignment.target.range,
        )


def _assignments(agent: Agent) -> list[Assignment]:
    """The agent's own `SET`s and those its routes write into their targets: a reserved name is
    reserved in either."""
    unique: dict[tuple, Assignment] = {}
    for a in own_assignments(agent) + handoff_assignments(agent):
        unique.setdefault((a.target.text, a.target.range), a)
    return list(unique.values())


def _identifier(name: str) -> str:
    text = re.sub(r"[^A-Za-z0-9_]", "_", name.strip())
    if not text or not text[0].isalpha():
        text = "Agent_" + text.lstrip("_")
    return text[:MAX_NAME_LENGTH]


def _rename_fix(check: Check, agent: Agent, new: str) -> Fix:
    """The declaration and every reference to it in this file; other files keep the old name."""
    ranges = [agent.name.range, *_references_by_name(check.document).get(agent.name.text, ())]
    edits = tuple(TextEdit(r, new) for r in dict.fromkeys(ranges))
    return Fix(f"Rename to `{new}` in this file", edits, False)


def _references_by_name(document: Document) -> dict[str, list[Range]]:
    """Where the file's routes, delegates and other handoff references name each agent, built
    once per file: a file of thousands of misnamed agents asks for every one of them."""
    kept = document.memo.get("names.references")
    if isinstance(kept, dict):
        return kept
    found: dict[str, list[Range]] = {}
    for other in document.agents:
        for route in other.handoffs:
            if route.target is not None:
                found.setdefault(route.target.text, []).append(route.target.range)
        for delegate in other.delegates:
            if delegate.target is not None:
                found.setdefault(delegate.target.text, []).append(delegate.target.range)
        for _, ref in other.other_handoff_refs:
            found.setdefault(ref.text, []).append(ref.range)
    document.memo["names.references"] = found
    return found


def _short_path(path: str) -> str:
    return path.rsplit("/", 1)[-1] or path
