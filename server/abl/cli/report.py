"""Render check results: compiler-style text, JSON, SARIF 2.1.0, GitHub workflow annotations."""

from __future__ import annotations

import json

from abl import __version__
from abl.checks.autofix import chosen_fix
from abl.checks.registry import docs_url, lookup
from abl.diagnostics import Diagnostic, Severity
from abl.text import LineIndex, Range
from abl.wording import count

_COLORS = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[1;33m", Severity.HINT: "\x1b[1;36m"}
_BOLD, _BLUE, _RESET = "\x1b[1m", "\x1b[1;34m", "\x1b[0m"


def render(
    fmt: str,
    texts: dict[str, str],
    results: dict[str, list[Diagnostic]],
    fixed: dict[str, list[Diagnostic]],
    *,
    color: bool,
    unsafe: bool = False,
    show_fixes: bool = False,
) -> str:
    if fmt == "json":
        return json.dumps(to_json(results, fixed), indent=2) + "\n"
    if fmt == "sarif":
        return json.dumps(to_sarif(results), indent=2) + "\n"
    if fmt == "github":
        return to_github(results)
    return to_text(texts, results, fixed, color=color, unsafe=unsafe, show_fixes=show_fixes)


def summary(results: dict[str, list[Diagnostic]]) -> dict[str, int]:
    counts = {"errors": 0, "warnings": 0, "hints": 0}
    for diags in results.values():
        for d in diags:
            counts[{Severity.ERROR: "errors", Severity.WARNING: "warnings", Severity.HINT: "hints"}[d.severity]] += 1
    return counts


# --- text ---------------------------------------------------------------------------------


# What one diagnostic may print: a file of long lines with a finding on every name must not
# print each whole line again per finding (55 KB of input once printed 656 MB).
MAX_EXCERPT = 200  # characters of the source line shown around the range
MAX_MESSAGE = 1000


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def excerpt(source: str, start: int, end: int) -> tuple[str, int, int]:
    """The part of `source` to show for the range `start..end`, at most MAX_EXCERPT characters,
    with `…` where it was cut; and the range's columns within it (for the carets)."""
    if len(source) <= MAX_EXCERPT:
        return source, start, end
    lo = max(0, min(start - MAX_EXCERPT // 4, len(source) - MAX_EXCERPT))
    hi = lo + MAX_EXCERPT
    shown = ("…" if lo > 0 else "") + source[lo:hi] + ("…" if hi < len(source) else "")
    shift = lo - (1 if lo > 0 else 0)
    start = max(0, start - shift)
    end = max(start + 1, min(end - shift, len(shown) - (1 if hi < len(source) else 0)))
    return shown, start, end


def to_text(
    texts: dict[str, str],
    results: dict[str, list[Diagnostic]],
    fixed: dict[str, list[Diagnostic]],
    *,
    color: bool,
    unsafe: bool = False,
    show_fixes: bool = False,
) -> str:
    def paint(style: str, s: str) -> str:
        return f"{style}{s}{_RESET}" if color else s

    out: list[str] = []
    for path, diags in results.items():
        index = LineIndex(texts.get(path, ""))
        for d in diags:
            line, col = d.range.start.line + 1, d.range.start.character + 1
            sev = paint(_COLORS[d.severity], f"{d.severity.value}[{d.code}]")
            out.append(f"{paint(_BOLD, f'{path}:{line}:{col}:')} {sev} {_clip(d.message, MAX_MESSAGE)}")
            source = index.line_text(d.range.start.line).replace("\t", " ")
            if source.strip():
                gutter = str(line)
                start = d.range.start.character
                end = d.range.end.character if d.range.end.line == d.range.start.line else len(source)
                source, start, end = excerpt(source, start, end)
                width = max(1, min(end, len(source)) - start)
                out.append(paint(_BLUE, f" {gutter} |") + f" {source}")
                out.append(
                    paint(_BLUE, f" {' ' * len(gutter)} |")
                    + " "
                    + " " * start
                    + paint(_COLORS[d.severity], "^" * width)
                )
            fix = chosen_fix(d, unsafe)
            if fix is not None:
                command = "abl check --fix" if fix.safe else "abl check --fix --unsafe-fixes"
                out.append(
                    paint(_BLUE, f" {' ' * len(str(line))} = ") + f"fix available: {fix.title} (run `{command}`)"
                )
            out.append("")
    out.extend(_fixed_lines(fixed, unsafe, detailed=show_fixes))
    fixable = _fixable_line(results, unsafe)
    if fixable:
        out.append(fixable)
    counts = summary(results)
    files = len(results)
    parts = [count(counts["errors"], "error"), count(counts["warnings"], "warning")]
    if counts["hints"]:
        parts.append(count(counts["hints"], "hint"))
    verdict = "no problems" if not any(counts.values()) else ", ".join(parts)
    out.append(f"Checked {count(files, 'file')}: {verdict}.")
    return "\n".join(out) + "\n"


def fixed_summary(fixed: dict[str, list[Diagnostic]], *, unsafe: bool, detailed: bool) -> str:
    """What `--fix-only` prints: the fixes applied, and their count."""
    lines = _fixed_lines(fixed, unsafe, detailed=detailed)
    total = sum(len(d) for d in fixed.values())
    lines.append(f"Fixed {count(total, 'problem')} in {count(len(fixed), 'file')}.")
    return "\n".join(lines) + "\n"


def _fixed_lines(fixed: dict[str, list[Diagnostic]], unsafe: bool, *, detailed: bool) -> list[str]:
    lines = []
    for path, diags in fixed.items():
        lines.append(f"fixed {count(len(diags), 'problem')} in {path}: " + ", ".join(sorted({d.code for d in diags})))
        if detailed:
            for d in diags:
                fix = chosen_fix(d, unsafe)
                title = f": {fix.title}" if fix is not None else ""
                lines.append(f"  {d.range.start.line + 1}:{d.range.start.character + 1} {d.code}{title}")
    return lines


def _fixable_line(results: dict[str, list[Diagnostic]], unsafe: bool) -> str:
    """How many reported problems `--fix` would fix, and how many more `--unsafe-fixes` would."""
    every = [d for diags in results.values() for d in diags]
    safe = sum(1 for d in every if chosen_fix(d, unsafe=False) is not None)
    more = sum(1 for d in every if chosen_fix(d, unsafe=False) is None and chosen_fix(d, unsafe=True) is not None)
    if unsafe or not safe:
        total = safe + more
        return f"{total} fixable with `abl check --fix --unsafe-fixes`." if total else ""
    hidden = f" ({more} more with `--unsafe-fixes`)" if more else ""
    return f"{safe} fixable with `abl check --fix`{hidden}."


# --- statistics ---------------------------------------------------------------------------


def statistics(fmt: str, results: dict[str, list[Diagnostic]], *, unsafe: bool) -> str:
    """`--statistics`: how many problems of each code, the most frequent first."""
    counts: dict[str, int] = {}
    fixable: set[str] = set()
    for diags in results.values():
        for d in diags:
            counts[d.code] = counts.get(d.code, 0) + 1
            if chosen_fix(d, unsafe) is not None:
                fixable.add(d.code)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if fmt == "json":
        data = [{"code": code, "count": n, "title": lookup(code).title, "fixable": code in fixable} for code, n in rows]
        return json.dumps({"version": 1, "statistics": data}, indent=2) + "\n"
    if not rows:
        return "No problems.\n"
    width = max(len(str(n)) for _, n in rows)
    code_width = max(len(code) for code, _ in rows)
    lines = [
        f"{n:>{width}}  {code:<{code_width}}  {'[*]' if code in fixable else '   '} {lookup(code).title}"
        for code, n in rows
    ]
    if fixable:
        lines.append(f"[*] fixable with `abl check --fix{' --unsafe-fixes' if unsafe else ''}`")
    return "\n".join(lines) + "\n"


# --- json ---------------------------------------------------------------------------------


def to_json(results: dict[str, list[Diagnostic]], fixed: dict[str, list[Diagnostic]]) -> dict:
    return {
        "version": 1,
        "files": len(results),
        "diagnostics": [_json_diagnostic(path, d) for path, diags in results.items() for d in diags],
        "fixed": {path: sorted({d.code for d in diags}) for path, diags in fixed.items()},
        "summary": summary(results),
    }


def _json_diagnostic(path: str, d: Diagnostic) -> dict:
    return {
        "path": path,
        "code": d.code,
        "severity": d.severity.value,
        "message": d.message,
        **_json_span(d.range),
        "docs": docs_url(d.code),
        "fixes": [
            {
                "title": f.title,
                "safe": f.safe,
                "edits": [{**_json_span(e.range), "new_text": e.new_text} for e in f.edits],
            }
            for f in d.fixes
        ],
    }


def _json_span(span: Range) -> dict[str, int]:
    """1-based line and column of both ends, as editors and CI annotations show them."""
    return {
        "line": span.start.line + 1,
        "column": span.start.character + 1,
        "end_line": span.end.line + 1,
        "end_column": span.end.character + 1,
    }


# --- sarif --------------------------------------------------------------------------------

_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.HINT: "note"}


def to_sarif(results: dict[str, list[Diagnostic]]) -> dict:
    used = sorted({d.code for diags in results.values() for d in diags})
    rule_index = {code: index for index, code in enumerate(used)}
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "abl",
                        "version": __version__,
                        "informationUri": "https://pypi.org/project/abl-tools/",
                        "rules": [_sarif_rule(code) for code in used],
                    }
                },
                "results": [
                    _sarif_result(path, d, rule_index[d.code]) for path, diags in results.items() for d in diags
                ],
            }
        ],
    }


def _sarif_rule(code: str) -> dict:
    entry = lookup(code)
    return {
        "id": code,
        "name": code,
        "shortDescription": {"text": entry.title},
        "fullDescription": {"text": entry.summary},
        "helpUri": docs_url(code),
        "defaultConfiguration": {"level": _SARIF_LEVEL[entry.severity]},
    }


def _sarif_result(path: str, d: Diagnostic, rule_index: int) -> dict:
    return {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": _SARIF_LEVEL[d.severity],
        "message": {"text": d.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": path},
                    "region": {
                        "startLine": d.range.start.line + 1,
                        "startColumn": d.range.start.character + 1,
                        "endLine": d.range.end.line + 1,
                        "endColumn": d.range.end.character + 1,
                    },
                }
            }
        ],
    }


# --- github -------------------------------------------------------------------------------

_GH_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.HINT: "notice"}


def _gh_escape(s: str, *, prop: bool = False) -> str:
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        s = s.replace(":", "%3A").replace(",", "%2C")
    return s


def to_github(results: dict[str, list[Diagnostic]]) -> str:
    lines = []
    for path, diags in results.items():
        for d in diags:
            props = ",".join(
                [
                    f"file={_gh_escape(path, prop=True)}",
                    f"line={d.range.start.line + 1}",
                    f"col={d.range.start.character + 1}",
                    f"endLine={d.range.end.line + 1}",
                    f"endColumn={d.range.end.character + 1}",
                    f"title={_gh_escape(d.code, prop=True)}",
                ]
            )
            lines.append(f"::{_GH_LEVEL[d.severity]} {props}::{_gh_escape(d.message)}")
    return "".join(line + "\n" for line in lines)
