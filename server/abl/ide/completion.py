"""Completion: what may be written at the cursor, and is not written there yet.

Works on half-typed documents: the cursor's place comes from `locate`, which reads blank and
unfinished lines by their indentation. Keys come from the catalogue, filtered to the block the
cursor is in and to the keys that block does not hold yet; values come from the catalogue
(modes, actions, `true`/`false` — lowercase only) or from the project (agent names for `TO`,
return handlers for `ON_RETURN`, the target agent's fields for `MAP`, the agent's variables in
conditions and `PASS`).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Collection
from dataclasses import dataclass

from abl.ide.locate import Part, Site, locate
from abl.model import Agent, declared_variables, produced_fields
from abl.model.types import AgentKind, HandoffRoute
from abl.schema import lookup
from abl.schema.presentation import CompletionItem as SchemaItem
from abl.schema.presentation import completion_items, hover_markdown, value_completion_items, value_hover_markdown
from abl.schema.types import DocumentKind, Key, ValueKind
from abl.text import Position, Range
from abl.workspace import Project


class ItemKind(enum.Enum):
    SECTION = "section"
    KEY = "key"
    VALUE = "value"
    AGENT = "agent"
    VARIABLE = "variable"
    HANDLER = "handler"
    TOOL = "tool"
    OPERATOR = "operator"
    SNIPPET = "snippet"


@dataclass(frozen=True, slots=True)
class Completion:
    label: str
    kind: ItemKind
    detail: str = ""
    documentation: str = ""
    insert_text: str = ""  # plain text; `snippet` holds the tab-stop form when there is one
    snippet: str | None = None
    replace: Range | None = None  # the text the item replaces (the partly typed word)
    sort_group: int = 5  # lower sorts first
    deprecated: bool = False


CONDITION_OPERATORS = (
    ("==", "equal"),
    ("!=", "not equal"),
    (">", "greater than"),
    (">=", "at least"),
    ("<", "less than"),
    ("<=", "at most"),
    ("AND", "both hold"),
    ("OR", "either holds"),
    ("NOT", "negation"),
    ("IS SET", "has a value"),
    ("IS NOT SET", "has no value"),
    ("CONTAINS", "text or list contains"),
    ("IN", "one of a list"),
    ("STARTSWITH", "text starts with"),
    ("ENDSWITH", "text ends with"),
    ("MATCHES", "regular expression match"),
)

RETURNABLE_ROUTE = (
    "- TO: ${1:Agent_Name}\n"
    "  WHEN: ${2:condition}\n"
    "  RETURN: true\n"
    "  HISTORY: ${3|summary_only,full,none,auto,last_5|}\n"
    "  ON_RETURN:\n"
    "    action: ${4|resume_intent,continue|}\n"
    "    MAP:\n"
    "      ${5:child_field}: ${6:parent_variable}"
)
PERMANENT_ROUTE = (
    "- TO: ${1:Agent_Name}\n"
    "  WHEN: ${2:condition}\n"
    "  HISTORY: ${3|full,none,summary_only,auto,last_5|}\n"
    "  PASS: [${4:field}]"
)
GATHER_FIELD = (
    "${1:field_name}:\n"
    '  PROMPT: "${2:The question for the customer}"\n'
    "  TYPE: ${3|string,number,boolean,date,email,phone,integer,currency,enum|}\n"
    "  REQUIRED: ${4|true,false|}"
)
RETURN_HANDLER = '${1:handler_name}:\n  ${2|RESUME_INTENT: true,CONTINUE: true,RESPOND: "Thanks. Let us go on."|}'
# A new entry of a block whose keys are names the author chooses, offered where such a key goes.
_ENTRY_SNIPPETS = {"GATHER": ("new field", GATHER_FIELD), "RETURN_HANDLERS": ("new return handler", RETURN_HANDLER)}
HISTORY_BLOCK = "\n  mode: ${1|last_n,full,none,summary_only,auto|}\n  count: ${2:5}"
_AGENT_HEADERS = (
    ("AGENT", 'AGENT: ${1:Agent_Name}\nGOAL: "${2:what this agent achieves}"\n'),
    ("SUPERVISOR", 'SUPERVISOR: ${1:Supervisor_Name}\nGOAL: "${2:what this supervisor routes}"\nHANDOFF:\n  '),
)
_SNIPPET_FIELD = re.compile(r"\$\{\d+\|([^,|}]*)[^}]*\}|\$\{\d+:([^}]*)\}|\$\d+")


def plain(snippet: str) -> str:
    """A snippet as plain text, each tab stop replaced by its placeholder or first choice."""
    return _SNIPPET_FIELD.sub(lambda m: m.group(1) or m.group(2) or "", snippet)


def complete(project: Project, path: str, pos: Position) -> list[Completion]:
    doc = project.documents.get(path)
    if doc is None:
        return []
    site = locate(doc, pos)
    if site.part is Part.COMMENT:
        return []
    return _Completer(project, site).run()


class _Completer:
    def __init__(self, project: Project, site: Site) -> None:
        self.project = project
        self.site = site
        self.agent = site.agent
        line = site.document.source.index.line_text(site.position.line)
        self.before = line[: site.position.character]

    def run(self) -> list[Completion]:
        site = self.site
        node = site.node
        if site.part is Part.VALUE and node is not None and node.is_entry and site.key is not None:
            return self.values(site.key)
        if site.part is Part.VALUE and node is not None and node.is_entry and self._in_map():
            return self.map_parent_side()
        if site.part is Part.TEXT:
            return self.text_line()
        if site.part in (Part.BLANK, Part.KEY, Part.DASH):
            return self.keys()
        return []

    # --- keys -----------------------------------------------------------------------------

    def keys(self) -> list[Completion]:
        site = self.site
        replace = self._typed_word()
        if not site.path:
            return self.sections(replace)
        block = site.block
        if block is None:
            return []
        container = site.path[-1].node
        if block.kind is ValueKind.LIST_OF_BLOCKS and not site.in_item:
            return self.list_items(block, replace)
        if self._in_map() and self._map_route() is not None:
            return self.map_child_side(replace)
        present = {c.key.lower() for c in container.children if c.is_entry and c is not site.node}
        if site.in_item and container.content is not None:
            present.add(container.content.key.lower())
        items = []
        for item in completion_items(block):
            if item.label.lower() in present and not _repeatable(block, item.label):
                continue
            items.append(self._from_schema(item, replace, ItemKind.KEY))
        entry = _ENTRY_SNIPPETS.get(block.name.upper()) if len(site.path) == 1 else None
        if entry is not None:
            label, snippet = entry
            items.append(
                Completion(
                    label=label,
                    kind=ItemKind.SNIPPET,
                    detail=f"{block.name} entry",
                    documentation=hover_markdown(block),
                    insert_text=plain(snippet),
                    snippet=snippet,
                    replace=replace,
                    sort_group=1,
                )
            )
        return items

    def sections(self, replace: Range) -> list[Completion]:
        kind = self.site.kind or DocumentKind.AGENT
        present = set()
        if self.agent is not None:
            present = {n.key.upper() for n in self.agent.sections if n.is_entry}
        items = []
        for item in completion_items(None, kind):
            section = lookup.section(item.label, kind)
            repeatable = section is not None and section.section.key.repeatable
            if item.label.upper() in present and not repeatable:
                continue
            if section is not None and section.section.opens is not None:
                continue  # headers are offered as snippets below
            items.append(self._from_schema(item, replace, ItemKind.SECTION))
        for label, snippet in _AGENT_HEADERS:
            items.append(
                Completion(
                    label=f"{label}: (new document)",
                    kind=ItemKind.SNIPPET,
                    detail=f"start a new {label.lower()} document",
                    insert_text=plain(snippet),
                    snippet=snippet,
                    replace=replace,
                    sort_group=8,
                )
            )
        return items

    def list_items(self, block: Key, replace: Range) -> list[Completion]:
        """Directly under a list key: a new `- ` item."""
        dash = "" if self.site.part is Part.DASH or self.before.lstrip().startswith("-") else "- "
        out = []
        if block.name.upper() == "HANDOFF":
            for label, snippet in (("returnable route", RETURNABLE_ROUTE), ("permanent route", PERMANENT_ROUTE)):
                body = snippet if dash else snippet[2:]
                out.append(
                    Completion(
                        label=label,
                        kind=ItemKind.SNIPPET,
                        detail="HANDOFF entry",
                        documentation=hover_markdown(block),
                        insert_text=plain(body),
                        snippet=body,
                        replace=replace,
                        sort_group=1,
                    )
                )
        first = next((c for c in block.children if c.required), block.children[0] if block.children else None)
        if first is None:
            return out
        return [
            *out,
            Completion(
                label=f"{dash}{first.name}:",
                kind=ItemKind.KEY,
                detail=f"new {block.name} entry",
                documentation=hover_markdown(first),
                insert_text=f"{dash}{first.name}: ",
                replace=replace,
                sort_group=1,
            ),
        ]

    # --- values -----------------------------------------------------------------------------

    def values(self, key: Key) -> list[Completion]:
        replace = self._value_word()
        refers = key.refers_to
        kinds = {key.kind, *key.also}
        items: list[Completion] = []
        if ValueKind.HISTORY in kinds:
            items += self.history_values(key, replace)
        elif key.name.upper() == "ON_RETURN":
            items += self.on_return_values(key, replace)
        elif refers == "return_handler":
            items += self.handlers(replace)
        elif refers == "agent":
            items += self.agents(replace)
        elif refers in ("variable", "gather_field"):
            items += self.variables(replace, present=self._listed())
        elif refers == "tool":
            items += self.tools(replace)
        elif refers == "step":
            items += self.steps(replace)
        elif refers == "behavior_profile":
            items += self.agents(replace, kinds=(AgentKind.BEHAVIOR_PROFILE,))
        elif ValueKind.CONDITION in kinds:
            items += self.condition(replace)
        elif key.kind in (ValueKind.ENUM, ValueKind.BOOL) or key.values or key.exact_true:
            items += [self._from_schema(i, replace, ItemKind.VALUE) for i in value_completion_items(key)]
        return items

    def history_values(self, key: Key, replace: Range) -> list[Completion]:
        items = [
            Completion(
                label=item.label,
                kind=ItemKind.VALUE,
                detail=item.detail,
                documentation=item.documentation,
                insert_text=item.insert_text,
                replace=replace,
                sort_group=1 if item.label != "last_5" else 2,
            )
            for item in value_completion_items(key)
        ]
        if not self.site.node or not self.site.node.has_value:
            items.append(
                Completion(
                    label="mode: / count: (block form)",
                    kind=ItemKind.SNIPPET,
                    detail="HISTORY block",
                    documentation="The block form: `mode:` and, for `last_n`, `count:` (messages, not turns).",
                    insert_text=plain(HISTORY_BLOCK),
                    snippet=HISTORY_BLOCK,
                    replace=replace,
                    sort_group=3,
                )
            )
        return items

    def on_return_values(self, key: Key, replace: Range) -> list[Completion]:
        action = lookup.child(key, "action")
        items = (
            []
            if action is None
            else [
                Completion(
                    label=value,
                    kind=ItemKind.VALUE,
                    detail="built-in return action",
                    documentation=value_hover_markdown(action.key, value) or "",
                    insert_text=value,
                    replace=replace,
                    sort_group=1,
                )
                for value in action.key.values
            ]
        )
        return items + self.handlers(replace)

    def handlers(self, replace: Range) -> list[Completion]:
        if self.agent is None:
            return []
        return [
            Completion(
                label=h.name.text,
                kind=ItemKind.HANDLER,
                detail=f"return handler of {self.agent.name.text}",
                documentation=f"`RETURN_HANDLERS` entry at line {h.name.range.start.line + 1}",
                insert_text=h.name.text,
                replace=replace,
                sort_group=2,
            )
            for h in self.agent.return_handlers
            if h.name.text
        ]

    def agents(
        self, replace: Range, kinds: tuple[AgentKind, ...] = (AgentKind.AGENT, AgentKind.SUPERVISOR)
    ) -> list[Completion]:
        me = self.agent.name.text if self.agent is not None else None
        out = []
        for name, refs in sorted(self.project.agents_by_name().items()):
            agent = refs[0].agent
            if agent.kind not in kinds or name == me:
                continue
            goal = agent.goal.text.strip().strip("\"'") if agent.goal is not None else ""
            out.append(
                Completion(
                    label=name,
                    kind=ItemKind.AGENT,
                    detail=agent.kind.value.replace("_", " "),
                    documentation=goal,
                    insert_text=name,
                    replace=replace,
                    sort_group=1,
                )
            )
        return out

    def variables(
        self, replace: Range, present: Collection[str] = frozenset(), of: Agent | None = None
    ) -> list[Completion]:
        agent = of or self.agent
        if agent is None:
            return []
        names = set(declared_variables(agent)) | set(self.project.handed_over(agent.name.text))
        return [
            Completion(
                label=name,
                kind=ItemKind.VARIABLE,
                detail=f"variable of {agent.name.text}",
                insert_text=name,
                replace=replace,
                sort_group=1,
            )
            for name in sorted(names - set(present))
            if name and "." not in name
        ]

    def tools(self, replace: Range) -> list[Completion]:
        names: set[str] = set()
        for doc in self.project.documents.values():
            names.update(t.name.text for t in doc.library_tools)
            for agent in doc.agents:
                names.update(t.name.text for t in agent.tools)
        return [Completion(n, ItemKind.TOOL, "tool", insert_text=n, replace=replace) for n in sorted(names) if n]

    def steps(self, replace: Range) -> list[Completion]:
        if self.agent is None or self.agent.flow is None:
            return []
        names = sorted({s.text for s in self.agent.flow.steps if s.text})
        return [Completion(n, ItemKind.VALUE, "flow step", insert_text=n, replace=replace) for n in names]

    def condition(self, replace: Range) -> list[Completion]:
        """Inside a `WHEN`: after an operand, the operators; otherwise the agent's variables."""
        typed = self.before.rstrip()
        after_operand = bool(re.search(r"[\w\"')\]]\s+$", self.before)) and not re.search(
            r"(?i)(==|!=|>=|<=|[<>]|\band|\bor|\bnot|\bin|\bcontains)\s*$", typed
        )
        if after_operand:
            return [
                Completion(op, ItemKind.OPERATOR, doc, insert_text=op, replace=replace, sort_group=1)
                for op, doc in CONDITION_OPERATORS
            ]
        items = self.variables(replace)
        items.append(
            Completion(
                "intent.category",
                ItemKind.VARIABLE,
                "the classified intent",
                insert_text="intent.category",
                replace=replace,
                sort_group=2,
            )
        )
        return items

    # --- MAP -------------------------------------------------------------------------------

    def _in_map(self) -> bool:
        return self.site.inside("ON_RETURN", "MAP") or self.site.inside("MAP")

    def _map_route(self) -> HandoffRoute | None:
        obj = self.site.obj
        return obj if isinstance(obj, HandoffRoute) else None

    def map_child_side(self, replace: Range) -> list[Completion]:
        """Keys of `MAP:` are the child's fields: what the target agent produces."""
        route = self._map_route()
        if route is None or route.target is None:
            return []
        child = self.project.agent(route.target.text)
        if child is None:
            return []
        mapped = {m.child.text for m in (route.on_return.map if route.on_return else ())}
        return [
            Completion(
                label=name,
                kind=ItemKind.VARIABLE,
                detail=f"field of {child.name.text}",
                insert_text=f"{name}: ",
                snippet=f"{name}: ${{1:{name}}}",
                replace=replace,
                sort_group=1,
            )
            for name in sorted(produced_fields(child) - mapped)
            if name and "." not in name and not name.startswith("last_")
        ]

    def map_parent_side(self) -> list[Completion]:
        return self.variables(self._value_word())

    # --- text lines ----------------------------------------------------------------------

    def text_line(self) -> list[Completion]:
        """`SET:` lines: `name = expr`; after the `=`, variables."""
        if "=" in self.before:
            return self.variables(self._typed_word())
        return []

    # --- helpers ----------------------------------------------------------------------------

    def _from_schema(self, item: SchemaItem, replace: Range, kind: ItemKind) -> Completion:
        snippet = None
        if kind in (ItemKind.KEY, ItemKind.SECTION):
            parent = self.site.block if kind is ItemKind.KEY else None
            match = (
                lookup.child(parent, item.label) if parent is not None else lookup.section(item.label, self.site.kind)
            )
            key = match.key if isinstance(match, lookup.KeyMatch) else match.section.key if match is not None else None
            snippet = key_snippet(key) if key is not None else None
        return Completion(
            label=item.label,
            kind=kind,
            detail=item.detail,
            documentation=item.documentation,
            insert_text=item.insert_text,
            snippet=snippet,
            replace=replace,
            sort_group=3 if item.deprecated else 2,
            deprecated=item.deprecated,
        )

    def _typed_word(self) -> Range:
        """The partly typed key before the cursor (after indentation and any `- `)."""
        pos = self.site.position
        m = re.search(r"[A-Za-z0-9_]*$", self.before)
        start = m.start() if m else pos.character
        return Range.on_line(pos.line, start, pos.character)

    def _value_word(self) -> Range:
        pos = self.site.position
        m = re.search(r"[A-Za-z0-9_.\-]*$", self.before)
        start = m.start() if m else pos.character
        return Range.on_line(pos.line, start, pos.character)

    def _listed(self) -> set[str]:
        node = self.site.node
        if node is None or not node.has_value:
            return set()
        return set(re.findall(r"[A-Za-z_][\w]*", node.value))


def key_snippet(key: Key) -> str | None:
    """What typing a key should leave behind, from the catalogue: the value's choices, an
    indented line for a block, a `- ` item for a list of blocks. None when plain `KEY: ` is all."""
    name = key.name
    if key.kind is ValueKind.HISTORY:
        return f"{name}: ${{1|{','.join((*key.values, *key.value_examples))}|}}"
    if key.kind is ValueKind.BOOL or key.exact_true:
        return f"{name}: ${{1|true,false|}}"
    if key.kind is ValueKind.ENUM and key.values and all("," not in v and "|" not in v for v in key.values):
        return f"{name}: ${{1|{','.join(key.values)}|}}"
    if key.kind is ValueKind.LIST_OF_BLOCKS:
        first = next((c for c in key.children if c.required), key.children[0] if key.children else None)
        return f"{name}:\n  - {first.name}: $0" if first is not None else f"{name}:\n  - $0"
    if key.kind in (ValueKind.BLOCK, ValueKind.MAP, ValueKind.ASSIGNMENTS, ValueKind.SIGNATURES):
        return f"{name}:\n  $0"
    if key.kind in (ValueKind.STRING, ValueKind.TEMPLATE, ValueKind.TEXT):
        return f'{name}: "$1"'
    return None


def _repeatable(block: Key, label: str) -> bool:
    match = lookup.child(block, label)
    return match is not None and match.key.repeatable
