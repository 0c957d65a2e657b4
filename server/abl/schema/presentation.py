"""Text generated from the catalogue: hover Markdown, completion items, the keyword reference.

These are the only writers of keyword documentation; editors and the docs page show exactly
what the catalogue says.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .catalogue import SECTIONS
from .types import DocumentKind, Key, Section, ValueKind

# Nested blocks deeper than this are summarised rather than expanded in the reference page.
_REFERENCE_DEPTH = 6


@dataclass(frozen=True, slots=True)
class CompletionItem:
    label: str
    # One line shown beside the label: the value kind, and "required" when it is.
    detail: str
    # Markdown shown in the completion's documentation pane.
    documentation: str
    insert_text: str
    # "section", "key" or "value".
    kind: str
    deprecated: bool = False


def hover_markdown(item: Key | Section) -> str:
    """Markdown for hovering a keyword: title and value kind, the doc, the facts that matter
    when writing it (allowed values, default, aliases, status), then the example."""
    key = item.key if isinstance(item, Section) else item
    lines = [f"**`{key.name}`** · {key.kind.label}", "", key.doc]
    facts = _facts(key)
    if isinstance(item, Section):
        facts.append(f"In: {_documents_text(item.documents)}")
    if facts:
        lines.append("")
        lines.extend(f"- {fact}" for fact in facts)
    if key.value_docs:
        lines += ["", "Values:"]
        lines.extend(f"- `{value}`: {doc}" for value, doc in key.value_docs)
    if key.example:
        lines += ["", "```abl", key.example, "```"]
    return "\n".join(lines)


def value_hover_markdown(key: Key, written: str) -> str | None:
    """Markdown for hovering a value of `key`: what that value does, or that the platform
    does not know it (and what it silently uses instead)."""
    doc = key.value_doc(written)
    if (
        doc is None
        and key.value_pattern is not None
        and key.value_hint is not None
        and re.fullmatch(key.value_pattern, written, flags=0 if key.case_sensitive_values else re.I)
    ):
        doc = key.value_doc(key.value_hint)
    if doc is not None:
        return f"**`{written}`** · `{key.name}` value\n\n{doc}"
    if key.values and key.fallback is not None:
        return (
            f"**`{written}`** is not a `{key.name}` value the platform knows: it silently "
            f"becomes `{key.fallback}`.\n\nAllowed: {key.allowed_values_text}"
        )
    if key.values and written:
        return f"**`{written}`** is not an allowed `{key.name}` value.\n\nAllowed: {key.allowed_values_text}"
    return None


def completion_items(parent: Key | Section | None, document: DocumentKind = DocumentKind.AGENT) -> list[CompletionItem]:
    """Keys that may be written inside `parent`, or the sections of `document` when `parent`
    is None. Removed, ignored and never-executed keywords are not offered."""
    if parent is None:
        return [_key_item(s.key, "section", s) for s in SECTIONS if document in s.documents and _offered(s.key)]
    block = parent.key if isinstance(parent, Section) else parent
    items = [_key_item(k, "key") for k in block.children if _offered(k)]
    if block.free_keys and block.entry is not None:
        items += [_free_key_item(name, block.entry) for name in block.name_suggestions]
    return items


def value_completion_items(key: Key) -> list[CompletionItem]:
    """Values that may follow `KEY:` on one line."""
    values: tuple[str, ...] = key.values + key.value_examples
    if key.kind is ValueKind.BOOL:
        values = ("true", "false")
    seen = dict.fromkeys(values)
    return [
        CompletionItem(
            label=value,
            detail=f"{key.name} value" + (" (default)" if value == key.default else ""),
            documentation=value_hover_markdown(key, value) or hover_markdown(key),
            insert_text=value,
            kind="value",
        )
        for value in sorted(seen)
    ]


def render_keyword_reference() -> str:
    """The whole catalogue as one Markdown page (`docs/keywords.md`)."""
    out = [
        "# ABL keyword reference",
        "",
        "Generated from the keyword catalogue (`abl.schema`); do not edit by hand.",
        "Property keys are matched without regard to case unless a block says otherwise.",
        "",
    ]
    for sec in SECTIONS:
        out.extend(_render_section(sec))
    return "\n".join(out).rstrip() + "\n"


# --- internals ------------------------------------------------------------------------------


def _facts(key: Key) -> list[str]:
    facts: list[str] = []
    if key.removed:
        facts.append(f"**Removed:** {key.removed}")
    if key.deprecated:
        facts.append(f"**Deprecated:** {key.deprecated}")
    if key.ignored:
        facts.append(f"**Ignored:** {key.ignored}")
    if key.not_executed:
        facts.append(f"**Not executed:** {key.not_executed}")
    if key.required:
        facts.append("Required")
    allowed = key.allowed_values_text
    if allowed:
        facts.append(f"Allowed: {allowed}")
    if key.also:
        facts.append("Also written as: " + ", ".join(k.label for k in key.also))
    if key.exact_true:
        facts.append('Only the exact lowercase `true` is true; `True` or `"true"` read as false')
    if key.default is not None:
        facts.append(f"Default: `{key.default}`")
    if key.fallback is not None:
        facts.append(f"An unrecognised value silently becomes `{key.fallback}`")
    if key.min_value is not None or key.max_value is not None:
        facts.append(f"Range: {_range_text(key)}")
    if key.aliases:
        facts.append("Also spelled: " + ", ".join(f"`{a}`" for a in key.aliases))
    if key.case_note:
        facts.append(f"Keys inside: {key.case_note}")
    if key.children:
        names = ", ".join(f"`{c.name}`" for c in key.children if _offered(c))
        if names:
            facts.append(f"Keys: {names}")
    if key.free_keys and key.entry is not None:
        facts.append(f"Other keys are names you choose ({key.entry.name})")
    # Where a keyword's description comes from is for the reference pages, not for an author's hover.
    return facts


def _range_text(key: Key) -> str:
    low = "" if key.min_value is None else _number(key.min_value)
    high = "" if key.max_value is None else _number(key.max_value)
    if low and high:
        return f"{low} to {high}"
    return f"at least {low}" if low else f"at most {high}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _documents_text(documents: frozenset[DocumentKind]) -> str:
    order = list(DocumentKind)
    names = sorted(documents, key=order.index)
    return ", ".join(d.value.replace("_", " ") for d in names)


def _offered(key: Key) -> bool:
    return not (key.removed or key.ignored or key.not_executed)


def _key_item(key: Key, kind: str, sec: Section | None = None) -> CompletionItem:
    detail = key.kind.label + (" · required" if key.required else "")
    separator = ":" if key.kind.is_container else ": "
    return CompletionItem(
        label=key.name,
        detail=detail,
        documentation=hover_markdown(sec if sec is not None else key),
        insert_text=key.name + separator,
        kind=kind,
        deprecated=key.deprecated is not None,
    )


def _free_key_item(name: str, entry: Key) -> CompletionItem:
    """A commonly used name for a free key (`tool_error` under `ON_ERROR`)."""
    return CompletionItem(
        label=name,
        detail=entry.kind.label,
        documentation=hover_markdown(entry),
        insert_text=name + ":",
        kind="key",
    )


def _render_section(sec: Section) -> list[str]:
    key = sec.key
    out = [f"## `{key.name}` ({_documents_text(sec.documents)})", "", key.doc, ""]
    facts = [f for f in _facts(key) if not f.startswith("Keys:")]
    out.extend(f"- {f}" for f in [f"Value: {key.kind.label}", *facts])
    if key.source:
        out.append(f"- Source: {key.source}")
    out.append("")
    if key.example:
        out += ["```abl", key.example, "```", ""]
    rows = list(_rows(key, prefix="", depth=0))
    if rows:
        out += ["| Key | Value | Default | Allowed | Description |", "|---|---|---|---|---|"]
        out += rows
        out.append("")
    return out


def _rows(key: Key, prefix: str, depth: int) -> Iterator[str]:
    if depth >= _REFERENCE_DEPTH:
        return
    nested = list(key.children)
    if key.free_keys and key.entry is not None:
        nested.append(key.entry)
    for item in nested:
        path = f"{prefix}{item.name}"
        yield _row(item, path)
        yield from _rows(item, f"{path}.", depth + 1)


def _row(key: Key, path: str) -> str:
    status = ""
    if key.removed:
        status = f" **Removed:** {key.removed}"
    elif key.deprecated:
        status = f" **Deprecated:** {key.deprecated}"
    elif key.ignored:
        status = f" **Ignored:** {key.ignored}"
    spelled = f" (also `{'`, `'.join(key.aliases)}`)" if key.aliases else ""
    required = " · required" if key.required else ""
    cells = [
        f"`{path}`{spelled}",
        key.kind.label + required,
        f"`{key.default}`" if key.default is not None else "",
        key.allowed_values_text,
        key.doc + status,
    ]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
