"""The keys inside sections, walked against the keyword catalogue.

## What it does
Walks every section block key by key, looking each one up in the catalogue (`abl.schema`),
and reports:
- `UNKNOWN_KEY`: a key the catalogue does not know at that place (open blocks and maps of
  free-form names are not checked), with "did you mean" from the catalogue;
- `DUPLICATE_KEY`: the same key twice in one block, naming the one that wins;
- `INVALID_VALUE`: a one-line value outside the key's allowed words, or of the wrong kind
  (a word where a number or `true`/`false` is expected, a plain value where a block is), and
  an `AS` whose value is no variable name (`AS: slots list`), under which no step can read the
  result;
- `SYNTAX_ERROR`: a line the catalogue says must be `key: value` that is not (`order_id`
  directly under a block of named entries), a line nested under an item of a list of one-line
  values (`LIMITATIONS`) or under a bare name (`- order_id`, an intent without a description)
  and a plain text line among a tool's properties, which nothing reads, and a condition that
  cannot be parsed.

The catalogue decides everything: which keys a block takes, their value kinds and allowed
words, and which values belong to another code (a key with a silent `fallback` or an
`exact_true` reading, action phrases, durations and history values are checked elsewhere).

## Why is this bad?
An unknown or misspelt key is ignored, so its setting silently does not apply; a repeated key
loses one of its values; the platform rejects values outside the allowed set.

## Fix safety
Replacing an unknown key or value with the suggestion makes a setting take effect or changes
it: unsafe. Deleting the earlier of two repeated keys is safe: it had no effect.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from abl.checks import fixes
from abl.checks.context import Check, block_rule
from abl.checks.handoff_text import clipped
from abl.checks.layout import Block, Placement, block_end, offset_range
from abl.diagnostics import Fix, TextEdit
from abl.expr.parse import parse_condition
from abl.schema import lookup
from abl.schema.types import Key, ValueKind
from abl.syntax.cst import Node
from abl.syntax.scanner import indent_width
from abl.syntax.values import ValueKind as Written
from abl.syntax.values import read_value
from abl.text import Range

V = ValueKind

_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")

# Value kinds whose one-line form this walk does not judge: free text, names resolved by other
# rules, and values with codes of their own (action phrases, durations, history modes).
_UNCHECKED = frozenset(
    {V.STRING, V.TEXT, V.NAME, V.AGENT_REF, V.TEMPLATE, V.CONDITION, V.ANY, V.LIST, V.ACTION, V.DURATION, V.HISTORY}
)
_NAME_ONLY = frozenset({V.NAME})
# Kinds written as indented `key: value` lines only.
_KEYED_BLOCKS = frozenset({V.MAP, V.BLOCK})
# Kinds under which a plain text line is part of the value (assignments, signatures, prose).
_TEXT_LINES = frozenset(
    {V.ASSIGNMENTS, V.SIGNATURES, V.STRING, V.TEXT, V.TEMPLATE, V.CONDITION, V.ANY, V.LIST, V.ACTION, V.NAME}
)
# Kinds whose lines are read as written, so a list that may also be one of them holds any line.
_LINES_AS_WRITTEN = frozenset({V.STRING, V.TEXT, V.TEMPLATE, V.ANY, V.ASSIGNMENTS, V.CONDITION, V.ACTION})
_INT = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_BOOLS = ("true", "false")


@cache
def kinds(key: Key) -> frozenset[ValueKind]:
    return frozenset((key.kind, *key.also))


@block_rule("UNKNOWN_KEY", "DUPLICATE_KEY", "INVALID_VALUE", "SYNTAX_ERROR")
def section_structure(check: Check, block: Block) -> None:
    if block.placement is Placement.FLOW_STEP:
        # Read as a step of the FLOW above, so checked as one: what it holds is reported now,
        # not only once FLOW_STEP_AT_COLUMN_ZERO's fix has indented it under the FLOW.
        flow = block.agent.flow.node if block.agent is not None and block.agent.flow is not None else None
        section = lookup.section(flow.key, block.document) if flow is not None else None
        if section is not None:
            _Walk(check).entry(section.section.key, block.node, {})
        return
    if block.match is None:
        return  # unknown sections are reported whole, not key by key
    key = block.match.section.key
    if key.removed is not None or key.ignored is not None:
        return
    _Walk(check).whole(key, block.node)


# Value kinds whose whole block belongs to codes of their own: under them keys are still
# checked, values are not (a history block's `mode` is E330's, its `count` E331's).
_OWN_CODES = frozenset({V.HISTORY})
# Kinds of text, which a `|` block may hold.
_PROSE = frozenset({V.STRING, V.TEXT, V.TEMPLATE})
# Kinds that take lines under their key as something other than one value's continuation.
_NOT_ONE_VALUE = frozenset({V.LIST, V.LIST_OF_BLOCKS, V.MAP, V.BLOCK, V.ANY, V.ASSIGNMENTS, V.SIGNATURES, V.HISTORY})


def _misspelt_fixed_key(block: Key, match: lookup.KeyMatch, node: Node) -> bool:
    """A name the author chose, in a block that also has fixed keys, that holds a list where
    the author's names hold none: `sesion:` with `- order_id` under it is a misspelt `session`,
    not a variable."""
    if match.kind is not lookup.MatchKind.FREE_KEY or not block.children:
        return False
    if kinds(match.key) & {V.LIST, V.LIST_OF_BLOCKS}:
        return False
    return any(c.is_item for c in node.children)


@dataclass
class _Walk:
    check: Check
    judge_values: bool = True
    beside_run: Node | None = None  # the last list item read as sitting beside its key

    # --- blocks ---------------------------------------------------------------------------------

    def whole(self, key: Key, node: Node) -> None:
        """A key's own value, then everything nested under it."""
        self.value(key, node)
        if V.SIGNATURES in kinds(key):
            self.signatures(key, node)
        else:
            self.inside(key, node)

    def inside(self, key: Key, node: Node) -> None:
        """The lines nested under `node`, whose key is `key`."""
        if not node.children or node.is_pipe:
            return
        shapes = kinds(key)
        if V.ASSIGNMENTS in shapes:
            return  # `name = expr` lines (or `name: expr`): every name is the author's own
        if not key.children and key.entry is None and not key.free_keys:
            if shapes & (_KEYED_BLOCKS | {V.LIST_OF_BLOCKS}) and not key.open and V.ANY not in shapes:
                self._free_form(key, node.children)
            elif V.LIST in shapes and key.item_kind is not V.ANY and not key.open and not shapes & _LINES_AS_WRITTEN:
                self._plain_items(key, node.children)
            elif not node.has_value and not key.open and not shapes & _NOT_ONE_VALUE:
                self._under_empty_value(key, node)
            return  # a map of free-form names, an open block, or a plain value
        if self._map_written_as_block(key, node):
            return  # a block of the author's own names, read as the key's map form
        outer = self.judge_values
        self.judge_values = outer and not shapes & _OWN_CODES
        try:
            seen: dict[object, Node] = {}
            previous: Node | None = None
            for child in node.children:
                if self._list_beside_its_key(previous, child) or (
                    child.is_entry and self._outside_items(key, node, child)
                ):
                    pass
                elif child.is_entry:
                    self.entry(key, child, seen)
                elif child.is_item:
                    self.item(key, child)
                else:
                    self.text(key, child)
                previous = child
        finally:
            self.judge_values = outer

    def _list_beside_its_key(self, previous: Node | None, child: Node) -> bool:
        """`options:` followed by `- a` at the same indentation: the items are not nested under
        the key (children must be indented deeper), so they are read as part of the enclosing
        block. Reported once, on the first item of the run; True for every item of the run."""
        if not child.is_item or previous is None:
            return False
        if previous.is_item:
            if self.beside_run is not previous:
                return False
            if child.children or (child.content is not None and child.content.children):
                # Lines nested under a later item of the run are part of nothing either.
                self._syntax(child.head_range, "this list item, like the one above, belongs to no key; indent it too")
            return self._mark_run(child)
        if not previous.is_entry or previous.has_value or previous.children or previous.col != child.col:
            return False
        self._syntax(
            child.head_range,
            f"this list item is at the same indentation as `{previous.key}:` above, so it is not part of "
            f"`{previous.key}` (which stays empty); indent the items deeper than `{previous.key}:`",
        )
        return self._mark_run(child)

    def _outside_items(self, key: Key, node: Node, child: Node) -> bool:
        """A list of blocks (`HANDOFF`, `COMPLETE`, ...) holds `- ` items; one of the items' own
        keys written directly under it (`SUMMARY:` at the dash's indentation, or a route without
        its dash) belongs to no item and is ignored. True when reported."""
        shapes = kinds(key)
        if V.LIST_OF_BLOCKS not in shapes or shapes & _KEYED_BLOCKS or key.open:
            return False
        match = lookup.child(key, child.key)
        if match is None or match.kind is lookup.MatchKind.FREE_KEY:
            return False
        if any(c.is_item for c in node.children):
            where = f"beside the `- ` items of `{key.name}` instead of inside one, so no item gets it"
            fix = "indent it to line up with the keys of the item it belongs to"
        else:
            where = f"directly under `{key.name}`, which takes `- ` items, so it is ignored"
            fix = f"start the item with a dash: `- {child.key}: ...`"
        self._syntax(child.key_range, f"`{child.key}` sits {where}; {fix}")
        return True

    def _mark_run(self, item: Node) -> bool:
        self.beside_run = item
        return True

    @staticmethod
    def _map_written_as_block(key: Key, node: Node) -> bool:
        """A block that may also be a one-line map (a lookup table's `{key: value}` shorthand)
        holds that map when none of its keys is one of the block's own: the indented form of
        the same map."""
        if not {V.BLOCK, V.MAP} <= kinds(key):
            return False
        if key.map_of_own_keys:
            return False
        entries = [c for c in node.children if c.is_entry]
        if not entries or len(entries) != len(node.children):
            return False
        return all(lookup.child(key, c.key) is None for c in entries)

    def _free_form(self, key: Key, children: list[Node]) -> None:
        """Inside a map of free-form names only the shape of each line is checked. A `- name`
        item (the list form of the names) is one value: nothing reads lines nested under it."""
        if V.LIST_OF_BLOCKS in kinds(key):
            return
        for child in children:
            if child.is_text:
                self.text(key, child)
            elif child.is_item and child.content is not None and child.content.is_text:
                self._under_list_value(key, child)

    def _nested_under_value(self, block: Key, node: Node, what: str = "") -> None:
        """A text line read as one value of `block` (a bare name, a list value): the lines nested
        under it are part of nothing, unless the block takes its lines as written."""
        if block.open or kinds(block) & _LINES_AS_WRITTEN:
            return
        what = what or f"one value of {_owner(block)}"
        for line in node.children:
            self._syntax(
                (line.content or line).head_range,
                f"this line is nested under `{clipped(node.value.strip())}`, {what}, so nothing reads it; "
                "write it at the column where it belongs",
            )

    def _under_empty_value(self, key: Key, node: Node) -> None:
        """A key that takes one value (`USE BEHAVIOR_PROFILE: name`, `WHEN: condition`) written
        with nothing after its colon: nothing reads the lines nested under it. A value is one
        line, quoted or bare, or a `|` block: plain text on the lines below is no value (the
        platform does not fold lines), so `GOAL:` over two lines of text has no goal."""
        prose = bool(kinds(key) & _PROSE)
        as_block = self._as_pipe_block(node) if prose else None
        written = f"after its colon (`{node.key}: ...`)"
        if prose:
            written += f" or as a `|` block (`{node.key}: |` above the lines)"
        for line in node.children:
            if line.is_item or line.is_entry:
                self._syntax(
                    (line.content or line).head_range,
                    f"`{node.key}` takes one value, written after its colon (`{node.key}: ...`), so "
                    "nothing reads this line nested under it",
                )
            else:
                self._syntax(
                    line.head_range,
                    f"`{node.key}` takes one value, written {written}, so nothing reads this text nested under it",
                    (as_block,) if as_block is not None else (),
                )

    def _as_pipe_block(self, node: Node) -> Fix | None:
        """`|` after the key's colon, making the text lines under it its value (when they are
        all text lines and nothing else follows the colon)."""
        if not all(line.is_text for line in node.walk() if line is not node):
            return None
        index = self.check.document.source.index
        after = node.value_range.start
        if index.line_text(after.line)[after.character :].strip():
            return None  # a comment after the colon: the `|` would follow it
        edit = TextEdit(Range(after, after), " |")
        return Fix(f"Make the lines under `{node.key}` its value, as a `|` block", (edit,), safe=False)

    def _plain_items(self, key: Key, children: list[Node]) -> None:
        """A list of one-line values (`LIMITATIONS`, `CAPABILITIES`) holds `- value` items and
        nothing else: a key written among them, or a line nested under an item, is read by
        nothing."""
        for child in children:
            if child.is_entry:
                self._unknown_key(key, child)
            elif child.is_item:
                self._under_list_value(key, child)
            else:
                self._nested_under_value(key, child)  # a value written without its dash

    def _under_list_value(self, key: Key, item: Node) -> None:
        """An item of a list of values is one value: the lines nested under it are read by nothing."""
        if key.open or kinds(key) & _LINES_AS_WRITTEN:
            return
        content = item.content
        nested = [*content.children, *item.children[1:]] if content is not None else item.children
        for line in nested:
            self._syntax(
                (line.content or line).head_range,
                f"this line is nested under an item of {_owner(key)}, which is one value, so nothing "
                f"reads it; write it as an item of its own (`- ...`) at the column of the others",
            )

    def entry(self, block: Key, node: Node, seen: dict[object, Node]) -> None:
        # Directly under a block that may also be a list, only the block's own keys belong.
        match = lookup.child(block, node.key, items=False)
        if match is not None and _misspelt_fixed_key(block, match, node):
            match = None
        if match is None:
            if block.open or V.ANY in kinds(block):
                if block.report_near_misses and lookup.suggest_child(block, node.key) is not None:
                    self._unknown_key(block, node)
                return
            self._unknown_key(block, node)
            return
        identity: object = match.key if match.kind is not lookup.MatchKind.FREE_KEY else node.key.lower()
        earlier = seen.get(identity)
        if earlier is not None and not match.key.repeatable:
            self._duplicate(earlier, node)
        seen[identity] = node
        if match.key.removed is not None or match.key.ignored is not None:
            return  # reported by the code for that legacy key
        self.whole(match.key, node)

    def item(self, block: Key, node: Node) -> None:
        listed = block.name  # the list's own name (its items' schema may be named `<variable>`)
        if block.items is not None:
            block = block.items  # a block written as a list: its items take their own keys
        shapes = kinds(block)
        if V.LIST_OF_BLOCKS not in shapes:
            if shapes <= _KEYED_BLOCKS and not block.open:
                self._syntax(node.head_range, f"`{block.name}` takes `name: value` lines here, not a list item")
            else:
                self._under_list_value(block, node)
            return
        seen: dict[object, Node] = {}
        content = node.content
        rest = node.children[1:] if content is not None else node.children
        if content is not None:
            if content.is_entry:
                self.entry(block, content, seen)
            elif content.is_item:
                self._syntax(
                    content.head_range,
                    f"a list item inside a list item (`- -`): an item of `{listed}` is one `- `, "
                    "so nothing reads this one; take out the extra `-`",
                )
            elif content.is_text and block.item_head is not None:
                self._nested_under_value(block, content, "the name this item declares")  # `- order_id`
            elif content.is_text and _keyword_phrase(block, content.value):
                self._nested_under_value(block, content, "the condition of this item")  # `- WHEN x`
            elif (
                content.is_text
                and block.item_head is None
                and V.LIST not in shapes
                and not block.open
                and block.children
                and not _keyword_phrase(block, content.value)
            ):
                self._syntax(
                    content.value_range, f"expected `KEY: value` after `-` in `{block.name}`; is the `:` missing?"
                )
        previous: Node | None = content
        for child in rest:
            beside = self._list_beside_its_key(previous, child)
            previous = child
            if beside:
                continue
            if child.is_entry:
                self.entry(block, child, seen)
            elif child.is_item:
                self.item(block, child)
            else:
                self.text(block, child, in_item=True)

    def text(self, block: Key, node: Node, in_item: bool = False) -> None:
        shapes = kinds(block)
        if shapes & _TEXT_LINES:
            self._nested_under_value(block, node)
            return
        if block.open and not (shapes <= _KEYED_BLOCKS and block.report_near_misses):
            return  # an open block passes its lines on; one with documented keys takes keys only
        word = node.value.strip()
        if word.startswith("->") and block.name == "<tool>":
            return  # a tool's return type continued on the line below its signature
        if in_item and re.fullmatch(r"[\w.$-]+", word):
            # A half-typed property of one item (`WHE` under a route).
            guess = lookup.suggest_child(block, word)
            hint = f"; did you mean `{guess}:`?" if guess else "; is the `:` missing?"
            message = f"expected `KEY: value` in this `{block.name}` item, found `{clipped(word)}`{hint}"
        elif V.LIST_OF_BLOCKS in shapes and not shapes & _KEYED_BLOCKS:
            message = f"`{block.name}` takes `- KEY: value` list items, found `{clipped(word)}`"
        elif re.fullmatch(r"[\w.$-]+", word):
            message = (
                f"expected `{word}:` (a `{block.name}` entry is `name:` followed by its value); is the `:` missing?"
            )
        else:
            owner = _owner(block)
            message = f"{owner[:1].upper()}{owner[1:]} takes `name: value` lines, found `{clipped(word)}`"
        self._syntax(node.value_range, message)

    def signatures(self, key: Key, node: Node) -> None:
        """Tool declarations: each text line is a signature whose properties follow the catalogue's
        entry schema; `key: value` lines beside them are the block's own settings."""
        seen: dict[object, Node] = {}
        for child in node.children:
            if child.is_text:
                if key.entry is not None:
                    self.inside(key.entry, child)
            elif child.is_entry:
                self.entry(key, child, seen)
            else:
                self._syntax(
                    child.head_range,
                    f"`{key.name}` declares each tool as a `name(params) -> type` line, not a list item, "
                    "so nothing reads this one; take out the `-`",
                )

    # --- values ---------------------------------------------------------------------------------

    def value(self, key: Key, node: Node) -> None:
        if not node.has_value or node.is_pipe or not self.judge_values:
            return
        shapes = kinds(key)
        if V.CONDITION in shapes:
            self._condition(node)
        if key.fallback is not None or key.exact_true:
            return  # these values have codes of their own
        if shapes & _UNCHECKED and not (shapes == _NAME_ONLY and key.refers_to == "variable"):
            # Any value written is one of these (a list or a map too), or is judged by a code of
            # its own (an action, a duration, a history setting): nothing to read.
            return
        raw = node.value
        if "{{" in raw or "${" in raw:
            return  # resolved at runtime
        written = read_value(raw)
        if written.error is not None:
            return  # the flow-value reader's own problem, reported with the value's other uses
        if written.kind in (Written.LIST, Written.MAP):
            if shapes <= {V.BOOL, V.INT, V.NUMBER, V.ENUM}:
                self._invalid(key, node, f"`{key.name}` takes {_kind_words(key)}, not a {written.kind.value}")
            return
        if shapes == _NAME_ONLY:  # naming a variable: the only unchecked kind read here
            self._variable_name(key, node, written.text.strip())
            return
        text = written.text.strip()
        if self._fits(key, shapes, text):
            return
        problem = self._why_not(key, shapes, text)
        if problem is not None:
            self._invalid(key, node, problem, text)

    def _variable_name(self, key: Key, node: Node, text: str) -> None:
        """`AS: booking`: the value names the variable that holds a result, which later steps
        read by that name; a value that is no name (`f AS: g`) stores it where none can."""
        if _VARIABLE.fullmatch(text) is None:
            self.check.report(
                "INVALID_VALUE",
                f"`{key.name}` names the variable that holds the result, and `{clipped(text)}` is not a "
                "name (letters, digits and `_`, not starting with a digit, parts joined by `.`), so no "
                "later step can read it",
                node.value_range,
            )

    def _fits(self, key: Key, shapes: frozenset[ValueKind], text: str) -> bool:
        if V.BOOL in shapes and text.lower() in _BOOLS:
            return True
        if V.INT in shapes and _INT.fullmatch(text) and _in_bounds(key, float(text)):
            return True
        if V.NUMBER in shapes and _NUMBER.fullmatch(text) and _in_bounds(key, float(text)):
            return True
        if V.ENUM in shapes and (key.values or key.value_pattern) and lookup.value_allowed(key, text):
            return True
        return V.ASSIGNMENTS in shapes and "=" in text

    def _why_not(self, key: Key, shapes: frozenset[ValueKind], text: str) -> str | None:
        if V.ENUM in shapes and (key.values or key.value_pattern):
            return f"`{text}` is not an allowed `{key.name}`; expected {_kind_words(key)}"
        if shapes & {V.INT, V.NUMBER}:
            whole_only = V.NUMBER not in shapes
            if _INT.fullmatch(text) or (_NUMBER.fullmatch(text) and not whole_only):
                return f"`{text}` is out of range for `{key.name}`; expected {_kind_words(key)}"
            return f"`{key.name}` takes {_kind_words(key)}, found `{text}`"
        if V.BOOL in shapes:
            return f"`{key.name}` takes `true` or `false`, found `{text}`"
        if shapes <= (_KEYED_BLOCKS | {V.LIST_OF_BLOCKS, V.SIGNATURES}):
            return f"`{key.name}` takes {_kind_words(key)} written on the lines below it, not a one-line value"
        return None

    def _condition(self, node: Node) -> None:
        parsed = parse_condition(node.value)
        if parsed.unquoted_prose or parsed.natural_language:
            return  # prose is reported with the names it reads, where the model knows the condition
        index = self.check.document.source.index
        anchor = node.value_range.start
        for error in parsed.errors:
            start, end = error.span
            self._syntax(offset_range(index, anchor, start, max(end, start + 1)), f"in this condition: {error.message}")

    # --- reports --------------------------------------------------------------------------------

    def _unknown_key(self, block: Key, node: Node) -> None:
        suggestion = lookup.suggest_child(block, node.key)
        message = f"`{node.key}` is not a key of {_owner(block)}, so it is ignored with everything under it"
        found: tuple[Fix, ...] = ()
        if suggestion is not None:
            message += f"; did you mean `{suggestion}`?"
            found = (fixes.replace(f"Replace with `{suggestion}`", node.key_range, suggestion, safe=False),)
        self.check.report("UNKNOWN_KEY", message, node.key_range, found)

    def _duplicate(self, earlier: Node, later: Node) -> None:
        index = self.check.document.source.index
        # The distance, not the line number: a block's findings are kept when the block moves.
        gap = later.row - earlier.row
        message = (
            f"`{earlier.key}` is set again {gap} line{'s' if gap != 1 else ''} below, and that later "
            "value wins; this one has no effect"
        )
        found: tuple[Fix, ...] = ()
        if earlier.col == indent_width(index.line_text(earlier.row)):
            span = Range(index.position(earlier.start), index.position(block_end(earlier)))
            found = (Fix(f"Delete the ignored `{earlier.key}`", (TextEdit(span, ""),), True),)
        self.check.report(
            "DUPLICATE_KEY",
            message,
            earlier.key_range,
            found,
            related=((self.check.document.path, later.key_range, "the value that wins"),),
        )

    def _invalid(self, key: Key, node: Node, message: str, text: str | None = None) -> None:
        found: tuple[Fix, ...] = ()
        message += "; the platform rejects it"
        if text is not None and key.values:
            suggestion = lookup.suggest_value(key, text)
            if suggestion is not None:
                message += f"; did you mean `{suggestion}`?"
                found = (fixes.replace(f"Replace with `{suggestion}`", node.value_range, suggestion, safe=False),)
        self.check.report("INVALID_VALUE", message, node.value_range, found)

    def _syntax(self, range: Range, message: str, fixes: tuple[Fix, ...] = ()) -> None:
        self.check.report("SYNTAX_ERROR", message, range, fixes)


def _owner(block: Key) -> str:
    """`LIMITATIONS` in backquotes; for `<field>`, `<tool>`, what the block is ("a tool")."""
    if block.name.startswith("<"):
        what = block.name[1:-1].replace("_", " ")
        return ("an " if what[:1] in "aeiou" else "a ") + what
    return f"`{block.name}`"


def _keyword_phrase(block: Key, text: str) -> bool:
    """`- WHEN booking.confirmed`: an older spelling of a condition key, written without the
    colon; the platform reads it as that key."""
    first, _, rest = text.strip().partition(" ")
    match = lookup.child(block, first)
    return bool(rest.strip()) and match is not None and V.CONDITION in kinds(match.key)


def _kind_words(key: Key) -> str:
    shapes = kinds(key)
    words: list[str] = []
    if V.ENUM in shapes and (key.values or key.value_pattern):
        allowed = key.allowed_values_text
        words.append(f"one of {allowed}" if allowed else key.kind.label)
    if V.INT in shapes:
        words.append("a whole number" + _bounds(key))
    elif V.NUMBER in shapes:
        words.append("a number" + _bounds(key))
    if V.BOOL in shapes:
        words.append("`true` or `false`")
    words.extend(f"a {kind.label}" for kind in (V.MAP, V.BLOCK, V.LIST_OF_BLOCKS, V.SIGNATURES) if kind in shapes)
    return " or ".join(words) or key.kind.label


def _bounds(key: Key) -> str:
    low, high = key.min_value, key.max_value
    if low is not None and high is not None:
        return f" from {_num(low)} to {_num(high)}"
    if low is not None:
        return f" of at least {_num(low)}"
    if high is not None:
        return f" of at most {_num(high)}"
    return ""


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _in_bounds(key: Key, value: float) -> bool:
    if key.min_value is not None and value < key.min_value:
        return False
    return key.max_value is None or value <= key.max_value
