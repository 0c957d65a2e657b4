"""Render check results: compiler-style text, JSON, SARIF 2.1.0, GitHub workflow annotations."""

from __future__ import annotations

import json

from abl import __version__
from abl.checks.registry import docs_url, lookup
from abl.diagnostics import Diagnostic, Severity
from abl.text import LineIndex

_COLORS = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[1;33m", Severity.HINT: "\x1b[1;36m"}
_BOLD, _BLUE, _RESET = "\x1b[1m", "\x1b[1;34m", "\x1b[0m"


def render(fmt: str, texts: dict[str, str], results: dict[str, list[Diagnostic]], fixed: dict[str, list[Diagnostic]], *, color: bool) -> str:
    if fmt == "json":
        return json.dumps(to_json(results, fixed), indent=2) + "\n"
    if fmt == "sarif":
        return json.dumps(to_sarif(results), indent=2) + "\n"
    if fmt == "github":
        return to_github(results)
    return to_text(texts, results, fixed, color=color)


def summary(results: dict[str, list[Diagnostic]]) -> dict[str, int]:
    counts = {"errors": 0, "warnings": 0, "hints": 0}
    for diags in results.values():
        for d in diags:
            counts[{Severity.ERROR: "errors", Severity.WARNING: "warnings", Severity.HINT: "hints"}[d.severity]] += 1
    return counts


# --- text ---------------------------------------------------------------------------------


def to_text(texts: dict[str, str], results: dict[str, list[Diagnostic]], fixed: dict[str, list[Diagnostic]], *, color: bool) -> str:
    def paint(style: str, s: str) -> str:
        return f"{style}{s}{_RESET}" if color else s

    out: list[str] = []
    for path, diags in results.items():
        index = LineIndex(texts.get(path, ""))
        for d in diags:
            line, col = d.range.start.line + 1, d.range.start.character + 1
            sev = paint(_COLORS[d.severity], f"{d.severity.value}[{d.code}]")
            out.append(f"{paint(_BOLD, f'{path}:{line}:{col}:')} {sev} {d.message}")
            source = index.line_text(d.range.start.line).replace("\t", " ")
            if source.strip():
                gutter = str(line)
                start = d.range.start.character
                end = d.range.end.character if d.range.end.line == d.range.start.line else len(source)
                width = max(1, min(end, len(source)) - start)
                out.append(paint(_BLUE, f" {gutter} |") + f" {source}")
                out.append(paint(_BLUE, f" {' ' * len(gutter)} |") + " " + " " * start + paint(_COLORS[d.severity], "^" * width))
            if any(f.safe for f in d.fixes):
                out.append(paint(_BLUE, f" {' ' * len(str(line))} = ") + f"fix available: {next(f for f in d.fixes if f.safe).title} (run `abl check --fix`)")
            out.append("")
    for path, diags in fixed.items():
        out.append(f"fixed {len(diags)} problem(s) in {path}: " + ", ".join(sorted({d.code for d in diags})))
    counts = summary(results)
    files = len(results)
    parts = [f"{counts['errors']} error(s)", f"{counts['warnings']} warning(s)"]
    if counts["hints"]:
        parts.append(f"{counts['hints']} hint(s)")
    verdict = "no problems" if not any(counts.values()) else ", ".join(parts)
    out.append(f"Checked {files} file(s): {verdict}.")
    return "\n".join(out) + "\n"


# --- json ---------------------------------------------------------------------------------


def to_json(results: dict[str, list[Diagnostic]], fixed: dict[str, list[Diagnostic]]) -> dict:
    diagnostics = []
    for path, diags in results.items():
        for d in diags:
            diagnostics.append(
                {
                    "path": path,
                    "code": d.code,
                    "severity": d.severity.value,
                    "message": d.message,
                    "line": d.range.start.line + 1,
                    "column": d.range.start.character + 1,
                    "end_line": d.range.end.line + 1,
                    "end_column": d.range.end.character + 1,
                    "docs": docs_url(d.code),
                    "fixes": [
                        {
                            "title": f.title,
                            "safe": f.safe,
                            "edits": [
                                {
                                    "line": e.range.start.line + 1,
                                    "column": e.range.start.character + 1,
                                    "end_line": e.range.end.line + 1,
                                    "end_column": e.range.end.character + 1,
                                    "new_text": e.new_text,
                                }
                                for e in f.edits
                            ],
                        }
                        for f in d.fixes
                    ],
                }
            )
    return {
        "version": 1,
        "files": len(results),
        "diagnostics": diagnostics,
        "fixed": {path: sorted({d.code for d in diags}) for path, diags in fixed.items()},
        "summary": summary(results),
    }


# --- sarif --------------------------------------------------------------------------------

_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.HINT: "note"}


def to_sarif(results: dict[str, list[Diagnostic]]) -> dict:
    used = sorted({d.code for diags in results.values() for d in diags})
    rules = []
    for code in used:
        entry = lookup(code)
        rules.append(
            {
                "id": code,
                "name": code,
                "shortDescription": {"text": entry.title},
                "fullDescription": {"text": entry.summary},
                "helpUri": docs_url(code),
                "defaultConfiguration": {"level": _SARIF_LEVEL[entry.severity]},
            }
        )
    sarif_results = []
    for path, diags in results.items():
        for d in diags:
            sarif_results.append(
                {
                    "ruleId": d.code,
                    "ruleIndex": used.index(d.code),
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
            )
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "abl", "version": __version__, "informationUri": "https://pypi.org/project/abl-tools/", "rules": rules}},
                "results": sarif_results,
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
    return "".join(l + "\n" for l in lines)
