"""A deliberately small indentation walker that checks ABL text against the catalogue.

It is not the project's parser: it only follows `KEY:` lines by indentation, which is enough to
prove that every keyword written in the reference examples and the seeds is known to the
schema, and that simple enumerated values are allowed. Blocks the schema leaves open, free-form
maps and lists are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from abl.schema import DocumentKind, Key, ValueKind, child, section, value_allowed

_ENTRY = re.compile(r"^(?P<indent> *)(?P<dash>- +)?(?P<key>[A-Za-z_][A-Za-z0-9_ ]*?)\s*:(?:\s+(?P<value>.*))?$")
_SIGNATURE = re.compile(r"^ *[a-z_][a-z0-9_]*\(")
_BARE_WORD = re.compile(r'^"?[A-Za-z0-9_.-]+"?$')
_FREE_FORM = {ValueKind.MAP, ValueKind.ASSIGNMENTS, ValueKind.LIST, ValueKind.ANY}
_CHECKED_VALUES = {ValueKind.ENUM, ValueKind.HISTORY, ValueKind.ACTION}
_HEADERS = {
    "AGENT": DocumentKind.AGENT,
    "SUPERVISOR": DocumentKind.SUPERVISOR,
    "BEHAVIOR_PROFILE": DocumentKind.BEHAVIOR_PROFILE,
}


@dataclass(frozen=True)
class Problem:
    line: int
    text: str
    message: str


@dataclass
class _Frame:
    indent: int
    key: Key | None  # None: inside something the schema leaves open; skip below it.


def walk(text: str) -> list[Problem]:
    """Every unknown section, unknown key and disallowed enumerated value in `text`."""
    problems: list[Problem] = []
    document = _first_document(text)
    stack: list[_Frame] = []
    pipe_indent: int | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _strip_comment(raw)
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if pipe_indent is not None:
            if indent > pipe_indent:
                continue
            pipe_indent = None
        while stack and stack[-1].indent >= indent:
            stack.pop()
        if _SIGNATURE.match(line):
            parent = stack[-1].key if stack else None
            entry = parent.entry if parent is not None and parent.kind is ValueKind.SIGNATURES else None
            stack.append(_Frame(indent, entry))
            continue
        match = _ENTRY.match(line)
        if match is None:
            continue
        name = match["key"]
        value = (match["value"] or "").strip()
        key_indent = indent + len(match["dash"] or "")
        if value == "|" or value.startswith("| "):
            pipe_indent = indent
        if indent == 0 and not match["dash"]:
            stack.clear()
            if value:  # an unnamed `BEHAVIOR_PROFILE:` block is a section of the agent above
                document = _HEADERS.get(name, document)
            found = section(name, document)
            if found is None:
                problems.append(Problem(number, raw, f"unknown section {name}"))
                stack.append(_Frame(key_indent, None))
                continue
            if not found.allowed:
                problems.append(Problem(number, raw, f"{name} not allowed in {document.value}"))
            stack.append(_Frame(key_indent, found.section.key))
            problems.extend(_value_problems(found.section.key, value, number, raw))
            continue
        parent = stack[-1].key if stack else None
        if parent is None or _free_form(parent):
            stack.append(_Frame(key_indent, None))
            continue
        hit = child(parent, name)
        if hit is None:
            if not parent.open:
                problems.append(Problem(number, raw, f"unknown key {name} under {parent.name}"))
            stack.append(_Frame(key_indent, None))
            continue
        stack.append(_Frame(key_indent, hit.key))
        problems.extend(_value_problems(hit.key, value, number, raw))
    return problems


def _free_form(key: Key) -> bool:
    """Content the schema does not describe key by key (`MAP:` entries, `SET` lines)."""
    return key.kind in _FREE_FORM and not key.children and not key.free_keys


def _value_problems(key: Key, value: str, number: int, raw: str) -> list[Problem]:
    if not value or key.kind not in _CHECKED_VALUES:
        return []
    if key.kind is not ValueKind.ACTION and not _BARE_WORD.match(value):
        return []
    if value_allowed(key, value):
        return []
    return [Problem(number, raw, f"value {value} not allowed for {key.name}")]


def _first_document(text: str) -> DocumentKind:
    for raw in text.splitlines():
        match = _ENTRY.match(raw)
        if match is None or match["indent"] or match["dash"]:
            continue
        if match["key"] in _HEADERS:
            return _HEADERS[match["key"]]
        if match["key"] == "TOOLS":
            return DocumentKind.TOOLS_LIBRARY
    return DocumentKind.AGENT


def _strip_comment(line: str) -> str:
    """Drops a ` #` comment outside double quotes, and whole comment lines."""
    if line.lstrip().startswith("#"):
        return ""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted and i > 0 and line[i - 1] in " \t":
            return line[:i].rstrip()
    return line.rstrip()
