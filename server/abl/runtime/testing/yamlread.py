"""Read a YAML file into plain data that remembers where each mapping and list came from.

Test files are written by hand, so every complaint about one must name a line. PyYAML's
composed nodes carry positions; this module turns them into ordinary dicts and lists that
also know their line (and the line of each key), and the raw text of each scalar value, so
`user: yes` can stay the message "yes" instead of the boolean true. Duplicate keys, which
PyYAML would silently merge, are reported.

Merge keys (`<<: *base`) are resolved here rather than by PyYAML: a key written in the mapping
overrides the merged one, and of several merged mappings the first to hold a key gives it.

A file is untrusted input: files over `MAX_FILE_BYTES`, collections nested deeper than
`MAX_NESTING` (as written, or once aliases are followed), aliases that expand to more than
`MAX_VALUES` values (a "billion laughs" file of a few hundred bytes), aliases to the collection
that holds them, numbers Python cannot hold, and binary values are refused with a `FormatError`
and its line, never a crash. The composed graph is measured before anything is built, so a
refusal costs time in the size of the file, not of what it would expand to.
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
MERGE_TAG = "tag:yaml.org,2002:merge"  # what PyYAML's resolver tags a `<<` key with


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


# Where a scalar is written: character offsets of its start and end in the file's text (quotes
# included), for edits such as renaming an agent a test names.
Span = tuple[int, int]


class LineDict(dict):
    """A mapping from a YAML file, with its own line, its keys' lines and raw scalar texts, and
    where each key and each scalar value is written."""

    line: int
    key_lines: dict[Any, int]
    raw: dict[Any, str]
    key_spans: dict[Any, Span]
    value_spans: dict[Any, Span]

    def line_of(self, key: Any) -> int:
        """The line of `key` when present, else the line of the mapping itself."""
        return self.key_lines.get(key, self.line)


class LineList(list):
    """A sequence from a YAML file, with its own line and the line of each item, and where each
    scalar item is written."""

    line: int
    item_lines: list[int]
    raw: list[str | None]
    item_spans: list[Span | None]

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
    builder = _Builder(path)
    builder.measure(node)
    return builder.build(node)


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


# A mapping's pairs once its merge keys are resolved: (key, value, merged from elsewhere).
Pair = tuple[Node, Node, bool]


class _Builder:
    def __init__(self, path: str | Path) -> None:
        self._path = path
        # The standard constructor turns one scalar node into its Python value (int, bool, ...).
        self._scalars = yaml.SafeLoader("")
        self._pairs: dict[int, list[Pair]] = {}

    def measure(self, root: Node) -> None:
        """Refuse the graph under `root` if following its aliases nests too deep, builds too
        many values or comes back to a collection it is inside; resolve merge keys.

        Each node is measured once (its size and height kept), in an explicit post-order walk:
        aliases make the graph a DAG whose paths may be far longer than the text is deep.
        """
        sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (values built from it, collections deep)
        inside: set[int] = set()
        # Every node is built at least once, so the children of all nodes measured so far are a
        # lower bound of what building makes: it stops a long chain of merges early.
        children_seen = 0
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, children_measured = stack.pop()
            if not isinstance(node, (MappingNode, SequenceNode)):
                sizes[id(node)] = (1, 0)
                continue
            if children_measured:
                inside.discard(id(node))
                children = self._children(node)
                children_seen += len(children)
                values = 1 + sum(sizes[id(child)][0] for child in children)
                height = 1 + max((sizes[id(child)][1] for child in children), default=0)
                if values > MAX_VALUES or children_seen > MAX_VALUES:
                    raise FormatError(
                        self._path,
                        _line(node),
                        f"the file holds more than {MAX_VALUES:,} values once its aliases (`*name`) are expanded",
                    )
                if height > MAX_NESTING:
                    raise FormatError(
                        self._path,
                        _line(node),
                        f"collections are nested more than {MAX_NESTING} deep once its aliases (`*name`) are followed",
                    )
                sizes[id(node)] = (values, height)
                continue
            if id(node) in sizes:
                continue
            if id(node) in inside:
                raise FormatError(self._path, _line(node), "an alias refers to the collection that contains it")
            inside.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in self._written_children(node) if id(child) not in sizes)

    def _written_children(self, node: MappingNode | SequenceNode) -> list[Node]:
        """What `node` holds as written: items, keys and values, and the mappings it merges."""
        if isinstance(node, SequenceNode):
            return list(node.value)
        children: list[Node] = []
        for key_node, value_node in node.value:
            if key_node.tag == MERGE_TAG:
                children.extend(self._merge_sources(value_node))
            else:
                children += (key_node, value_node)
        return children

    def _children(self, node: MappingNode | SequenceNode) -> list[Node]:
        """What is built from `node`, its written children measured (and merges resolved) first."""
        if isinstance(node, SequenceNode):
            return list(node.value)
        pairs = self._pairs[id(node)] = self._resolve_merges(node)
        return [child for key_node, value_node, _ in pairs for child in (key_node, value_node)]

    def _merge_sources(self, value: Node) -> list[MappingNode]:
        if isinstance(value, MappingNode):
            return [value]
        if isinstance(value, SequenceNode) and all(isinstance(item, MappingNode) for item in value.value):
            return list(value.value)
        raise FormatError(self._path, _line(value), "a merge key (`<<`) takes a mapping or a list of mappings")

    def _resolve_merges(self, node: MappingNode) -> list[Pair]:
        own = [(key_node, value_node, False) for key_node, value_node in node.value if key_node.tag != MERGE_TAG]
        written = {_identity(key_node) for key_node, _, _ in own}
        merged: list[Pair] = []
        for key_node, value_node in node.value:
            if key_node.tag != MERGE_TAG:
                continue
            for source in self._merge_sources(value_node):
                for source_key, source_value, _ in self._pairs[id(source)]:
                    if _identity(source_key) not in written:
                        written.add(_identity(source_key))
                        merged.append((source_key, source_value, True))
        return merged + own

    def build(self, node: Node) -> Any:
        if isinstance(node, MappingNode):
            return self._mapping(node)
        if isinstance(node, SequenceNode):
            return self._sequence(node)
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
        out = LineDict()
        out.line = _line(node)
        out.key_lines = {}
        out.raw = {}
        out.key_spans = {}
        out.value_spans = {}
        merged_keys: set[Any] = set()  # keys a written key may still override
        for key_node, value_node, merged in self._pairs[id(node)]:
            key = self.build(key_node)
            if isinstance(key, (dict, list)):
                raise FormatError(self._path, _line(key_node), "a mapping key must be a plain value")
            if merged:
                if key in out:  # two spellings of one key (`1`, `0x1`) in the merged mappings
                    continue
                merged_keys.add(key)
            elif key in merged_keys:
                merged_keys.discard(key)
            elif key in out:
                raise FormatError(
                    self._path,
                    _line(key_node),
                    f"duplicate key {key!r} (first written on line {out.key_lines[key]})",
                )
            out[key] = self.build(value_node)
            out.key_lines[key] = _line(key_node)
            out.key_spans[key] = _span(key_node)
            if isinstance(value_node, ScalarNode):
                out.raw[key] = value_node.value
                out.value_spans[key] = _span(value_node)
            else:
                out.raw.pop(key, None)  # a merged scalar overridden by a collection
                out.value_spans.pop(key, None)
        return out

    def _sequence(self, node: SequenceNode) -> LineList:
        out = LineList(self.build(item) for item in node.value)
        out.line = _line(node)
        out.item_lines = [_line(item) for item in node.value]
        out.raw = [item.value if isinstance(item, ScalarNode) else None for item in node.value]
        out.item_spans = [_span(item) if isinstance(item, ScalarNode) else None for item in node.value]
        return out


def _line(node: Node) -> int:
    return node.start_mark.line + 1


def _span(node: Node) -> Span:
    return (node.start_mark.index, node.end_mark.index)


def _identity(key: Node) -> object:
    """What makes two key nodes the same key before they are built (scalars by tag and text)."""
    return (key.tag, key.value) if isinstance(key, ScalarNode) else id(key)


def _clip(text: str, limit: int = 40) -> str:
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(shown)
