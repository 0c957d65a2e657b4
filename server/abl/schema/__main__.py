"""`python -m abl.schema --write docs/keywords.md` regenerates the keyword reference page;
`--check FILE` exits 1 when the page is out of date."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from abl.schema.presentation import render_keyword_reference


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m abl.schema", description=__doc__)
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="FILE", type=Path)
    group.add_argument("--check", metavar="FILE", type=Path)
    args = ap.parse_args(argv)
    page = render_keyword_reference()
    if args.write is not None:
        args.write.write_text(page, encoding="utf-8")
        return 0
    current = args.check.read_text(encoding="utf-8") if args.check.exists() else ""
    if current != page:
        sys.stderr.write(f"{args.check} is out of date; run python -m abl.schema --write {args.check}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
