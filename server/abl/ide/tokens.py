"""Semantic tokens: what each piece of an ABL file is, for the editor to colour.

The answer is a list of `Token`s with absolute positions (0-based line, start character in code
points), sorted, one line each and never overlapping. `encode` turns them into LSP's relative
five-integer form and `delta` diffs two encodings into an edit, so the protocol layer only has
to convert characters to UTF-16 (line by line, which absolute positions make easy).

How a file is read: a `_Canvas` holds the tokens of each line, and the first paint of a
character wins. Painting goes from the most specific knowledge to the most general one, so
that later, broader passes only fill the gaps:

1. comments (whole lines, and trailing ` #` comments);
2. names from the project's `ReferenceIndex`: agents, variables, tools, return handlers,
   intents and FLOW steps, with `declaration`/`modification` where the name is defined/written;
3. each line, walked against the keyword catalogue: the key (`keyword` at column 0,
   `property` deeper, `deprecated` when the catalogue says so), then its value: `{{ }}`
   placeholders, conditions (operators, literals, built-in calls), allowed words of enum-like
   keys, action verbs, names a key points at (`THEN: step`), tool signatures, assignments,
   `REQUIRE ... BEFORE calling tool` and `IF cond: ACTION` lines, and finally quoted strings,
   numbers and `true`/`false`/`null` anywhere.

Never raises, on any text: every pass reads offsets the parser produced and clips to the line.
"""

from __future__ import annotations

import re
from bisect import bisect_right, insort
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from abl.checks.layout import Block, Placement, blocks
from abl.expr import ast
from abl.expr.parse import parse_condition
from abl.ide.references import Occurrence, SymbolKind, document_occurrences
from abl.model import Document
from abl.schema import lookup
from abl.schema.types import Key, ValueKind
from abl.syntax.cst import Node, SourceFile, TriviaKind
from abl.text import LineIndex, Range
from abl.workspace import Project

# --- the legend -------------------------------------------------------------------------------

TOKEN_TYPES: tuple[str, ...] = (
    "keyword",  # column-0 section keywords, action verbs (`RESPOND`, `HANDOFF`)
    "property",  # nested keys, path segments after the root (`order.total`)
    "class",  # agents, supervisors and behavior profiles
    "variable",  # memory variables, gather fields, names read by conditions and templates
    "function",  # tools, return handlers, built-in condition functions
    "parameter",  # parameters of tool signatures
    "type",  # types in tool signatures
    "string",  # quoted strings and `|` block text
    "number",  # numbers and durations (`10s`)
    "operator",  # condition operators, `AND`/`OR`, `IS SET`, `=`, `->`, pipe markers
    "comment",
    "enumMember",  # allowed words of enum-like keys, `true`/`false`/`null`, intents
    "macro",  # `{{ }}` template placeholders
    "regexp",  # `/pattern/` in `matches`
    "label",  # FLOW step names
)
TOKEN_MODIFIERS: tuple[str, ...] = (
    "declaration",  # where a name is defined
    "deprecated",  # a key the catalogue marks deprecated or removed
    "defaultLibrary",  # built-ins: `intent`, `routing_intent`, condition functions
    "modification",  # where a variable is written (`SET`, `MAP` into, call results)
)

# An editor asks for tokens on every keystroke; beyond this many the rest of the file is left
# uncoloured (and `SemanticTokens.truncated` says so) rather than stalling the editor.
MAX_TOKENS = 200_000

_TYPE = {name: i for i, name in enumerate(TOKEN_TYPES)}
_MODIFIER = {name: 1 << i for i, name in enumerate(TOKEN_MODIFIERS)}

KEYWORD, PROPERTY, CLASS, VARIABLE, FUNCTION = (
    _TYPE[t] for t in ("keyword", "property", "class", "variable", "function")
)
PARAMETER, TYPE, STRING, NUMBER, OPERATOR = (_TYPE[t] for t in ("parameter", "type", "string", "number", "operator"))
COMMENT, ENUM_MEMBER, MACRO, REGEXP, LABEL = (_TYPE[t] for t in ("comment", "enumMember", "macro", "regexp", "label"))
DECLARATION, DEPRECATED, DEFAULT_LIBRARY, MODIFICATION = (
    _MODIFIER[m] for m in ("declaration", "deprecated", "defaultLibrary", "modification")
)


@dataclass(frozen=True, slots=True)
class Token:
    """One token on one line; `start` and `length` count code points."""

    line: int
    start: int
    length: int
    type_index: int
    modifier_bits: int = 0

    @property
    def end(self) -> int:
        return self.start + self.length

    @property
    def type(self) -> str:
        return TOKEN_TYPES[self.type_index]

    @property
    def modifiers(self) -> tuple[str, ...]:
        return tuple(name for name, bit in _MODIFIER.items() if self.modifier_bits & bit)

    @property
    def range(self) -> Range:
        return Range.on_line(self.line, self.start, self.end)


@dataclass(frozen=True, slots=True)
class SemanticTokens:
    """The tokens of one file, in order. Reads like a list of `Token`s; `truncated` is true when
    the file had more than the limit and only the first ones are here."""

    tokens: tuple[Token, ...]
    truncated: bool = False

    def __len__(self) -> int:
        return len(self.tokens)

    def __iter__(self) -> Iterator[Token]:
        return iter(self.tokens)

    def __getitem__(self, index: int) -> Token:
        return self.tokens[index]


# --- entry points -----------------------------------------------------------------------------


def semantic_tokens(
    project: Project, path: str, within: Range | None = None, limit: int = MAX_TOKENS
) -> SemanticTokens:
    """The tokens of the file `path` of `project` (all of them, or those on the lines `within`
    spans). An unknown path has none."""
    document = project.documents.get(path)
    if document is None:
        return SemanticTokens(())
    return document_tokens(document, _occurrences(document), within, limit)


def document_tokens(
    document: Document, occurrences: Iterable[Occurrence] = (), within: Range | None = None, limit: int = MAX_TOKENS
) -> SemanticTokens:
    """The tokens of one document, given the reference occurrences found in it."""
    canvas = _Canvas(document.source.index)
    painter = _Painter(document, canvas)
    painter.comments()
    painter.references(occurrences)
    painter.structure()
    tokens = list(canvas.tokens())
    if within is not None:
        first, last = within.start.line, within.end.line
        tokens = [t for t in tokens if first <= t.line <= last]
    if len(tokens) > limit:
        return SemanticTokens(tuple(tokens[: max(0, limit)]), truncated=True)
    return SemanticTokens(tuple(tokens))


def _occurrences(document: Document) -> list[Occurrence]:
    """The names the project's `ReferenceIndex` records in this file. They depend on the file
    alone and are kept with the document, so this spares indexing the whole project."""
    return document_occurrences(document)


# --- the canvas -------------------------------------------------------------------------------


class _Canvas:
    """Tokens per line, kept sorted and disjoint: a paint only fills characters still free."""

    def __init__(self, index: LineIndex) -> None:
        self.index = index
        self.rows: dict[int, list[tuple[int, int, int, int]]] = {}  # row -> [(start, end, type, mods)]
        self._lines: dict[int, str] = {}

    def line(self, row: int) -> str:
        text = self._lines.get(row)
        if text is None:
            text = self._lines[row] = self.index.line_text(row) if 0 <= row < self.index.line_count else ""
        return text

    def paint(self, row: int, start: int, end: int, kind: int, mods: int = 0) -> None:
        start = max(0, start)
        end = min(end, len(self.line(row)))
        if start >= end:
            return
        taken = self.rows.setdefault(row, [])
        free: list[tuple[int, int]] = []
        cursor = start
        i = bisect_right(taken, start, key=lambda t: t[0]) - 1
        if i < 0 or taken[i][1] <= start:
            i += 1
        while i < len(taken) and taken[i][0] < end:
            if taken[i][0] > cursor:
                free.append((cursor, taken[i][0]))
            cursor = max(cursor, taken[i][1])
            i += 1
        if cursor < end:
            free.append((cursor, end))
        for s, e in free:
            insort(taken, (s, e, kind, mods))

    def paint_offsets(self, start: int, end: int, kind: int, mods: int = 0) -> None:
        """A span of the text by offsets; a span crossing lines is painted line by line, each
        continuation line from its first non-blank character."""
        if end <= start:
            return
        first = self.index.position(start)
        last = self.index.position(end)
        for row in range(first.line, last.line + 1):
            text = self.line(row)
            s = first.character if row == first.line else len(text) - len(text.lstrip(" \t"))
            e = last.character if row == last.line else len(text)
            self.paint(row, s, e, kind, mods)

    def tokens(self) -> Iterator[Token]:
        for row in sorted(self.rows):
            for s, e, kind, mods in self.rows[row]:
                yield Token(row, s, e - s, kind, mods)


# --- what to paint ----------------------------------------------------------------------------

_OCCURRENCE_TYPES = {
    SymbolKind.AGENT: CLASS,
    SymbolKind.TOOL: FUNCTION,
    SymbolKind.VARIABLE: VARIABLE,
    SymbolKind.HANDLER: FUNCTION,
    SymbolKind.INTENT: ENUM_MEMBER,
    SymbolKind.STEP: LABEL,
}
_BUILTIN_ROOTS = frozenset({"intent", "routing_intent"})
_PLACEHOLDER = re.compile(r"\{\{.*?\}\}")
_WORD = re.compile(r"[A-Za-z_][\w.\-]*")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?(?:ms|s|m|h|d|%)?")
_CONSTANTS = frozenset({"true", "false", "null"})
_ASSIGNMENT = re.compile(r"([A-Za-z_$][\w.$\[\]]*)\s*(=)(?!=)")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_SIGNATURE_PART = re.compile(r"->|[A-Za-z_]\w*|\S")
# What the names in a value are, by the catalogue's `refers_to`.
_NAMED_TYPES = {
    "step": LABEL,
    "tool": FUNCTION,
    "agent": CLASS,
    "behavior_profile": CLASS,
    "variable": VARIABLE,
    "gather_field": VARIABLE,
    "return_handler": FUNCTION,
}
_NAME_WORD = re.compile(r"(?<![\w.\-])[A-Za-z_][\w\-]*(?![\w.(])")
_ENUM_KINDS = frozenset({ValueKind.ENUM, ValueKind.BOOL, ValueKind.HISTORY})
# Rule lines written as text: `- REQUIRE cond BEFORE calling tool` and `- IF cond: ACTION`.
_CONSTRAINT = re.compile(
    r"(REQUIRE|WARN|LIMIT|RESTRICT)\s+(.+?)(?:\s+(BEFORE)\s+(?:(calling)\s+([A-Za-z_]\w*)|(returning\s+results)))?\s*\Z",
    re.S,
)
_IF_RULE = re.compile(r"(IF)\s+(.+?):\s*([A-Z_]+\b)?", re.S)


def _kinds(key: Key | None) -> frozenset[ValueKind]:
    return frozenset((key.kind, *key.also)) if key is not None else frozenset()


class _Painter:
    """Paints one document on a canvas, pass by pass (see the module docstring)."""

    def __init__(self, document: Document, canvas: _Canvas) -> None:
        self.document = document
        self.source: SourceFile = document.source
        self.text = document.source.text
        self.canvas = canvas

    # --- comments and names -------------------------------------------------------------------

    def comments(self) -> None:
        trivia = list(self.source.trailing)
        for node in _all_nodes(self.source.nodes):
            trivia += node.leading
            if node.comment_start >= 0:
                where = self.canvas.index.position(node.comment_start)
                self.canvas.paint(where.line, where.character, len(self.canvas.line(where.line)), COMMENT)
        for t in trivia:
            if t.kind is TriviaKind.COMMENT:
                line = self.canvas.line(t.row)
                self.canvas.paint(t.row, len(line) - len(line.lstrip(" \t\ufeff")), len(line), COMMENT)

    def references(self, occurrences: Iterable[Occurrence]) -> None:
        for occ in occurrences:
            start, end = occ.range
            if start.line != end.line:
                continue
            # Only where the range holds exactly the name: some uses are recorded with the
            # range of their whole value (`file: "x" [a, b]`), which would swallow the rest.
            if self.canvas.line(start.line)[start.character : end.character] != occ.symbol.name:
                continue
            kind = _OCCURRENCE_TYPES.get(occ.symbol.kind)
            if kind is None:
                continue  # a kind of name this legend has no colour for
            mods = DECLARATION if occ.definition else (MODIFICATION if occ.is_write else 0)
            self.canvas.paint(start.line, start.character, end.character, kind, mods)

    # --- the catalogue walk -------------------------------------------------------------------

    def structure(self) -> None:
        """Every line, with the catalogue key it is read against (a stack, not recursion: nesting
        depth is the author's to choose)."""
        sections = {id(block.node): block for block in blocks(self.document)}
        stack: list[tuple[Node, Key | None]] = [(node, None) for node in reversed(self.source.nodes)]
        while stack:
            node, container = stack.pop()
            key = self._key_of(node, container, sections)
            if node.is_entry:
                self.key(node, key)
                self.value(node, key)
            elif node.is_text:
                self.text_line(node, container)
            inner = self._container_of_children(node, key, container)
            stack.extend((child, inner) for child in reversed(node.children))

    @staticmethod
    def _key_of(node: Node, container: Key | None, sections: dict[int, Block]) -> Key | None:
        block = sections.get(id(node))
        if block is not None:
            if block.match is None:
                return None
            section = block.match.section.key
            if block.placement is Placement.FLOW_STEP:
                step = lookup.child(section, node.key)
                return step.key if step is not None else None
            return section
        if not node.is_entry or container is None:
            return None
        match = lookup.child(container, node.key)
        return match.key if match is not None else None

    @staticmethod
    def _container_of_children(node: Node, key: Key | None, container: Key | None) -> Key | None:
        if node.is_entry:
            return key
        if node.is_item:
            return container  # an item's keys are its list's (`lookup.child` reads `items`)
        if ValueKind.SIGNATURES in _kinds(container):
            return container.entry if container is not None else None  # a tool's properties
        return None

    def key(self, node: Node, key: Key | None) -> None:
        kind = KEYWORD if node.col == 0 else PROPERTY
        mods = DEPRECATED if key is not None and (key.deprecated or key.removed) else 0
        r = node.key_range
        self.canvas.paint(r.start.line, r.start.character, r.end.character, kind, mods)

    def value(self, node: Node, key: Key | None) -> None:
        if not node.has_value:
            return
        if node.is_pipe:
            self.pipe_block(node)
            return
        start, end, raw = node.value_start, node.value_end, node.value
        self.placeholders(start, end)
        shapes = _kinds(key)
        expression = False
        if ValueKind.CONDITION in shapes:
            expression = self.expression(start, raw)
        if key is not None and shapes & _ENUM_KINDS:
            self.enum_word(key, start, raw)
        if ValueKind.ACTION in shapes and key is not None:
            self.action_verb(key, start, raw)
        if key is not None and key.refers_to in _NAMED_TYPES:
            self.named_values(key, start, end, raw)
        if node.key.lower() == "file":
            self.imported_names(start, raw)
        if not expression:
            self.literals(start, end)

    def text_line(self, node: Node, container: Key | None) -> None:
        start, end, raw = node.value_start, node.value_end, node.value
        self.placeholders(start, end)
        shapes = _kinds(container)
        expression = False
        if ValueKind.SIGNATURES in shapes:
            self.signature(start, raw)
        elif _CONSTRAINT.match(raw) or _IF_RULE.match(raw):
            expression = self.rule_line(start, raw)
        elif ValueKind.ASSIGNMENTS in shapes:
            expression = self.assignment(start, raw)
        elif ValueKind.CONDITION in shapes:
            expression = self.expression(start, raw)
        if not expression:
            self.literals(start, end)

    # --- values -------------------------------------------------------------------------------

    def pipe_block(self, node: Node) -> None:
        marker = node.value_range
        self.canvas.paint(marker.start.line, marker.start.character, marker.end.character, OPERATOR)
        for row in range(node.row + 1, node.pipe_end_row + 1):
            line = self.canvas.line(row)
            indent = len(line) - len(line.lstrip(" \t"))
            for m in _PLACEHOLDER.finditer(line, indent):
                self.canvas.paint(row, m.start(), m.end(), MACRO)
            self.canvas.paint(row, indent, len(line), STRING)

    def placeholders(self, start: int, end: int) -> None:
        for m in _PLACEHOLDER.finditer(self.text, start, end):
            self.canvas.paint_offsets(m.start(), m.end(), MACRO)

    def expression(self, start: int, raw: str) -> bool:
        """Paints a condition (or the expression of an assignment) from its syntax tree. True
        for a quoted text that parsed as an expression: the generic pass must then stay out,
        or it would paint the whole quoted text as a string around the operators."""
        parsed = parse_condition(raw)
        if parsed.expr is None:
            return False
        paint = self.canvas.paint_offsets
        for node in ast.walk(parsed.expr):
            for (s, e), kind, mods in _expression_parts(node):
                paint(start + s, start + e, kind, mods)
        return parsed.quoted

    def enum_word(self, key: Key, start: int, raw: str) -> None:
        word = raw.strip()
        if not (key.values or key.value_pattern) or _WORD.fullmatch(word) is None:
            return
        if lookup.value_allowed(key, word):
            at = start + raw.index(word)
            self.canvas.paint_offsets(at, at + len(word), ENUM_MEMBER)

    def action_verb(self, key: Key, start: int, raw: str) -> None:
        """`RESPOND "..."`, `HANDOFF Agent`, `escalate`: the verb is a keyword of the value."""
        m = _IDENTIFIER.match(raw)
        if m is not None and m.group(0).lower() in {v.lower() for v in key.values}:
            self.canvas.paint_offsets(start + m.start(), start + m.end(), KEYWORD)

    def imported_names(self, start: int, raw: str) -> None:
        """`file: "./x.tools.abl" [a, b]`: the names in brackets are tools."""
        path = next((le for ls, le, k in _literals(raw, 0, len(raw)) if k == STRING), 0)
        bracket = raw.find("[", path)  # after a quoted path, which may hold brackets itself
        if bracket < 0:
            return
        for m in _IDENTIFIER.finditer(raw, bracket):
            self.canvas.paint_offsets(start + m.start(), start + m.end(), FUNCTION)

    def assignment(self, start: int, raw: str) -> bool:
        m = _ASSIGNMENT.match(raw)
        if m is None:
            return False
        root = re.match(r"[A-Za-z_$]\w*", m.group(1))
        if root is not None:
            self.canvas.paint_offsets(start + root.start(), start + root.end(), VARIABLE, MODIFICATION)
        self.canvas.paint_offsets(start + m.start(2), start + m.end(2), OPERATOR)
        rest = raw[m.end() :]
        return self.expression(start + m.end(), rest) if rest.strip() else False

    def rule_line(self, start: int, raw: str) -> bool:
        """`REQUIRE cond BEFORE calling tool` or `IF cond: ACTION`: the words are keywords, the
        condition is painted as one, the tool is a function."""
        m = _CONSTRAINT.match(raw) or _IF_RULE.match(raw)
        if m is None:
            return False
        for group in range(1, (m.lastindex or 0) + 1):
            if m.group(group) is None or group == 2:
                continue
            kind = FUNCTION if m.re is _CONSTRAINT and group == 5 else KEYWORD
            self.canvas.paint_offsets(start + m.start(group), start + m.end(group), kind)
        condition = self.expression(start + m.start(2), m.group(2))
        return condition and m.end() == len(raw)

    def signature(self, start: int, raw: str) -> None:
        """`name(param: type, other?: type = 1) -> {field: type}`, read token by token."""
        open_brackets: list[str] = []
        previous = ""
        named = False
        for m in _SIGNATURE_PART.finditer(raw):
            part = m.group(0)
            s, e = start + m.start(), start + m.end()
            if part == "->":
                self.canvas.paint_offsets(s, e, OPERATOR)
            elif part in "({[":
                open_brackets.append(part)
            elif part in ")}]":
                if open_brackets:
                    open_brackets.pop()
            elif _IDENTIFIER.fullmatch(part):
                after = raw[m.end() :].lstrip(" \t?")
                if not named and not open_brackets and after.startswith("("):
                    self.canvas.paint_offsets(s, e, FUNCTION, DECLARATION)
                    named = True
                elif after.startswith(":") and open_brackets == ["("]:
                    self.canvas.paint_offsets(s, e, PARAMETER, DECLARATION)
                elif after.startswith(":") and open_brackets:
                    self.canvas.paint_offsets(s, e, PROPERTY)  # a field of an object type
                elif previous in (":", "->", "|"):
                    self.canvas.paint_offsets(s, e, TYPE)
            previous = part

    def named_values(self, key: Key, start: int, end: int, raw: str) -> None:
        """Names a key points at (`THEN: pick`, `steps: a -> b`, `HIDE: [tool]`) that the
        reference index does not record: each bare word outside quotes, as what it names."""
        kind = _NAMED_TYPES[key.refers_to or ""]
        if ValueKind.ACTION in _kinds(key) and _IDENTIFIER.fullmatch(raw.strip()) is None:
            return  # an action phrase (`RESPOND "..."`): its verb is painted, its words are not names
        for row, s, e in self._segments(start, end):
            line = self.canvas.line(row)
            quoted = [(ls, le) for ls, le, k in _literals(line, s, e) if k == STRING]
            for m in _NAME_WORD.finditer(line, s, e):
                if not any(qs <= m.start() < qe for qs, qe in quoted):
                    self.canvas.paint(row, m.start(), m.end(), kind)

    def literals(self, start: int, end: int) -> None:
        """Quoted strings, numbers and constants anywhere in a value, line by line."""
        for row, s, e in self._segments(start, end):
            for ls, le, kind in _literals(self.canvas.line(row), s, e):
                self.canvas.paint(row, ls, le, kind)

    def _segments(self, start: int, end: int) -> Iterator[tuple[int, int, int]]:
        """(row, start, end) of each line's share of the offsets `start..end`."""
        first = self.canvas.index.position(start)
        last = self.canvas.index.position(end)
        for row in range(first.line, last.line + 1):
            s = first.character if row == first.line else 0
            e = last.character if row == last.line else len(self.canvas.line(row))
            yield row, s, e


def _expression_parts(node: object) -> Iterator[tuple[tuple[int, int], int, int]]:
    """The painted parts of one condition node: (span, type, modifiers)."""
    if isinstance(node, (ast.Binary, ast.Compare, ast.TextOp, ast.IsSet, ast.IsNumber, ast.Unary, ast.In)):
        yield node.op_span, OPERATOR, 0
    elif isinstance(node, ast.Literal):
        value = node.value
        if isinstance(value, str):
            yield node.span, STRING, 0
        elif value is None or isinstance(value, bool):
            yield node.span, ENUM_MEMBER, 0
        else:
            yield node.span, NUMBER, 0
    elif isinstance(node, ast.RegexLiteral):
        yield node.span, REGEXP, 0
    elif isinstance(node, ast.Call):
        yield node.name_span, FUNCTION, DEFAULT_LIBRARY
    elif isinstance(node, ast.Path):
        builtin = node.root in _BUILTIN_ROOTS
        yield node.segment_spans[0], VARIABLE, DEFAULT_LIBRARY if builtin else 0
        for segment, span in zip(node.segments[1:], node.segment_spans[1:], strict=True):
            yield span, NUMBER if isinstance(segment, int) else PROPERTY, 0
    elif isinstance(node, ast.Member):
        yield node.name_span, PROPERTY, 0
    elif isinstance(node, ast.ObjectLiteral):
        for entry in node.entries:
            yield entry.key_span, PROPERTY, 0


def _literals(line: str, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """(start, end, type) of the strings, numbers and constants in `line[start:end]`."""
    end = min(end, len(line))  # a node's span may count a lone `\r` the line's text leaves out
    i = start
    while i < end:
        ch = line[i]
        # Inside a word (`customer's`, `gpt-4`, `v1.2`) a quote opens nothing and a digit
        # starts no number.
        after_word = i > start and (line[i - 1].isalnum() or line[i - 1] in "_-.")
        if ch in "\"'" and not after_word:
            j = i + 1
            while j < end and line[j] != ch:
                j += 2 if line[j] == "\\" else 1
            j = min(j + 1, end)
            yield i, j, STRING
            i = j
        elif (ch.isdigit() or ch in "+-.") and not after_word:
            m = _NUMBER.match(line, i, end)
            if m is not None and m.end() > i and not _continues_word(line, m.end(), end):
                yield i, m.end(), NUMBER
                i = m.end()
            else:
                i = _word_end(line, i + 1, end)
        elif ch.isalpha() or ch == "_":
            j = _word_end(line, i, end)
            if line[i:j].lower() in _CONSTANTS:
                yield i, j, ENUM_MEMBER
            i = j
        else:
            i += 1


def _continues_word(line: str, at: int, end: int) -> bool:
    return at < end and (line[at].isalnum() or line[at] in "_.")


def _word_end(line: str, i: int, end: int) -> int:
    while i < end and (line[i].isalnum() or line[i] == "_"):
        i += 1
    return i


def _all_nodes(roots: list[Node]) -> Iterator[Node]:
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))
