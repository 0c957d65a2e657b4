"""The files written from the trace event descriptions (`events.py`): the JSON Schema in
`docs/` and the VS Code extension's table of levels, read from that schema.

    python -m abl.runtime.event_files --write .   # rewrite both
    python -m abl.runtime.event_files --check .   # exit 1 when one is stale
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from abl.runtime.events import TraceLevel, json_schema, schema_text

LEVELS_TS = "vscode-extension/src/run/traceLevels.ts"
SCHEMA_JSON = "docs/trace-events.schema.json"


def levels_ts_text(schema: Mapping[str, Any] | None = None) -> str:
    """The extension's table of trace levels, read from the schema's `x-level` of each type."""
    defs = (schema if schema is not None else json_schema())["$defs"]
    levels = ", ".join(f"'{level.name.lower()}'" for level in TraceLevel)
    rows = "".join(f"  {name}: '{definition['x-level']}',\n" for name, definition in defs.items())
    return (
        f"// Generated from {SCHEMA_JSON} by `python -m abl.runtime.event_files --write .`; do not edit.\n"
        "\n"
        f"export const TRACE_LEVELS = [{levels}] as const;\n"
        "export type TraceLevel = (typeof TRACE_LEVELS)[number];\n"
        "\n"
        "/** The verbosity at which each trace event type is shown (its `x-level`). */\n"
        "export const LEVEL_OF_TYPE: Readonly<Record<string, TraceLevel>> = {\n"
        f"{rows}"
        "};\n"
    )


def generated_files() -> dict[str, str]:
    """Each file written from these descriptions, by its path in the repository."""
    schema = json_schema()
    return {SCHEMA_JSON: schema_text(), LEVELS_TS: levels_ts_text(schema)}


def main(argv: list[str] | None = None) -> int:
    """`--write ROOT` rewrites the generated files under ROOT; `--check ROOT` exits 1 when one is stale."""
    parser = argparse.ArgumentParser(prog="python -m abl.runtime.event_files", description=main.__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", metavar="ROOT", type=Path)
    mode.add_argument("--check", metavar="ROOT", type=Path)
    args = parser.parse_args(argv)
    stale = []
    for relative, text in generated_files().items():
        if args.write is not None:
            (args.write / relative).write_text(text, encoding="utf-8")
            continue
        target = args.check / relative
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            stale.append(relative)
    for relative in stale:
        sys.stderr.write(f"{relative} is out of date; run python -m abl.runtime.event_files --write {args.check}\n")
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
