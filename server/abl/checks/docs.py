"""Render one Markdown page per diagnostic code, and the index, from the registry.

The pages in `docs/diagnostics/` are generated, never edited by hand:

    python -m abl.checks.docs --write docs/diagnostics   # (re)write every page
    python -m abl.checks.docs --check docs/diagnostics   # exit 1 when a page is stale

`--write` also deletes pages of codes that are no longer registered, but only pages that carry
the generated marker, so a hand-written file in the directory is never lost.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from abl.checks.code import Code, FixSafety
from abl.checks.registry import BY_CODE, CODES
from abl.wording import count

INDEX_NAME = "README.md"
GENERATED_MARKER = (
    "<!-- Generated from server/abl/checks/catalogue by `python -m abl.checks.docs --write "
    "docs/diagnostics`. Do not edit. -->"
)

# Said after the fix text, which already explains why the fix is or is not safe.
_APPLIED_BY_CHECK_FIX = {
    FixSafety.SAFE: "`abl check --fix` applies this fix.",
    FixSafety.SOMETIMES_SAFE: (
        "`abl check --fix` applies this fix where it is safe, as said above; elsewhere it needs "
        "`abl check --fix --unsafe-fixes`, and the editor offers it."
    ),
    FixSafety.UNSAFE: ("The editor offers this fix; `abl check --fix` applies it only with `--unsafe-fixes`."),
}


def render_page(code: str) -> str:
    """The Markdown page of one registered code. Raises `KeyError` for an unknown code."""
    c = BY_CODE[code]
    parts = [
        GENERATED_MARKER,
        f"# {c.code}: {c.title}",
        f"**Severity:** {c.severity.value} · **Group:** {c.group.value}",
        c.summary,
        "## Why",
        c.explanation,
        "## Example",
        _example_intro(c),
        _fence(c.bad_example),
        "## Fix",
        "The same project, corrected:",
        _fence(c.good_example),
        "## What the runtime does",
        c.runtime,
        "## Quick fix",
        c.fix,
    ]
    if c.fix_safety in _APPLIED_BY_CHECK_FIX:
        parts.append(_APPLIED_BY_CHECK_FIX[c.fix_safety])
    if c.see_also:
        parts += ["## See also", ", ".join(f"[{other}]({other}.md)" for other in c.see_also)]
    return "\n\n".join(parts) + "\n"


def render_index() -> str:
    """The `README.md` of the pages directory: every code with its severity and title."""
    rows = [f"| [{c.code}]({c.code}.md) | {c.severity.value} | {c.group.value} | {c.title} |" for c in CODES]
    return (
        "\n".join(
            [
                GENERATED_MARKER,
                "",
                "# Diagnostics",
                "",
                "Every code that `abl check` and the editor can report. Errors mean the platform rejects "
                "the project; warnings mean it is accepted but will not do what was most likely meant; "
                "hints are production-readiness notes, shown in editors and printed by `abl check` "
                "only with `--all`.",
                "",
                "| Code | Severity | Group | Title |",
                "|---|---|---|---|",
                *rows,
            ]
        )
        + "\n"
    )


def expected_pages() -> dict[str, str]:
    """File name → content, for every file the directory should hold."""
    pages = {f"{c.code}.md": render_page(c.code) for c in CODES}
    pages[INDEX_NAME] = render_index()
    return pages


@dataclass(frozen=True, slots=True)
class Drift:
    """How a directory differs from the registry."""

    missing: tuple[str, ...]  # expected files that do not exist
    stale: tuple[str, ...]  # files whose content differs from the rendering
    orphaned: tuple[str, ...]  # `.md` files for codes that are not registered

    @property
    def clean(self) -> bool:
        return not (self.missing or self.stale or self.orphaned)


def compare(directory: Path) -> Drift:
    """Compare the pages in `directory` with what the registry renders."""
    expected = expected_pages()
    missing, stale = [], []
    for name, text in expected.items():
        path = directory / name
        if not path.is_file():
            missing.append(name)
        elif path.read_text(encoding="utf-8") != text:
            stale.append(name)
    present = {p.name for p in directory.glob("*.md")} if directory.is_dir() else set()
    orphaned = sorted(present - expected.keys())
    return Drift(tuple(missing), tuple(stale), tuple(orphaned))


def write_pages(directory: Path) -> Drift:
    """Bring `directory` in line with the registry; returns what was changed.

    Orphaned pages are deleted only when they carry the generated marker; the others stay and
    are reported by `compare`.
    """
    before = compare(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in expected_pages().items():
        if name in before.missing or name in before.stale:
            (directory / name).write_text(text, encoding="utf-8", newline="\n")
    removed = []
    for name in before.orphaned:
        path = directory / name
        if path.read_text(encoding="utf-8").startswith(GENERATED_MARKER):
            path.unlink()
            removed.append(name)
    return Drift(before.missing, before.stale, tuple(removed))


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    """The developer entry point: 0 when the pages are (now) current, 1 when `--check` finds drift."""
    parser = argparse.ArgumentParser(prog="python -m abl.checks.docs", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", metavar="DIR", type=Path, help="(re)write the pages in DIR")
    mode.add_argument("--check", metavar="DIR", type=Path, help="exit 1 when a page in DIR is stale")
    args = parser.parse_args(argv)
    if args.write is not None:
        done = write_pages(args.write)
        changed = len(done.missing) + len(done.stale)
        out.write(f"{count(changed, 'page')} written, {len(done.orphaned)} removed in {args.write}\n")
        left = compare(args.write).orphaned
        for name in left:
            out.write(f"{args.write / name}: not generated and not a registered code; left in place\n")
        return 0
    drift = compare(args.check)
    for label, names in (("missing", drift.missing), ("stale", drift.stale), ("not a registered code", drift.orphaned)):
        for name in names:
            out.write(f"{args.check / name}: {label}\n")
    if not drift.clean:
        out.write(f"run `python -m abl.checks.docs --write {args.check}` to regenerate\n")
        return 1
    return 0


def _example_intro(c: Code) -> str:
    where = "this project"
    if c.bad_example_encoding != "utf-8":
        where = f"this project once it is saved as {c.bad_example_encoding}"
    also = f" (the same mistake also gives {', '.join(c.also_fires)})" if c.also_fires else ""
    return f"{c.code} is reported on {where}{also}:"


def _fence(text: str) -> str:
    return f"```yaml\n{text.rstrip(chr(10))}\n```"


if __name__ == "__main__":
    sys.exit(main())
