"""Top-level sections: unknown, repeated, removed, misspelt in case, misplaced, or missing.

## What it does
Resolves every column-0 block of a file against the keyword catalogue (`abl.schema`) and reports:
- `UNKNOWN_SECTION`: a keyword the catalogue does not know, or one that belongs to another kind
  of document, with "did you mean" from the catalogue;
- `DUPLICATE_SECTION`: the same section twice in one document;
- `REMOVED_KEYWORD`: a section the catalogue marks as removed (`Key.removed`);
- `SECTION_KEYWORD_CASE`: a known section not written in the catalogue's spelling;
- `ROUTING_NOT_EXECUTED`: a section the catalogue marks as parsed but never run;
- `SECTION_OUTSIDE_AGENT`: a section above the first document header;
- `FLOW_STEP_AT_COLUMN_ZERO`: a column-0 block read as a FLOW step (DESIGN.md's decision);
- `MISSING_GOAL`: a required section absent from an agent or supervisor.

Nothing here names a keyword: what a section is, and what its flags mean, comes from the catalogue.

## Why is this bad?
The platform rejects unknown, removed and misplaced sections; a section in the wrong case or a
step at column 0 only works with a lenient parser; a second block of one section is lost.

## Fix safety
Uppercasing a keyword and indenting a column-0 step keep how this tool reads the file: safe.
Moving a removed key's value to its new place is safe too (the author named the value).
Replacing an unknown name with a suggestion, or moving a stray section under a header, makes
text take effect that did not before: unsafe.
"""

from __future__ import annotations

from abl.checks import fixes
from abl.checks.context import Check, agent_rule, block_rule, document_rule
from abl.checks.handoff_text import indentation
from abl.checks.layout import Block, Placement, block_end, document_kind, last_row, notable_blocks
from abl.diagnostics import Fix, TextEdit
from abl.model import Agent
from abl.schema import lookup
from abl.schema.types import AGENT_DOCUMENTS, DocumentKind, Section
from abl.syntax.cst import Node
from abl.syntax.scanner import indent_width
from abl.text import Position, Range

_KIND_WORDS = {
    DocumentKind.AGENT: "an agent",
    DocumentKind.SUPERVISOR: "a supervisor",
    DocumentKind.BEHAVIOR_PROFILE: "a behavior profile",
    DocumentKind.TOOLS_LIBRARY: "a tool library",
}


def _headers() -> str:
    names = [f"`{s.name}:`" for s in lookup.all_sections() if s.opens in AGENT_DOCUMENTS]
    return " or ".join(names)


@block_rule("UNKNOWN_SECTION")
def unknown_section(check: Check, block: Block) -> None:
    if block.placement in (Placement.HEADER, Placement.FLOW_STEP):
        return
    node = block.node
    if block.match is None:
        suggestion = lookup.suggest_section(node.key, block.document)
        where = f" of {_KIND_WORDS[block.document]} document" if block.document else ""
        message = f"unknown section `{node.key}`{where}; the platform rejects the file"
        found: tuple[Fix, ...] = ()
        if suggestion is not None:
            message += f"; did you mean `{suggestion}`?"
            found = (fixes.replace(f"Replace with `{suggestion}`", node.key_range, suggestion, safe=False),)
        check.report("UNKNOWN_SECTION", message, node.key_range, found)
    elif not block.match.allowed and block.document is not None:
        owners = sorted(_KIND_WORDS[k] for k in block.match.section.documents if k in _KIND_WORDS)
        check.report(
            "UNKNOWN_SECTION",
            f"`{node.key}` is a section of {' or '.join(owners)} document, not of "
            f"{_KIND_WORDS[block.document]} document; the platform rejects it here",
            node.key_range,
        )


@document_rule("DUPLICATE_SECTION")
def duplicate_section(check: Check) -> None:
    # An agent's blocks follow one another: the sections seen are those of the current agent.
    # (Run over every block of a file at every keystroke, so each block costs one lookup.)
    owner: Agent | None = None
    seen: dict[int, Block] = {}  # id of a catalogue section → its first block in the agent
    for _, block in notable_blocks(check.document):
        match = block.match
        if match is None or block.placement is not Placement.SECTION or block.agent is None:
            continue
        if block.agent is not owner:
            owner, seen = block.agent, {}
        first = seen.setdefault(id(match.section), block)
        if first is block or match.section.key.repeatable:
            continue
        node = block.node
        line = first.node.row + 1
        check.report(
            "DUPLICATE_SECTION",
            f"`{node.key}` already appears on line {line} of `{block.agent.name.text}`; "
            "write its entries in one block, since the platform does not merge two",
            node.key_range,
            related=((check.document.path, first.node.key_range, f"first `{first.node.key}` block"),),
        )


@document_rule("REMOVED_KEYWORD")
def removed_keyword(check: Check) -> None:
    for _, block in notable_blocks(check.document):
        if block.match is None or block.placement is Placement.FLOW_STEP:
            continue
        key = block.match.section.key
        if key.removed is None:
            continue
        fix = _move_removed_value(check, block)
        check.report("REMOVED_KEYWORD", key.removed, block.node.key_range, (fix,) if fix else ())


@block_rule("SECTION_KEYWORD_CASE")
def section_keyword_case(check: Check, block: Block) -> None:
    match = block.match
    if match is None or match.canonical_case or block.placement is Placement.FLOW_STEP:
        return
    if not check.document.path.endswith(".abl"):
        return
    node = block.node
    check.report(
        "SECTION_KEYWORD_CASE",
        f"section keyword `{node.key}` is read as `{match.spelling}`, but `.abl` files write "
        f"section keywords in uppercase and a strict parser rejects `{node.key}`",
        node.key_range,
        (fixes.replace(f"Write `{match.spelling}`", node.key_range, match.spelling, safe=True),),
    )


@block_rule("ROUTING_NOT_EXECUTED")
def section_not_executed(check: Check, block: Block) -> None:
    if block.match is None or block.match.section.key.not_executed is None:
        return
    check.report("ROUTING_NOT_EXECUTED", block.match.section.key.not_executed, block.node.key_range)


@document_rule("SECTION_OUTSIDE_AGENT")
def section_outside_agent(check: Check) -> None:
    headers = [a.header for a in check.document.agents]
    for _, block in notable_blocks(check.document):
        if block.placement is not Placement.STRAY or block.match is None:
            continue
        if block.match.section.key.ignored is not None or block.match.section.key.removed is not None:
            continue  # accepted-and-ignored sections are harmless; removed ones have their own code
        node = block.node
        move = _move_below(check, block, headers[0]) if headers else None
        check.report(
            "SECTION_OUTSIDE_AGENT",
            f"`{node.key}` comes before the first {_headers()} line, so it belongs to no agent "
            "and the platform rejects it; move it below the header of the agent it is for",
            node.key_range,
            (move,) if move else (),
        )


@document_rule("FLOW_STEP_AT_COLUMN_ZERO")
def flow_step_at_column_zero(check: Check) -> None:
    doc = check.document
    # Each column-0 node's predecessor: a line between two blocks that is no `KEY:` entry (a
    # stray word) is no block itself, yet an indented step would nest under it. Made on the
    # first step found: most files have none, and a large file has thousands of nodes.
    before: dict[int, Node | None] = {}
    # Column-0 steps right below the FLOW, one after the other, which the fix indents together;
    # empty once a step does not follow the FLOW, so that none below it is indented under
    # whatever it follows instead (indented, it would nest there, and a fix of that would
    # move it back out).
    run: list[Block] = []
    for previous, block in notable_blocks(doc):
        if block.placement is Placement.FLOW_STEP and block.agent is not None:
            node = block.node
            if not before:
                nodes = doc.source.nodes
                before = {id(n): nodes[i - 1] if i else None for i, n in enumerate(nodes)}
            adjacent = previous is not None and before[id(node)] is previous.node
            after_step = previous is not None and previous.placement is Placement.FLOW_STEP
            if after_step:
                follows = adjacent and bool(run) and run[-1] is previous and previous.agent is block.agent
            else:
                follows = adjacent and _follows_flow(block, previous)
            run = ([*run, block] if after_step else [block]) if follows else []
            fix = _indent_fix(check, run) if follows and not _would_repeat(run) else None
            check.report(
                "FLOW_STEP_AT_COLUMN_ZERO",
                f"step `{node.key}` is written at column 0; it is read as a step of the FLOW above "
                "because `steps` lists it, but a strict parser reads it as an unknown section: "
                "indent it under the FLOW",
                node.key_range,
                (fix,) if fix else (),
            )


@agent_rule("MISSING_GOAL")
def missing_required_section(check: Check, agent: Agent) -> None:
    kind = document_kind(agent)
    if kind not in AGENT_DOCUMENTS:
        return
    present: set[int] = set()
    for node in agent.sections:
        found = lookup.section(node.key, kind)
        if found is not None:
            present.add(id(found.section))
    for section in lookup.sections_for(kind):
        if not section.key.required or section.opens is not None or id(section) in present:
            continue
        where = agent.name.range if agent.name.text else agent.header.key_range
        check.report(
            "MISSING_GOAL",
            f"`{agent.name.text or agent.header.key}` has no `{section.name}`; the platform rejects "
            f"{_KIND_WORDS[kind]} without one",
            where,
        )


# --- quick fixes ---------------------------------------------------------------------------------


def _move_removed_value(check: Check, block: Block) -> Fix | None:
    """Moves the value of a removed one-line section to the place the catalogue names
    (`replaced_by`, a `SECTION.key` path), creating that section when the document lacks it."""
    key = block.match.section.key if block.match else None
    node = block.node
    if key is None or key.replaced_by is None or block.agent is None or node.children or node.is_pipe:
        return None
    parts = key.replaced_by.split(".")
    if len(parts) != 2 or not node.has_value:
        return None
    section_name, child_name = parts
    index = check.document.source.index
    nl = "\r\n" if "\r\n" in check.document.source.text else "\n"
    line = Range(index.position(node.start), index.position(block_end(node)))
    target = _section_node(block.agent, section_name, document_kind(block.agent))
    value = node.value.strip()
    if target is None:
        text = f"{section_name}:{nl}  {child_name}: {value}{nl}"
        return fixes.replace(f"Move the value to `{section_name}: {child_name}:`", line, text, safe=True)
    column = target.children[0].col if target.children else 2
    at = index.position(target.end)
    entry = f"{indentation(check.document.source, max(at.line - 1, target.row), column)}{child_name}: {value}{nl}"
    return Fix(
        f"Move the value to `{section_name}: {child_name}:`",
        (TextEdit(line, ""), TextEdit(Range(at, at), entry)),
        True,
    )


def _section_node(agent: Agent, name: str, kind: DocumentKind):
    wanted: Section | None = None
    found = lookup.section(name, kind)
    if found is not None:
        wanted = found.section
    for node in agent.sections:
        match = lookup.section(node.key, kind)
        if match is not None and wanted is not None and match.section is wanted:
            return node
    return None


def _move_below(check: Check, block: Block, header) -> Fix | None:
    """Cuts the stray block and pastes it right after the first header line."""
    index = check.document.source.index
    text = check.document.source.text
    node = block.node
    if header.row < node.row:
        return None
    start, end = node.start, block_end(node)
    body = text[start:end]
    nl = "\r\n" if "\r\n" in text else "\n"
    if not body.endswith("\n"):
        body += nl
    at = index.position(block_end(header))
    if at.character != 0:  # the header is the file's last line, without a line break
        body = nl + body
    return Fix(
        "Move below the first header",
        # Every stray block goes below the header in the same pass, in the order they were in.
        (TextEdit(Range(index.position(start), index.position(end)), ""), TextEdit(Range(at, at), body, stacks=True)),
        False,
    )


def _follows_flow(block: Block, previous: Block | None) -> bool:
    """Indenting the block attaches it to the section above it, which must be this agent's FLOW
    (a column-0 step above it counts when it follows the FLOW in turn, as the caller knows)."""
    if previous is None or previous.agent is not block.agent or block.agent is None:
        return False
    flow = block.agent.flow
    return flow is not None and flow.node is previous.node


def _would_repeat(run: list[Block]) -> bool:
    """Whether indenting the run would write one key twice under the FLOW (a step of the same
    name is there already, or twice in the run): the fix would then bring a `DUPLICATE_KEY`."""
    flow = run[0].agent.flow if run[0].agent is not None else None
    keys = [n.key.lower() for n in flow.node.children if n.is_entry] if flow is not None and flow.node else []
    keys += [block.node.key.lower() for block in run]
    return len(keys) != len(set(keys))


def _indent_fix(check: Check, run: list[Block]) -> Fix:
    """Indent the step and the column-0 steps between it and the FLOW: indented alone, a later
    step would nest under the column-0 step above it instead of under the FLOW."""
    index = check.document.source.index
    # As deep as what the FLOW already holds, so that the step becomes its sibling, not its child;
    # written as those lines are (a tab stays a tab, so the nesting reads the same at any width).
    flow = run[0].agent.flow.node if run[0].agent is not None and run[0].agent.flow is not None else None
    indent = "  "
    if flow is not None and flow.children:
        first = index.line_text(flow.children[0].row)
        indent = first[: len(first) - len(first.lstrip(" \t"))] or indent
    edits: list[TextEdit] = []
    for block in run:
        node = block.node
        for row in range(node.row, last_row(index, node) + 1):
            line = index.line_text(row)
            if not line.strip():
                continue
            # Written again after the FLOW's indentation, each line as deep past it as it was
            # (a prefix alone moves a line that starts with a tab nowhere: the tab still ends at 8).
            written = len(line) - len(line.lstrip(" \t"))
            edits.append(TextEdit(Range(Position(row, 0), Position(row, written)), indent + " " * indent_width(line)))
    return Fix(f"Indent `{run[-1].node.key}` under the FLOW", tuple(edits), True)
