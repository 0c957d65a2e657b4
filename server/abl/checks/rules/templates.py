"""Templates: `{{name}}` placeholders that nothing fills, and `{name}` that is printed as is.

## What it does
Reads every `RESPOND` (and its alias `SAY`), `SUMMARY` and `PROMPT` text of an agent, one line
or `|` block, wherever it sits (routes and their `CONTEXT`, `COMPLETE`, `ON_START`, gather
fields, flow steps, return handlers):
- `TEMPLATE_VARIABLE_UNKNOWN`: `{{x}}` (or `{{x.y}}`, `{{x[0].y}}`) where `x` is not a variable
  of the agent, not handed over by a caller and not a built-in. Namespaces resolved elsewhere
  (`config.`, `env.`, `secrets.`, `session.`, `_secret.`, `secure.`, ...), `this`, helpers
  (`{{#if}}`, `{{#each}}` and everything inside an `#each` block), function calls and other
  expressions are not checked.
- `TEMPLATE_SINGLE_BRACE`: `{x}` in single braces where `x` is a variable the agent knows; only
  double braces are filled in.

## Why is this bad?
A placeholder without a value leaves a gap in the sentence the customer (or the target agent
reading a summary) receives; single braces are printed literally.

## Fix safety
Both fixes change the text that is sent: unsafe.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.checks.scope import TEMPLATE_NAMESPACES, AgentScope, agent_scope
from abl.diagnostics import Fix
from abl.model import Agent
from abl.model.nesting import read_walk
from abl.suggest import did_you_mean_name
from abl.text import Range

TEMPLATE_KEYS = frozenset({"RESPOND", "SAY", "SUMMARY", "PROMPT"})
_TAG = re.compile(r"\{\{(.*?)\}\}", re.S)
_PATH = re.compile(r"([A-Za-z_]\w*)(?:\.\w+|\[\d+\])*")
_SINGLE = re.compile(r"(?<!\{)\{\s*([A-Za-z_][\w.]*)\s*\}(?!\})")


@agent_rule("TEMPLATE_VARIABLE_UNKNOWN", "TEMPLATE_SINGLE_BRACE")
def templates(check: Check, agent: Agent) -> None:
    # One rule for both codes: the walk to every template text is most of the cost of either.
    texts = list(_template_texts(check, agent))
    if not texts:
        return
    scope = agent_scope(check.project, agent)
    known = set(scope.variables())
    for start, text in texts:
        _unknown_placeholders(check, agent, scope, start, text)
        _single_braces(check, known, start, text)


def _unknown_placeholders(check: Check, agent: Agent, scope: AgentScope, start: int, text: str) -> None:
    index = check.document.source.index
    for name, offset in _placeholders(text):
        if scope.knows(name):
            continue
        where = Range(index.position(start + offset), index.position(start + offset + len(name)))
        message = (
            f"`{{{{{name}}}}}` names `{name}`, which `{agent.name.text}` neither declares nor "
            "receives, so the text is sent with a gap where the value should be"
        )
        found: tuple[Fix, ...] = ()
        better = did_you_mean_name(name, scope.variables())
        if better is not None and better != name:
            message += f"; did you mean `{better}`?"
            found = (fixes.replace(f"Use `{better}`", where, better, safe=False),)
        check.report("TEMPLATE_VARIABLE_UNKNOWN", message, where, found)


def _single_braces(check: Check, known: set[str], start: int, text: str) -> None:
    index = check.document.source.index
    for m in _SINGLE.finditer(text):
        name = m.group(1)
        if name.split(".", 1)[0] not in known:
            continue
        where = Range(index.position(start + m.start()), index.position(start + m.end()))
        check.report(
            "TEMPLATE_SINGLE_BRACE",
            f"`{m.group(0)}` is printed as it is; only double braces fill in a value: `{{{{{name}}}}}`",
            where,
            (fixes.replace(f"Write `{{{{{name}}}}}`", where, f"{{{{{name}}}}}", safe=False),),
        )


def _template_texts(check: Check, agent: Agent) -> Iterator[tuple[int, str]]:
    """(offset in the file, text) of every template value under the agent's sections."""
    source = check.document.source.text
    for section in agent.sections[1:]:
        for node in read_walk(section):
            if not node.is_entry or node.key.upper() not in TEMPLATE_KEYS or not node.has_value:
                continue
            if node.is_pipe:
                body_start = source.find("\n", node.value_end)
                if body_start == -1:
                    continue
                yield body_start + 1, source[body_start + 1 : node.end]
            else:
                yield node.value_start, source[node.value_start : node.value_end]


def _placeholders(text: str) -> Iterator[tuple[str, int]]:
    """(root name, offset of the name) of each plain `{{path}}` outside `#each` blocks."""
    each_depth = 0
    for m in _TAG.finditer(text):
        inner = m.group(1)
        body = inner.strip().strip("{}").strip()
        if not body:
            continue
        head = body.split()[0]
        if body.startswith("#"):
            each_depth += head == "#each"
            continue
        if body.startswith("/"):
            if head == "/each" and each_depth:
                each_depth -= 1
            continue
        if each_depth or body[0] in "^!>@" or head == "else":
            continue
        path = _PATH.fullmatch(body)
        if path is None:
            continue  # a function call or an expression
        name = path.group(1)
        if name in TEMPLATE_NAMESPACES:
            continue
        yield name, m.start(1) + inner.index(name)
