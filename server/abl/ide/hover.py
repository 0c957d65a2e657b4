"""Hover: what the thing under the cursor is and what the platform will do with it.

Keywords and their values are described by the catalogue (`abl.schema.presentation`); names
(agents, variables, return handlers, tools) by the project's reference index and model.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from abl.checks.registry import BY_CODE
from abl.ide.locate import Part, Site, locate
from abl.ide.references import Occurrence, ReferenceIndex, Symbol, SymbolKind
from abl.model import Agent, Document
from abl.model.nesting import ignored_under_value
from abl.model.types import AgentKind, HandoffRoute, ReturnHandler, Tool
from abl.resources import docs_uri
from abl.schema.presentation import hover_markdown, value_hover_markdown
from abl.schema.types import ValueKind
from abl.text import Position, Range
from abl.wording import count
from abl.workspace import Project

_CODE = re.compile(r"\b(E\d{3}|W\d{3}|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b")


@dataclass(frozen=True, slots=True)
class Hover:
    markdown: str
    range: Range


def hover(project: Project, path: str, pos: Position) -> Hover | None:
    doc = project.documents.get(path)
    if doc is None:
        return None
    site = locate(doc, pos)
    if site.part is Part.COMMENT:
        return _code_in_comment(doc, site)
    ignored = _under_a_value(doc, site)
    if ignored is not None:
        return ignored
    occ = ReferenceIndex.of(project).at(path, site.position)
    if occ is not None:
        text = _symbol(project, occ)
        if text:
            return Hover(text, occ.range)
    return _keyword(site)


def _under_a_value(doc: Document, site: Site) -> Hover | None:
    """A line nested under a key that holds a value is read by nothing: its keyword's
    documentation would describe an effect it does not have."""
    node = site.node
    if node is None:
        return None
    tops = [top for top in doc.source.nodes if top.row <= node.row]
    if not tops:
        return None
    for holder, line in ignored_under_value(tops[-1]):
        if line is node:
            text = (
                f"**Read by nothing.** This line is nested under `{holder.key}: {holder.value.strip()}`, "
                f"which holds a value, so it has no effect; write it at the column of `{holder.key}` "
                "(KEY_UNDER_VALUE)."
            )
            return Hover(text, node.head_range)
    return None


# --- keywords ---------------------------------------------------------------------------


def _keyword(site: Site) -> Hover | None:
    node, key = site.node, site.key
    if node is None or key is None or not node.is_entry:
        return None
    if site.part is Part.KEY:
        text = hover_markdown(key)
        link = docs_uri("keywords.md")
        if link:
            text += f"\n\n[Keyword reference]({link})"
        return Hover(text, node.key_range)
    if site.part is not Part.VALUE or not node.has_value or node.value_range.start.line != site.position.line:
        return None
    written = node.value.strip().strip("\"'")
    parts = []
    value_text = value_hover_markdown(key, written)
    if value_text:
        parts.append(value_text)
    if key.exact_true:
        parts.append(_exact_true(written))
    if (key.kind is ValueKind.HISTORY or site.inside("HISTORY")) and isinstance(site.obj, HandoffRoute):
        effect = _history_effect(site.obj)
        if effect:
            parts.append(effect)
    if not parts:
        return None
    return Hover("\n\n".join(parts), node.value_range)


def _exact_true(written: str) -> str:
    if written == "true":
        return "`true`: the route is returnable; the child hands control back when it completes."
    if written.lower() == "true":
        return (
            f"**`{written}` reads as false.** Only the exact lowercase `true` is true; this route "
            "is permanent and its `ON_RETURN` never runs."
        )
    return f"`{written}` reads as false: the route is permanent (the child never hands back)."


def _history_effect(route: HandoffRoute) -> str | None:
    spec = route.history
    if spec is None:
        return None
    if spec.error:
        return f"The platform refuses to compile this route (`{spec.error}`)."
    if spec.fallback:
        return f"**The platform reads this as `full`:** {spec.fallback}."
    mode = spec.resolved_mode
    if mode == "last_n" and spec.resolved_count is not None:
        return f"Effective: the last {count(spec.resolved_count, 'message')}."
    if mode == "last_n":
        return "Effective: the last messages (no readable `count`)."
    if spec.last_zero:
        return "Effective: no messages (`last_0`)."
    return f"Effective: `{mode}`."


def _code_in_comment(doc: Document, site: Site) -> Hover | None:
    line = doc.source.index.line_text(site.position.line)
    for m in _CODE.finditer(line):
        if m.start() <= site.position.character <= m.end() and m.group(1) in BY_CODE:
            code = BY_CODE[m.group(1)]
            text = f"**{code.code}** · {code.severity.value} · {code.title}\n\n{code.summary}"
            link = docs_uri(f"diagnostics/{code.code}.md")
            if link:
                text += f"\n\n[Documentation]({link})"
            return Hover(text, Range.on_line(site.position.line, m.start(), m.end()))
    return None


# --- names ------------------------------------------------------------------------------


def _symbol(project: Project, occ: Occurrence) -> str | None:
    kind = occ.symbol.kind
    if kind is SymbolKind.AGENT:
        return _agent(project, occ.symbol.name)
    if kind is SymbolKind.VARIABLE:
        return _variable(project, occ.symbol)
    if kind is SymbolKind.HANDLER:
        return _handler(project, occ.symbol)
    if kind is SymbolKind.TOOL:
        return _tool(project, occ.symbol.name)
    index = ReferenceIndex.of(project)
    label = kind.value.replace("_", " ")
    defs = index.definitions(occ.symbol)
    where = f" · declared at {_place(project, defs[0])}" if defs else " · not declared"
    return f"**`{occ.symbol.name}`** · {label} of `{occ.symbol.scope}`{where}"


def _agent(project: Project, name: str) -> str:
    refs = project.agents_by_name().get(name)
    if not refs:
        return f"**`{name}`** · no agent of this project has this name"
    agent = refs[0].agent
    kind = {AgentKind.SUPERVISOR: "supervisor", AgentKind.BEHAVIOR_PROFILE: "behavior profile"}.get(agent.kind, "agent")
    lines = [f"**`{name}`** · {kind} · `{_relative(project, agent.path)}`"]
    if agent.goal is not None and agent.goal.text:
        lines += ["", _first_line(agent.goal.text)]
    callers = sorted({p.name.text for p in project.parents_of(name)})
    if callers:
        lines += ["", "Routes in: " + ", ".join(f"`{c}`" for c in callers)]
    routes = [r for r in agent.handoffs if r.target is not None and r.target.text]
    if routes:
        lines += ["", "Routes out:"]
        lines.extend(f"- {_route_line(r, project.default_history)}" for r in routes)
    if len(refs) > 1:
        lines += ["", f"**Declared {len(refs)} times** (`DUPLICATE_AGENT_NAME`)"]
    return "\n".join(lines)


def _route_line(route: HandoffRoute, default_history: str) -> str:
    assert route.target is not None
    returnable = route.returns is not None and route.returns.value.text == "true"
    mode = route.history.resolved_mode if route.history is not None else default_history
    if route.history is not None and route.history.resolved_mode == "last_n":
        mode = f"last_{route.history.resolved_count}"
    return f"`{route.target.text}` ({'returnable' if returnable else 'permanent'}, history `{mode}`)"


def _variable(project: Project, symbol: Symbol) -> str:
    index = ReferenceIndex.of(project)
    occs = index.occurrences(symbol)
    scope = symbol.scope or "?"
    agent = project.agent(scope) if symbol.scope else None
    lines = [f"**`{symbol.name}`** · variable of `{scope}`"]
    declared = _declaration(agent, symbol.name) if agent is not None else None
    if declared:
        lines += ["", declared]
    defs = [o for o in occs if o.definition]
    if defs:
        lines += ["", "Declared: " + ", ".join(_place(project, o) for o in defs)]
    writes = [o for o in occs if not o.definition and o.is_write]
    reads = [o for o in occs if not o.is_write and not o.definition]
    if writes:
        lines.append("Set by: " + ", ".join(f"{o.role} ({_place(project, o)})" for o in writes[:6]))
    if reads:
        lines.append("Read by: " + ", ".join(f"{o.role} ({_place(project, o)})" for o in reads[:6]))
    if not defs and not writes:
        lines += ["", "Nothing in this agent declares or sets it."]
    return "\n".join(lines)


def _declaration(agent: Agent, name: str) -> str | None:
    for field in agent.all_gather_fields():
        if field.name.text == name:
            kind = field.type.text if field.type is not None else "string"
            facts = [f"gather field, type `{kind}`"]
            if field.required is not None:
                facts.append(f"required: `{field.required.text}`")
            if field.sensitive:
                facts.append("sensitive")
            if field.prompt is not None:
                facts.append(f"asks: “{_first_line(field.prompt.text)}”")
            return " · ".join(facts)
    var = agent.memory_var(name)
    if var is not None:
        kind = var.type.text if var.type is not None else "any"
        text = f"{var.scope} memory, type `{kind}`"
        if var.initial is not None:
            text += f", initially `{var.initial.text}`"
        return text + (" · sensitive" if var.sensitive else "")
    return None


def _handler(project: Project, symbol: Symbol) -> str:
    agent = project.agent(symbol.scope) if symbol.scope else None
    found: ReturnHandler | None = None
    if agent is not None:
        found = next((h for h in agent.return_handlers if h.name.text == symbol.name), None)
    if found is None:
        return f"**`{symbol.name}`** · no `RETURN_HANDLERS` entry of `{symbol.scope}` has this name"
    lines = [f"**`{symbol.name}`** · return handler of `{symbol.scope}`", ""]
    if found.respond is not None:
        lines.append(f"Responds: “{_first_line(found.respond.text)}”")
    if found.clear:
        lines.append("Clears: " + ", ".join(f"`{n.text}`" for n in found.clear))
    if found.resume_intent is not None and found.resume_intent.text == "true":
        lines.append("Then replays the parent's last customer message through its routes.")
    elif found.continue_ is not None and found.continue_.text == "true":
        lines.append("Then the parent waits for the customer's next message.")
    return "\n".join(lines)


def _tool(project: Project, name: str) -> str:
    tool = _find_tool(project, name)
    if tool is None:
        return f"**`{name}`** · tool (no declaration found in this project)"
    params = ", ".join(
        f"{p.name}{'?' if p.optional else ''}: {p.type}" + (f" = {p.default}" if p.default else "") for p in tool.params
    )
    signature = f"{tool.name.text}({params})" + (f" -> {tool.returns}" if tool.returns else "")
    lines = [f"**`{name}`** · tool", "", "```abl", signature, "```"]
    for key, value in tool.properties:
        if key.lower() == "description":
            lines += ["", value.text]
    return "\n".join(lines)


def _find_tool(project: Project, name: str) -> Tool | None:
    for doc in project.documents.values():
        for tool in doc.library_tools:
            if tool.name.text == name:
                return tool
        for agent in doc.agents:
            for tool in agent.tools:
                if tool.name.text == name:
                    return tool
    return None


def _place(project: Project, occ: Occurrence) -> str:
    return f"{os.path.basename(occ.path)}:{occ.range.start.line + 1}"


def _relative(project: Project, path: str) -> str:
    try:
        return os.path.relpath(path, project.root)
    except ValueError:
        return path


def _first_line(text: str) -> str:
    lines = text.strip().strip("\"'").splitlines()  # none for a lone quote
    line = lines[0] if lines else ""
    return line if len(line) <= 160 else line[:157] + "…"
