"""The keyword catalogue of ABL: every section and key, its value kind, allowed values,
defaults, aliases, case rules and hover documentation.

It is pure data plus lookups. Structure checks, completion, hover and the keyword reference
page are all generated from it, so a keyword is described in exactly one place.
"""

from .catalogue import SECTIONS
from .lookup import (
    KeyMatch,
    MatchKind,
    SectionMatch,
    all_sections,
    child,
    child_names,
    key_at,
    section,
    sections_for,
    suggest_child,
    suggest_section,
    suggest_value,
    value_allowed,
)
from .presentation import (
    CompletionItem,
    completion_items,
    hover_markdown,
    render_keyword_reference,
    value_completion_items,
)
from .types import AGENT_DOCUMENTS, CaseRule, DocumentKind, Key, Section, ValueKind

__all__ = [
    "AGENT_DOCUMENTS",
    "SECTIONS",
    "CaseRule",
    "CompletionItem",
    "DocumentKind",
    "Key",
    "KeyMatch",
    "MatchKind",
    "Section",
    "SectionMatch",
    "ValueKind",
    "all_sections",
    "child",
    "child_names",
    "completion_items",
    "hover_markdown",
    "key_at",
    "render_keyword_reference",
    "section",
    "sections_for",
    "suggest_child",
    "suggest_section",
    "suggest_value",
    "value_allowed",
    "value_completion_items",
]
