"""A lowered document as plain nested values with every source position left out: what two
spellings of one file must share to mean the same (the formatter's safety check, its tests)."""

from __future__ import annotations

import dataclasses
import enum

from abl.model.types import Document, Scalar
from abl.syntax.cst import PIPE_MARKERS, Node, SourceFile
from abl.text import Position, Range

# The document's tree and what later layers cached on it (on a document, on an agent the key
# of its blocks: ids of tree nodes): none of it is part of the model.
_SKIPPED_FIELDS = frozenset({"source", "memo", "blocks_key"})

_Slot = tuple[object, object, object]  # a value, the list or dict that will hold its shape, the key


def model_shape(document: Document) -> object:
    """The lowered document as plain nested values, with every source position left out.

    Ranges, positions, spans and the syntax tree are dropped (a tree node is replaced by its
    kind and key). Strings that span lines keep their first line and the relative indentation
    of the others, since continuation lines move with their first line. A pipe block's text is
    kept exactly: its inner indentation is content. Built with an explicit stack, so deep
    condition trees cannot exhaust Python's recursion limit.
    """
    root: list[object] = [None]
    stack: list[_Slot] = [(document, root, 0)]
    while stack:
        value, holder, slot = stack.pop()
        holder[slot] = _shape_of(value, stack)  # type: ignore[index]
    return root[0]


def _shape_of(value: object, stack: list[_Slot]) -> object:
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return _relative_lines(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Node):
        return ("node", value.kind.name, value.key)
    if dataclasses.is_dataclass(value):
        names = [f.name for f in dataclasses.fields(value)]
        return _record(type(value).__name__, value, names, stack)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a NamedTuple
        return _record(type(value).__name__, value, list(value._fields), stack)
    if isinstance(value, (list, tuple)):
        items = [item for item in value if not _positional(item)]
        shaped: list[object] = [None] * len(items)
        stack.extend((item, shaped, i) for i, item in enumerate(items))
        return shaped
    raise TypeError(f"model_shape does not know {type(value).__name__}")


def _record(name: str, value: object, names: list[str], stack: list[_Slot]) -> dict[str, object]:
    shaped: dict[str, object] = {"type": name}
    for attr in names:
        item = getattr(value, attr)
        if attr in _SKIPPED_FIELDS or attr.endswith(("span", "spans")) or _positional(item):
            continue
        if isinstance(value, Scalar) and attr == "text" and value.raw.strip() in PIPE_MARKERS:
            shaped[attr] = item
            continue
        shaped[attr] = None
        stack.append((item, shaped, attr))
    return shaped


def _positional(value: object) -> bool:
    return isinstance(value, (Range, Position, SourceFile))


def _relative_lines(text: str) -> str:
    if "\n" not in text:
        return text
    first, *rest = text.split("\n")
    rest = [line.rstrip(" \t\r").expandtabs(8) for line in rest]
    cut = min((len(line) - len(line.lstrip(" ")) for line in rest if line), default=0)
    return "\n".join([first.rstrip(" \t\r")] + [line[cut:] for line in rest])
