"""Re-read a file after an edit, keeping the trees of the top-level blocks that did not change.

A column-0 line (not blank, not a comment) always starts a new top-level node: pipe blocks and
open brackets only swallow lines indented deeper than their entry, and nothing is shallower than
column 0. So the text splits, without parsing, into *segments*: from one column-0 line up to the
next (the first segment starts at offset 0). Each segment holds one top-level node followed by the
blank and comment lines that will lead the next node, and reading a segment on its own gives the
same tree, at shifted positions, as reading it inside the file. The only context a segment can see
is whether it is at the start of the file (a byte-order mark, an indented first line), and the
file-wide rule that only the first TAB_INDENTATION warning is reported; both are handled below.

A segment whose text is unchanged keeps its nodes (the same objects); their offsets, and their rows
when lines were added or removed above, move with the block's anchor (`cst.Anchor`: nodes store
positions relative to it), so a moved block costs the same whatever its size (`TopBlock.row_shift`
records the move, so the model can tell that ranges built from the block are stale). A segment whose node's own text is unchanged but whose trailing comment and blank
lines differ is scanned (not parsed) to confirm the new lines leave the node as it was, then
carried over the same way. Other segments are read on their own. The result equals
`parse(new_text)` in every observable way (tree, dump, diagnostics, `to_text`); only the
per-block records of `TopBlock` may know more (a tab warning the file does not show).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from itertools import pairwise

from lark.exceptions import LarkError

from abl.diagnostics import Diagnostic, moved_diagnostic
from abl.gcpause import paused_gc
from abl.syntax.cst import Node, NodeKind, SourceFile, TopBlock, Trivia, block_end
from abl.syntax.parser import build_tree, parse, top_level_problem
from abl.syntax.scanner import ScanResult, scan
from abl.text import LineIndex, common_prefix, common_suffix

# A line break followed by a line that starts a top-level node: not indented, not a comment,
# not blank (a lone `\r` before the line break counts as blank, as in the scanner).
_BLOCK_LINE = re.compile(r"\n(?=[^ \t#\n\r]|\r[^\n])")
# A segment reads the same at any offset when its first character is an ordinary column-0
# character; at offset 0 the scanner skips a byte-order mark and flags an indented first line.
_MOVABLE_FIRST = re.compile(r"[^ \t#\n\r\ufeff]")
# Reading more than this share of the segments one by one costs more than one full parse.
_MOST_SEGMENTS = 0.5
_FEW_SEGMENTS = 8
_BLANK = " \t\r\n"

TAB_CODE = "TAB_INDENTATION"

log = logging.getLogger(__name__)


def reparse(old: SourceFile, new_text: str) -> SourceFile:
    """Parse `new_text`, reusing the nodes of `old`'s unchanged top-level blocks.

    `old` gives its reused nodes to the new tree (they are moved to their new positions), so
    read the old tree no further after this call. Never raises; falls back to `parse`.
    """
    with paused_gc():
        try:
            return _reparse(old, new_text)
        except Exception:  # a bug here must cost speed, not the tree: read the file whole
            log.exception("incremental reparse failed; parsing the whole file")
            return parse(new_text)


def _reparse(old: SourceFile, new_text: str) -> SourceFile:
    inside = _edit_inside_one_block(old, new_text)
    if inside is not None:
        return inside
    previous = _old_segments(old)
    if previous is None:
        return parse(new_text)
    starts = block_starts(new_text)
    plan = _match(old, previous, new_text, starts)
    fresh = sum(1 for p in plan if p.old is None)
    if fresh > _FEW_SEGMENTS and fresh > _MOST_SEGMENTS * len(plan):
        return parse(new_text)
    index = LineIndex(new_text)
    pieces: list[_Piece] = []
    for step in plan:
        row = index.position(step.start).line
        if step.old is None:
            piece = _read(new_text, step, row)
        elif step.verify:
            piece = _carry_if_same(old, step, row, new_text)
        else:
            piece = _carry(old, step, row)
        if piece is None:
            return parse(new_text)
        pieces.append(piece)
    _move_carried(pieces, new_text)
    return _assemble(new_text, index, pieces)


# --- the keystroke: one block changed, the rest moved ---------------------------------------


def _edit_inside_one_block(old: SourceFile, new_text: str) -> SourceFile | None:
    """The common edit, done without matching segments: the change lies inside one segment
    (not its first line's first character's context, not its last line end) and leaves it one
    segment. That segment is read again; the blocks before it stay, the blocks after it are
    moved. None when the edit is of another kind (the general path then handles it)."""
    nodes, blocks, old_text = old.nodes, old.blocks, old.text
    if len(nodes) < 2 or len(blocks) != len(nodes):
        return None
    if old.blocks_whole is None:
        old.blocks_whole = all(b.diagnostics is not None and not b.tabs_unread for b in blocks)
    if not old.blocks_whole:
        return None
    prefix = common_prefix(old_text, new_text)
    old_end = len(old_text) - common_suffix(old_text, new_text, prefix)
    changed = (prefix, old_end)  # the change as the comparison finds it, before any sliding
    prefix, old_end = _slid_off_block_start(nodes, old_text, new_text, prefix, old_end)
    k = _segment_at(nodes, prefix)
    if k < 1:
        return None  # the file's first segment has a context of its own (BOM, leading lines)
    start = nodes[k].start
    end = nodes[k + 1].start if k + 1 < len(nodes) else len(old_text)
    if nodes[k].col != 0 or nodes[k].line_start != start or old_end > end - 1:
        return None  # the edit reaches the line end that closes the segment (or beyond)
    delta = len(new_text) - len(old_text)
    new_end = end + delta
    if not _MOVABLE_FIRST.match(new_text, start) or new_text.startswith("\ufeff", start):
        return None  # the segment's first line no longer starts a block
    body = new_text[start:new_end]
    if _BLOCK_LINE.search(body) is not None:
        return None  # a new column-0 line: the edit split the segment
    index = old.index.spliced(*changed, new_text[changed[0] : changed[1] + delta], new_text)
    row = nodes[k].row
    piece = _blank_lines_after(nodes[k], old_text, new_text, changed, _Step(start, new_end, None))
    if piece is None:
        piece = _read(new_text, _Step(start, new_end, None), row)
    if piece is None or piece.node is None:
        return None
    row_shift = index.line_count - old.index.line_count
    new_nodes = [*nodes[:k], piece.node, *nodes[k + 1 :]]
    piece.node.leading = nodes[k].leading
    for node in nodes[:k]:
        _move(node, 0, 0, new_text, own_leading=True)
    for j in range(k + 1, len(nodes)):
        _move(nodes[j], delta, row_shift, new_text, own_leading=j > k + 1)
    trailing = old.trailing
    if k + 1 < len(nodes):
        nodes[k + 1].leading = piece.tail
        _move_trivia(trailing, delta, row_shift)
    else:
        trailing = piece.tail
    # The old tree is given up: its block records are updated in place. A block's `row_shift`
    # says how it moved in this reparse, so those before the edit go back to 0, which they
    # already are unless the last reparse moved rows.
    if old.rows_moved or row_shift:
        for j in range(k):
            blocks[j].row_shift = 0
        for j in range(k + 1, len(blocks)):
            block = blocks[j]
            block.row_shift = row_shift
            if row_shift and block.diagnostics:  # a list for every block here (`blocks_whole`)
                block.diagnostics = [_shift_diagnostic(d, row_shift) for d in block.diagnostics]
    new_blocks = blocks.copy()
    new_blocks[k] = TopBlock(piece.node, _block_text(new_text, piece.node), piece.diagnostics, False, 0)
    if k + 1 < len(blocks):
        new_blocks[k + 1].text = _block_text(new_text, new_blocks[k + 1].node)
    diagnostics = [d for block in new_blocks for d in block.diagnostics or ()]
    if any(d.code == TAB_CODE for d in diagnostics):
        diagnostics = _first_tab_warning_only(diagnostics)
    entry = NodeKind.ENTRY
    for node in new_nodes:
        if node.kind is not entry:  # a column-0 line must be a section
            problem = top_level_problem(node)
            if problem is not None:
                diagnostics.append(problem)
    source = SourceFile(new_text, new_nodes, trailing, diagnostics, index)
    source.blocks = new_blocks
    source.rows_moved = bool(row_shift) and k + 1 < len(blocks)
    source.edited_block = k
    source.edited_from = id(old)
    source.blocks_whole = True
    return source


def _blank_lines_after(
    node: Node, old_text: str, new_text: str, changed: tuple[int, int], step: _Step
) -> _Piece | None:
    """The segment's node itself, kept, when the edit only added or took away blank space after
    its lines (Enter at the end of a section) and a scan shows its lines as they were: later
    layers then see the very node, only the blocks below it moved. None otherwise."""
    prefix, old_end = changed
    inserted_end = old_end + len(new_text) - len(old_text)
    if old_text[prefix:old_end].strip(_BLANK) or new_text[prefix:inserted_end].strip(_BLANK):
        return None
    if prefix < block_end(node):
        return None
    scanned = scan(new_text[step.start : step.end])
    if not _same_lines(list(node.walk()), scanned.nodes, step.start, node.row, own_leading=False):
        return None
    _move(node, 0, 0, new_text, own_leading=False)
    tail = [Trivia(t.kind, t.row + node.row, t.start + step.start, t.end + step.start) for t in scanned.trailing]
    diagnostics = [_shift_diagnostic(d, node.row) for d in scanned.diagnostics]
    return _Piece(step.start, step.end, node, tail, diagnostics)


def _slid_off_block_start(
    nodes: list[Node], old_text: str, new_text: str, prefix: int, old_end: int
) -> tuple[int, int]:
    """The same edit one character earlier, when it touches the start of a segment and can be
    read so.

    Enter at the end of a line inserts a line break before the one that ends it; comparing the
    texts places the insertion after that line break instead, at the start of the next segment,
    where it would split it (and taking an empty line away again ends at that start). Both
    readings give the same text when the changed characters, removed and inserted, end with the
    character before them; the earlier one keeps the edit inside the segment above. Only for
    blank space: a line with text inserted there (a comment) leads the block below, and reading
    it so keeps the block above as it was."""
    if prefix == 0 or old_end >= len(old_text):
        return prefix, old_end
    at_start = nodes[_segment_at(nodes, prefix)].start == prefix
    if not at_start and nodes[_segment_at(nodes, old_end)].start != old_end:
        return prefix, old_end
    before = old_text[prefix - 1]
    inserted_end = old_end + len(new_text) - len(old_text)
    if old_end == prefix and inserted_end == prefix:
        return prefix, old_end
    if old_end > prefix and old_text[old_end - 1] != before:
        return prefix, old_end
    if inserted_end > prefix and new_text[inserted_end - 1] != before:
        return prefix, old_end
    if old_text[prefix:old_end].strip(_BLANK) or new_text[prefix:inserted_end].strip(_BLANK):
        return prefix, old_end
    return prefix - 1, old_end - 1


def _first_tab_warning_only(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """A file reports its first TAB_INDENTATION warning only."""
    out: list[Diagnostic] = []
    warned = False
    for d in diagnostics:
        if d.code == TAB_CODE:
            if warned:
                continue
            warned = True
        out.append(d)
    return out


def _segment_at(nodes: list[Node], offset: int) -> int:
    """The index of the top-level node whose segment holds `offset` (its own text and the
    lines after it up to the next node)."""
    lo, hi = 0, len(nodes)
    while lo < hi:
        mid = (lo + hi) // 2
        if nodes[mid].start <= offset:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


def _move_trivia(trivia: list[Trivia], shift: int, row_shift: int) -> None:
    for t in trivia:
        t.row += row_shift
        t.start += shift
        t.end += shift


def block_starts(text: str) -> list[int]:
    """Offsets where segments start: 0, and every line that starts a top-level node."""
    return [0] + [m.end() for m in _BLOCK_LINE.finditer(text)]


# --- the old tree as segments -----------------------------------------------------------


@dataclass(slots=True)
class _OldSegment:
    start: int
    end: int
    node: int  # index into old.nodes / old.blocks; -1 for leading trivia only
    body_end: int = -1  # where the node's own text ends and the trivia after it begin


def _old_segments(old: SourceFile) -> list[_OldSegment] | None:
    """The old file's segments, or None when its tree was not built block by block.

    In a tree built block by block, every top-level node after the first starts a column-0
    line; the first may follow comment lines (then those lines are a segment of their own) or
    be the file's indented first line.
    """
    nodes = old.nodes
    blocks = old.blocks
    if not nodes or len(blocks) != len(nodes):
        return None
    text = old.text
    first = nodes[0]
    out: list[_OldSegment] = []
    if first.start > 0 and first.start == first.line_start and _BLOCK_LINE.match(text, first.start - 1) is not None:
        out.append(_OldSegment(0, first.start, -1))  # comments and blank lines before it
        out.append(_OldSegment(first.start, -1, 0))
    else:
        out.append(_OldSegment(0, -1, 0))
    for k in range(1, len(nodes)):
        node = nodes[k]
        if node.start != node.line_start or node.col != 0:
            return None  # not a tree this module can split
        out.append(_OldSegment(node.start, -1, k))
    for k, block in enumerate(blocks):
        if block.node is not nodes[k] or block.diagnostics is None:
            return None
    for this, nxt in pairwise(out):
        this.end = nxt.start
    out[-1].end = len(text)
    last = len(nodes) - 1
    for seg in out:
        if seg.node >= 0:
            after = nodes[seg.node + 1].leading if seg.node < last else old.trailing
            seg.body_end = after[0].start if after else seg.end
    return out


# --- matching new segments to old ones --------------------------------------------------


@dataclass(slots=True)
class _Step:
    start: int
    end: int
    old: _OldSegment | None  # carried over from this old segment, or read afresh
    # The old node's own text is unchanged but the lines after it differ: carry it over only if
    # scanning the new segment shows the same lines (the new lines could extend the node).
    verify: bool = False


def _match(old: SourceFile, previous: list[_OldSegment], new_text: str, starts: list[int]) -> list[_Step]:
    """Pair each new segment with an old segment of the same text that may move to its place.

    Tried first: the old segment at the same offset (before the edit) or at the same distance
    from the end (after it), and the old segment that follows the one matched last; so repeated
    blocks keep their own trees. Then such a nearby old segment whose node's text starts the new
    segment, carried over if a scan shows the lines after it did not change the node. Failing
    that, any unused old segment with the same text.
    """
    old_text = old.text
    delta = len(new_text) - len(old_text)
    prefix = common_prefix(old_text, new_text)
    suffix_from = len(new_text) - common_suffix(old_text, new_text, prefix)
    by_start: dict[int, int] = {}
    by_length: dict[int, list[int]] = {}
    for k, seg in enumerate(previous):
        if seg.node >= 0:
            by_start[seg.start] = k
            by_length.setdefault(seg.end - seg.start, []).append(k)
    used: set[int] = set()
    plan: list[_Step] = []
    ends = [*starts[1:], len(new_text)]
    last = -1
    for start, end in zip(starts, ends, strict=True):
        # Inside the unchanged head or tail of the file, equal bounds mean equal text.
        placed = (
            by_start.get(start) if start < prefix else by_start.get(start - delta) if start >= suffix_from else None
        )
        if placed is not None and placed not in used:
            seg = previous[placed]
            same = end <= prefix and seg.end == end if start < prefix else seg.end == end - delta
            if same and ((seg.start == 0) == (start == 0) or _MOVABLE_FIRST.match(new_text, start)):
                used.add(placed)
                last = placed
                plan.append(_Step(start, end, seg))
                continue
        chosen, verify = _match_changed(old_text, previous, new_text, start, end, placed, last, used, by_length)
        if chosen is not None:
            used.add(chosen)
            last = chosen
        plan.append(_Step(start, end, previous[chosen] if chosen is not None else None, verify))
    return plan


def _match_changed(
    old_text: str,
    previous: list[_OldSegment],
    new_text: str,
    start: int,
    end: int,
    placed: int | None,
    last: int,
    used: set[int],
    by_length: dict[int, list[int]],
) -> tuple[int | None, bool]:
    """The old segment for a new segment near or inside the edit: (index, must verify)."""
    body = new_text[start:end]
    near: list[int] = [placed] if placed is not None else []
    if 0 <= last + 1 < len(previous) and last + 1 != placed and previous[last + 1].node >= 0:
        near.append(last + 1)
    near = [k for k in near if k not in used and _may_move(previous[k].start, start, body)]
    for k in near:
        if old_text[previous[k].start : previous[k].end] == body:
            return k, False
    # The nearby node with other lines after it comes before a distant segment of the same
    # text: taking a repeated block's twin from further down would shift every twin below it
    # onto its neighbour's node, and later layers would see all of them as changed.
    for k in near:
        seg = previous[k]
        if new_text.startswith(old_text[seg.start : seg.body_end], start):
            return k, True
    for k in by_length.get(len(body), ()):
        seg = previous[k]
        if k not in used and _may_move(seg.start, start, body) and old_text[seg.start : seg.end] == body:
            return k, False
    return None, False


def _may_move(old_start: int, new_start: int, body: str) -> bool:
    return (old_start == 0) == (new_start == 0) or _MOVABLE_FIRST.match(body) is not None


# --- one segment each ------------------------------------------------------------------


@dataclass(slots=True)
class _Piece:
    """One new segment: its node (if any), the trivia after it, and its scanner diagnostics."""

    start: int
    end: int
    node: Node | None
    tail: list[Trivia]
    diagnostics: list[Diagnostic]
    tabs_unread: bool = False
    # For a carried node: how far to move it, and whether it owns its `leading` trivia.
    shift: int = 0
    row_shift: int = 0
    carried: bool = False
    own_leading: bool = False  # its `leading` holds trivia read inside the segment itself


def _read(text: str, step: _Step, row: int, scanned: ScanResult | None = None) -> _Piece | None:
    """Read one segment on its own and place it at its offset and row. None: fall back."""
    if scanned is None:
        body = text[step.start : step.end]
        if step.start > 0 and body.startswith("\ufeff"):
            return None  # read on its own, the mark would be taken for the file's byte-order mark
        scanned = scan(body)
    try:
        nodes = build_tree(scanned)
    except LarkError:
        return None
    if len(nodes) > 1 or (not nodes and step.start > 0):
        return None  # not the shape this module relies on
    node = nodes[0] if nodes else None
    if node is not None:
        _move(node, step.start, row, text, own_leading=True)
    tail = [Trivia(t.kind, t.row + row, t.start + step.start, t.end + step.start) for t in scanned.trailing]
    diagnostics = [_shift_diagnostic(d, row) for d in scanned.diagnostics]
    return _Piece(step.start, step.end, node, tail, diagnostics, own_leading=True)


def _carry_if_same(old: SourceFile, step: _Step, row: int, text: str) -> _Piece | None:
    """Scan the new segment; if it holds the old node's lines unchanged, carry the old node over
    with the new trailing trivia, else build the new tree from the scan."""
    seg = step.old
    assert seg is not None
    if step.start > 0 and text.startswith("\ufeff", step.start):
        return None  # read on its own, the mark would be taken for the file's byte-order mark
    scanned = scan(text[step.start : step.end])
    node = old.nodes[seg.node]
    first_row = 0 if seg.start == 0 else node.row
    if not _same_lines(list(node.walk()), scanned.nodes, seg.start, first_row, own_leading=seg.start == 0):
        return _read(text, step, row, scanned)
    piece = _carry(old, step, row)
    piece.tail = [Trivia(t.kind, t.row + row, t.start + step.start, t.end + step.start) for t in scanned.trailing]
    piece.diagnostics = [_shift_diagnostic(d, row) for d in scanned.diagnostics]
    piece.tabs_unread = False
    return piece


def _same_lines(old: list[Node], new: list[Node], base: int, base_row: int, own_leading: bool) -> bool:
    """Whether freshly scanned nodes (at offset 0, row 0) are the old nodes read at `base`."""
    if len(old) != len(new):
        return False
    for k, (a, b) in enumerate(zip(old, new, strict=True)):
        if (
            a.kind is not b.kind
            or a.col != b.col
            or a.row - base_row != b.row
            or a.line_start - base != b.line_start
            or a.start - base != b.start
            or a.end - base != b.end
            or a.value_start - base != b.value_start
            or a.value_end - base != b.value_end
            or (a.comment_start - base if a.comment_start >= 0 else -1) != b.comment_start
            or (a.pipe_end_row - base_row if a.pipe_end_row >= 0 else -1) != b.pipe_end_row
        ):
            return False
        if a.kind is not NodeKind.ITEM and (
            a.value_end_row - base_row != b.value_end_row or a.value_end_char != b.value_end_char
        ):
            return False
        if a.kind is NodeKind.ENTRY and (
            a.key != b.key or a.key_start - base != b.key_start or a.key_end - base != b.key_end
        ):
            return False
        if (k > 0 or own_leading) and _trivia_from(a.leading, base, base_row) != _trivia_from(b.leading, 0, 0):
            return False
    return True


def _trivia_from(trivia: list[Trivia], base: int, base_row: int) -> list[tuple[object, int, int, int]]:
    """Kind, row and offsets of each trivia line, counted from `base` and `base_row`."""
    return [(t.kind, t.row - base_row, t.start - base, t.end - base) for t in trivia]


def _carry(old: SourceFile, step: _Step, row: int) -> _Piece:
    """Take an unchanged old segment over; its nodes are moved later, once all reading is done."""
    seg = step.old
    assert seg is not None
    k = seg.node
    node = old.nodes[k]
    block = old.blocks[k]
    shift = step.start - seg.start
    first_row = 0 if seg.start == 0 else node.row
    row_shift = row - first_row
    after = old.nodes[k + 1].leading if k + 1 < len(old.nodes) else old.trailing
    if shift or row_shift:
        tail = [Trivia(t.kind, t.row + row_shift, t.start + shift, t.end + shift) for t in after]
    else:
        tail = after  # the old tree is given up, so its unmoved lists can be taken as they are
    diagnostics = block.diagnostics or []
    if row_shift:
        diagnostics = [_shift_diagnostic(d, row_shift) for d in diagnostics]
    return _Piece(
        step.start,
        step.end,
        node,
        tail,
        diagnostics,
        tabs_unread=block.tabs_unread,
        shift=shift,
        row_shift=row_shift,
        carried=True,
        own_leading=seg.start == 0,
    )


def _move_carried(pieces: list[_Piece], text: str) -> None:
    for piece in pieces:
        if piece.carried and piece.node is not None:
            _move(piece.node, piece.shift, piece.row_shift, text, own_leading=piece.own_leading)


def _move(node: Node, shift: int, row_shift: int, text: str, own_leading: bool) -> None:
    """Move a top-level tree by `shift` offsets and `row_shift` rows and point it at `text`.

    Its nodes count from the block's anchor, so the anchor moves and they follow; only the
    trivia lines inside the block (usually none) and, when `own_leading`, those leading it are
    moved one by one. A moved tree is indistinguishable from a freshly read one.
    """
    anchor = node.anchor
    anchor.text = text
    if shift or row_shift:
        anchor.offset += shift
        anchor.row += row_shift
        if anchor.trivia:
            _move_trivia(anchor.trivia, shift, row_shift)
        if own_leading:
            _move_trivia(node.leading, shift, row_shift)


# --- putting the file together -----------------------------------------------------------


def _assemble(text: str, index: LineIndex, pieces: list[_Piece]) -> SourceFile:
    nodes: list[Node] = []
    owners: list[_Piece] = []
    pending: list[Trivia] = []
    for piece in pieces:
        if piece.node is not None:
            # The trivia after the previous node lead this one; a node read at the start of the
            # file also keeps the trivia it found before itself.
            if not piece.own_leading:
                piece.node.leading = pending
            elif pending:
                piece.node.leading = pending + piece.node.leading
            nodes.append(piece.node)
            owners.append(piece)
            pending = list(piece.tail)
        else:
            pending = pending + piece.tail
    diagnostics = _scanner_diagnostics(text, owners)
    for node in nodes:
        problem = top_level_problem(node)
        if problem is not None:
            diagnostics.append(problem)
    source = SourceFile(text, nodes, pending, diagnostics, index)
    source.blocks = [
        TopBlock(
            piece.node,  # type: ignore[arg-type]
            _block_text(text, piece.node),  # type: ignore[arg-type]
            piece.diagnostics,
            piece.tabs_unread,
            piece.row_shift if piece.carried else 0,
        )
        for piece in owners
    ]
    source.rows_moved = any(block.row_shift for block in source.blocks)
    return source


def _scanner_diagnostics(text: str, owners: list[_Piece]) -> list[Diagnostic]:
    """Every block's diagnostics in order, with the file's single tab warning."""
    out: list[Diagnostic] = []
    warned = False
    for piece in owners:
        if piece.tabs_unread and not warned:
            _read_tab_warning(text, piece)
        warned = warned or any(d.code == TAB_CODE for d in piece.diagnostics)
        out.extend(piece.diagnostics)
    return _first_tab_warning_only(out)


def _read_tab_warning(text: str, piece: _Piece) -> None:
    """A carried block's tab warning was never computed: scan it on its own to find out."""
    assert piece.node is not None
    row = piece.node.row if piece.start > 0 else 0
    scanned = scan(text[piece.start : piece.end])
    piece.diagnostics = [_shift_diagnostic(d, row) for d in scanned.diagnostics]
    piece.tabs_unread = False


def _block_text(text: str, node: Node) -> str:
    start = node.leading[0].start if node.leading else node.start
    last = node
    while last.children:
        last = last.children[-1]
    return text[start : last.end]


def _shift_diagnostic(d: Diagnostic, rows: int) -> Diagnostic:
    return moved_diagnostic(d, rows) if rows else d
