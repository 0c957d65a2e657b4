"""Finding keywords in the catalogue the way the platform reads them.

Sections and keys are matched case-insensitively and through their aliases; each match says
how it was found and whether the written spelling is the canonical one or breaks the parent
block's case rule, so checks can warn without looking anything up twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import cache, lru_cache
from typing import Any

from abl.suggest import did_you_mean

from .catalogue import SECTIONS
from .types import DocumentKind, Key, Section, ValueKind


class MatchKind(Enum):
    """How a written name was matched."""

    NAME = "name"
    ALIAS = "alias"
    CAMEL_CASE = "camel_case"
    FREE_KEY = "free_key"


@dataclass(frozen=True, slots=True)
class SectionMatch:
    section: Section
    written: str
    # The catalogue spelling that matched (the section name or one of its aliases).
    spelling: str
    kind: MatchKind
    # The written text is exactly that spelling (section keywords are uppercase in `.abl`).
    canonical_case: bool
    # The section belongs in the document kind that was asked about.
    allowed: bool


@dataclass(frozen=True, slots=True)
class KeyMatch:
    key: Key
    written: str
    spelling: str
    kind: MatchKind
    # The written text is exactly the catalogue spelling.
    exact: bool
    # The written text obeys the parent block's case rule (see `Key.case_rule`).
    case_ok: bool
    # For a free key: the name is one the parent reserves (`RETURN_HANDLERS: continue:`).
    reserved: bool = False


def all_sections() -> tuple[Section, ...]:
    """Every section, in reference order; shapes that differ by document appear once each."""
    return SECTIONS


@cache  # asked once per agent per check; the answer never changes
def sections_for(document: DocumentKind) -> tuple[Section, ...]:
    """The sections that belong in one kind of document."""
    return tuple(s for s in SECTIONS if document in s.documents)


@lru_cache(maxsize=4096)  # asked for every column-0 line on every check; the answer never changes
def section(name: str, document: DocumentKind | None = None) -> SectionMatch | None:
    """Finds a column-0 keyword. With a document kind, that document's shape is preferred and
    `allowed` says whether the section belongs there; without one, the agent shape is used."""
    wanted = _normalise_section(name)
    hits = _SECTION_INDEX.get(wanted.upper())
    if not hits:
        return None
    chosen = hits[0]
    if document is not None:
        chosen = next((h for h in hits if document in h[0].documents), chosen)
    sec, spelling = chosen
    return SectionMatch(
        section=sec,
        written=name,
        spelling=spelling,
        kind=MatchKind.NAME if spelling == sec.name else MatchKind.ALIAS,
        canonical_case=wanted == spelling,
        allowed=document is None or document in sec.documents,
    )


def child(
    parent: Key | Section | str, name: str, document: DocumentKind | None = None, items: bool = True
) -> KeyMatch | None:
    """Finds the key `name` written directly inside `parent` (a key, a section, or a dotted
    path such as `"HANDOFF.CONTEXT"`). Free-key blocks (`GATHER`, `RETURN_HANDLERS`, ...)
    answer any name with their entry schema. A block that may also be written as a list
    (`ESCALATE`, `persistent`) answers its items' keys too, unless `items` is false. Returns
    None for unknown keys; whether that is worth reporting depends on `parent.open`."""
    block = _as_key(parent, document)
    if block is None:
        return None
    return _child_of(block, name, items)


# The structure walk asks this for every key of every file it checks; answers are immutable.
# Bounded: free-form names (fields, variables) are whatever the author types.
@lru_cache(maxsize=8192)
def _child_of(block: Key, name: str, items: bool) -> KeyMatch | None:
    found = _own_child(block, name, free=False)
    if found is None and items and block.items is not None:
        found = _own_child(block.items, name)
    if found is None:
        found = _own_child(block, name)
    return found


def _own_child(block: Key, name: str, free: bool = True) -> KeyMatch | None:
    """`name` among the block's fixed keys, then (with `free`) as one of its free-form names."""
    written = name.strip()
    lowered = written.lower()
    index = _child_index(block)
    found = index.by_lower.get(lowered)
    kind = None
    if found is not None:
        key, spelling = found
        kind = MatchKind.NAME if spelling == key.name else MatchKind.ALIAS
    elif block.camel_case_keys:
        found = index.by_squashed.get(_squash(written))
        if found is not None:
            kind = MatchKind.CAMEL_CASE
    if found is not None and kind is not None:
        key, spelling = found
        return KeyMatch(
            key=key,
            written=written,
            spelling=spelling,
            kind=kind,
            exact=written == spelling,
            case_ok=block.case_rule.allows(written),
        )
    if free and block.free_keys and block.entry is not None:
        return KeyMatch(
            key=block.entry,
            written=written,
            spelling=written,
            kind=MatchKind.FREE_KEY,
            exact=True,
            case_ok=True,
            reserved=lowered in {r.lower() for r in block.reserved_names},
        )
    return None


def key_at(path: str, document: DocumentKind | None = None) -> Key | None:
    """Resolves a dotted path from a section down (`"HANDOFF.ON_RETURN.resume_with"`).
    A segment under a free-key block may be any name (`"GATHER.order_id.type"`)."""
    segments = [p for p in path.split(".") if p]
    if not segments:
        return None
    first, *rest = segments
    found = section(first, document)
    if found is None:
        return None
    key: Key = found.section.key
    for segment in rest:
        match = child(key, segment)
        if match is None:
            return None
        key = match.key
    return key


def child_names(parent: Key | Section) -> tuple[str, ...]:
    """Every spelling a block accepts for its fixed keys (names first, then aliases)."""
    block = parent.key if isinstance(parent, Section) else parent
    names = [c.name for c in block.children]
    names += [a for c in block.children for a in c.aliases]
    return tuple(names)


def suggest_section(name: str, document: DocumentKind | None = None) -> str | None:
    """ "Did you mean" for an unknown column-0 keyword."""
    pool = sections_for(document) if document is not None else SECTIONS
    return did_you_mean(_normalise_section(name), (s for sec in pool for s in sec.key.spellings))


def suggest_child(parent: Key | Section, name: str) -> str | None:
    """ "Did you mean" for an unknown key inside a block."""
    return did_you_mean(name, child_names(parent))


def suggest_value(key: Key, value: str) -> str | None:
    """ "Did you mean" for a value outside a key's allowed set (`strng` -> `string`)."""
    return did_you_mean(value, (*key.values, *key.value_examples))


def value_allowed(key: Key, value: str) -> bool:
    """Whether a one-line value is acceptable for `key`: in its allowed set, matching its
    pattern, or (for action phrases) starting with an allowed verb. Surrounding quotes are
    ignored and so is case, unless the key says otherwise. Keys without a closed set accept
    anything here; their shape is checked elsewhere."""
    raw = value.strip()
    quoted = _is_quoted(raw)
    text = raw[1:-1] if quoted else raw
    if key.kind is ValueKind.ACTION:
        return _action_allowed(key, raw, text, quoted)
    if _in_values(key, text) or _matches_pattern(key, text):
        return True
    if ValueKind.INT in key.also and _INTEGER.fullmatch(text):
        return True
    return not key.values and key.value_pattern is None


# --- internals ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _ChildIndex:
    by_lower: dict[str, tuple[Key, str]]
    by_squashed: dict[str, tuple[Key, str]]


# Keys hash by identity, and catalogue keys live as long as the process.
_INDEXES: dict[Key, _ChildIndex] = {}


def _child_index(block: Key) -> _ChildIndex:
    cached = _INDEXES.get(block)
    if cached is not None:
        return cached
    by_lower: dict[str, tuple[Key, str]] = {}
    by_squashed: dict[str, tuple[Key, str]] = {}
    for key in block.children:
        for spelling in key.spellings:
            by_lower.setdefault(spelling.lower(), (key, spelling))
            by_squashed.setdefault(_squash(spelling), (key, spelling))
    index = _ChildIndex(by_lower, by_squashed)
    _INDEXES[block] = index
    return index


_INTEGER = re.compile(r"-?\d+")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MESSAGE_KINDS = frozenset({ValueKind.STRING, ValueKind.TEXT, ValueKind.TEMPLATE})


def _is_quoted(text: str) -> bool:
    return len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'"


def _in_values(key: Key, text: str) -> bool:
    if key.case_sensitive_values:
        return text in key.values
    lowered = text.lower()
    return any(lowered == v.lower() for v in key.values)


def _matches_pattern(key: Key, text: str) -> bool:
    if key.value_pattern is None:
        return False
    flags = 0 if key.case_sensitive_values else re.IGNORECASE
    return re.fullmatch(key.value_pattern, text, flags) is not None


def _action_allowed(key: Key, raw: str, text: str, quoted: bool) -> bool:
    """`RESPOND "sorry"`, `respond:sorry`, `HANDOFF Live_Agent`, a step name, or a message."""
    if (quoted or raw.startswith("|")) and _MESSAGE_KINDS & set(key.also):
        return True
    verb = re.split(r"[\s:]", text, maxsplit=1)[0]
    if _in_values(key, verb):
        return True
    return key.refers_to is not None and _IDENTIFIER.fullmatch(text) is not None


def _squash(name: str) -> str:
    """`max_queue_depth` and `maxQueueDepth` both become `maxqueuedepth`."""
    return name.replace("_", "").lower()


def _normalise_section(name: str) -> str:
    """`USE   BEHAVIOR_PROFILE` and `USE BEHAVIOR_PROFILE` are the same keyword."""
    return " ".join(name.split())


def _as_key(parent: Key | Section | str, document: DocumentKind | None) -> Key | None:
    if isinstance(parent, Key):
        return parent
    if isinstance(parent, Section):
        return parent.key
    return key_at(parent, document)


def _build_section_index() -> dict[str, list[tuple[Section, str]]]:
    index: dict[str, list[tuple[Section, str]]] = {}
    for sec in SECTIONS:
        for spelling in sec.key.spellings:
            index.setdefault(spelling.upper(), []).append((sec, spelling))
    return index


_SECTION_INDEX = _build_section_index()

_PRESENTATION_NAMES = frozenset(
    {
        "CompletionItem",
        "hover_markdown",
        "completion_items",
        "value_completion_items",
        "render_keyword_reference",
    }
)


def __getattr__(name: str) -> Any:
    """Hover, completion and reference rendering live in `presentation`; they are reachable
    from here too so callers can import the whole lookup API from one module."""
    if name in _PRESENTATION_NAMES:
        from . import presentation

        return getattr(presentation, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
