"""The vocabulary the keyword catalogue is written in.

A `Key` describes one keyword wherever it may appear: what shape its value takes, which values
are allowed, what the platform does with odd values, which keys may sit under it, and the hover
text shown for it. Everything downstream (structure checks, completion, hover, the keyword
reference page) reads these records and nothing else, so a keyword is described exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class ValueKind(Enum):
    """The shape of the value written after `KEY:` (or under it)."""

    STRING = "string"
    TEXT = "text"
    NAME = "name"
    AGENT_REF = "agent"
    BOOL = "bool"
    INT = "int"
    NUMBER = "number"
    ENUM = "enum"
    CONDITION = "condition"
    TEMPLATE = "template"
    LIST = "list"
    MAP = "map"
    BLOCK = "block"
    LIST_OF_BLOCKS = "list_of_blocks"
    SIGNATURES = "signatures"
    ASSIGNMENTS = "assignments"
    ACTION = "action"
    DURATION = "duration"
    HISTORY = "history"
    ANY = "any"

    @property
    def label(self) -> str:
        """A few words for hover text and the reference page."""
        return _KIND_LABELS[self]

    @property
    def is_container(self) -> bool:
        """True when the value is normally written as indented lines under the key."""
        return self in _CONTAINERS


_KIND_LABELS: dict[ValueKind, str] = {
    ValueKind.STRING: "string",
    ValueKind.TEXT: "text (string or `|` block)",
    ValueKind.NAME: "name",
    ValueKind.AGENT_REF: "agent name",
    ValueKind.BOOL: "boolean",
    ValueKind.INT: "integer",
    ValueKind.NUMBER: "number",
    ValueKind.ENUM: "one of a fixed set of words",
    ValueKind.CONDITION: "condition",
    ValueKind.TEMPLATE: "template text with `{{ }}`",
    ValueKind.LIST: "list",
    ValueKind.MAP: "map of free-form keys",
    ValueKind.BLOCK: "block of keys",
    ValueKind.LIST_OF_BLOCKS: "list of blocks",
    ValueKind.SIGNATURES: "tool declarations",
    ValueKind.ASSIGNMENTS: "assignments (`name = expression`)",
    ValueKind.ACTION: "action phrase",
    ValueKind.DURATION: "duration",
    ValueKind.HISTORY: "history mode (one-line word or block)",
    ValueKind.ANY: "any value",
}

_CONTAINERS = frozenset(
    {
        ValueKind.MAP,
        ValueKind.BLOCK,
        ValueKind.LIST_OF_BLOCKS,
        ValueKind.SIGNATURES,
        ValueKind.ASSIGNMENTS,
    }
)


class CaseRule(Enum):
    """How the keys written directly inside a block must be spelled."""

    ANY = "any"
    UPPER = "upper"
    LOWER = "lower"

    def allows(self, written: str) -> bool:
        if self is CaseRule.UPPER:
            return written == written.upper()
        if self is CaseRule.LOWER:
            return written == written.lower()
        return True


class DocumentKind(Enum):
    """What a column-0 header line opens (ABL-REFERENCE §1.1)."""

    AGENT = "agent"
    SUPERVISOR = "supervisor"
    BEHAVIOR_PROFILE = "behavior_profile"
    TOOLS_LIBRARY = "tools_library"


AGENT_DOCUMENTS = frozenset({DocumentKind.AGENT, DocumentKind.SUPERVISOR})


@dataclass(frozen=True, slots=True, eq=False)
class Key:
    """One keyword and everything the tooling needs to know about it.

    Identity semantics (`eq=False`): the same record may be shared by several parents (a
    `RICH_CONTENT` block hangs under many keys), and lookups cache per record.
    """

    name: str
    kind: ValueKind
    doc: str
    # Other spellings that mean the same key (`EXPECT_RETURN` for `RETURN`).
    aliases: tuple[str, ...] = ()
    # Further shapes the value may take besides `kind` (`ON_RETURN` is a block or a name).
    also: tuple[ValueKind, ...] = ()
    # Allowed words (ENUM, ACTION verbs, one-line HISTORY modes).
    values: tuple[str, ...] = ()
    # A regular expression that also counts as allowed (`last_\d+`), matched in full.
    value_pattern: str | None = None
    # How the pattern reads in docs (`last_<n>`).
    value_hint: str | None = None
    # Extra values to offer in completion (`last_5`).
    value_examples: tuple[str, ...] = ()
    case_sensitive_values: bool = False
    # What the platform silently uses instead of a value it does not recognise.
    fallback: str | None = None
    # Only the exact lowercase word `true` counts as true; anything else reads as false.
    exact_true: bool = False
    default: str | None = None
    required: bool = False
    min_value: float | None = None
    max_value: float | None = None
    # Keys allowed inside the block (for LIST_OF_BLOCKS: inside each item).
    children: tuple[Key, ...] = ()
    # Unknown keys inside are not reported (deep, loosely documented areas).
    open: bool = False
    # In an open block, an unknown key that is a near miss of a known one (`descripton`) is
    # still reported: the block's keys are documented, only extensions are free.
    report_near_misses: bool = False
    # For a block also written as a one-line map: the map holds the block's own keys
    # (`order_id: {TYPE: string}`), so the indented form is held to them too, rather than
    # read as a map of the author's own names (a lookup table's shorthand).
    map_of_own_keys: bool = False
    # Keys inside are names the author chooses; `entry` describes each one's value.
    free_keys: bool = False
    entry: Key | None = None
    name_suggestions: tuple[str, ...] = ()
    reserved_names: tuple[str, ...] = ()
    # What each item of a LIST is, and what a LIST_OF_BLOCKS item may start with
    # when it opens with a bare scalar (`- customer_id` followed by properties).
    item_kind: ValueKind | None = None
    item_head: ValueKind | None = None
    # For a block that may also be written as a list (`ESCALATE:` with `- WHEN:` items, the
    # older flat form): the keys each item takes, when they differ from the block's own.
    items: Key | None = None
    # Spelling rule for the keys written directly inside, and what breaking it does.
    case_rule: CaseRule = CaseRule.ANY
    case_note: str = ""
    # Keys inside may also be written in camelCase (`maxQueueDepth`).
    camel_case_keys: bool = False
    # What a NAME value points at: agent, tool, step, return_handler, variable, ...
    refers_to: str | None = None
    example: str = ""
    source: str = ""
    # Accepted with a warning; the message says what to use instead.
    deprecated: str | None = None
    # Rejected by the platform; the message says what to use instead.
    removed: str | None = None
    # For a removed key whose value moved elsewhere: the dotted path of its new place
    # (`EXECUTION.model`), so a quick fix can move the value there.
    replaced_by: str | None = None
    # Accepted and silently ignored by the platform.
    ignored: str | None = None
    # May be written several times in one block, each occurrence adding to the others
    # (`USE BEHAVIOR_PROFILE:` once per attached profile).
    repeatable: bool = False
    # Parsed but never executed by the platform.
    not_executed: str | None = None
    # What each allowed value does at runtime, for hovers and completion (`(value, doc)`).
    value_docs: tuple[tuple[str, str], ...] = ()

    def __repr__(self) -> str:  # the generated one would print the whole subtree
        return f"Key({self.name!r}, {self.kind.value})"

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def value_doc(self, value: str) -> str | None:
        """What one value does, matched as the platform reads values of this key."""
        wanted = value if self.case_sensitive_values else value.lower()
        for written, doc in self.value_docs:
            if (written if self.case_sensitive_values else written.lower()) == wanted:
                return doc
        return None

    @property
    def allowed_values_text(self) -> str:
        """The allowed values as one line of inline code, or "" when the set is open."""
        words = [f"`{v}`" for v in self.values]
        if self.value_hint:
            words.append(f"`{self.value_hint}`")
        return ", ".join(words)


@dataclass(frozen=True, slots=True, eq=False)
class Section:
    """A column-0 keyword and the document kinds in which it belongs."""

    key: Key
    documents: frozenset[DocumentKind]
    # Set for the header lines (`AGENT:`, `SUPERVISOR:`, ...) that start a new document.
    opens: DocumentKind | None = None

    def __repr__(self) -> str:
        kinds = ", ".join(sorted(d.value for d in self.documents))
        return f"Section({self.key.name!r}, [{kinds}])"

    @property
    def name(self) -> str:
        return self.key.name

    @property
    def doc(self) -> str:
        return self.key.doc
