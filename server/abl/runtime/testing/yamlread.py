"""Read a YAML file into plain data that remembers where each mapping and list came from.

Test files are written by hand, so every complaint about one must name a line. PyYAML's
composed nodes carry positions; this module turns them into ordinary dicts and lists that
also know their line (and the line of each key), and the raw text of each scalar value, so
`user: yes` can stay the message "yes" instead of the boolean true. Duplicate keys, which
PyYAML would silently merge, are reported.

A file is untrusted input: files over `MAX_FILE_BYTES`, collections nested deeper than `MAX_NESTING`, aliases that expand to
more than `MAX_VALUES` values (a "billion laughs" file of a few hundred bytes), numbers Python
cannot hold, and binary values are refused with a `FormatError` and its line, never a crash.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from yaml.events import MappingStartEvent, SequenceStartEvent
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_NESTING = 64  # lists and mappings inside each other; the checker's limit for ABL files too
MAX_VALUES = 100_000  # values built from one file, aliases counted at every use
MAX_FILE_BYTES = 10 * 2**20


class FormatError(Exception):
    """A problem in a test file, with the place it was found (1-based line and column)."""

    def __init__(self, path: str | Path, line: int | None, message: str, column: int | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.column = column
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.message}"


class LineDict(dict):
    """A mapping from a YAML file, with its own line, its keys' lines and raw scalar texts."""

    line: int
    key_lines: dict[Any, int]
    raw: dict[Any, str]

    def line_of(self, key: Any) -> int:
        """The line of `key` when present, else the line of the mapping itself."""
        return self.key_lines.get(key, self.line)


class LineList(list):
    """A sequence from a YAML file, with its own line and the line of each item."""

    line: int
    item_lines: list[int]
    raw: list[str | None]

    def line_of(self, index: int) -> int:
        if 0 <= index < len(self.item_lines):
            return self.item_lines[index]
        return self.line


def plain(value: Any) -> Any:
    """LineDict/LineList turned back into ordinary dicts and lists (for passing on)."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def read_yaml(path: str | Path, text: str | None = None) -> Any:
    """The document in `path` (or `text`) as LineDict/LineList/scalars. Raises FormatError."""
    if text is None:
        try:
            size = Path(path).stat().st_size
            if size > MAX_FILE_BYTES:
                raise FormatError(
                    path, None, f"the file is {size:,} bytes; files over {MAX_FILE_BYTES:,} bytes are not read"
                )
            text = Path(path).read_text(encoding="utf-8")
        except OSError as err:
            raise FormatError(path, None, f"cannot read the file: {err.strerror or err}") from err
        except UnicodeDecodeError as err:
            raise FormatError(path, None, f"the file is not valid UTF-8 ({err.reason} at byte {err.start})") from err
    try:
        node = yaml.compose(text, Loader=_NestingLimitLoader)
    except _TooDeep as err:
        raise FormatError(path, err.line, f"collections are nested more than {MAX_NESTING} deep", err.column) from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        problem = err.problem or err.context or "not valid YAML"
        if err.context and err.problem:
            problem = f"{err.problem} ({err.context})"
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        raise FormatError(path, line, f"not valid YAML: {problem}", column) from err
    except yaml.YAMLError as err:
        raise FormatError(path, None, f"not valid YAML: {err}") from err
    if node is None:
        return None
    return _Builder(path).build(node)


class _TooDeep(Exception):
    def __init__(self, line: int, column: int) -> None:
        self.line = line
        self.column = column


class _NestingLimitLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing nesting beyond `MAX_NESTING` before its recursive composer
    would run out of stack."""

    _depth = 0

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        # The scanner keeps one pending simple key per open `[` or `{` and walks them all at
        # every token: a tower of brackets would take time in the square of its height before
        # the composer ever saw the depth, so the depth is refused as it is read.
        if self.flow_level >= MAX_NESTING:
            raise _TooDeep(self.line + 1, self.column + 1)
        super().fetch_flow_collection_start(TokenClass)

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        if not self.check_event(MappingStartEvent, SequenceStartEvent):
            return super().compose_node(parent, index)
        if self._depth >= MAX_NESTING:
            mark = self.peek_event().start_mark
            raise _TooDeep(mark.line + 1, mark.column + 1)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Builder:
    def __init__(self, path: str | Path) -> None:
        self._path = path
        # The standard constructor turns one scalar node into its Python value (int, bool, ...).
        self._scalars = yaml.SafeLoader("")
        self._open: set[int] = set()
        self._built = 0

    def build(self, node: Node) -> Any:
        self._built += 1
        if self._built > MAX_VALUES:
            raise FormatError(
                self._path,
                _line(node),
                f"the file holds more than {MAX_VALUES:,} values once its aliases (`*name`) are expanded",
            )
        if isinstance(node, (MappingNode, SequenceNode)):
            if id(node) in self._open:
                raise FormatError(self._path, _line(node), "an alias refers to the collection that contains it")
            self._open.add(id(node))
            try:
                return self._mapping(node) if isinstance(node, MappingNode) else self._sequence(node)
            finally:
                self._open.discard(id(node))
        if isinstance(node, ScalarNode):
            return self._scalar(node)
        raise FormatError(self._path, _line(node), f"unsupported YAML node {type(node).__name__}")

    def _scalar(self, node: ScalarNode) -> Any:
        try:
            value = self._scalars.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError as err:
            raise FormatError(
                self._path, _line(node), f"cannot read the value {_clip(node.value)}: {err.problem}"
            ) from err
        except (ValueError, OverflowError):  # an int of thousands of digits, which Python refuses to read
            raise FormatError(self._path, _line(node), f"the number {_clip(node.value)} is too long") from None
        if isinstance(value, bytes):
            raise FormatError(self._path, _line(node), "binary values (`!!binary`) are not supported")
        if isinstance(value, float) and not math.isfinite(value):
            raise FormatError(self._path, _line(node), f"the number {_clip(node.value)} is not finite")
        return value

    def _mapping(self, node: MappingNode) -> LineDict:
        self._scalars.flatten_mapping(node)  # resolves `<<` merge keys the way PyYAML does
        out = LineDict()
        out.line = _line(node)
        out.key_lines = {}
        out.raw = {}
        for key_node, value_node in node.value:
            key = self.build(key_node)
            if isinstance(key, (dict, list)):
                raise FormatError(self._path, _line(key_node), "a mapping key must be a plain value")
            if key in out:
                raise FormatError(
                    self._path,
                    _line(key_node),
                    f"duplicate key {key!r} (first written on line {out.key_lines[key]})",
                )
            out[key] = self.build(value_node)
            out.key_lines[key] = _line(key_node)
            if isinstance(value_node, ScalarNode):
                out.raw[key] = value_node.value
        return out

    def _sequence(self, node: SequenceNode) -> LineList:
        out = LineList(self.build(item) for item in node.value)
        out.line = _line(node)
        out.item_lines = [_line(item) for item in node.value]
        out.raw = [item.value if isinstance(item, ScalarNode) else None for item in node.value]
        return out


def _line(node: Node) -> int:
    return node.start_mark.line + 1


def _clip(text: str, limit: int = 40) -> str:
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(shown)
