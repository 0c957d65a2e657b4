"""Lines nested under a key that holds a one-line value.

## What it does
Reports `KEY_UNDER_VALUE` on every line indented under an entry written `KEY: value` whose key
takes no keys beside its value (`abl.model.nesting` says which lines the model reads): `WHEN`
two columns deeper than `TO: X`, `REQUIRED: true` under `TYPE: number`, `MAP` under
`action: continue`, a `RESPOND` deeper than its `- WHEN:`.

## Why is this bad?
Nothing reads those lines: the route has no `WHEN`, the field is not required, the map is empty,
and nothing else says so.

## Fix safety
Moving the lines out to the value's own level makes the block around it read them, which
changes what runs: unsafe. It is offered when the lines are keys; a list item or a line of text
has no place beside a key, so there the author decides.
"""

from __future__ import annotations

from abl.checks.context import Check, block_rule
from abl.checks.handoff_text import clipped, indentation, newline_of, reindented
from abl.checks.layout import Block, last_row
from abl.diagnostics import Fix, TextEdit
from abl.model.nesting import ignored_under_value
from abl.syntax.cst import Node, SourceFile
from abl.text import Position, Range


@block_rule("KEY_UNDER_VALUE")
def key_under_value(check: Check, block: Block) -> None:
    source = check.document.source
    moves: dict[int, Fix] = {}  # one fix per entry holding a value, offered on each of its lines
    for holder, line in ignored_under_value(block.node):
        fix = moves.get(id(holder))
        if fix is None and all(child.is_entry for child in holder.children):
            fix = moves[id(holder)] = _move_out(source, holder)
        written = f"`{holder.key}: {clipped(holder.value.strip(), 30)}`"
        what = f"`{line.key}`" if line.is_entry else "this line"
        check.report(
            "KEY_UNDER_VALUE",
            f"{what} is nested under {written}, which holds a value, so nothing reads it; "
            f"write it at the column of `{holder.key}`",
            line.head_range,
            fixes=(fix,) if fix is not None else (),
        )


def _move_out(source: SourceFile, holder: Node) -> Fix:
    """Re-indent every line under `holder` so that the first sits at `holder`'s column, written
    after the indentation of the lines it joins (as the parser measures it, tabs included)."""
    index = source.index
    nested_at = min(child.col for child in holder.children)
    base = indentation(source, holder.row, holder.col)
    start_row, end_row = holder.children[0].row, max(last_row(index, child) for child in holder.children)
    lines = [reindented(index.line_text(row), nested_at, base) for row in range(start_row, end_row + 1)]
    end = Position(end_row, len(index.line_text(end_row)))
    edit = TextEdit(Range(Position(start_row, 0), end), newline_of(source).join(lines))
    return Fix(f"Move the lines under `{holder.key}` out to its level", (edit,), safe=False)
