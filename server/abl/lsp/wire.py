"""Published diagnostics on the wire: each one serialised once, then reused while it holds.

Every new version of an open file is published again with all of its diagnostics, and a large
file holds a thousand or more. Building lsprotocol objects for all of them, unstructuring them
and encoding the JSON on every keystroke cost more than the analysis itself. The analysis keeps
an untouched agent's findings as the same objects from edit to edit, so a diagnostic object is
written as the JSON text it had the last time, as long as its ranges read the same in the
client's position encoding (the text before them may have changed).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import sys
from collections.abc import Callable
from typing import Any

from abl.ide import Diagnostic, common_prefix, common_suffix
from abl.lsp.convert import Positions, PositionsFor, diagnostic

log = logging.getLogger("abl.lsp")

# Writes still in flight, referenced until they finish.
_sending: set[asyncio.Future[Any]] = set()

_Entry = tuple[Diagnostic, tuple[int, ...], str]


# What a diagnostic without related places is written as, but for its range: its code,
# severity (by identity: an enum member hashes in Python, and a thousand are looked up a
# publish), message and number of fixes.
_TailKey = tuple[str, int, str, int]


class DiagnosticWire:
    """The JSON text of each published diagnostic, per file, for the diagnostics published last."""

    def __init__(self, unstructure: Callable[[Any], Any]) -> None:
        self._unstructure = unstructure
        self._by_path: dict[str, dict[int, _Entry]] = {}
        # Each file's text and line counts (the analysis's, the client's) when last published.
        self._texts: dict[str, tuple[str, int, int]] = {}
        # Per file, the JSON that follows the range of a diagnostic without related places, by
        # what it is made of (`_TailKey`): a line added above moves every finding below it, each
        # a new object written as before but for its range.
        self._tails: dict[str, dict[_TailKey, str]] = {}

    def fragments(self, path: str, diags: list[Diagnostic], here: Positions, other: PositionsFor) -> list[str]:
        kept = self._by_path.get(path, {})
        tails = self._tails.setdefault(path, {})
        above, below = _unchanged_rows(self._texts.get(path), here)
        now: dict[int, _Entry] = {}
        out: list[str] = []
        # An ASCII text on the client's lines (the usual one) has one unit per character: a
        # range reads as it is, clamped to its lines, which are measured without a copy.
        length = here.index.line_length if here.is_plain else None
        for d in diags:
            entry = kept.get(id(d))
            if entry is not None and entry[0] is d and not d.related:
                # The same object on rows whose text did not change reads the same to the
                # client: no need to measure its ranges again (a thousand diagnostics a publish).
                r = d.range
                if r.end.line < above or r.start.line > below:
                    now[id(d)] = entry
                    out.append(entry[2])
                    continue
            if length is not None and not d.related:
                (start_line, start_character), (end_line, end_character) = d.range
                on_start_line = length(start_line)
                on_end_line = on_start_line if end_line == start_line else length(end_line)
                where: tuple[int, ...] = (
                    start_line,
                    start_character if start_character < on_start_line else on_start_line,
                    end_line,
                    end_character if end_character < on_end_line else on_end_line,
                )
            else:
                where = _client_ranges(d, here, other)
            if entry is None or entry[0] is not d or entry[1] != where:
                entry = (d, where, self._written(d, where, tails, here, other))
            now[id(d)] = entry
            out.append(entry[2])
        self._by_path[path] = now  # only what is on the client now is kept
        self._texts[path] = (here.index.text, here.index.line_count, here.client_line_count)
        if len(tails) > 4 * len(diags) + 64:
            tails.clear()  # findings gone for good: what is written next starts them again
        return out

    def _written(
        self, d: Diagnostic, where: tuple[int, ...], tails: dict[_TailKey, str], here: Positions, other: PositionsFor
    ) -> str:
        """The JSON text of `d`, whose ranges the client reads as `where`."""
        if d.related:
            return json.dumps(self._unstructure(diagnostic(d, here, other)))
        key = (d.code, id(d.severity), d.message, len(d.fixes))
        tail = tails.get(key)
        if tail is not None:
            return _RANGE_FIRST.format(*where) + tail
        text = json.dumps(self._unstructure(diagnostic(d, here, other)))
        head = _RANGE_FIRST.format(*where)
        if text.startswith(head):  # the range is written first, as lsprotocol lists it
            tails[key] = text[len(head) :]
        return text

    def forget(self, path: str) -> None:
        self._by_path.pop(path, None)
        self._texts.pop(path, None)
        self._tails.pop(path, None)


# How `json.dumps` writes a diagnostic's opening range (client lines and characters).
_RANGE_FIRST = '{{"range": {{"start": {{"line": {}, "character": {}}}, "end": {{"line": {}, "character": {}}}}}'


_NONE_BELOW = sys.maxsize  # no row is below it: not even one past the end of the text


def _unchanged_rows(published: tuple[str, int, int] | None, here: Positions) -> tuple[int, int]:
    """Rows of the text that read as they did when `published` (text, line counts), at the same
    row numbers for the analysis and the client: those above the first value and those below
    the second."""
    index = here.index
    text = index.text
    if published is None:
        return 0, _NONE_BELOW
    before, lines_before, client_lines_before = published
    if before is text or before == text:
        return index.line_count, -1  # every row, even one past the end, reads as it did
    prefix = common_prefix(before, text)
    first = index.position(prefix).line  # every row above ends inside the shared start
    if lines_before != index.line_count or client_lines_before != here.client_line_count:
        return first, _NONE_BELOW  # the rows below the edit have new numbers
    changed_end = len(text) - common_suffix(before, text, prefix)
    return first, index.position(max(changed_end, prefix)).line


def _client_ranges(d: Diagnostic, here: Positions, other: PositionsFor) -> tuple[int, ...]:
    """The diagnostic's ranges as the client counts them, flattened to numbers: the client's
    lines too, which a lone `\r` (a line break to the client only) sets apart from the analysis's."""
    key = [*here.client_place(d.range.start), *here.client_place(d.range.end)]
    for path, where, _ in d.related:
        there = other(path)
        key += [*there.client_place(where.start), *there.client_place(where.end)]
    return tuple(key)


def publish_body(uri: str, version: int | None, fragments: list[str]) -> str:
    """A `textDocument/publishDiagnostics` notification, as pygls would encode it (ASCII JSON)."""
    params = f'{{"uri": {json.dumps(uri)}, "diagnostics": [{", ".join(fragments)}]'
    if version is not None:
        params += f', "version": {int(version)}'
    return f'{{"method": "textDocument/publishDiagnostics", "jsonrpc": "2.0", "params": {params}}}}}'


def write_message(protocol: Any, body: str) -> None:
    """Write one JSON-RPC message on pygls's transport, framed as pygls frames its own."""
    writer = protocol.writer
    if writer is None:
        log.error("no transport to send diagnostics on")
        return
    payload = body.encode(protocol.CHARSET)
    if protocol._include_headers:  # False only on a websocket, which frames messages itself
        header = f"Content-Length: {len(payload)}\r\nContent-Type: {protocol.CONTENT_TYPE}; charset={protocol.CHARSET}\r\n\r\n"
        payload = header.encode("ascii") + payload
    written = writer.write(payload)
    if inspect.isawaitable(written):  # a websocket writer; stdio and TCP write at once
        sending = asyncio.ensure_future(written)
        _sending.add(sending)
        sending.add_done_callback(_sending.discard)
