"""Lower `FLOW` and `ON_START` from the syntax tree into `abl.model.steps` objects, once.

Readers take the file's `Lowering` (for scalars, names, conditions and assignments, with their
ranges) and never raise: a value they cannot read is left out, and the checks say why. Keys are
read without regard to case, as everywhere outside `CONTEXT`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from abl.model.nesting import read_children, read_walk
from abl.model.steps import (
    ACTION_WORDS,
    DETERMINISTIC_STEP_KEYS,
    FLOW_SETTINGS,
    REASONING_STEP_KEYS,
    STEP_KEYS_NOT_RUN,
    Action,
    ActionHandler,
    Assign,
    Branch,
    Call,
    CallSpec,
    Choice,
    Clear,
    Digression,
    ErrorHandler,
    Flow,
    FlowStep,
    Log,
    Move,
    OnStart,
    Reaction,
    Say,
    SubIntent,
    Transform,
    TransformSpec,
    Transition,
)
from abl.model.types import GatherField, Name, Scalar, read_flag
from abl.syntax.cst import Node, find_entry
from abl.syntax.values import split_top_level, unquote
from abl.text import Position, Range

if TYPE_CHECKING:
    from abl.model.lower import _Lowering

# Keys whose one-line value is a step to go to (outside error handlers, which take action words).
TRANSITION_KEYS = frozenset(
    {"THEN", "GOTO", "TRANSITION", "ON_FAIL", "ON_FAILURE", "ON_SUCCESS", "ON_EXHAUSTED", "ON_TIMEOUT", "ON_CANCEL"}
)
_MESSAGE_KEYS = frozenset({"RESPOND", "SAY", "PRESENT"})
_REASON = re.compile(r"REASON\s*:\s*(.*)$", re.I | re.S)
_HANDOFF = re.compile(r"\s*HANDOFF\s+(?:to\s+)?([A-Za-z_]\w*)", re.I)
_CALL_SYNTAX = re.compile(r"\s*([A-Za-z_][\w.]*)\s*\((.*)\)\s*$", re.S)
_NAMED_ARGUMENT = re.compile(r"\s*([A-Za-z_]\w*)\s*(?:=(?!=)|:)\s*(.*)$", re.S)
_DURATION = re.compile(r"(\d+)\s*(ms|s|m|h)?")
_MAX_DURATION_DIGITS = 18
_UNIT_MS = {None: 1, "ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}


def duration_ms(text: str | None) -> int | None:
    """`15000`, `"15s"`, `500ms`, `2m`, `1h` in milliseconds; None when unreadable."""
    if text is None:
        return None
    m = _DURATION.fullmatch(unquote(text)[0].strip().lower())
    if m is None or len(m.group(1)) > _MAX_DURATION_DIGITS:
        return None  # past any wait the runtime keeps (and past what `int` reads at all)
    return int(m.group(1)) * _UNIT_MS[m.group(2)]


def listed_step_names(flow: Node) -> set[str]:
    """The names `steps:` lists, which decide what a column-0 block after the FLOW is."""
    entry = find_entry(read_children(flow), "steps")
    if entry is None:
        return set()
    if entry.has_value and "->" in entry.value:
        return {part.strip() for part in entry.value.split("->") if part.strip()}
    names: set[str] = set()
    if entry.has_value:
        inner = entry.value.strip().strip("[]")
        names.update(unquote(part.strip())[0] for part in inner.split(",") if part.strip())
    for child in read_children(entry):
        content = child.content if child.is_item else None
        if content is not None and content.is_text:
            names.add(unquote(content.value.strip())[0])
    return names


class StepReader:
    """Reads flow steps and `ON_START` with the helpers of one file's lowering."""

    def __init__(self, low: _Lowering) -> None:
        self.low = low
        self.step_names: frozenset[str] = frozenset()

    # --- the flow ------------------------------------------------------------------------

    def flow(self, node: Node, column_zero: list[Node]) -> Flow:
        flow = Flow(node=node)
        step_nodes = [e for e in read_children(node) if e.is_entry and e.key.lower() not in FLOW_SETTINGS]
        step_nodes += column_zero
        self.step_names = frozenset(n.key for n in step_nodes)
        for entry in read_children(node):
            if not entry.is_entry:
                continue
            key = entry.key.lower()
            if key == "entry_point":
                value = self.low.scalar(entry)
                if value is not None and value.text.strip():
                    flow.entry_point = Name(value.text.strip(), value.range)
            elif key == "steps":
                flow.listed_steps.extend(self._listed(entry))
            elif key == "global_digressions":
                flow.global_digressions = tuple(self.digressions(entry))
        # A step written twice is a key set twice: the later one wins and the earlier has no
        # effect (DUPLICATE_KEY), so only the later one is read for what runs and what it declares.
        last = {n.key: n for n in step_nodes}
        for step_node in step_nodes:
            flow.steps.append(Name(step_node.key, step_node.key_range))
            if last[step_node.key] is not step_node:
                continue
            flow.written.append(self.step(step_node))
            self._collect(flow, step_node)
        flow.references = list(_references(node, step_nodes, self.low.pos))
        return flow

    def _listed(self, entry: Node) -> list[Name]:
        if entry.has_value and "->" in entry.value:
            parts = (part.strip() for part in entry.value.split("->"))
            return [Name(part, entry.value_range) for part in parts if part]
        return self.low.names(entry)

    def _collect(self, flow: Flow, step: Node) -> None:
        """What the project can see of a step: the variables it sets, the call and transform
        results it names and the fields it gathers (anywhere inside it)."""
        for n in read_walk(step):
            if not n.is_entry:
                continue
            key = n.key.upper()
            if key == "SET":
                flow.sets.extend(self.low.assignments(n))
            elif key in ("AS", "INTO") and n.has_value:
                v = self.low.scalar(n)
                if v is not None:
                    flow.call_results.append(Name(v.text, v.range))
            elif key == "GATHER" and n is not step:
                flow.gather.extend(self.low.gather_fields(n, in_flow=True))

    def step(self, node: Node) -> FlowStep:
        props = list(read_children(node))
        find = lambda key: find_entry(props, key)  # noqa: E731
        gather_node = find("GATHER")
        goal = self.low.scalar(find("GOAL"))
        behavior = self.low.scalar(find("BEHAVIOR"))
        if behavior is not None and behavior.text.strip():
            text = f"{goal.text.strip()} {behavior.text.strip()}".strip() if goal is not None else behavior.text
            goal = Scalar(text, text, False, (goal or behavior).range)
        fail_node = find("ON_FAIL") or find("ON_FAILURE")
        return FlowStep(
            name=Name(node.key, node.key_range),
            range=node.range(),
            is_block=bool(read_children(node)) or not node.has_value,
            reasoning=self.low.scalar(find("REASONING")),
            declares_reasoning=find("REASONING") is not None,
            when=self.low.condition(find("WHEN")),
            messages=tuple(
                Say(v)
                for e in props
                if e.is_entry and e.key.upper() in _MESSAGE_KEYS
                for v in [self.low.scalar(e)]
                if v is not None
            ),
            gather=tuple(self.low.gather_fields(gather_node, in_flow=True)) if gather_node is not None else (),
            gather_prompt=self.low.scalar(find_entry(read_children(gather_node), "PROMPT"))
            if gather_node is not None
            else None,
            corrections=read_flag(self.low.scalar(find("CORRECTIONS"))) is True,
            complete_when=self.low.condition(find("COMPLETE_WHEN")),
            actions=tuple(self.step_actions(props)),
            check=self.low.condition(find("CHECK")),
            on_fail=self.outcome_of(fail_node),
            on_success=self.outcome_of(find("ON_SUCCESS")),
            on_result=self.outcome_of(find("ON_RESULT")),
            on_input=self.outcome_of(find("ON_INPUT")),
            choices=tuple(self.choices(find("ACTIONS"))),
            on_action=tuple(self.action_handlers(find("ON_ACTION"))),
            digressions=tuple(self.digressions(find("DIGRESSIONS"))),
            sub_intents=tuple(self.sub_intents(find("SUB_INTENTS"))),
            on_error=tuple(self.error_handlers(find("ON_ERROR"))),
            max_attempts=_integer(self.low.scalar(find("MAX_ATTEMPTS"))),
            on_exhausted=self.transition(self.low.scalar(find("ON_EXHAUSTED"))),
            goal=goal,
            available_tools=tuple(self.low.names(find("AVAILABLE_TOOLS"))),
            exit_when=self.low.condition(find("EXIT_WHEN")),
            max_turns=_integer(self.low.scalar(find("MAX_TURNS"))),
            then=self.transition(self.low.scalar(find("THEN") or find("GOTO") or find("TRANSITION"))),
            not_run=tuple(Name(e.key, e.key_range) for e in props if e.is_entry and e.key.upper() in STEP_KEYS_NOT_RUN),
            deterministic_keys=tuple(
                Name(e.key, e.key_range) for e in props if e.is_entry and e.key.upper() in DETERMINISTIC_STEP_KEYS
            ),
            reasoning_keys=tuple(
                Name(e.key, e.key_range) for e in props if e.is_entry and e.key.upper() in REASONING_STEP_KEYS
            ),
        )

    def step_actions(self, props: list[Node]) -> Iterator[Action]:
        """A step's own SET, CALL, TRANSFORM, CLEAR and LOG, in the order written."""
        for entry in props:
            if not entry.is_entry:
                continue
            key = entry.key.upper()
            if key == "SET":
                yield Assign(tuple(self.low.assignments(entry)))
            elif key == "CALL":
                call = self.call(entry, props)
                if call is not None:
                    yield Call(call)
            elif key == "TRANSFORM":
                spec = self.transform(entry)
                if spec is not None:
                    yield Transform(spec)
            elif key == "CLEAR":
                yield Clear(tuple(self.low.names(entry)))
            elif key == "LOG":
                log = self.log(entry)
                if log is not None:
                    yield log

    # --- transitions -------------------------------------------------------------------

    def transition(self, value: Scalar | None) -> Transition | None:
        """Where a one-line `THEN`-like value leads. A step of this flow wins over an action
        word of the same name (a step may be called `complete`)."""
        if value is None:
            return None
        text = value.text.strip()
        if not text:
            return None
        if text in self.step_names:
            return Transition(Move.STEP, value, Name(text, value.range))
        word = text.split(None, 1)[0].rstrip(":,").upper()
        if word == "COMPLETE":
            return Transition(Move.COMPLETE, value)
        if word == "ESCALATE":
            m = _REASON.search(text)
            reason = unquote(m.group(1).strip())[0] if m else None
            return Transition(Move.ESCALATE, value, reason=reason)
        if word == "HANDOFF":
            m = _HANDOFF.match(text)
            if m is None:
                return Transition(Move.HANDOFF, value)
            target = Name(m.group(1), value.part(value.raw.find(m.group(1)), len(m.group(1))))
            return Transition(Move.HANDOFF, value, target)
        for move in (Move.CONTINUE, Move.RETRY_STEP, Move.BACKTRACK, Move.RESUME, Move.END):
            if word == move.value.upper():
                return Transition(move, value)
        if word == "RETRY":
            return Transition(Move.RETRY_STEP, value)
        if word.lower() in ACTION_WORDS:
            return Transition(Move.UNKNOWN, value)
        if len(text.split()) == 1:
            return Transition(Move.STEP, value, Name(text, value.range))
        return Transition(Move.UNKNOWN, value)

    # --- branches and reactions --------------------------------------------------------

    def outcome_of(self, node: Node | None) -> tuple[Branch, ...]:
        """`outcome` of a key that may be missing (no branches then)."""
        return self.outcome(node) if node is not None else ()

    def outcome(self, node: Node) -> tuple[Branch, ...]:
        """`ON_FAIL: step`, a block of actions, or a list of `- IF:` / `- ELSE:` branches."""
        if node.has_value and not node.is_pipe and not read_children(node):
            then = self.transition(self.low.scalar(node))
            return (Branch(None, Reaction(then=then), node.range()),)
        if any(c.is_item for c in read_children(node)):
            return tuple(self.branches(node))
        return (Branch(None, self.reaction(list(read_children(node))), node.range()),)

    def branches(self, node: Node) -> Iterator[Branch]:
        for item in read_children(node):
            content = item.content if item.is_item else None
            if content is None or not content.is_entry:
                continue
            kind = content.key.upper()
            if kind not in ("IF", "WHEN", "ELSE"):
                continue
            props = list(read_children(content)) + read_children(item)[1:]
            condition = self.low.condition(content) if kind != "ELSE" else None
            if kind != "ELSE" and condition is None:
                continue  # `- IF:` with nothing to test never holds; the checker says so
            yield Branch(condition, self.reaction(props), item.range())

    def reaction(self, props: list[Node]) -> Reaction:
        """The actions of a branch or handler in written order, and where it goes next."""
        actions: list[Action] = []
        gather: list[GatherField] = []
        then: Transition | None = None
        for entry in props:
            content = entry.content if entry.is_item else entry
            if content is None:
                continue
            if content.is_text:
                if content.value.strip().upper() == "RESUME":
                    then = Transition(Move.RESUME, Scalar("RESUME", "RESUME", False, content.value_range))
                continue
            key = content.key.upper()
            if key in ("RESPOND", "SAY", "PRESENT"):
                value = self.low.scalar(content)
                if value is not None:
                    actions.append(Say(value))
            elif key == "SET":
                actions.append(Assign(tuple(self.low.assignments(content))))
            elif key == "CLEAR":
                actions.append(Clear(tuple(self.low.names(content))))
            elif key == "CALL":
                call = self.call(content, props)
                if call is not None:
                    actions.append(Call(call))
            elif key == "TRANSFORM":
                spec = self.transform(content)
                if spec is not None:
                    actions.append(Transform(spec))
            elif key == "LOG":
                log = self.log(content)
                if log is not None:
                    actions.append(log)
            elif key == "GATHER":
                gather.extend(self.low.gather_fields(content, in_flow=True))
            elif key in ("THEN", "GOTO", "TRANSITION"):
                then = self.transition(self.low.scalar(content)) or then
            elif key == "RESUME":
                if read_flag(self.low.scalar(content)) is True:
                    then = Transition(Move.RESUME, self.low.scalar(content) or _word("RESUME", content))
            elif key == "COMPLETE":
                if read_flag(self.low.scalar(content)) is not False:
                    then = Transition(Move.COMPLETE, self.low.scalar(content) or _word("COMPLETE", content))
            elif key == "ESCALATE":
                written = self.low.scalar(content)
                reason = self.low.scalar(find_entry(read_children(content), "REASON"))
                then = Transition(
                    Move.ESCALATE,
                    written or _word("ESCALATE", content),
                    reason=reason.text if reason is not None else (written.text if written else None),
                )
            elif key == "HANDOFF":
                target = self.low.scalar(content)
                if target is not None and target.text.strip():
                    then = Transition(Move.HANDOFF, target, Name(target.text.strip(), target.range))
            elif key == "DO":
                nested = self.reaction(list(read_children(content)))
                actions.extend(nested.actions)
                then = nested.then or then
        return Reaction(tuple(actions), then, tuple(gather))

    # --- calls, transforms, logs -------------------------------------------------------

    def call(self, entry: Node, siblings: list[Node]) -> CallSpec | None:
        """`CALL: tool` with `WITH`/`AS` under it or beside it, or `CALL: tool(a = x)`."""
        value = self.low.scalar(entry)
        if value is None or not value.text.strip():
            return None
        text = value.text.strip()
        m = _CALL_SYNTAX.match(text)
        arguments: list[tuple[str | None, str]] = []
        name = text
        if m is not None:
            name = m.group(1)
            for part in split_top_level(m.group(2)):
                if not part.strip():
                    continue
                named = _NAMED_ARGUMENT.match(part)
                if named is not None:
                    arguments.append((named.group(1), named.group(2).strip()))
                else:
                    arguments.append((None, part.strip()))
        else:
            name = text.split()[0]
        with_node = find_entry(read_children(entry), "WITH") or find_entry(siblings, "WITH")
        if with_node is not None:
            arguments.extend(self._with(with_node))
        as_node = find_entry(read_children(entry), "AS") or find_entry(siblings, "AS")
        result = self.low.scalar(as_node)
        tool = Name(name, value.part(value.raw.find(name), len(name)))
        return CallSpec(
            tool, tuple(arguments), Name(result.text.strip(), result.range) if result else None, entry.range()
        )

    def _with(self, node: Node) -> Iterator[tuple[str | None, str]]:
        for key, value, _ in self.low.pairs(node):
            if value is not None:
                yield key.text, value.raw
        for child in read_children(node):
            if child.is_entry and not child.has_value and read_children(child):
                yield child.key, _object_expression(child)
            elif child.is_entry and not child.has_value:
                yield child.key, child.key  # `{name}` shorthand: the variable of the same name

    def transform(self, entry: Node) -> TransformSpec | None:
        """Block form (`SOURCE`, `AS`, `INTO`, stages) or `TRANSFORM: src AS x INTO out` + stages."""
        find = entry.find
        source = item = into_text = None
        into_range = entry.key_range
        if entry.has_value:
            m = re.fullmatch(r"\s*(.+?)\s+AS\s+(\w+)\s+INTO\s+([\w.]+)\s*", entry.value, re.I)
            if m is not None:
                source, item, into_text = m.group(1), m.group(2), m.group(3)
                into_range = entry.value_range
        source_node, as_node, into_node = find("SOURCE"), find("AS"), find("INTO")
        if source_node is not None and source_node.has_value:
            source = source_node.value.strip()
        if as_node is not None and as_node.has_value:
            item = as_node.value.strip()
        if into_node is not None and into_node.has_value:
            into_text, into_range = into_node.value.strip(), into_node.value_range
        if not source:
            return None
        map_node = find("MAP")
        fields: list[tuple[str, str]] = []
        expression = None
        if map_node is not None:
            if map_node.has_value and not read_children(map_node):
                expression = map_node.value.strip()
            else:
                fields = [(k.text, v.raw) for k, v, _ in self.low.pairs(map_node) if v is not None]
        sort_node = self.low.scalar(find("SORT_BY"))
        sort_by, descending = None, False
        if sort_node is not None and sort_node.text.strip():
            words = sort_node.text.split()
            sort_by = words[0]
            descending = len(words) > 1 and words[1].lower() == "desc"
        return TransformSpec(
            source=source,
            item=item or "item",
            into=Name(into_text, into_range) if into_text else None,
            filter=self.low.condition(find("FILTER")),
            map=tuple(fields),
            map_expression=expression,
            sort_by=sort_by,
            descending=descending,
            limit=_integer(self.low.scalar(find("LIMIT"))),
            range=entry.range(),
        )

    def log(self, entry: Node) -> Log | None:
        value = self.low.scalar(entry)
        if value is not None:
            return Log(value, "info")
        message = self.low.scalar(find_entry(read_children(entry), "MESSAGE"))
        level = self.low.scalar(find_entry(read_children(entry), "LEVEL"))
        return Log(message, level.lower if level is not None else "info") if message is not None else None

    # --- digressions, sub-intents, buttons, error handlers -----------------------------

    def digressions(self, node: Node | None) -> Iterator[Digression]:
        for item, props in _items(node):
            intent = self.low.scalar(find_entry(props, "INTENT"))
            if intent is None or not intent.text.strip():
                continue
            yield Digression(
                intent=intent.text.strip(),
                keywords=tuple(n.text for n in self.low.names(find_entry(props, "KEYWORDS"))),
                condition=self.low.condition(find_entry(props, "CONDITION")),
                reaction=self.reaction(props),
                returns=(returned := self.low.scalar(find_entry(props, "RETURN"))) is not None
                and returned.raw.strip() == "true",
                range=item.range(),
            )

    def sub_intents(self, node: Node | None) -> Iterator[SubIntent]:
        for item, props in _items(node):
            intent = self.low.scalar(find_entry(props, "INTENT"))
            if intent is None or not intent.text.strip():
                continue
            resume = read_flag(self.low.scalar(find_entry(props, "RESUME")))
            reaction = self.reaction([p for p in props if not (p.is_entry and p.key.upper() == "RESUME")])
            yield SubIntent(intent.text.strip(), reaction, resume is not False, item.range())

    def choices(self, node: Node | None) -> Iterator[Choice]:
        for _, props in _items(node):
            values = {e.key.lower(): self.low.scalar(e) for e in props if e.is_entry}
            kind, label = "button", None
            for element in ("button", "select", "input"):
                if values.get(element) is not None:
                    kind, label = element, values[element]
            written_kind = values.get("type")
            if written_kind is not None:
                kind = written_kind.lower
            label = values.get("label") or label
            ident = values.get("id") or values.get("value") or label
            if ident is None:
                continue
            value = values.get("value")
            options = []
            for _, option in _items(find_entry(props, "OPTIONS")):
                found = {e.key.lower(): self.low.scalar(e) for e in option if e.is_entry}
                option_id = found.get("id") or found.get("value") or found.get("label")
                if option_id is not None:
                    shown = found.get("label") or option_id
                    options.append((option_id.text, shown.text))
            yield Choice(ident.text, kind, (label or ident).text, value.text if value else None, tuple(options))

    def action_handlers(self, node: Node | None) -> Iterator[ActionHandler]:
        if node is None:
            return
        if any(c.is_item for c in read_children(node)):
            for item, props in _items(node):
                action = self.low.scalar(find_entry(props, "ACTION", "ACTION_ID"))
                if action is None:
                    continue
                rest = [p for p in props if not (p.is_entry and p.key.upper() in ("ACTION", "ACTION_ID", "CONDITION"))]
                yield ActionHandler(
                    action.text, self.low.condition(find_entry(props, "CONDITION")), self.reaction(rest), item.range()
                )
            return
        for entry in read_children(node):  # the map form, keyed by action id
            if entry.is_entry:
                props = list(read_children(entry))
                rest = [p for p in props if not (p.is_entry and p.key.upper() == "CONDITION")]
                yield ActionHandler(
                    unquote(entry.key)[0],
                    self.low.condition(find_entry(props, "CONDITION")),
                    self.reaction(rest),
                    entry.range(),
                )

    def error_handlers(self, node: Node | None) -> Iterator[ErrorHandler]:
        """`ON_ERROR` keyed by error type (a block or a one-line action), or `- TYPE:` items."""
        if node is None:
            return
        for child in read_children(node):
            if child.is_item:
                content = child.content
                if content is None:
                    continue
                props = list(read_children(content)) + read_children(child)[1:]
                kind = self.low.scalar(find_entry([content, *props], "TYPE"))
                if kind is not None:
                    yield self._error_handler(kind.text.strip(), props, child)
            elif child.is_entry:
                if child.has_value and not read_children(child):
                    then = self.transition(self.low.scalar(child))
                    yield ErrorHandler(child.key, (), Reaction(then=then), 0, 0, "fixed", None, None, child.range())
                else:
                    yield self._error_handler(child.key, list(read_children(child)), child)

    def _error_handler(self, kind: str, props: list[Node], node: Node) -> ErrorHandler:
        find = lambda key: find_entry(props, key)  # noqa: E731
        subtypes = self.low.names(find("SUBTYPES") or find("SUBTYPE"))
        reaction = self.reaction([p for p in props if not (p.is_entry and p.key.upper() in ("THEN", "RETRY"))])
        then = self.transition(self.low.scalar(find("THEN")))
        target = self.low.scalar(find("HANDOFF_TARGET"))
        if then is not None and then.move is Move.HANDOFF and then.target is None and target is not None:
            then = Transition(Move.HANDOFF, then.value, Name(target.text.strip(), target.range))
        backtrack = self.low.scalar(find("BACKTRACK_TO"))
        backoff = self.low.scalar(find("RETRY_BACKOFF"))
        return ErrorHandler(
            type=kind,
            subtypes=tuple(n.text for n in subtypes),
            reaction=Reaction(reaction.actions, then or reaction.then, reaction.gather),
            retry=_integer(self.low.scalar(find("RETRY"))) or 0,
            retry_delay_ms=duration_ms(_raw(self.low.scalar(find("RETRY_DELAY")))) or 0,
            backoff=backoff.lower if backoff is not None else "fixed",
            max_delay_ms=duration_ms(_raw(self.low.scalar(find("RETRY_MAX_DELAY")))),
            backtrack_to=Name(backtrack.text.strip(), backtrack.range) if backtrack is not None else None,
            range=node.range(),
        )

    # --- ON_START ----------------------------------------------------------------------

    def on_start(self, node: Node) -> OnStart:
        props = list(read_children(node))
        actions: list[Action] = []
        calls: list[Name] = []
        for entry in props:
            if not entry.is_entry:
                continue
            key = entry.key.upper()
            if key == "SET":
                actions.append(Assign(tuple(self.low.assignments(entry))))
            elif key == "CALL":
                call = self.call(entry, _following(props, entry))
                if call is not None:
                    actions.append(Call(call))
                    calls.append(call.tool)
        branches = find_entry(props, "BRANCHES")
        return OnStart(
            node.key_range,
            tuple(a for action in actions if isinstance(action, Assign) for a in action.assignments),
            self.low.scalar(find_entry(props, "RESPOND")),
            tuple(calls),
            tuple(actions),
            tuple(self.branches(branches)) if branches is not None else (),
            tuple(Name(e.key, e.key_range) for e in props if e.is_entry and e.key.upper() == "DELEGATE"),
        )


# --- step references, for the checker -------------------------------------------------------


def _references(flow: Node, steps: list[Node], pos: Callable[[int], Position]) -> Iterator[tuple[str, Name]]:
    """Every step name written in the flow: `entry_point`, `steps` and one-line transitions."""
    for entry in read_children(flow):
        if not entry.is_entry:
            continue
        key = entry.key.lower()
        if key == "entry_point" and entry.has_value:
            yield from _named(entry, entry.value, entry.value_range)
        elif key == "steps":
            yield from _step_list(entry, pos)
        elif key == "global_digressions":
            yield from _transitions(entry)
    for step in steps:
        yield from _transitions(step)


def _step_list(entry: Node, pos: Callable[[int], Position]) -> Iterator[tuple[str, Name]]:
    if entry.has_value:
        text = entry.value
        if "->" in text:
            parts = text.split("->")
        else:
            inner = text.strip()
            if not (inner.startswith("[") and inner.endswith("]")):
                return
            parts = inner[1:-1].split(",")
        offset = 0
        for part in parts:
            at = text.find(part, offset)
            offset = at + len(part)
            word = part.strip()
            if not word:
                continue
            # Through the file's positions: a list left open runs on over the next lines.
            first = entry.value_start + at + part.find(word)
            name, _ = unquote(word)
            yield entry.key, Name(name, Range(pos(first), pos(first + len(word))))
    for child in read_children(entry):
        content = child.content if child.is_item else None
        if content is not None and content.is_text:
            name, _ = unquote(content.value.strip())
            yield entry.key, Name(name, content.value_range)


def _transitions(node: Node) -> Iterator[tuple[str, Name]]:
    for child in read_children(node):
        if child.is_entry and child.key.upper() == "ON_ERROR":
            continue  # error handlers take action words only
        if child.is_entry and child.key.upper() in TRANSITION_KEYS and child.has_value and not child.is_pipe:
            yield from _named(child, child.value, child.value_range)
        yield from _transitions(child)


def _named(node: Node, value: str, where: Range) -> Iterator[tuple[str, Name]]:
    """The step a one-line value names, if it names one (not an action, a message or a template)."""
    text = value.strip()
    if not text or text[0] in "\"'{[" or "{{" in text or "$" in text:
        return
    word = text.split()[0].rstrip(":,")
    if word.lower() in ACTION_WORDS or not word.replace("_", "").replace("-", "").isalnum():
        return
    if len(text.split()) > 1:
        return  # a phrase (`ESCALATE with REASON: ...`), not a step name
    yield node.key, Name(word, Range(where.start, Position(where.start.line, where.start.character + len(word))))


# --- small readers ----------------------------------------------------------------------------


def _items(node: Node | None) -> Iterator[tuple[Node, list[Node]]]:
    """The `- ` items of a list block, each with its properties (the content's and the item's)."""
    if node is None:
        return
    for item in read_children(node):
        if not item.is_item:
            continue
        content = item.content
        if content is None:
            yield item, list(read_children(item))
        elif content.is_entry:
            yield item, [content, *read_children(content), *read_children(item)[1:]]
        else:
            yield item, list(read_children(item))


def _following(props: list[Node], entry: Node) -> list[Node]:
    """The entries after `entry` up to the next `CALL` (where a call's `WITH` and `AS` sit)."""
    out: list[Node] = []
    after = False
    for node in props:
        if node is entry:
            after = True
            continue
        if after:
            if node.is_entry and node.key.upper() == "CALL":
                break
            out.append(node)
    return out


def _object_expression(node: Node) -> str:
    """A nested `WITH` block as an object literal expression: `{a: x, b: {c: y}}`."""
    parts = []
    for child in read_children(node):
        if not child.is_entry:
            continue
        if read_children(child) and not child.has_value:
            parts.append(f"{child.key}: {_object_expression(child)}")
        elif child.has_value:
            parts.append(f"{child.key}: {child.value.strip()}")
    return "{" + ", ".join(parts) + "}"


def _integer(value: Scalar | None) -> int | None:
    if value is None:
        return None
    text = value.text.strip()
    return int(text) if text.isdigit() else None


def _raw(value: Scalar | None) -> str | None:
    return value.text if value is not None else None


def _word(word: str, node: Node) -> Scalar:
    return Scalar(word, word, False, node.key_range)
