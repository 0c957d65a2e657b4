"""An editor's copy of a document, kept as a client keeps it, to hold the server's copy to.

`ClientBuffer` splits lines one character at a time at the protocol's line breaks (`\n`,
`\r\n`, `\r`) and counts characters in UTF-16, deliberately sharing no code with the server's
`ProtocolLines` and position conversion. `typed_edits` makes the incremental changes an editor
sends while someone types, pastes and deletes, with the characters other line models break at.
"""

from __future__ import annotations

import random

from lsprotocol import types as lsp

# What is typed: ABL, line breaks of every kind, and the characters `str.splitlines` breaks at.
TYPED = [
    "a",
    "true",
    "_income",
    " ",
    ":",
    "- TO: B\n",
    "GOAL: x",
    "😀",
    "\n",
    "\r\n",
    "\r",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x1d",
    "\x1e",
    "\x85",
    "\u2028",
    "\u2029",
    "",
]


class ClientBuffer:
    """A document as an editor holds it: lines and their breaks, positions in UTF-16 units."""

    def __init__(self, text: str) -> None:
        self.text = text

    def lines(self) -> list[str]:
        """Each line's content, without its break."""
        lines, current, i = [], [], 0
        while i < len(self.text):
            ch = self.text[i]
            if ch in "\r\n":
                lines.append("".join(current))
                current = []
                i += 2 if self.text[i : i + 2] == "\r\n" else 1
                continue
            current.append(ch)
            i += 1
        lines.append("".join(current))
        return lines

    def offset(self, position: lsp.Position) -> int:
        """Where a position falls in the text: past the end of a line is its end, past the last
        line is the end of the text."""
        lines = self.lines()
        if position.line >= len(lines):
            return len(self.text)
        offset = 0
        for number in range(position.line):
            offset += len(lines[number])
            offset += 2 if self.text[offset : offset + 2] == "\r\n" else 1
        units = 0
        for ch in lines[position.line]:
            if units >= position.character:
                break
            units += 2 if ord(ch) > 0xFFFF else 1
            offset += 1
        return offset

    def position(self, offset: int) -> lsp.Position:
        """The position of an offset that is not inside a `\r\n`."""
        line = 0
        character = 0
        i = 0
        while i < offset:
            ch = self.text[i]
            if ch in "\r\n":
                line += 1
                character = 0
                i += 2 if self.text[i : i + 2] == "\r\n" else 1
                continue
            character += 2 if ord(ch) > 0xFFFF else 1
            i += 1
        return lsp.Position(line, character)

    def apply(self, change: lsp.TextDocumentContentChangePartial) -> None:
        start, end = self.offset(change.range.start), self.offset(change.range.end)
        self.text = self.text[:start] + change.text + self.text[max(start, end) :]


def typed_edits(buffer: ClientBuffer, rng: random.Random) -> lsp.TextDocumentContentChangePartial:
    """One change an editor could send for `buffer`: typing, pasting or deleting, at a place
    inside the text or, now and then, past a line's end or past the last line."""
    lines = buffer.lines()

    def somewhere() -> lsp.Position:  # never inside a surrogate pair, as no editor sends one
        line = rng.randrange(len(lines) + (1 if rng.random() < 0.05 else 0))
        content = lines[line] if line < len(lines) else ""
        at = rng.randrange(len(content) + (3 if rng.random() < 0.1 else 1))
        units = sum(2 if ord(ch) > 0xFFFF else 1 for ch in content[:at]) + max(0, at - len(content))
        return lsp.Position(line, units)

    start = somewhere()
    end = start if rng.random() < 0.6 else somewhere()
    if (end.line, end.character) < (start.line, start.character):
        start, end = end, start
    text = "".join(rng.choice(TYPED) for _ in range(rng.randrange(1, 4)))
    return lsp.TextDocumentContentChangePartial(range=lsp.Range(start, end), text=text)
