"""The one helper behind every diagnostics fixture test."""

from __future__ import annotations

from abl.checks.code import Code
from abl.checks.engine import CheckOptions, check_project
from abl.config import DEFAULT
from abl.diagnostics import Diagnostic, Severity
from abl.workspace import Project, decode
from fixture import Fixture, parse_fixture


def bad_example_bytes(entry: Code) -> bytes:
    """A code's bad example as it would sit on disk (in the encoding that makes it fail)."""
    return entry.bad_example.encode(entry.bad_example_encoding)


def project_of(fx: Fixture, encoding: str = "utf-8") -> Project:
    """The fixture's files as a project. Each file goes through the same decoding as a file on
    disk: `encoding` turns the fixture text back into the bytes it stands for (`latin-1` keeps
    the bytes of a file that is not valid UTF-8 exactly as written)."""
    project = Project("/")
    for path, text in fx.files.items():
        source = decode(text.encode(encoding))
        project.update(path, source.text, source.diagnostics)
    return project


def diagnostics_of(fx: Fixture, encoding: str = "utf-8") -> dict[str, list[Diagnostic]]:
    """Every file's diagnostics as `abl check` reports them without a configuration file:
    suppression comments applied, unused and invalid ones reported."""
    project = project_of(fx, encoding)
    results = check_project(project, CheckOptions(strict_rules=True))
    return {path: DEFAULT.filter(path, project.texts[path], diags) for path, diags in results.items()}


def check_diagnostics(text: str, encoding: str = "utf-8") -> None:
    """Every error and warning, and every hint whose code is annotated, must be annotated,
    on exactly the annotated range, and every annotation must be reported. An empty range is
    annotated with one caret at its position."""
    fx = parse_fixture(text)
    results = diagnostics_of(fx, encoding)
    annotated_codes = {e.code for e in fx.expectations}
    got = set()
    messages: dict[tuple, str] = {}
    for path, diags in results.items():
        for d in diags:
            if d.severity is Severity.HINT and d.code not in annotated_codes:
                continue
            end = d.range.end.character
            if d.range.end == d.range.start:
                end += 1
            elif d.range.end.line != d.range.start.line:
                # A range over several lines is annotated from its start to the end of its first line.
                lines = fx.files[path].splitlines()
                end = len(lines[d.range.start.line]) if d.range.start.line < len(lines) else d.range.start.character
            key = (path, d.range.start.line, d.range.start.character, end, d.code)
            got.add(key)
            messages[key] = d.message
    want = set()
    for e in fx.expectations:
        want.add((e.path, e.line, e.start, e.end, e.code))
    missing = sorted(want - got)
    extra = sorted(got - want)
    for e in fx.expectations:
        key = (e.path, e.line, e.start, e.end, e.code)
        if e.message and key in messages:
            assert e.message in messages[key], f"message of {key}: {messages[key]!r} lacks {e.message!r}"
    assert not missing and not extra, _explain(fx, missing, extra, messages)


def _explain(fx: Fixture, missing: list, extra: list, messages: dict) -> str:
    lines = ["diagnostics differ from the annotations"]
    lines.extend(f"  expected but not reported: {m[4]} at {m[0]}:{m[1] + 1}:{m[2] + 1}-{m[3] + 1}" for m in missing)
    for x in extra:
        lines.append(f"  reported but not annotated: {x[4]} at {x[0]}:{x[1] + 1}:{x[2] + 1}-{x[3] + 1}: {messages[x]}")
        src = fx.files[x[0]].splitlines()
        if x[1] < len(src):
            lines.append(f"      {src[x[1]]}")
            lines.append("      " + " " * x[2] + "^" * max(1, x[3] - x[2]))
    return "\n".join(lines)
