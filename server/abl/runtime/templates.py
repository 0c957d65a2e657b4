"""`{{ }}` templates in RESPOND, SUMMARY, PROMPT and friends.

Supported: `{{ path }}` with dots and indexes (`{{a.b}}`, `{{items[0].x}}`, `{{a["k"]}}`),
function calls and other expressions (`{{UPPER(name)}}`, evaluated by `abl.expr`),
`{{#if x}}…{{else}}…{{/if}}`, `{{#unless x}}…{{/unless}}`, `{{#each items}}…{{this.f}}…{{/each}}`
(with `{{@index}}`, `{{@key}}`, and an optional `{{else}}` for an empty collection), and
`{{! comments }}`. A single-brace `{x}` is ordinary text.

Rendering never raises on user input and never runs Python code. An unknown or unset variable
renders as empty text and is listed in `RenderResult.missing` (inside an expression, only when
the expression renders empty). Malformed tags and expression errors are listed in
`RenderResult.errors`; a malformed tag stays as literal text, a failed expression renders empty.
Variables the caller marks as sensitive render masked. Output is capped at `MAX_OUTPUT`
characters (the platform's cap on a string result); longer output is cut there and the cut is
listed in `RenderResult.errors`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from abl.expr import UNDEFINED, Call, Environment, Expr, evaluate, names, parse_condition, truthy
from abl.runtime.trace import REDACTED, json_number

MAX_OUTPUT = 100_000

MISSING: Any = UNDEFINED
"""What a lookup returns for an unknown name (the expression layer's `UNDEFINED`)."""

Lookup = Mapping[str, Any] | Callable[[str], Any]
"""Where root names come from: a mapping, or a function returning `MISSING` (`UNDEFINED`) or
raising KeyError for an unknown name."""


@dataclass(frozen=True, slots=True)
class MaskRule:
    """How a sensitive value is shown (`sensitive_display` and `mask_config` in ABL).

    `mask` keeps `show_first`/`show_last` characters and hides the rest with `char`; a value
    too short to hide anything is hidden completely. `redact` and `replace` print `replacement`.
    """

    display: Literal["mask", "redact", "replace"] = "mask"
    show_first: int = 0
    show_last: int = 4
    char: str = "*"
    replacement: str = REDACTED

    def apply(self, text: str) -> str:
        if self.display != "mask":
            return self.replacement
        if not text:
            return text
        first, last = max(self.show_first, 0), max(self.show_last, 0)
        if first + last >= len(text):
            return self.char * len(text)
        tail = text[len(text) - last :] if last else ""
        return text[:first] + self.char * (len(text) - first - last) + tail


@dataclass(frozen=True, slots=True)
class RenderResult:
    text: str
    missing: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def render(
    template: str,
    lookup: Lookup,
    *,
    masks: Mapping[str, MaskRule] | None = None,
    environment: Environment | None = None,
) -> RenderResult:
    """Fill `template` from `lookup`.

    `masks` maps root variable names to the rule used to show them; any value reached
    through such a root (`{{card.number}}`, items of a masked list, an expression that reads
    it) renders masked, except the result of an explicit `MASK(...)` call. `environment`
    gives functions such as `NOW()` their clock (pass the runtime's, for repeatable output).
    """
    nodes, errors = _parsed(template)
    renderer = _Renderer(lookup, masks or {}, list(errors), environment)
    text = renderer.render_nodes(nodes, ())
    if renderer.emitted > MAX_OUTPUT:
        text = text[:MAX_OUTPUT]
        renderer.errors.append(f"the output is longer than {MAX_OUTPUT:,} characters; it was cut there")
    return RenderResult(text=text, missing=renderer.missing, errors=renderer.errors)


def has_placeholders(text: str) -> bool:
    """True when `text` contains at least one `{{ }}` tag."""
    return "{{" in text and "}}" in text


# --- Values as text ---------------------------------------------------------------------------


def format_value(value: Any) -> str:
    """How a value reads inside text: null is empty, booleans are lowercase, 85000.0 is 85000."""
    if value is None or value is MISSING:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return str(json_number(value)) if value != value or value in (float("inf"), float("-inf")) else repr(value)
    if isinstance(value, int):
        return str(json_number(value))
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(item) for item in value)
    if isinstance(value, Mapping):
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return str(value)


def is_truthy(value: Any) -> bool:
    """ABL truthiness (the expression layer's rule): false, 0, "", "false", null, unset, [] and
    {} are false."""
    return truthy(value)


# --- Paths ------------------------------------------------------------------------------------

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_PATH_RE = re.compile(rf"""^(?:@?{_NAME})(?:\.{_NAME}|\[\s*(?:\d+|"[^"]*"|'[^']*')\s*\])*$""")
_SEGMENT_RE = re.compile(rf"""\.({_NAME})|\[\s*(\d+)\s*\]|\[\s*"([^"]*)"\s*\]|\[\s*'([^']*)'\s*\]""")
_ROOT_RE = re.compile(rf"^@?{_NAME}")


def is_path(text: str) -> bool:
    """True when `text` is a plain variable path such as `a.b[0].c`."""
    return bool(_PATH_RE.match(text))


def split_path(text: str) -> tuple[str, list[str | int]]:
    """The root name and the following keys/indexes of a path accepted by `is_path`."""
    root_match = _ROOT_RE.match(text)
    if root_match is None:
        raise ValueError(f"not a variable path: {text!r}")
    root = root_match.group(0)
    steps: list[str | int] = []
    for match in _SEGMENT_RE.finditer(text, root_match.end()):
        name, index, double, single = match.groups()
        if index is not None:
            steps.append(int(index))
        else:
            steps.append(next(part for part in (name, double, single) if part is not None))
    return root, steps


def step_into(value: Any, step: str | int) -> Any:
    """One path step into plain data; `MISSING` when the step does not exist."""
    if value is None or value is MISSING:
        return MISSING
    if isinstance(step, int):
        if isinstance(value, (list, tuple)) and -len(value) <= step < len(value):
            return value[step]
        if isinstance(value, Mapping) and str(step) in value:
            return value[str(step)]
        return MISSING
    if isinstance(value, Mapping):
        return value.get(step, MISSING)
    return MISSING


# --- Parsing ----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Text:
    text: str


@dataclass(slots=True)
class _Output:
    expression: str
    source: str


@dataclass(slots=True)
class _Block:
    kind: Literal["if", "unless", "each"]
    argument: str
    source: str
    body: list[_Node] = field(default_factory=list)
    otherwise: list[_Node] = field(default_factory=list)
    in_else: bool = False


_Node = _Text | _Output | _Block


def _find_tags(template: str) -> list[tuple[int, int, str]]:
    """Every `{{ … }}` tag as (start, end, inner text); quotes inside a tag may hold `}}`.

    An opening `{{` with no closing `}}` before the next `{{` is ordinary text.
    """
    tags: list[tuple[int, int, str]] = []
    pos = 0
    while True:
        start = template.find("{{", pos)
        if start < 0:
            return tags
        inner_start = start + 2
        triple = template.startswith("{", inner_start)
        if triple:
            inner_start += 1
        end, reopened = _closing_braces(template, inner_start)
        if end < 0:
            if reopened < 0:
                return tags
            pos = reopened
            continue
        close_end = end + 2
        if triple and template.startswith("}", close_end):
            close_end += 1
        tags.append((start, close_end, template[inner_start:end].strip()))
        pos = close_end


def _closing_braces(template: str, pos: int) -> tuple[int, int]:
    """(where the tag's `}}` starts, -1), or (-1, where a new `{{` opens first), or (-1, -1)."""
    quote = ""
    index = pos
    while index < len(template):
        char = template[index]
        if quote:
            if char == "\\":
                index += 2
                continue
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif template.startswith("}}", index):
            return index, -1
        elif template.startswith("{{", index):
            return -1, index
        index += 1
    return -1, -1


@lru_cache(maxsize=2048)
def _parsed(template: str) -> tuple[tuple[_Node, ...], tuple[str, ...]]:
    """`_parse`, once per template text (the trees are only read afterwards)."""
    nodes, errors = _parse(template)
    return tuple(nodes), tuple(errors)


def _parse(template: str) -> tuple[list[_Node], list[str]]:
    root: list[_Node] = []
    stack: list[_Block] = []
    errors: list[str] = []

    def current() -> list[_Node]:
        if not stack:
            return root
        block = stack[-1]
        return block.otherwise if block.in_else else block.body

    pos = 0
    for start, end, inner in _find_tags(template):
        if start > pos:
            current().append(_Text(template[pos:start]))
        pos = end
        source = template[start:end]
        if inner.startswith("!"):
            continue
        head, _, rest = inner.partition(" ")
        if head in ("#if", "#unless", "#each"):
            argument = rest.strip()
            if not argument:
                errors.append(f"`{source}` needs a condition or a collection")
            block = _Block(kind=head[1:], argument=argument, source=source)  # type: ignore[arg-type]
            current().append(block)
            stack.append(block)
            continue
        if inner == "else":
            if stack and not stack[-1].in_else:
                stack[-1].in_else = True
            else:
                errors.append("`{{else}}` outside an `{{#if}}`, `{{#unless}}` or `{{#each}}` block")
                current().append(_Text(source))
            continue
        if head in ("/if", "/unless", "/each") and not rest.strip():
            if stack and stack[-1].kind == head[1:]:
                stack.pop()
            else:
                errors.append(f"`{source}` closes a block that is not open")
                current().append(_Text(source))
            continue
        if not inner:
            errors.append("empty `{{ }}` tag")
            current().append(_Text(source))
            continue
        current().append(_Output(expression=inner, source=source))
    if pos < len(template):
        current().append(_Text(template[pos:]))
    errors.extend(f"`{block.source}` is never closed with `{{{{/{block.kind}}}}}`" for block in reversed(stack))
    return root, errors


# --- Rendering --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Frame:
    """The loop variables of one `{{#each}}` iteration."""

    this: Any
    index: int
    key: str | None
    first: bool
    last: bool
    mask: MaskRule | None


class _Renderer:
    """One rendering: the lookup, the masks, and what went missing or wrong on the way."""

    def __init__(
        self, lookup: Lookup, masks: Mapping[str, MaskRule], errors: list[str], environment: Environment | None
    ) -> None:
        self._lookup = lookup
        self._masks = masks
        self._environment = environment
        self.errors = errors
        self.missing: list[str] = []
        self.emitted = 0  # characters of text and output written so far, for the output cap

    def render_nodes(self, nodes: Sequence[_Node], frames: tuple[_Frame, ...]) -> str:
        parts: list[str] = []
        for node in nodes:
            if self.emitted > MAX_OUTPUT:
                break  # the rest would be cut anyway; an `#each` over a long list stops here
            if isinstance(node, _Text):
                piece = node.text
            elif isinstance(node, _Output):
                piece = self._output(node, frames)
            else:
                parts.append(self._block(node, frames))
                continue
            self.emitted += len(piece)
            parts.append(piece)
        return "".join(parts)

    def _output(self, node: _Output, frames: tuple[_Frame, ...]) -> str:
        expression = node.expression
        if is_path(expression):
            value, mask = self.resolve(expression, frames)
            if value is MISSING or value is None:
                self._note_missing(expression)
                return ""
            text = format_value(value)
            return mask.apply(text) if mask is not None else text
        parsed = self._parse_expression(node.source, expression)
        if parsed is None:
            return ""
        result = evaluate(parsed, _FrameScope(self, frames), env=self._environment)
        for problem in result.errors:
            self.errors.append(f"`{node.source}`: {problem.message}")
        text = format_value(result.value)
        if not text:
            # Only an empty result is blamed on unknown names: `COALESCE(nickname, name)`
            # reads a missing name on purpose.
            for name in result.unresolved:
                self._note_missing(name)
            return ""
        mask = self._expression_mask(parsed, frames)
        return mask.apply(text) if mask is not None else text

    def _parse_expression(self, source: str, expression: str) -> Expr | None:
        parsed = parse_condition(expression)
        if parsed.natural_language:
            self.errors.append(f"`{source}`: quoted text is not an expression; write it outside `{{{{ }}}}`")
            return None
        if parsed.expr is None:
            problems = "; ".join(error.message for error in parsed.errors) or "not an expression"
            self.errors.append(f"`{source}`: {problems}")
            return None
        if parsed.errors:
            self.errors.append(f"`{source}`: " + "; ".join(error.message for error in parsed.errors))
            return None
        return parsed.expr

    def _expression_mask(self, expr: Expr, frames: tuple[_Frame, ...]) -> MaskRule | None:
        if isinstance(expr, Call) and expr.target is None and expr.name.upper() == "MASK":
            return None  # The author masked the value already.
        for ref in names(expr):
            _, mask = self.resolve_root(ref.root, frames)
            if mask is not None:
                return mask
        return None

    def _block(self, block: _Block, frames: tuple[_Frame, ...]) -> str:
        if block.kind == "each":
            return self._each(block, frames)
        truth = self._condition(block.argument, frames)
        if block.kind == "unless":
            truth = not truth
        return self.render_nodes(block.body if truth else block.otherwise, frames)

    def _condition(self, argument: str, frames: tuple[_Frame, ...]) -> bool:
        if not argument:
            return False
        if is_path(argument):
            value, _ = self.resolve(argument, frames)
            return is_truthy(value)
        source = f"{{{{#if {argument}}}}}"
        parsed = self._parse_expression(source, argument)
        if parsed is None:
            return False
        result = evaluate(parsed, _FrameScope(self, frames), env=self._environment)
        for problem in result.errors:
            self.errors.append(f"`{source}`: {problem.message}")
        return result.truthy

    def _each(self, block: _Block, frames: tuple[_Frame, ...]) -> str:
        if not is_path(block.argument):
            if block.argument:
                self.errors.append(f"`{block.source}`: `#each` needs a variable path")
            return self.render_nodes(block.otherwise, frames)
        collection, mask = self.resolve(block.argument, frames)
        entries: list[tuple[str | None, Any]]
        if isinstance(collection, (list, tuple)):
            entries = [(None, item) for item in collection]
        elif isinstance(collection, Mapping):
            entries = [(str(key), item) for key, item in collection.items()]
        else:
            entries = []
        if not entries:
            return self.render_nodes(block.otherwise, frames)
        parts: list[str] = []
        for index, (key, item) in enumerate(entries):
            if self.emitted > MAX_OUTPUT:
                break
            frame = _Frame(this=item, index=index, key=key, first=index == 0, last=index == len(entries) - 1, mask=mask)
            parts.append(self.render_nodes(block.body, (*frames, frame)))
        return "".join(parts)

    def resolve(self, path: str, frames: tuple[_Frame, ...]) -> tuple[Any, MaskRule | None]:
        """The value of `path` and the mask that applies to it, innermost loop first."""
        root, steps = split_path(path)
        if steps and not self.in_loop_item(root, frames):
            # A persistent path (`user.home_city`) is one value under its dotted name.
            flat = self.lookup_root(path)
            if flat is not MISSING:
                return flat, self._masks.get(path)
        value, mask = self.resolve_root(root, frames)
        for step in steps:
            value = step_into(value, step)
            if value is MISSING:
                break
        return value, mask

    @staticmethod
    def in_loop_item(root: str, frames: tuple[_Frame, ...]) -> bool:
        """Whether `root` names a loop's own value (`this`, `@index`) or a field of its item."""
        if root == "this" or root.startswith("@"):
            return True
        return any(isinstance(f.this, Mapping) and root in f.this for f in frames)

    def resolve_root(self, root: str, frames: tuple[_Frame, ...]) -> tuple[Any, MaskRule | None]:
        if frames:
            frame = frames[-1]
            specials = {"this": frame.this, "@index": frame.index, "@first": frame.first, "@last": frame.last}
            if frame.key is not None:
                specials["@key"] = frame.key
            if root in specials:
                return specials[root], frame.mask if root == "this" else None
            # Handlebars-style: fields of the current item resolve without `this.`.
            for outer in reversed(frames):
                if isinstance(outer.this, Mapping) and root in outer.this:
                    return outer.this[root], outer.mask
        if root.startswith("@"):
            return MISSING, None
        return self.lookup_root(root), self._masks.get(root)

    def lookup_root(self, name: str) -> Any:
        if isinstance(self._lookup, Mapping):
            return self._lookup.get(name, MISSING)
        try:
            return self._lookup(name)
        except KeyError:
            return MISSING

    def _note_missing(self, name: str) -> None:
        if name not in self.missing:
            self.missing.append(name)


class _FrameScope:
    """Lets the expression evaluator see loop variables and the caller's lookup."""

    def __init__(self, renderer: _Renderer, frames: tuple[_Frame, ...]) -> None:
        self._renderer = renderer
        self._frames = frames

    def lookup(self, path: Sequence[str | int]) -> Any:
        if not path:
            return UNDEFINED
        value, _ = self._renderer.resolve_root(str(path[0]), self._frames)
        for step in path[1:]:
            value = step_into(value, step)
            if value is MISSING:
                break
        return value
