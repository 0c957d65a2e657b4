"""How much conversation a handoff target receives (seed 000), and what `CONTEXT` hides.

## What it does
Reads every route's history the way the compiler does (`abl.model.history`) and reports:
- `E330`: a block-form history whose `mode` is not a known mode (the compile fails);
- `E331`: a block-form `mode: last_n` without `count` (the compile fails);
- `HISTORY_FALLS_BACK_TO_FULL`: every value the compiler silently turns into `full`
  (one-line `last_n`, one-line unknown words such as `recent`, `count: 0`, a negative or
  non-integer count, a one-line `{ mode: last_n }` map inside `CONTEXT`);
- `HISTORY_LAST_ZERO`: `last_0`, which is valid and sends nothing (`none` says so);
- `HISTORY_NOT_SET`: a route without history (the default applies: `full`, or the project's
  `default-history`);
- `HISTORY_NONE_WITHOUT_CONTEXT`: `none` (or a one-exchange window) with no `PASS`,
  `SUMMARY` or `SET`, so the target starts blind;
- `HANDOFF_SUMMARY_ONLY_WITHOUT_SUMMARY`: `summary_only` with no summary to send;
- `CONTEXT_KEY_IGNORED`: an uppercase key inside `CONTEXT`, which the platform ignores.

## Why is this bad?
A value the compiler does not recognise gives the target the whole conversation without a
word, which is the opposite of what a short window or `none` was meant to do.
`FULL` and `"none"` are not fallbacks: the compiler ignores case and quotes on one line.

## Fix safety
Every fix that picks a window (`last_5`, `none`, a block with `count`) changes what the target
receives, so it is unsafe. Writing `none` for `last_0` keeps what runs and is safe. Inserting the
default where no `HISTORY` is set keeps what runs too, but a default is only a suggestion of what
the author meant, so it is unsafe.
"""

from __future__ import annotations

from abl.checks import fixes
from abl.checks.context import Check, agent_rule
from abl.checks.handoff_text import (
    add_lines_fix,
    find_entry,
    indentation,
    key_column,
    nested_note,
    nested_route_key,
    replace_block_value,
    route_anchor,
)
from abl.diagnostics import Fix
from abl.model import HISTORY_MODES, Agent, HandoffRoute, HistoryForm, HistorySpec
from abl.suggest import did_you_mean
from abl.syntax.cst import Node
from abl.syntax.cst import find_entry as find_child_entry
from abl.syntax.values import ValueKind, read_value
from abl.text import Range
from abl.wording import count

# A window this small holds one exchange at most: the target effectively starts blind.
_BLIND_WINDOW = 2
_CONTEXT_KEYS = ("pass", "summary", "history", "set", "memory_grants")
_MODE_LIST = "`full`, `none`, `summary_only`, `auto` or `last_n`"


@agent_rule("E330", "E331", "HISTORY_FALLS_BACK_TO_FULL", "HISTORY_LAST_ZERO")
def history_values(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        spec = route.history
        if spec is None:
            continue
        if spec.error == "E330":
            _unknown_block_mode(check, spec)
        elif spec.error == "E331":
            _last_n_without_count(check, route, spec)
        elif spec.fallback is not None:
            _falls_back(check, route, spec)
        elif spec.last_zero and spec.written is not None:
            check.report(
                "HISTORY_LAST_ZERO",
                f"`{_key(check, spec)}: {spec.written.raw.strip()}` sends no messages; `none` says that plainly",
                spec.written.range,
                # `last_0` and `none` both copy no messages: same behaviour, clearer word.
                fixes=(fixes.replace("Write `none`", spec.written.range, "none", safe=True),),
            )


@agent_rule("HISTORY_NOT_SET")
def history_not_set(check: Check, agent: Agent) -> None:
    default = check.project.default_history
    for route in agent.handoffs:
        if route.history is not None or route.node is None:
            continue
        target = route.target.text if route.target else "the target"
        offered: list[Fix] = []
        nested = nested_route_key(route, "HISTORY")
        if nested is not None:
            # KEY_UNDER_VALUE's fix moves the written one where it is read; a second would clash.
            check.report(
                "HISTORY_NOT_SET",
                f"the route to {target} reads no `HISTORY`: {nested_note(nested)}, so {target} receives "
                f"{describe_default(default)}",
                route_anchor(route),
            )
            continue
        if not _ignored_history_key(route):
            # Writing the default keeps what runs today, but it is only a suggestion: the author
            # may have meant another window (and a deployment may set another default).
            offered.append(
                add_lines_fix(
                    f"Add `HISTORY: {default}` (the default)",
                    check.document.source,
                    route.node,
                    key_column(route.node),
                    [f"HISTORY: {default}"],
                    safe=False,
                )
            )
        check.report(
            "HISTORY_NOT_SET",
            f"the route to {target} sets no `HISTORY`, so {target} receives {describe_default(default)}; "
            "set `HISTORY` on purpose",
            route_anchor(route),
            fixes=offered,
        )


def describe_default(mode: str) -> str:
    """What a route without `HISTORY` sends, in words, under the project default `mode`."""
    if mode == "full":
        return "the whole conversation (the default, `full`)"
    sends = {
        "none": "no earlier messages",
        "summary_only": "only the route's `SUMMARY`",
        "auto": "the `SUMMARY`, or the last five messages when there is none",
    }
    last = mode.removeprefix("last_")
    what = sends.get(mode) or (
        f"the last {count(int(last), 'message')}" if last.isdigit() else f"the last {last} messages"
    )
    return f"{what} (the project's `default-history`, `{mode}`)"


def _ignored_history_key(route: HandoffRoute) -> bool:
    """An uppercase `HISTORY` inside `CONTEXT`: the author wrote a history, which is ignored."""
    return any(key.text.lower() == "history" for key in route.ignored_context_keys)


@agent_rule("HISTORY_NONE_WITHOUT_CONTEXT", "HANDOFF_SUMMARY_ONLY_WITHOUT_SUMMARY")
def history_leaves_target_blind(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        spec = route.history
        if spec is None:
            _default_leaves_target_blind(check, route)
            continue
        if spec.error is not None or spec.fallback is not None:
            continue
        has_summary = route.summary is not None and route.summary.text.strip() != ""
        target = route.target.text if route.target else "the target"
        where = _value_range(spec)
        if spec.resolved_mode == "summary_only" and not has_summary:
            check.report(
                "HANDOFF_SUMMARY_ONLY_WITHOUT_SUMMARY",
                f"`summary_only` sends only the route's `SUMMARY`, and this route has none: {target} "
                "receives no messages and no summary; add a `SUMMARY`",
                where,
            )
            continue
        if has_summary or route.passes or route.set:
            continue
        if spec.resolved_mode == "none":
            what = "no messages"
        elif (
            spec.resolved_mode == "last_n" and spec.resolved_count is not None and spec.resolved_count <= _BLIND_WINDOW
        ):
            what = f"only the last {spec.resolved_count} message{'s' if spec.resolved_count != 1 else ''}"
        else:
            continue
        if spec.resolved_mode == "last_n" and spec.count is not None:
            where = spec.count.range  # the window that is too small to carry the context
        check.report(
            "HISTORY_NONE_WITHOUT_CONTEXT",
            f"{target} starts blind: the history sends {what}, and the route has no `PASS`, `SUMMARY` "
            "or `SET`; add the fields it needs to `PASS`, or a `SUMMARY`",
            where,
        )


def _default_leaves_target_blind(check: Check, route: HandoffRoute) -> None:
    """A route without `HISTORY` under a project default that sends (almost) nothing."""
    default = check.project.default_history
    if default == "full" or route.node is None:
        return
    has_summary = route.summary is not None and route.summary.text.strip() != ""
    if has_summary or route.passes or route.set:
        return
    count = default.removeprefix("last_")
    if default != "none" and not (count.isdigit() and int(count) <= _BLIND_WINDOW):
        return
    target = route.target.text if route.target else "the target"
    check.report(
        "HISTORY_NONE_WITHOUT_CONTEXT",
        f"{target} starts blind: the route sets no `HISTORY`, so it sends {describe_default(default)}, "
        "and it has no `PASS`, `SUMMARY` or `SET`; add the fields it needs to `PASS`, or a `SUMMARY`",
        route_anchor(route),
    )


@agent_rule("CONTEXT_KEY_IGNORED")
def context_key_ignored(check: Check, agent: Agent) -> None:
    for route in agent.handoffs:
        for key in route.ignored_context_keys:
            lower = key.text.lower()
            if lower not in _CONTEXT_KEYS:
                continue  # not a CONTEXT key in any case; the schema checks report unknown keys
            # Lowercasing makes the platform read a value it ignores today: unsafe.
            fix = fixes.replace(f"Write `{lower}`", key.range, lower, safe=False)
            check.report(
                "CONTEXT_KEY_IGNORED",
                f"`{key.text}` inside `CONTEXT` is ignored: the platform reads only lowercase keys there, "
                f"so this value never reaches the target; write `{lower}`",
                key.range,
                fixes=(fix,),
            )


# --- E330 / E331 ----------------------------------------------------------------------------


def _unknown_block_mode(check: Check, spec: HistorySpec) -> None:
    mode = spec.mode
    if mode is None:
        return
    word = mode.text.strip()
    guess = did_you_mean(word, HISTORY_MODES)
    hint = f"; did you mean `{guess}`" if guess else ""
    options = [m for m in HISTORY_MODES if m != "last_n"]
    if guess in options:
        options.remove(guess)
        options.insert(0, guess)
    # Each mode sends a different amount of conversation, so none of these is safe.
    offered = [fixes.replace(f"Use `mode: {m}`", mode.range, m, safe=False) for m in options]
    check.report(
        "E330",
        f"history mode `{word}` is not a known mode ({_MODE_LIST}); the project does not compile{hint}",
        mode.range,
        fixes=offered,
    )


def _last_n_without_count(check: Check, route: HandoffRoute, spec: HistorySpec) -> None:
    mode = spec.mode
    if mode is None:
        return
    offered: list[Fix] = []
    node = _entry(route, mode.key_range)
    if node is not None:
        # The number is the author's choice of window: unsafe. A `count:` written without a
        # value gets one; another `count` line would only repeat the key.
        written = _sibling_entry(route, node, "count")
        if written is not None:
            offered.append(Fix("Write `count: 5`", (replace_block_value(check.document.source, written, " 5"),), False))
        else:
            offered.append(
                add_lines_fix("Add `count: 5`", check.document.source, node, node.col, ["count: 5"], safe=False)
            )
    check.report(
        "E331",
        "history `mode: last_n` has no `count`; the project does not compile; add `count:` with a positive number",
        mode.range,
        fixes=offered,
    )


# --- silent fallbacks -------------------------------------------------------------------------


def _falls_back(check: Check, route: HandoffRoute, spec: HistorySpec) -> None:
    key = _key(check, spec)
    target = route.target.text if route.target else "the target"
    consequence = f"so {target} receives the whole conversation"
    reason = spec.fallback
    if spec.form is HistoryForm.LINE and spec.written is not None and not spec.written.raw.strip():
        # `HISTORY:` with nothing after it and nothing under it.
        subject, reason = f"`{key}:`", "it has no value"
        advice = "give it a mode"
        # Which mode is meant is the author's call: each changes what the target receives.
        at = spec.written.range
        offered = [fixes.replace(f"Write `{m}`", at, f" {m}", safe=False) for m in ("last_5", "none", "full")]
        where = spec.key_range
    elif spec.form is HistoryForm.LINE and spec.written is not None:
        shown = spec.written.raw.strip()
        subject = f"`{key}: {shown}`"
        advice, offered = _line_advice(check, route, spec)
        where = spec.written.range
    else:
        subject, advice, offered, where = _block_advice(check, route, spec, key)
    check.report(
        "HISTORY_FALLS_BACK_TO_FULL",
        f"{subject} falls back to `full` ({reason}), {consequence}; {advice}",
        where,
        fixes=offered,
    )


def _line_advice(check: Check, route: HandoffRoute, spec: HistorySpec) -> tuple[str, list[Fix]]:
    written = spec.written
    assert written is not None
    word = written.text.strip().lower()
    node = _entry(route, spec.key_range)
    offered: list[Fix] = []
    if word.startswith("{"):
        mode, count = _flow_map_history(written.raw)
        if node is not None:
            offered.append(_block_fix(check, node, mode or "last_n", count or "5"))
        return "write the history as an indented block with `mode:` and `count:`", offered
    if word.startswith("last_"):
        offered.append(fixes.replace("Write `last_5`", written.range, "last_5", safe=False))
        offered.append(fixes.replace("Write `none`", written.range, "none", safe=False))
        if node is not None:
            offered.append(_block_fix(check, node, "last_n", "5"))
        return (
            "write `last_` and a positive number such as `last_5`, or a block with `mode: last_n` and `count`",
            offered,
        )
    words = [m for m in HISTORY_MODES if m != "last_n"]
    guess = did_you_mean(word, words) if word else None
    if guess is not None:
        # A misspelling of `full` already runs as `full`: correcting it keeps what runs.
        offered.append(fixes.replace(f"Write `{guess}`", written.range, guess, safe=guess == "full"))
    offered.extend(
        fixes.replace(f"Write `{choice}`", written.range, choice, safe=False)
        for choice in ("last_5", "none")
        if choice != guess
    )
    hint = f"did you mean `{guess}`? " if guess else ""
    return f"{hint}use {_MODE_LIST.replace('`last_n`', '`last_<n>`')}", offered


def _block_advice(check: Check, route: HandoffRoute, spec: HistorySpec, key: str) -> tuple[str, str, list[Fix], Range]:
    node = _entry(route, spec.key_range)
    count = spec.count
    offered: list[Fix] = []
    if spec.mode is None or count is None:
        subject = f"the `{key}` block"
        return subject, "add `mode:` (and `count:` for `last_n`)", offered, spec.key_range
    raw = count.text.strip()
    subject = f"the `{key}` block with `mode: {spec.mode.text.strip()}` and `count: {raw}`"
    if raw.lstrip("+").isdigit() and int(raw) == 0:
        if node is not None:
            offered.append(
                Fix(f"Write `{key}: none`", (replace_block_value(check.document.source, node, " none"),), False)
            )
        offered.append(fixes.replace("Use `count: 5`", count.range, "5", safe=False))
        return subject, f"to send nothing write `{key}: none`; otherwise use a positive count", offered, count.range
    positive = raw.lstrip("-+")
    if positive.isdigit() and int(positive) > 0:
        offered.append(fixes.replace(f"Use `count: {int(positive)}`", count.range, str(int(positive)), safe=False))
    else:
        offered.append(fixes.replace("Use `count: 5`", count.range, "5", safe=False))
    return subject, "use a positive whole number", offered, count.range


def _block_fix(check: Check, node: Node, mode: str, count: str) -> Fix:
    """Rewrite a one-line history as the indented block the compiler reads."""
    source = check.document.source
    nl = "\r\n" if "\r\n" in source.text else "\n"
    inner = indentation(source, node.row, node.col + 2)
    lines = [f"mode: {mode}"] + ([f"count: {count}"] if mode == "last_n" else [])
    text = "".join(nl + inner + line for line in lines)
    # Which window the author meant is a guess, so the rewrite is unsafe.
    return Fix("Write the history as a block", (replace_block_value(source, node, text),), False)


def _flow_map_history(raw: str) -> tuple[str | None, str | None]:
    """`mode` and `count` from a one-line `{ mode: last_n, count: 4 }`."""
    value = read_value(raw.strip(), 0)
    if value.kind is not ValueKind.MAP:
        return None, None
    mode = count = None
    for k, v in value.pairs:
        if v is None or not v.is_scalar:
            continue
        if k.text.lower() == "mode":
            mode = v.text.strip()
        elif k.text.lower() == "count":
            count = v.text.strip()
    return mode, count


# --- internals --------------------------------------------------------------------------------


def _sibling_entry(route: HandoffRoute, node: Node, key: str) -> Node | None:
    """The entry `key` beside `node` in its block (the later one, which counts), if written."""
    if route.node is None:
        return None
    parent = next((n for n in route.node.walk() if any(c is node for c in n.children)), None)
    return find_child_entry(parent.children, key) if parent is not None else None


def _entry(route: HandoffRoute, key_range: Range | None) -> Node | None:
    if route.node is None or key_range is None:
        return None
    return find_entry(route.node, key_range)


def _key(check: Check, spec: HistorySpec) -> str:
    """The history key as written (`HISTORY`, or `history` inside `CONTEXT`)."""
    r = spec.key_range
    return check.document.source.index.line_text(r.start.line)[r.start.character : r.end.character]


def _value_range(spec: HistorySpec) -> Range:
    if spec.written is not None and spec.written.raw.strip():
        return spec.written.range
    if spec.mode is not None:
        return spec.mode.range
    return spec.key_range
