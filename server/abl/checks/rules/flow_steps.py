"""FLOW steps: every step declares `REASONING`, and every transition names a step that exists.

## What it does
Looks at the step blocks of each agent's `FLOW` (including steps written at column 0 that
`steps` lists) and reports:
- `MISSING_REASONING`: a step block without `REASONING: true|false`;
- `UNKNOWN_FLOW_STEP`: `entry_point`, a `steps` entry, or a one-line `THEN`, `GOTO`,
  `TRANSITION`, `ON_FAIL`/`ON_FAILURE`, `ON_SUCCESS`, `ON_EXHAUSTED`, `ON_TIMEOUT` or
  `ON_CANCEL` that names no step of the flow. Action words (`COMPLETE`, `ESCALATE ...`,
  `HANDOFF <agent>`, `CONTINUE`, `RETRY`, ...) are not step names. Error handlers (`ON_ERROR`)
  are left alone: they take only action words.

## Why is this bad?
The validator rejects both: a step has no default execution mode, and a transition to a step
that does not exist is an undefined step reference.

## Fix safety
Both fixes change what runs (who drives the step, where the flow goes): unsafe.
"""

from __future__ import annotations

from typing import Iterator

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.checks.rules.handoff_text import newline_of
from abl.model import Agent
from abl.model.types import AgentKind
from abl.suggest import did_you_mean
from abl.syntax.cst import Node
from abl.syntax.values import unquote
from abl.text import Position, Range

_RESERVED = frozenset({"entry_point", "steps", "global_digressions"})
# Keys whose one-line value is a step to go to.
_TRANSITIONS = frozenset(
    {"THEN", "GOTO", "TRANSITION", "ON_FAIL", "ON_FAILURE", "ON_SUCCESS", "ON_EXHAUSTED", "ON_TIMEOUT", "ON_CANCEL"}
)
# Words that end or leave a step instead of naming one (any case).
_ACTION_WORDS = frozenset(
    {
        "complete",
        "escalate",
        "handoff",
        "delegate",
        "continue",
        "retry",
        "retry_step",
        "backtrack",
        "return",
        "return_to_parent",
        "resume",
        "end",
        "ask_user",
        "respond",
        "block",
    }
)


def _flow_steps(check: Check, agent: Agent) -> list[Node]:
    """The agent's step blocks: entries of `FLOW` that are not its own settings, then the
    column-0 blocks read as steps."""
    if agent.flow is None or agent.flow.node is None or agent.kind is AgentKind.BEHAVIOR_PROFILE:
        return []  # a profile's FLOW holds SKIP / OVERRIDES / INSERTIONS, not steps
    steps = [n for n in agent.flow.node.children if n.is_entry and n.key.lower() not in _RESERVED]
    steps += [node for owner, node in check.document.column_zero_steps if owner is agent]
    return steps


@agent_rule("MISSING_REASONING")
def missing_reasoning(check: Check, agent: Agent) -> None:
    for step in _flow_steps(check, agent):
        if step.has_value and not step.children:
            continue  # a one-line value is not a step block; the structure walk reports it
        if any(c.is_entry and c.key.upper() == "REASONING" for c in step.children):
            continue
        check.report(
            "MISSING_REASONING",
            f"step `{step.key}` does not declare `REASONING`, so the validator rejects the flow; add "
            "`REASONING: false` (its actions run in order) or `REASONING: true` (the model drives it)",
            step.key_range,
            fixes=(_add_reasoning(check, step),),
        )


@agent_rule("UNKNOWN_FLOW_STEP")
def unknown_flow_step(check: Check, agent: Agent) -> None:
    flow = agent.flow
    if flow is None or flow.node is None or agent.kind is AgentKind.BEHAVIOR_PROFILE:
        return
    known = [s.text for s in flow.steps]
    lowered = {k.lower() for k in known}
    for node, name, where in _references(flow.node, _flow_steps(check, agent)):
        if name.lower() in lowered:
            continue
        guess = did_you_mean(name, known)
        offered = fixes.use_instead(guess, where)
        hint = f"; did you mean `{guess}`?" if guess else ""
        steps = ", ".join(f"`{k}`" for k in known) or "none"
        written = f"`{node.key}` lists `{name}`, which" if node.key.lower() == "steps" else f"`{node.key}: {name}`"
        check.report(
            "UNKNOWN_FLOW_STEP",
            f"{written} names no step of this flow (steps: {steps}), so the validator "
            f"rejects it as an undefined step reference{hint}",
            where,
            fixes=offered,
        )


def _references(flow: Node, steps: list[Node]) -> Iterator[tuple[Node, str, Range]]:
    """Every step name written in the flow: `entry_point`, `steps` and one-line transitions."""
    for entry in flow.children:
        if not entry.is_entry:
            continue
        key = entry.key.lower()
        if key == "entry_point" and entry.has_value:
            yield from _named(entry, entry.value, entry.value_range)
        elif key == "steps":
            yield from _step_list(entry)
        elif key == "global_digressions":
            yield from _transitions(entry)
    for step in steps:
        yield from _transitions(step)


def _step_list(entry: Node) -> Iterator[tuple[Node, str, Range]]:
    if entry.has_value:
        text = entry.value
        start = entry.value_range.start
        if "->" in text:
            parts = text.split("->")
        else:
            inner = text.strip()
            if not (inner.startswith("[") and inner.endswith("]")):
                return
            parts = inner[1:-1].split(",")
        offset = 0
        for part in parts:
            at = text.find(part, offset)
            offset = at + len(part)
            word = part.strip()
            if not word:
                continue
            col = start.character + at + part.find(word)
            name, _ = unquote(word)
            yield entry, name, Range(Position(start.line, col), Position(start.line, col + len(word)))
    for child in entry.children:
        content = child.content if child.is_item else None
        if content is not None and content.is_text:
            name, _ = unquote(content.value.strip())
            yield entry, name, content.value_range


def _transitions(node: Node) -> Iterator[tuple[Node, str, Range]]:
    for child in node.children:
        if child.is_entry and child.key.upper() == "ON_ERROR":
            continue  # error handlers take action words only
        if child.is_entry and child.key.upper() in _TRANSITIONS and child.has_value and not child.is_pipe:
            yield from _named(child, child.value, child.value_range)
        yield from _transitions(child)


def _named(node: Node, value: str, where: Range) -> Iterator[tuple[Node, str, Range]]:
    """The step a one-line value names, if it names one (not an action, a message or a template)."""
    text = value.strip()
    if not text or text[0] in "\"'{[" or "{{" in text or "$" in text:
        return
    word = text.split()[0].rstrip(":,")
    if word.lower() in _ACTION_WORDS or not word.replace("_", "").replace("-", "").isalnum():
        return
    if len(text.split()) > 1:
        return  # a phrase (`ESCALATE with REASON: ...`), not a step name
    yield node, word, Range(where.start, Position(where.start.line, where.start.character + len(word)))


def _add_reasoning(check: Check, step: Node):
    """`REASONING: false` as the step's first line, at its children's indentation."""
    source = check.document.source
    column = step.children[0].col if step.children else step.col + 2
    line_end = source.index.line_text(step.row)
    at = Position(step.row, len(line_end))
    return fixes.insert(
        "Add `REASONING: false`", at, newline_of(source) + " " * column + "REASONING: false", safe=False
    )
