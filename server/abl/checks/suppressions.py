"""Suppression comments: `# abl: ignore[CODE, ...]` on a line, `# abl: ignore-file[...]` at the top.

## The syntax
- `# abl: ignore[CODE, CODE]` at the end of a line hides those codes for diagnostics that *start*
  on that line (the line of their first character; a diagnostic spanning several lines is
  suppressed on its first). `# abl: ignore` without a list hides every code on the line.
- `# abl: ignore-file[CODE, CODE]` (or `# abl: ignore-file`, every code) hides the codes in the
  whole file. It counts only in the file's first comment block: the comment and blank lines
  before the first line of ABL. Anywhere else it suppresses nothing, and is reported.
- Codes are written as `abl explain` lists them (case is ignored), separated by commas. Other
  text may follow the directive in the same comment (`# abl: ignore[W801] filled by the SDK`).
- A directive is read only in a comment: a line starting with `#`, or ` #` after a value,
  outside double quotes and outside `|` blocks (whose lines are text).

## What is reported
- `UNUSED_SUPPRESSION`: a directive, or a code in it, that hides nothing (the code is not
  reported there, the comment sits on a line of its own, or `ignore-file` is below the first
  comment block). Its fix removes what is unused: safe, since nothing reported changes.
- `INVALID_SUPPRESSION`: a code that does not exist (with "did you mean"), a directive that is
  neither `ignore` nor `ignore-file`, or an empty list. The suppression codes themselves cannot
  be suppressed by a comment; turn them off in the configuration (`ignore`).

Whether a diagnostic counts as "reported" is decided on everything the checker found, before the
configuration selects codes, so the same file gives the same verdicts under any configuration.
A file without the text `abl:` costs one substring search; one with it, one pass over its lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from abl.checks.registry import BY_CODE, lookup
from abl.diagnostics import Diagnostic, Fix, TextEdit
from abl.suggest import did_you_mean
from abl.syntax.scanner import indent_width
from abl.text import Position, Range

MARKER = "abl:"
_BLANKS = " \t\ufeff"  # a byte-order mark opens the first line like a blank
SUPPRESSION_CODES = frozenset({"UNUSED_SUPPRESSION", "INVALID_SUPPRESSION"})
_KINDS = ("ignore", "ignore-file")
_SUPPRESSIBLE = sorted(set(BY_CODE) - SUPPRESSION_CODES)
# `# abl: ignore[A, B]`, from the `#`; the list is optional, an unclosed `[` is kept to report it.
_DIRECTIVE = re.compile(r"#\s*abl:\s*(?P<kind>[A-Za-z_-]*)(?:\s*\[(?P<codes>[^\]\n]*)(?P<close>\]?))?")
# `KEY: |` (or `- KEY: |`): the lines indented deeper than the key are the block's text.
_PIPE_ENTRY = re.compile(r"^(?P<lead>[ \t]*(?:-[ \t]+)?)[^\s#\"'][^:#]*:[ \t]+(?P<marker>[|>][-+]?)[ \t]*(?:#.*)?$")


@dataclass(frozen=True, slots=True)
class CodeRef:
    code: str  # as written
    range: Range


@dataclass(slots=True)
class Directive:
    """One `# abl: ignore...` comment."""

    line: int
    written: str  # the directive as written, from its `#`
    file_level: bool
    codes: tuple[CodeRef, ...] | None  # None: every code
    range: Range  # from the `#` to the end of the directive
    own_line: bool  # nothing but the comment on its line
    in_header: bool  # inside the file's first comment block
    delete_range: Range  # what removing the whole directive deletes
    used: set[str] = field(default_factory=set)  # codes it hid (upper case); "*" for a blanket hit
    _covered: frozenset[str] = field(init=False)  # the codes in upper case, looked up per diagnostic

    def __post_init__(self) -> None:
        self._covered = frozenset(ref.code.upper() for ref in self.codes or ())

    @property
    def counts(self) -> bool:
        """Whether the directive can hide anything where it is written."""
        return self.in_header if self.file_level else not self.own_line

    def covers(self, code: str) -> bool:
        return self.codes is None or code in self._covered


def apply(text: str, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """`diagnostics` of one file without the suppressed ones, plus a diagnostic for each
    suppression comment (or code in one) that is unused or invalid."""
    found = list(diagnostics)
    if MARKER not in text:
        return found
    directives, problems = read(text)
    if not directives and not problems:
        return found
    kept = [d for d in found if not _suppressed(d, directives)]
    kept.extend(problems)
    for directive in directives:
        kept.extend(_unused(directive))
    return kept


def read(text: str) -> tuple[list[Directive], list[Diagnostic]]:
    """Every directive of `text`, and an `INVALID_SUPPRESSION` for each malformed one."""
    directives: list[Directive] = []
    problems: list[Diagnostic] = []
    for row, line, comment, in_header in _comments(text):
        for m in _DIRECTIVE.finditer(line, comment):
            directive, invalid = _directive(row, line, comment, m, in_header)
            problems.extend(invalid)
            if directive is not None:
                directives.append(directive)
    return directives, problems


# --- reading the comments ---------------------------------------------------------------------


def _comments(text: str) -> Iterator[tuple[int, str, int, bool]]:
    """(row, line, column of the comment's `#`, in the first comment block) for each line
    holding a comment with the marker."""
    in_header = True
    pipe_column = -1  # the column of the key that opened a `|` block, while inside it
    for row, raw in enumerate(text.split("\n")):
        line = raw[:-1] if raw.endswith("\r") else raw
        stripped = line.lstrip(_BLANKS)
        if pipe_column >= 0:
            if not stripped or indent_width(line) > pipe_column:
                continue  # a line of the block's text
            pipe_column = -1
        if in_header and stripped and not stripped.startswith("#"):
            in_header = False
        if "|" in line or ">" in line:
            pipe = _PIPE_ENTRY.match(line)
            if pipe is not None:
                # The key's column as the parser measures it: the indentation with its tabs
                # expanded, then the dash and the blanks after it, one column each.
                lead = pipe.group("lead")
                pipe_column = indent_width(lead) + len(lead.lstrip(" \t"))
        if MARKER not in line:
            continue
        comment = _comment_start(line)
        if comment >= 0 and MARKER in line[comment:]:
            yield row, line, comment, in_header


def _comment_start(line: str) -> int:
    """The column of the `#` that starts the line's comment, or -1: at the start of the line's
    text or after a blank, outside double quotes."""
    quoted = False
    i = 0
    while i < len(line):
        c = line[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "#" and (i == 0 or line[i - 1] in _BLANKS):
            return i
        i += 1
    return -1


def _directive(
    row: int, line: str, comment: int, m: re.Match[str], in_header: bool
) -> tuple[Directive | None, list[Diagnostic]]:
    whole = Range.on_line(row, m.start(), m.end())
    kind = m.group("kind").lower()
    if kind not in _KINDS:
        return None, [_malformed(whole, m.group(0), kind)]
    if m.group("codes") is not None and not m.group("close"):
        return None, [
            _invalid(whole, f"`{m.group(0).strip()}` has no closing `]`, so it suppresses nothing; close the list")
        ]
    own_line = not line[:comment].strip(_BLANKS)
    delete = _deletion(row, line, comment, m, own_line)
    refs: tuple[CodeRef, ...] | None = None
    problems: list[Diagnostic] = []
    if m.group("codes") is not None:
        written = tuple(_code_refs(row, m.start("codes"), m.group("codes")))
        if not written:
            return None, [
                _invalid(whole, f"`{m.group(0)}` names no code; list the codes to suppress, or leave out the brackets")
            ]
        refs, problems = _known(written, delete)
        if not refs:
            return None, problems
    directive = Directive(
        line=row,
        written=m.group(0),
        file_level=kind == "ignore-file",
        codes=refs,
        range=whole,
        own_line=own_line,
        in_header=in_header,
        delete_range=delete,
    )
    return directive, problems


def _code_refs(row: int, start: int, written: str) -> Iterator[CodeRef]:
    for part in re.finditer(r"[^,\s]+", written):
        yield CodeRef(part.group(0), Range.on_line(row, start + part.start(), start + part.end()))


def _known(refs: tuple[CodeRef, ...], delete: Range) -> tuple[tuple[CodeRef, ...], list[Diagnostic]]:
    """The codes that exist, and an `INVALID_SUPPRESSION` for each one that does not."""
    good = tuple(ref for ref in refs if _suppressible(ref.code))
    if len(good) == len(refs):
        return good, []
    guesses = {i: _guess(ref.code) for i, ref in enumerate(refs) if not _suppressible(ref.code)}
    # The codes without a "did you mean" share one removal: the list written without all of them.
    # `--fix` then makes that edit once, in one pass, however many codes are wrong. A code with a
    # guess is left to its first fix (writing the guess); its own removal takes out only itself.
    unguessed = {i for i, guess in guesses.items() if guess is None}
    shared = _without(refs, unguessed, delete) if unguessed else None
    problems: list[Diagnostic] = []
    for i, guess in guesses.items():
        ref = refs[i]
        code = ref.code.upper()
        removal = shared if shared is not None and i in unguessed else _without(refs, {i}, delete)
        if code in SUPPRESSION_CODES:
            message = (
                f"`{code}` cannot be suppressed by a comment; turn it off in the project configuration "
                "(`ignore`) instead"
            )
            problems.append(_invalid(ref.range, message, removal))
            continue
        hint = f"; did you mean `{guess}`?" if guess else "; `abl explain --list` shows every code"
        offered = [Fix(f"Write `{guess}`", (TextEdit(ref.range, guess),), False)] if guess else []
        message = f"`{ref.code}` is not a diagnostic code, so nothing is suppressed for it{hint}"
        problems.append(_invalid(ref.range, message, *offered, removal))
    return good, problems


def _suppressible(code: str) -> bool:
    code = code.upper()
    return code in BY_CODE and code not in SUPPRESSION_CODES


def _guess(code: str) -> str | None:
    """The code that `code` most likely meant, among those a comment can suppress."""
    if code.upper() in SUPPRESSION_CODES:
        return None
    return did_you_mean(code.upper(), _SUPPRESSIBLE)


def _deletion(row: int, line: str, comment: int, m: re.Match[str], own_line: bool) -> Range:
    """What removing the directive deletes, leaving valid text: a note after it stays a comment
    (the `#` is kept), a comment that was only the directive goes with its line or its blanks."""
    opens_comment = m.start() == comment
    if opens_comment and line[m.end() :].strip():
        return Range.on_line(row, m.start() + 1, m.end())
    if opens_comment and own_line:
        return Range(Position(row, 0), Position(row + 1, 0))
    start = m.start()
    while start > 0 and line[start - 1] in _BLANKS:
        start -= 1
    return Range.on_line(row, start, m.end())


# --- matching diagnostics --------------------------------------------------------------------


def _suppressed(d: Diagnostic, directives: list[Directive]) -> bool:
    if d.code in SUPPRESSION_CODES:
        return False
    for directive in directives:
        if not directive.counts or not directive.covers(d.code):
            continue
        if directive.file_level or directive.line == d.range.start.line:
            directive.used.add(d.code if directive.codes is not None else "*")
            return True
    return False


def _unused(directive: Directive) -> Iterator[Diagnostic]:
    written = directive.written
    where = "in this file" if directive.file_level else "on this line"
    if not directive.counts:
        if directive.file_level:
            why = "`ignore-file` counts only in the first comment block of the file; move it to the top"
        else:
            why = (
                "it is on a line of its own, and a line suppression covers only diagnostics that start on "
                "its own line; put it at the end of the line it is about, or use `ignore-file` at the top"
            )
        yield _unused_diagnostic(directive, f"`{written}` suppresses nothing: {why}", _remove_all(directive))
        return
    if directive.codes is None:
        if not directive.used:
            yield _unused_diagnostic(
                directive, f"`{written}` suppresses nothing: nothing is reported {where}", _remove_all(directive)
            )
        return
    unused = [ref for ref in directive.codes if ref.code.upper() not in directive.used]
    if not unused:
        return
    names = " or ".join(f"`{ref.code.upper()}`" for ref in unused)
    fix = _remove_all(directive) if len(unused) == len(directive.codes) else _keep_codes(directive, unused)
    yield _unused_diagnostic(
        directive, f"`{written}` suppresses nothing for {names}: no such diagnostic is reported {where}", fix
    )


# --- fixes and diagnostics ---------------------------------------------------------------------


def _remove_all(directive: Directive) -> Fix:
    return Fix("Remove the suppression", (TextEdit(directive.delete_range, ""),), True)


def _keep_codes(directive: Directive, unused: list[CodeRef]) -> Fix:
    assert directive.codes is not None
    dropped = set(unused)
    kept = [ref for ref in directive.codes if ref not in dropped]
    first, last = directive.codes[0].range, directive.codes[-1].range
    span = Range(first.start, last.end)
    title = "Remove " + ", ".join(f"`{ref.code.upper()}`" for ref in unused) + " from the suppression"
    return Fix(title, (TextEdit(span, ", ".join(ref.code for ref in kept)),), True)


def _without(refs: tuple[CodeRef, ...], removed: set[int], delete: Range) -> Fix:
    """The list without the codes at the indexes `removed`, or no directive when none is left.
    Each run of removed codes is deleted with the separator before it (after it, for a run at the
    start), so the codes kept stay as written and a fix writing one of them does not overlap."""
    if len(removed) == len(refs):
        return Fix("Remove the suppression", (TextEdit(delete, ""),), False)
    named = f"`{refs[next(iter(removed))].code}`" if len(removed) == 1 else f"{len(removed)} codes that do not exist"
    edits = []
    for first, last in _runs(sorted(removed)):
        if first:
            span = Range(refs[first - 1].range.end, refs[last].range.end)
        else:
            span = Range(refs[0].range.start, refs[last + 1].range.start)
        edits.append(TextEdit(span, ""))
    return Fix(f"Remove {named} from the suppression", tuple(edits), False)


def _runs(indexes: list[int]) -> Iterator[tuple[int, int]]:
    """(first, last) of each run of consecutive numbers in sorted `indexes`."""
    start = previous = indexes[0]
    for i in indexes[1:]:
        if i != previous + 1:
            yield start, previous
            start = i
        previous = i
    yield start, previous


def _unused_diagnostic(directive: Directive, message: str, fix: Fix) -> Diagnostic:
    return Diagnostic("UNUSED_SUPPRESSION", lookup("UNUSED_SUPPRESSION").severity, message, directive.range, (fix,))


def _invalid(range: Range, message: str, *fixes: Fix) -> Diagnostic:
    return Diagnostic("INVALID_SUPPRESSION", lookup("INVALID_SUPPRESSION").severity, message, range, fixes)


def _malformed(range: Range, written: str, kind: str) -> Diagnostic:
    guess = did_you_mean(kind, _KINDS) if kind else None
    hint = f"; did you mean `{guess}`?" if guess else ""
    fixes: tuple[Fix, ...] = ()
    if guess:
        at = written.lower().find(kind)
        start = range.start.character + at
        fixes = (
            Fix(
                f"Write `{guess}`", (TextEdit(Range.on_line(range.start.line, start, start + len(kind)), guess),), False
            ),
        )
    return _invalid(
        range,
        f"`{written.strip()}` is not a suppression: write `# abl: ignore[CODE]` or `# abl: ignore-file[CODE]`{hint}",
        *fixes,
    )
