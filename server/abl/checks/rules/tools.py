"""Tool references: every tool a step calls, a reasoning step offers or an import names exists.

## What it does
Collects the tools an agent can use: its own `TOOLS` signatures, the tools its `file:` imports
bring (the named ones, or the whole library), every tool library of the project (the runtime
looks there too), tools a behavior profile adds, and the platform's built-in tools. Reports
`UNKNOWN_TOOL` for a `CALL` (in any step, lifecycle handler or action list), an
`AVAILABLE_TOOLS` entry, and an imported name that the library does not declare.

When an import points at a file the project does not hold (a file checked on its own, or a
wrong path), the agent's tools cannot be known, and nothing is reported for it.

## Why is this bad?
The validator rejects an unknown tool reference; a typo in a tool name is the usual cause.

## Fix safety
The suggested name calls a different tool: unsafe.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.model import Agent
from abl.model.nesting import read_walk
from abl.model.types import AgentKind
from abl.suggest import did_you_mean_name
from abl.syntax.cst import Node
from abl.syntax.values import unquote
from abl.text import LineIndex, Range

# Tools the platform provides without a declaration (ABL-REFERENCE §6.16).
BUILT_IN_TOOLS = frozenset(
    {"__return_to_parent__", "__fan_out__", "get_attachment", "list_attachments", "transfer_to_agent", "call_transfer"}
)
_TOOL_NAME = re.compile(r"[A-Za-z_][\w.-]*")
_NAMING_TOOLS = frozenset({"CALL", "AVAILABLE_TOOLS"})


@agent_rule("UNKNOWN_TOOL")
def unknown_tool(check: Check, agent: Agent) -> None:
    if agent.kind is AgentKind.BEHAVIOR_PROFILE:
        return
    own = BUILT_IN_TOOLS | {t.name.text for t in agent.tools}
    index = check.document.source.index
    unresolved = [r for r in _references(agent, index) if r[1] not in own and not r[1].startswith("handoff_to_")]
    if not unresolved and not agent.tool_imports:
        return  # nothing to look up in other files (which keeps this rule's result cacheable)
    known = _known_tools(check, agent)
    if known is None:
        return  # an import the project cannot resolve: the agent's tools are not all visible
    pool = sorted(n for n in known if not n.startswith("__"))
    for where, name, rng in unresolved:
        if name in known:
            continue
        guess = did_you_mean_name(name, pool)
        hint = f"; did you mean `{guess}`?" if guess else ""
        offered = fixes.use_instead(guess, rng)
        check.report(
            "UNKNOWN_TOOL",
            f"{where} names `{name}`, a tool {agent.name.text} neither declares nor imports, so the "
            f"platform rejects it as an unknown tool reference{hint}",
            rng,
            fixes=offered,
        )
    for name, rng, library in _imported_names_missing(check, agent):
        guess = did_you_mean_name(name, sorted(library))
        hint = f"; did you mean `{guess}`?" if guess else ""
        offered = fixes.use_instead(guess, rng)
        check.report(
            "UNKNOWN_TOOL",
            f"the import names `{name}`, which the tool library does not declare, so the platform "
            f"rejects it as an unknown tool reference{hint}",
            rng,
            fixes=offered,
        )


def _known_tools(check: Check, agent: Agent) -> set[str] | None:
    known = set(BUILT_IN_TOOLS)
    known.update(t.name.text for t in agent.tools)
    for _, library in check.project.tool_libraries():
        known.update(t.name.text for t in library)
    for profile in check.project.behavior_profiles():
        known.update(_added_by_profile(profile))
    for imported in agent.tool_imports:
        if _library(check, agent, imported.path.text) is None:
            return None
        known.update(n.text for n in imported.names)
    return known


def _added_by_profile(profile: Agent) -> set[str]:
    """Tool names a behavior profile declares under `TOOLS: ADD:`."""
    section = profile.section("TOOLS")
    added = section.find("ADD") if section is not None else None
    if added is None:
        return set()
    names = set()
    for node in added.children:
        m = _TOOL_NAME.match(node.value.strip()) if node.is_text else None
        if m is not None:
            names.add(m.group(0))
    return names


def _library(check: Check, agent: Agent, path: str) -> set[str] | None:
    """The tool names of the library an import points at, or None when the project lacks it."""
    wanted = posixpath.normpath(posixpath.join(posixpath.dirname(agent.path.replace("\\", "/")), path))
    for doc_path, library in check.project.tool_libraries():
        if posixpath.normpath(doc_path.replace("\\", "/")) == wanted:
            return {t.name.text for t in library}
    return None


def _imported_names_missing(check: Check, agent: Agent) -> Iterator[tuple[str, Range, set[str]]]:
    section = agent.section("TOOLS")
    if section is None:
        return
    for node in section.children:
        if not (node.is_entry and node.key.lower() == "file" and node.has_value):
            continue
        raw = node.value
        bracket = raw.find("[")
        path = unquote(raw[:bracket].strip() if bracket >= 0 else raw.strip())[0]
        library = _library(check, agent, path)
        if library is None or bracket < 0:
            continue
        # An unclosed `[` carries the value on to the next lines, so offsets go through the index.
        index = check.document.source.index
        for m in _TOOL_NAME.finditer(raw, bracket):
            if m.group(0) not in library:
                where = Range(index.position(node.value_start + m.start()), index.position(node.value_start + m.end()))
                yield m.group(0), where, library


def _references(agent: Agent, index: LineIndex) -> Iterator[tuple[str, str, Range]]:
    """(how it is referenced, tool name, range of the name) for every tool the agent uses."""
    for section in agent.sections[1:]:
        for node in read_walk(section):
            if not node.is_entry:
                continue
            key = node.key.upper()
            if key not in _NAMING_TOOLS or not node.has_value or node.is_pipe:
                continue
            if key == "CALL":
                found = _first_name(node, index)
                if found is not None:
                    yield f"`CALL: {found[0]}`", *found
            elif key == "AVAILABLE_TOOLS":
                for name, rng in _listed(node, index):
                    yield "`AVAILABLE_TOOLS`", name, rng


def _first_name(node: Node, index: LineIndex) -> tuple[str, Range] | None:
    """The tool of `CALL: name`, `CALL: name(args)` or `CALL: name WITH: ...`."""
    raw = node.value
    lead = len(raw) - len(raw.lstrip())
    text = raw.strip()
    if not text or "{{" in text or text[0] in "\"'":
        return None
    m = _TOOL_NAME.match(text)
    if m is None:
        return None
    at = node.value_start + lead + m.start()
    return m.group(0), Range(index.position(at), index.position(at + len(m.group(0))))


def _listed(node: Node, index: LineIndex) -> Iterator[tuple[str, Range]]:
    raw = node.value
    if raw.strip().startswith("["):
        # An unclosed `[` carries the value on to the next lines: offsets go through the index.
        for m in _TOOL_NAME.finditer(raw):
            start = node.value_start + m.start()
            yield m.group(0), Range(index.position(start), index.position(start + len(m.group(0))))
    for child in node.children:
        content = child.content if child.is_item else None
        if content is not None and content.is_text:
            name = unquote(content.value.strip())[0]
            if _TOOL_NAME.fullmatch(name):
                yield name, content.value_range
