"""FLOW steps: every step declares `REASONING`, and every transition names a step that exists.

## What it does
Looks at the step blocks of each agent's `FLOW` (including steps written at column 0 that
`steps` lists) and reports:
- `MISSING_REASONING`: a step block without `REASONING: true|false`;
- `UNKNOWN_FLOW_STEP`: `entry_point`, a `steps` entry, or a one-line `THEN`, `GOTO`,
  `TRANSITION`, `ON_FAIL`/`ON_FAILURE`, `ON_SUCCESS`, `ON_EXHAUSTED`, `ON_TIMEOUT` or
  `ON_CANCEL` that names no step of the flow. Action words (`COMPLETE`, `ESCALATE ...`,
  `HANDOFF <agent>`, `CONTINUE`, `RETRY`, ...) are not step names. Error handlers (`ON_ERROR`)
  are left alone: they take only action words;
- `REASONING_STEP_KEY_IGNORED`: a `REASONING: true` step carries a key only a deterministic
  step runs (`GATHER`, `RESPOND`, `CALL`, `SET`, `ON_INPUT`, ...): the model drives the step and
  the runtime never reads it;
- `DETERMINISTIC_STEP_KEY_IGNORED`: a `REASONING: false` step carries a key only a reasoning
  step reads (`GOAL`, `BEHAVIOR`, `AVAILABLE_TOOLS`, `EXIT_WHEN`, `MAX_TURNS`).

All four read the lowered flow (`abl.model.steps`), the same objects the runtime runs.

## Why is this bad?
The validator rejects the first two: a step has no default execution mode, and a transition to a
step that does not exist is an undefined step reference. The last two are accepted and do
nothing: a `GATHER` on a reasoning step never asks, and the flow goes on with its fields empty;
an `EXIT_WHEN` on a deterministic step never ends it.

## Fix safety
`REASONING_STEP_KEY_IGNORED` and `DETERMINISTIC_STEP_KEY_IGNORED` have no fix: whether the key
belongs in a step of the other kind, or the step should change kind, is the author's call. The
other two fixes change what runs (who drives the step, where the flow goes): unsafe.
"""

from __future__ import annotations

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.checks.handoff_text import newline_of, quoted_list
from abl.diagnostics import Fix
from abl.model import Agent
from abl.model.steps import FlowStep
from abl.model.types import AgentKind, read_flag
from abl.suggest import did_you_mean_name
from abl.syntax.scanner import TAB_WIDTH
from abl.text import Position


def _runs_steps(agent: Agent) -> bool:
    # A profile's FLOW holds SKIP / OVERRIDES / INSERTIONS, not steps.
    return agent.flow is not None and agent.flow.node is not None and agent.kind is not AgentKind.BEHAVIOR_PROFILE


@agent_rule("MISSING_REASONING")
def missing_reasoning(check: Check, agent: Agent) -> None:
    if not _runs_steps(agent):
        return
    assert agent.flow is not None
    for step in agent.flow.written:
        if not step.is_block or step.declares_reasoning:
            continue  # a one-line value is not a step block; the structure walk reports it
        check.report(
            "MISSING_REASONING",
            f"step `{step.name.text}` does not declare `REASONING`, so the validator rejects the flow; add "
            "`REASONING: false` (its actions run in order) or `REASONING: true` (the model drives it)",
            step.name.range,
            fixes=_add_reasoning(check, step),
        )


@agent_rule("UNKNOWN_FLOW_STEP")
def unknown_flow_step(check: Check, agent: Agent) -> None:
    if not _runs_steps(agent):
        return
    flow = agent.flow
    assert flow is not None
    known = [s.text for s in flow.steps]
    lowered = {k.lower() for k in known}
    for key, name in flow.references:
        if name.text.lower() in lowered:
            continue
        guess = did_you_mean_name(name.text, known)
        offered = fixes.use_instead(guess, name.range)
        hint = f"; did you mean `{guess}`?" if guess else ""
        steps = quoted_list([f"`{k}`" for k in known])  # a few, and how many more
        written = f"`{key}` lists `{name.text}`, which" if key.lower() == "steps" else f"`{key}: {name.text}`"
        check.report(
            "UNKNOWN_FLOW_STEP",
            f"{written} names no step of this flow (steps: {steps}), so the validator "
            f"rejects it as an undefined step reference{hint}",
            name.range,
            fixes=offered,
        )


# What each key would have done, for the message; the rest "never runs".
_IGNORED_EFFECT = {
    "GATHER": "its fields are never asked for or read, and the flow goes on with them empty",
    "ON_INPUT": "its branches never run on the customer's answer",
    "RESPOND": "this text is never said (the model answers)",
    "SAY": "this text is never said (the model answers)",
}


@agent_rule("REASONING_STEP_KEY_IGNORED")
def reasoning_step_key_ignored(check: Check, agent: Agent) -> None:
    if not _runs_steps(agent):
        return
    assert agent.flow is not None
    for step in agent.flow.written:
        if not step.is_reasoning:
            continue
        for key in step.deterministic_keys:
            effect = _IGNORED_EFFECT.get(key.text.upper(), "it never runs")
            check.report(
                "REASONING_STEP_KEY_IGNORED",
                f"`{key.text}` in reasoning step `{step.name.text}` is ignored: only a `REASONING: false` "
                f"step runs it, and this one is driven by the model, so {effect}; move it to a "
                "`REASONING: false` step before or after this one",
                key.range,
            )


@agent_rule("DETERMINISTIC_STEP_KEY_IGNORED")
def deterministic_step_key_ignored(check: Check, agent: Agent) -> None:
    if not _runs_steps(agent):
        return
    assert agent.flow is not None
    for step in agent.flow.written:
        if read_flag(step.reasoning) is not False:
            continue  # a reasoning step reads them; a step without REASONING has MISSING_REASONING
        for key in step.reasoning_keys:
            check.report(
                "DETERMINISTIC_STEP_KEY_IGNORED",
                f"`{key.text}` in step `{step.name.text}` is ignored: only a `REASONING: true` step reads it, "
                "and this one runs its actions in order without the model; make it a reasoning step of "
                "its own, or remove the key",
                key.range,
            )


def _width(indentation: str) -> int:
    return len(indentation.expandtabs(TAB_WIDTH))


def _add_reasoning(check: Check, step: FlowStep) -> tuple[Fix, ...]:
    """`REASONING: false` as the step's first line, indented as its first property is (else two
    columns deeper than the step). Widths are the parser's (a tab reaches the next multiple of 8),
    and the indentation is copied as written, so the line nests under the step with tabs too.
    None for a step at column 0: `FLOW_STEP_AT_COLUMN_ZERO`'s fix moves it under `FLOW` first
    (in the same pass, this line would be indented for the step where it was)."""
    source = check.document.source
    row = step.name.range.start.line
    before = source.index.line_text(row)[: step.name.range.start.character]
    step_column = _width(before)
    if step_column == 0:
        return ()
    indentation = before + "  " if not before.strip() else " " * (step_column + 2)
    for line in range(row + 1, source.index.line_count):
        following = source.index.line_text(line)
        if not following.strip() or following.lstrip().startswith("#"):
            continue
        written = following[: len(following) - len(following.lstrip(" \t"))]
        if _width(written) > step_column:
            indentation = written
        break
    at = Position(row, len(source.index.line_text(row)))
    return (
        fixes.insert("Add `REASONING: false`", at, newline_of(source) + indentation + "REASONING: false", safe=False),
    )
