"""Lower the CST of one file into the semantic model.

Lowering is total: whatever the tree holds, it returns a `Document`; values it cannot read
are left out (or `None`) for the checks to report. Property keys are read without regard to
case, except inside `CONTEXT`, where the platform reads only lowercase keys.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from abl.expr import parse_condition
from abl.model import history
from abl.model.lower_steps import StepReader, listed_step_names
from abl.model.nesting import read_children, read_walk, read_winning
from abl.model.types import (
    Agent,
    AgentKind,
    Assignment,
    CompleteRule,
    Condition,
    Delegate,
    Document,
    EscalateTrigger,
    FailureAction,
    FailureKind,
    GatherField,
    HandoffRoute,
    Intent,
    MapEntry,
    MemoryGrant,
    MemoryVar,
    MultiIntent,
    Name,
    OnReturn,
    ParentReturn,
    RememberRule,
    ReturnFlag,
    ReturnHandler,
    Scalar,
    Tool,
    ToolImport,
    ToolParam,
    read_flag,
)
from abl.syntax import limits
from abl.syntax.cst import Node, SourceFile, entries_by_key, find_entry
from abl.syntax.values import Value, ValueKind, read_value, split_top_level, unquote
from abl.text import Position, Range

HEADERS = {"AGENT": AgentKind.AGENT, "SUPERVISOR": AgentKind.SUPERVISOR, "BEHAVIOR_PROFILE": AgentKind.BEHAVIOR_PROFILE}
_ASSIGN = re.compile(r"([A-Za-z_$][\w.$\[\]]*)\s*=(?!=)\s*(.*)")
_SIGNATURE = re.compile(r"([A-Za-z_][\w.]*)\s*\((.*)\)\s*(?:->\s*(.*))?$", re.S)
_IMPORT = re.compile(r"""(".*?"|'.*?'|\S+)\s*(?:\[(.*)\])?\s*$""")


def lower(source: SourceFile, path: str, carry: Callable[[Agent], Agent | None] | None = None) -> Document:
    """Lower one file. `carry`, given an agent whose sections are grouped but not yet read, may
    return an already lowered agent to use instead (see `abl.model.incremental`)."""
    return _Lowering(source, path, carry).document()


def fill_agent(source: SourceFile, path: str, agent: Agent, doc: Document) -> None:
    """Read the sections of an agent whose sections are grouped (`abl.model.incremental`)."""
    _Lowering(source, path).fill(agent, doc)


class _Lowering:
    def __init__(self, source: SourceFile, path: str, carry: Callable[[Agent], Agent | None] | None = None) -> None:
        self.source = source
        self.path = path
        self.carry = carry
        self.index = source.index

    # --- positions and values -----------------------------------------------------------

    def pos(self, offset: int) -> Position:
        return self.index.position(offset)

    def span(self, start: int, end: int) -> Range:
        return Range(self.pos(start), self.pos(end))

    def scalar(self, node: Node | None) -> Scalar | None:
        """The value of an entry (or the text of a TEXT node) as a scalar."""
        if node is None:
            return None
        key_range = node.key_range if node.is_entry else None
        if node.is_pipe:
            end_row = max(node.pipe_end_row, node.row)
            end = Position(end_row, len(self.index.line_text(end_row)))
            return Scalar(node.pipe_text, node.value, False, Range(node.value_range.start, end), key_range)
        if not node.has_value:
            return None
        text, quoted = unquote(node.value)
        return Scalar(text, node.value, quoted, node.value_range, key_range)

    def value(self, node: Node) -> Value:
        return read_value(node.value, node.value_start)

    def scalar_of(self, v: Value) -> Scalar:
        return Scalar(v.text, v.raw, v.kind is ValueKind.QUOTED, self.span(v.start, v.end))

    def name_of(self, v: Value) -> Name:
        return Name(v.text, self.span(v.start, v.end))

    def names(self, node: Node | None) -> list[Name]:
        """Names from `[a, b]`, a block list of `- a`, or a single scalar."""
        if node is None:
            return []
        out: list[Name] = []
        if node.has_value and not node.is_pipe:
            v = self.value(node)
            if v.kind is ValueKind.LIST:
                out.extend(self.name_of(i) for i in v.items if i.is_scalar and i.text)
            elif v.kind is ValueKind.MAP:
                out.extend(self.name_of(k) for k, _ in v.pairs)
            elif v.is_scalar:
                out.extend(
                    Name(part.strip(), node.value_range)
                    for part in (split_top_level(v.text) if "," in v.text else [v.text])
                    if part.strip()
                )
        for child in read_children(node):
            content = child.content if child.is_item else child
            if content is not None and content.is_text:
                text, _ = unquote(content.value)
                out.append(Name(text, content.value_range))
            elif content is not None and content.is_entry and not content.has_value:
                out.append(Name(content.key, content.key_range))
        return out

    def condition(self, node: Node | None) -> Condition | None:
        if node is None or not node.has_value:
            return None
        return self.condition_text(node.value, node.value_range)

    def condition_text(self, text: str, rng: Range) -> Condition:
        return Condition(text, rng, parse_condition(text))

    def pairs(self, node: Node | None) -> Iterator[tuple[Name, Scalar | None, Range]]:
        """`key: value` pairs from a block of entries or a one-line flow map."""
        if node is None:
            return
        if node.has_value and not node.is_pipe:
            v = self.value(node)
            if v.kind is ValueKind.MAP:
                for k, val in v.pairs:
                    key = self.name_of(k)
                    yield key, (self.scalar_of(val) if val is not None and val.is_scalar else None), key.range
                return
        for child in read_children(node):
            if child.is_entry:
                yield Name(child.key, child.key_range), self.scalar(child), child.range()

    def map_entries(self, node: Node | None) -> list[MapEntry]:
        out = []
        for child, parent, rng in self.pairs(node):
            # The `{name}` shorthand maps a field to the same name.
            parent_name = child if parent is None else Name(parent.text, parent.range)
            out.append(MapEntry(child, parent_name, rng))
        return out

    def assignments(self, node: Node | None) -> list[Assignment]:
        """`SET:` as `var = expr` lines, `var: expr` entries, an inline `var = expr`, or `{a: b}`."""
        if node is None:
            return []
        out: list[Assignment] = []
        if node.has_value and not node.is_pipe:
            raw = node.value
            m = _ASSIGN.fullmatch(raw.strip())
            if m is not None:
                out.append(self._assignment_from_text(node, m))
            else:
                for key, val, rng in self.pairs(node):
                    out.append(Assignment(key, val.raw if val else "", rng, val.range if val else rng))
                return out
        for child in read_children(node):
            content = child.content if child.is_item else child
            if content is None:
                continue
            if content.is_entry and content.key.upper() == "SET" and child.is_item:
                out.extend(self.assignments(content))
            elif content.is_entry:
                val = self.scalar(content)
                out.append(
                    Assignment(
                        Name(content.key, content.key_range),
                        val.raw if val else "",
                        content.range(),
                        val.range if val else content.key_range,
                    )
                )
            elif content.is_text:
                m = _ASSIGN.fullmatch(content.value.strip())
                if m is not None:
                    out.append(self._assignment_from_text(content, m))
        return out

    def _assignment_from_text(self, node: Node, m: re.Match[str]) -> Assignment:
        lead = len(node.value) - len(node.value.lstrip())
        base = node.value_start + lead
        target = Name(m.group(1), self.span(base + m.start(1), base + m.end(1)))
        expr_range = self.span(base + m.start(2), base + m.end(2))
        return Assignment(target, m.group(2).strip(), node.value_range, expr_range)

    # --- documents ----------------------------------------------------------------------

    def document(self) -> Document:
        doc = Document(self.path, self.source)
        current: Agent | None = None
        entries = [n for n in self.source.nodes if n.is_entry]
        # The kind comes from the first keyword: a root `TOOLS:` with no agent header is a tool
        # library, whatever the file is called (`.tools.abl` is the usual name).
        is_library = self.path.endswith(".tools.abl") or (
            bool(entries) and entries[0].key.upper() == "TOOLS" and not any(n.key.upper() in HEADERS for n in entries)
        )
        doc.is_library = is_library
        for node in self.source.nodes:
            if not node.is_entry:
                continue
            kind = HEADERS.get(node.key.upper())
            if kind is AgentKind.BEHAVIOR_PROFILE and _inline_profile(node, current):
                kind = None  # `BEHAVIOR_PROFILE:` with no name, inside an agent: one of its sections
            if kind is not None and len(doc.agents) >= limits.MAX_DOCUMENTS:
                break  # the rest of the file is not read (the checks report LIMIT_EXCEEDED here)
            if kind is not None:
                name = self.scalar(node)
                agent_name = Name(name.text if name else "", name.range if name else node.key_range)
                current = Agent(kind, agent_name, self.path, node)
                current.sections.append(node)
                doc.agents.append(current)
                continue
            if current is None:
                if is_library and node.key.upper() == "TOOLS":
                    doc.library_tools.extend(self.tools(node, None))
                else:
                    doc.stray_sections.append(node)
                continue
            current.sections.append(node)
        for i, agent in enumerate(doc.agents):
            kept = self.carry(agent) if self.carry is not None else None
            if kept is not None:
                doc.agents[i] = kept
            else:
                self.fill(agent, doc)
        return doc

    def fill(self, agent: Agent, doc: Document) -> None:
        flow: Node | None = None
        listed: set[str] = set()
        column_zero: list[Node] = []
        for node in agent.sections[1:]:
            key = node.key.upper()
            handler = _SECTION_READERS.get(key)
            if key == "FLOW":
                flow, listed, column_zero = node, listed_step_names(node), []
            elif handler is not None:
                handler(self, agent, node)
            elif flow is not None and node.key in listed:
                # DESIGN.md: a column-0 block that `steps` lists is read as that step of the
                # FLOW above it, by the checker and the runtime alike.
                doc.column_zero_steps.append((agent, node))
                column_zero.append(node)
            if key in _HANDLER_SECTIONS:
                self.handler_writes(agent, node)
        if flow is not None:
            agent.flow = StepReader(self).flow(flow, column_zero)

    def handler_writes(self, agent: Agent, node: Node) -> None:
        """Variables written by handlers outside FLOW: `SET` blocks (`set:` maps, `- SET:`
        actions) and `AS:` names of calls, wherever they sit in the section."""
        own_sets = node.key.upper() not in ("HOOKS", "ON_ERROR")  # those two keep their SETs in hooks_sets
        for n in read_walk(node):
            if n is node or not n.is_entry:
                continue
            key = n.key.upper()
            if key == "SET" and own_sets:
                agent.handler_sets.extend(self.assignments(n))
            elif key == "AS" and n.has_value:
                v = self.scalar(n)
                if v is not None and v.text:
                    agent.call_results.append(Name(v.text, v.range))

    # --- sections -----------------------------------------------------------------------

    def behavior(self, agent: Agent, node: Node) -> None:
        agent.role = self.scalar(find_entry(read_children(node), "role"))

    def intents(self, agent: Agent, node: Node) -> None:
        for child in read_winning(node):
            content = child.content if child.is_item else child
            if content is None:
                continue
            if content.is_entry:
                if content.key.upper() == "LEXICAL_FALLBACK":
                    continue
                desc = self.scalar(content)
                agent.intents.append(Intent(Name(content.key, content.key_range), desc.text if desc else ""))
            elif content.is_text:
                text, _ = unquote(content.value)
                agent.intents.append(Intent(Name(text, content.value_range), ""))

    def memory(self, agent: Agent, node: Node) -> None:
        for part in read_winning(node):
            if not part.is_entry:
                continue
            key = part.key.lower()
            if key in ("session", "persistent", "reads", "writes"):
                scope = "session" if key == "session" else "persistent"
                agent.memory.extend(self.memory_vars(part, scope, _shorthand_access(part)))
            elif key == "remember":
                agent.remember.extend(self.remember(part))
            elif key == "recall":
                continue
            elif not any(c.is_item for c in read_children(part)):
                # Map-style `MEMORY: customer_id: {type: string}` declares a session variable
                # (a misspelt sub-block such as `sesion:` holds a list instead).
                props = list(read_children(part))
                agent.memory.append(
                    MemoryVar(
                        Name(part.key, part.key_range),
                        "session",
                        type=self.scalar(find_entry(props, "TYPE")),
                        description=self.scalar(find_entry(props, "DESCRIPTION")),
                        initial=self.scalar(find_entry(props, "INITIAL", "initial_value")),
                    )
                )

    def memory_vars(
        self, node: Node, scope: str, implied: tuple[str, str, Range | None] = ("readwrite", "", None)
    ) -> Iterator[MemoryVar]:
        """The variables of one `MEMORY` sub-block; `implied` is the access its key gives
        (`READS:`, `WRITES:`), which a fact's own `ACCESS` overrides."""
        for name in self.names(node) if node.has_value else []:
            yield MemoryVar(name, scope, access=implied[0], access_key=implied[1], access_range=implied[2])
        for child in read_children(node):
            content = child.content if child.is_item else child
            if content is None:
                continue
            props = read_children(child)[1:] if child.is_item else list(read_children(content))
            if content.is_text:
                text, _ = unquote(content.value)
                name = Name(text, content.value_range)
            elif content.is_entry and not child.is_item and content.key.lower() in ("reads", "writes"):
                # `persistent: READS: [...]` shorthand
                yield from self.memory_vars(content, scope, _shorthand_access(content))
                continue
            elif content.is_entry and child.is_item and self._names_the_item(content, scope):
                # The object form `- name: order_id` / `- PATH: user.x`: the value is the name.
                text, _ = unquote(content.value)
                name = Name(text, content.value_range)
            elif content.is_entry:
                name = Name(content.key, content.key_range)
                props = list(read_children(content)) + props
            else:
                continue
            yield MemoryVar(
                name,
                scope,
                type=self.scalar(find_entry(props, "TYPE")),
                description=self.scalar(find_entry(props, "DESCRIPTION")),
                initial=self.scalar(find_entry(props, "INITIAL", "initial_value")),
                sensitive=_is_true(self.scalar(find_entry(props, "SENSITIVE"))),
                display=self.scalar(find_entry(props, "SENSITIVE_DISPLAY")),
                mask=self.mask_config(find_entry(props, "MASK_CONFIG")),
                **self.access(find_entry(props, "ACCESS"), implied),
            )

    def access(self, node: Node | None, implied: tuple[str, str, Range | None]) -> dict[str, Any]:
        """A fact's `ACCESS`, else the access its sub-block implies; a value that is not one of
        the three keeps the default (the structure check reports it)."""
        written = self.scalar(node)
        if written is not None and written.lower in _ACCESS_VALUES:
            return {"access": written.lower, "access_key": "ACCESS", "access_range": written.range}
        access, key, where = implied
        return {"access": access, "access_key": key, "access_range": where}

    @staticmethod
    def _names_the_item(content: Node, scope: str) -> bool:
        """`name:` heads a session variable and `PATH:` a persistent fact when a value follows."""
        key = "name" if scope == "session" else "path"
        return content.key.lower() == key and content.has_value and bool(content.value.strip())

    def remember(self, node: Node) -> Iterator[RememberRule]:
        for child in read_children(node):
            if not child.is_item or child.content is None:
                continue
            content = child.content
            siblings = read_children(child)
            when: Condition | None = None
            if content.is_entry and content.key.upper() == "WHEN":
                when = self.condition(content)
            elif content.is_text and content.value.upper().startswith("WHEN "):
                text = content.value[5:]
                start = content.value_start + 5
                when = self.condition_text(text, self.span(start, start + len(text)))
            store = find_entry(siblings, "STORE")
            value, target = "", None
            if store is not None and store.has_value:
                raw = store.value
                if "->" in raw:
                    left, _, right = raw.rpartition("->")
                    value = left.strip()
                    t_start = store.value_start + raw.rfind(right.strip())
                    target = Name(right.strip(), self.span(t_start, t_start + len(right.strip())))
                else:
                    value = raw
            yield RememberRule(when, value, target, child.range())

    def gather(self, agent: Agent, node: Node) -> None:
        agent.gather.extend(self.gather_fields(node, in_flow=False))

    def gather_fields(self, node: Node, in_flow: bool) -> Iterator[GatherField]:
        for child in read_winning(node):
            if child.is_entry and child.key.upper() in ("FIELDS",):
                yield from self.gather_fields(child, in_flow)
                continue
            if child.is_entry and child.key.upper() in ("STRATEGY", "PROMPT", "MESSAGE_KEY"):
                continue
            if child.is_item:
                content = child.content
                if content is None:
                    continue
                if content.is_entry:
                    # `- field: required` + properties (flow list form)
                    props = list(read_children(content)) + read_children(child)[1:]
                    yield self.gather_field(Name(content.key, content.key_range), props, child, content, in_flow)
                elif content.is_text:
                    text, _ = unquote(content.value)
                    yield self.gather_field(
                        Name(text, content.value_range), read_children(child)[1:], child, None, in_flow
                    )
            elif child.is_entry:
                yield self.gather_field(
                    Name(child.key, child.key_range), list(read_children(child)), child, None, in_flow
                )

    def gather_field(
        self, name: Name, props: list[Node], node: Node, inline: Node | None, in_flow: bool
    ) -> GatherField:
        keyed = entries_by_key(props)  # fifteen keys are asked for
        required = self.scalar(keyed.get("required"))
        if required is None and inline is not None and inline.has_value:
            required = self.scalar(inline)  # `- field: required|optional`
            if required is not None and required.lower in ("required", "optional"):
                word = "true" if required.lower == "required" else "false"
                required = Scalar(word, required.raw, False, required.range, required.key_range)
        options_node = keyed.get("options")
        options = tuple(n.text for n in self.names(options_node)) if options_node is not None else ()
        sensitive = _is_true(self.scalar(keyed.get("sensitive")))
        return GatherField(
            name=name,
            range=node.range(),
            prompt=self.scalar(keyed.get("prompt")),
            type=self.scalar(keyed.get("type")),
            required=required,
            default=self.scalar(keyed.get("default")),
            options=options,
            description=self.scalar(keyed.get("description")),
            sensitive=sensitive,
            # VALIDATION is a key of its own, read when VALIDATE is absent
            validate=self.scalar(keyed.get("validate") or keyed.get("validation")),
            retry_prompt=self.scalar(keyed.get("retry_prompt")),
            max_retries=self.scalar(keyed.get("max_retries")),
            depends_on=tuple(self.names(keyed.get("depends_on"))),
            extraction_pattern=self.scalar(keyed.get("extraction_pattern")),
            extraction_group=self.scalar(keyed.get("extraction_group")),
            in_flow=in_flow,
            display=self.scalar(keyed.get("sensitive_display")),
            mask=self.mask_config(keyed.get("mask_config")),
        )

    def mask_config(self, node: Node | None) -> tuple[tuple[str, str], ...]:
        """`mask_config` pairs (`showFirst`, `showLast`, `char`) as written; the runtime reads them."""
        return tuple((key.text, value.text) for key, value, _ in self.pairs(node) if value is not None)

    def handoff(self, agent: Agent, node: Node) -> None:
        for i, child in enumerate(c for c in read_children(node) if c.is_item):
            route = self.route(i, child)
            agent.handoffs.append(route)
            if route.on_failure is not None and route.on_failure.target is not None:
                agent.other_handoff_refs.append(("ON_FAILURE", route.on_failure.target))

    def route(self, index: int, item: Node) -> HandoffRoute:
        route = HandoffRoute(index, item.range(), item.head_range, node=item)
        context_history: HistorySpecInput | None = None
        line_history: HistorySpecInput | None = None
        # A key written twice counts once, the later (as `DUPLICATE_KEY` says): an earlier
        # `CONTEXT` must not leave its history or fields behind when a later one replaces it.
        for e in read_winning(item):
            if not e.is_entry:
                continue
            key = e.key.upper()
            if key == "TO":
                v = self.scalar(e)
                route.target = Name(v.text, v.range) if v else None
            elif key == "WHEN":
                route.when = self.condition(e)
            elif key == "ENABLED_WHEN":
                route.enabled_when = self.condition(e)
            elif key == "PRIORITY":
                route.priority = self.scalar(e)
            elif key == "PASS":
                route.passes = self.names(e)
            elif key == "SUMMARY":
                route.summary = self.scalar(e)
            elif key == "HISTORY":
                line_history = (e, False)
            elif key == "SET":
                route.set = self.assignments(e)
            elif key in ("RETURN", "EXPECT_RETURN"):
                v = self.scalar(e)
                if v is not None:
                    route.returns = ReturnFlag(Name(e.key, e.key_range), v)
            elif key == "ON_RETURN":
                route.on_return = self.on_return(e)
            elif key == "MAP":
                route.legacy_map = self.map_entries(e)
            elif key in ("ON_FAILURE", "ON_FAIL"):
                route.on_failure = self.failure(e)
            elif key == "ON_TIMEOUT":
                route.on_timeout = self.scalar(e)
            elif key in ("TIMEOUT", "ASYNC_TIMEOUT"):
                route.timeout = self.scalar(e)
            elif key in ("REMOTE", "LOCATION", "ENDPOINT", "PROTOCOL"):
                loc = self.scalar(find_entry(read_children(e), "location")) if key == "REMOTE" else self.scalar(e)
                route.remote = route.remote or key != "LOCATION" or (loc is not None and loc.lower == "remote")
            elif key == "GRANT_MEMORY":
                route.grant_memory = Name(e.key, e.key_range)
            elif key == "CONTEXT":
                route.context_range = e.key_range
                context_history = self.context(route, e) or context_history
        chosen = context_history or line_history
        if chosen is not None:
            route.history = self.history(*chosen)
        return route

    def context(self, route: HandoffRoute, node: Node) -> HistorySpecInput | None:
        found: HistorySpecInput | None = None
        if node.has_value:
            v = self.value(node)
            for k, val in v.pairs:
                if k.text == "pass" and val is not None:
                    route.passes = [self.name_of(i) for i in val.items if i.is_scalar] or (
                        [self.name_of(val)] if val.is_scalar else []
                    )
                elif k.text == "summary" and val is not None and val.is_scalar:
                    route.summary = self.scalar_of(val)
        for e in read_winning(node, fold_case=False):
            if not e.is_entry:
                continue
            if e.key != e.key.lower():
                route.ignored_context_keys.append(Name(e.key, e.key_range))
                continue
            key = e.key
            if key == "pass":
                route.passes = self.names(e)
            elif key == "summary":
                route.summary = self.scalar(e)
            elif key == "history":
                found = (e, True)
            elif key == "set":
                route.set = self.assignments(e)
            elif key == "grant_memory":
                route.grant_memory = Name(e.key, e.key_range)
            elif key == "memory_grants":
                route.memory_grants = self.memory_grants(e)
        return found

    def memory_grants(self, node: Node | None) -> list[MemoryGrant]:
        """`- path: user.x` items with an optional `access:` (read unless it says readwrite)."""
        grants: list[MemoryGrant] = []
        for item in node.children if node is not None else ():
            if not item.is_item:
                continue
            path = self.scalar(find_entry(item.children, "path"))
            if path is None or not path.text.strip():
                continue
            access = self.scalar(find_entry(item.children, "access"))
            written = access.text.strip().lower() if access is not None else ""
            grants.append(
                MemoryGrant(Name(path.text.strip(), path.range), "readwrite" if written == "readwrite" else "read")
            )
        return grants

    def history(self, node: Node, in_context: bool):  # -> HistorySpec
        if read_children(node) and not node.has_value:
            mode = count = None
            for c in read_children(node):
                if c.is_entry and c.key.lower() == "mode":
                    mode = self.scalar(c)
                elif c.is_entry and c.key.lower() == "count":
                    count = self.scalar(c)
            return history.read_block(mode, count, node.key_range, in_context)
        value = self.scalar(node)
        if value is None:
            value = Scalar("", "", False, node.value_range, node.key_range)
        return history.read_line(value, node.key_range, in_context)

    def on_return(self, node: Node) -> OnReturn:
        if node.has_value and not read_children(node):
            v = self.value(node)
            if v.kind is not ValueKind.MAP:
                return OnReturn(node.key_range, self.scalar(node), None, None, None, (), (), ())
        action = handler = resume_with = None
        map_entries: list[MapEntry] = []
        sets: list[Assignment] = []
        clear: list[Name] = []
        entries: list[tuple[str, Node | None, Scalar | None]] = []
        if node.has_value:
            for k, val, _ in self.pairs(node):
                entries.append((k.text.upper(), None, val))
        entries.extend((e.key.upper(), e, self.scalar(e)) for e in read_children(node) if e.is_entry)
        for key, e, val in entries:
            if key == "ACTION":
                action = val
            elif key == "HANDLER":
                handler = val
            elif key == "RESUME_WITH":
                resume_with = val
            # Written twice, a block is a key set twice: the later one wins (DUPLICATE_KEY).
            elif key == "MAP" and e is not None:
                map_entries = list(self.map_entries(e))
            elif key == "SET" and e is not None:
                sets = list(self.assignments(e))
            elif key == "CLEAR" and e is not None:
                clear = list(self.names(e))
        return OnReturn(
            node.key_range, None, action, handler, resume_with, tuple(map_entries), tuple(sets), tuple(clear)
        )

    def failure(self, node: Node) -> FailureAction | None:
        value = self.scalar(node)
        if value is None:
            return None
        return parse_failure(value)

    def return_handlers(self, agent: Agent, node: Node) -> None:
        for e in read_winning(node):
            if not e.is_entry:
                continue
            agent.return_handlers.append(
                ReturnHandler(
                    Name(e.key, e.key_range),
                    respond=self.scalar(find_entry(read_children(e), "RESPOND")),
                    clear=tuple(self.names(find_entry(read_children(e), "CLEAR"))),
                    continue_=self.scalar(find_entry(read_children(e), "CONTINUE")),
                    resume_intent=self.scalar(find_entry(read_children(e), "RESUME_INTENT")),
                    range=e.range(),
                )
            )

    def complete(self, agent: Agent, node: Node) -> None:
        for i, item in enumerate(c for c in read_children(node) if c.is_item):
            props = read_children(item)
            agent.complete.append(
                CompleteRule(
                    i,
                    item.range(),
                    when=self.condition(find_entry(props, "WHEN")),
                    respond=self.scalar(find_entry(props, "RESPOND")),
                    set=tuple(self.assignments(find_entry(props, "SET"))),
                    terminal=self.scalar(find_entry(props, "TERMINAL")),
                )
            )

    def on_start(self, agent: Agent, node: Node) -> None:
        agent.on_start = StepReader(self).on_start(node)

    def messages(self, agent: Agent, node: Node) -> None:
        for entry in read_winning(node):
            value = self.scalar(entry) if entry.is_entry else None
            if value is not None:
                agent.messages.append((entry.key, value))

    def multi_intent(self, agent: Agent, node: Node) -> None:
        def number(key: str, default: float) -> float:
            value = self.scalar(find_entry(read_children(node), key))
            try:
                read = float(value.text) if value is not None else default
            except ValueError:
                return default
            return read if math.isfinite(read) else default  # `1e999`, `nan`: not a setting

        strategy = self.scalar(find_entry(read_children(node), "strategy"))
        unknown = self.scalar(find_entry(read_children(node), "unknown_relationship_strategy"))
        agent.multi_intent = MultiIntent(
            range=node.key_range,
            enabled=read_flag(self.scalar(find_entry(read_children(node), "enabled"))) is not False,
            strategy=strategy.lower if strategy is not None else "primary_queue",
            unknown_relationship_strategy=unknown.lower if unknown is not None else "parallel",
            max_intents=int(number("max_intents", 3)),
            confidence_threshold=number("confidence_threshold", 0.6),
            queue_max_age_ms=int(number("queue_max_age_ms", 600_000)),
            advance_on_primary_response=read_flag(
                self.scalar(find_entry(read_children(node), "advance_on_primary_response"))
            )
            is not False,
        )

    def execution(self, agent: Agent, node: Node) -> None:
        agent.max_reasoning_iterations = self.scalar(find_entry(read_children(node), "max_reasoning_iterations"))
        pipeline = find_entry(read_children(node), "pipeline")
        parent = find_entry(read_children(pipeline), "parentReturn") if pipeline is not None else None
        if parent is not None:
            agent.parent_return = ParentReturn(
                self.scalar(find_entry(read_children(parent), "minConfidence")),
                self.scalar(find_entry(read_children(parent), "ignoreAmbiguous")),
                parent.key_range,
            )

    def delegate(self, agent: Agent, node: Node) -> None:
        for i, item in enumerate(c for c in read_children(node) if c.is_item):
            props = read_children(item)
            target = self.scalar(find_entry(props, "AGENT", "TO"))
            inputs: list[tuple[Name, str]] = []
            for k, val, _ in self.pairs(find_entry(props, "INPUT", "PASS")):
                inputs.append((k, val.raw if val else k.text))
            agent.delegates.append(
                Delegate(
                    i,
                    item.range(),
                    Name(target.text, target.range) if target else None,
                    self.condition(find_entry(props, "WHEN")),
                    self.scalar(find_entry(props, "PURPOSE", "SUMMARY")),
                    tuple(inputs),
                    tuple(self.map_entries(find_entry(props, "RETURNS"))),
                    self.scalar(find_entry(props, "TIMEOUT")),
                    self.scalar(find_entry(props, "ON_FAIL", "ON_FAILURE")),
                    remote=_is_remote(self, props),
                    memory_grants=tuple(self.memory_grants(find_entry(props, "MEMORY_GRANTS"))),
                )
            )

    def escalate(self, agent: Agent, node: Node) -> None:
        triggers = find_entry(read_children(node), "triggers")
        items = read_children(triggers) if triggers is not None else read_children(node)
        for item in items:
            if not item.is_item:
                continue
            agent.escalations.append(
                EscalateTrigger(
                    self.condition(find_entry(read_children(item), "WHEN")),
                    self.scalar(find_entry(read_children(item), "REASON")),
                    self.scalar(find_entry(read_children(item), "PRIORITY")),
                    item.range(),
                )
            )

    def tools_section(self, agent: Agent, node: Node) -> None:
        agent.tools.extend(self.tools(node, agent))

    def tools(self, node: Node, agent: Agent | None) -> Iterator[Tool]:
        children = read_children(node)
        i = 0
        while i < len(children):
            child = children[i]
            i += 1
            if child.is_entry and child.key.lower() == "file" and agent is not None:
                m = _IMPORT.match(child.value)
                if m is not None:
                    path_text, _ = unquote(m.group(1))
                    names = [Name(n.strip(), child.value_range) for n in (m.group(2) or "").split(",") if n.strip()]
                    path = Scalar(path_text, m.group(1), path_text != m.group(1), child.value_range, child.key_range)
                    agent.tool_imports.append(ToolImport(path, tuple(names)))
                continue
            if not child.is_text:
                continue
            text = child.value
            props = list(read_children(child))
            # A return type may continue on the next, deeper line: `-> {a: string}`.
            while props and props[0].is_text and props[0].value.lstrip().startswith("->"):
                text = text + " " + props[0].value.strip()
                props = props[1:]
            m = _SIGNATURE.match(text.strip())
            if m is None:
                continue
            name = m.group(1)
            name_start = child.value_start + child.value.find(name)
            params = tuple(_params(m.group(2)))
            properties = tuple((p.key.lower(), s) for p in props if p.is_entry for s in [self.scalar(p)] if s)
            yield Tool(
                Name(name, self.span(name_start, name_start + len(name))),
                params,
                (m.group(3) or "").strip(),
                properties,
                child.range(),
            )

    def hooks(self, agent: Agent, node: Node) -> None:
        for n in read_walk(node):
            if n.is_entry and n.key.upper() == "SET" and n is not node:
                agent.hooks_sets.extend(self.assignments(n))

    def constraints(self, agent: Agent, node: Node) -> None:
        for n in read_walk(node):
            if n.is_entry and n.key.upper() in ("ON_FAIL", "ON_FAILURE", "THEN") and n.has_value:
                self._handoff_ref(agent, n, n.key.upper())

    def on_error(self, agent: Agent, node: Node) -> None:
        agent.error_handlers = tuple(StepReader(self).error_handlers(node))
        for n in read_walk(node):
            if n is node or not n.is_entry or not n.has_value:
                continue
            key = n.key.upper()
            if key == "HANDOFF_TARGET":
                v = self.scalar(n)
                if v is not None:
                    agent.other_handoff_refs.append(("ON_ERROR HANDOFF_TARGET", Name(v.text, v.range)))
            else:
                self._handoff_ref(agent, n, f"ON_ERROR {n.key}")
            if key == "SET":
                agent.hooks_sets.extend(self.assignments(n))

    def _handoff_ref(self, agent: Agent, node: Node, where: str) -> None:
        m = re.match(r"\s*HANDOFF\s+(?:to\s+)?([A-Za-z_]\w*)", node.value)
        if m is not None:
            start = node.value_start + m.start(1)
            agent.other_handoff_refs.append((where, Name(m.group(1), self.span(start, start + len(m.group(1))))))


HistorySpecInput = tuple[Node, bool]


def parse_failure(value: Scalar) -> FailureAction:
    """Read `continue`, `escalate`, `RESPOND "message"`, `HANDOFF Agent` or `RETRY n`."""
    raw = value.raw.strip()
    word, _, rest = raw.partition(" ")
    w = word.strip().lower().rstrip(":")
    rest = rest.strip()
    if w in ("continue", "escalate") and (not rest or w == "escalate"):
        return FailureAction(FailureKind.CONTINUE if w == "continue" else FailureKind.ESCALATE, value)
    if w == "respond":
        text, quoted = unquote(rest)
        if rest and (quoted or rest.startswith(":")):
            return FailureAction(FailureKind.RESPOND, value, message=text.lstrip(": ").strip('"'))
        return FailureAction(FailureKind.INVALID, value)
    if w == "handoff" and rest:
        target = rest.split()[-1]
        return FailureAction(
            FailureKind.HANDOFF, value, target=Name(target, value.part(raw.rfind(target), len(target)))
        )
    if w == "retry":
        return FailureAction(FailureKind.RETRY, value)
    return FailureAction(FailureKind.INVALID, value)


def _inline_profile(node: Node, current: Agent | None) -> bool:
    """An unnamed `BEHAVIOR_PROFILE:` block under an agent or supervisor is a profile written
    inside it, not the header of a profile document."""
    return (
        current is not None
        and current.kind is not AgentKind.BEHAVIOR_PROFILE
        and not node.value.strip()
        and bool(read_children(node))
    )


def _is_remote(lowering: _Lowering, props: list[Node]) -> bool:
    """A `REMOTE:` block, or `LOCATION: remote`, sends the call to another deployment."""
    if find_entry(props, "REMOTE") is not None:
        return True
    location = lowering.scalar(find_entry(props, "LOCATION"))
    return location is not None and location.lower == "remote"


def _is_true(value: Scalar | None) -> bool:
    return read_flag(value) is True


def _params(text: str) -> Iterator[ToolParam]:
    for part in split_top_level(text):
        part = part.strip()
        if not part:
            continue
        name, _, rest = part.partition(":")
        default = None
        if "=" in rest:
            rest, _, default = rest.partition("=")
            default = default.strip()
        optional = name.strip().endswith("?") or default is not None
        yield ToolParam(name.strip().rstrip("?"), rest.strip(), optional, default)


def _set_identity(key: str):
    def read(self: _Lowering, agent: Agent, node: Node) -> None:
        setattr(agent, key, self.scalar(node))

    return read


# Sections whose handlers may write variables (besides FLOW, HOOKS and ON_ERROR, read on their own).
_ACCESS_VALUES = frozenset({"read", "write", "readwrite"})


def _shorthand_access(node: Node) -> tuple[str, str, Range | None]:
    """`READS:` lists paths the agent only reads, `WRITES:` paths it only writes."""
    key = node.key.lower()
    if key == "reads":
        return "read", "READS", node.key_range
    if key == "writes":
        return "write", "WRITES", node.key_range
    return "readwrite", "", None


_HANDLER_SECTIONS = frozenset(
    {"TOOLS", "ON_START", "ACTION_HANDLERS", "ACTIONS", "RICH_CONTENT", "FORMATS", "ESCALATE", "HOOKS", "ON_ERROR"}
)

_SECTION_READERS = {
    "GOAL": _set_identity("goal"),
    "PERSONA": _set_identity("persona"),
    "DESCRIPTION": _set_identity("description"),
    "VERSION": _set_identity("version"),
    "BEHAVIOR": _Lowering.behavior,
    "INTENTS": _Lowering.intents,
    "MEMORY": _Lowering.memory,
    "GATHER": _Lowering.gather,
    "HANDOFF": _Lowering.handoff,
    "RETURN_HANDLERS": _Lowering.return_handlers,
    "COMPLETE": _Lowering.complete,
    "ON_START": _Lowering.on_start,
    "EXECUTION": _Lowering.execution,
    "DELEGATE": _Lowering.delegate,
    "ESCALATE": _Lowering.escalate,
    "TOOLS": _Lowering.tools_section,
    "HOOKS": _Lowering.hooks,
    "MESSAGES": _Lowering.messages,
    "MULTI_INTENT": _Lowering.multi_intent,
    "CONSTRAINTS": _Lowering.constraints,
    "ON_ERROR": _Lowering.on_error,
}
