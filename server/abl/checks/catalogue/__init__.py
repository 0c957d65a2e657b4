"""The documented codes, one module per group; `abl.checks.registry` assembles them.

Examples are complete projects in one text (a supervisor and the agents it routes to, each an
`AGENT:` document) so that a checker run on them reports the intended code and nothing else:
every route sets `HISTORY:` and `ON_FAILURE:` unless leaving one out is the point.
"""

from __future__ import annotations

import textwrap


def project(*documents: str) -> str:
    """Join ABL documents into one text, one blank line apart.

    Each part may be written indented inside the Python source; the common indentation and a
    leading newline are removed, so every document starts at column 0.
    """
    parts = [textwrap.dedent(doc).lstrip("\n") for doc in documents]
    return "\n".join(part if part.endswith("\n") else part + "\n" for part in parts)


def route(*rows: str) -> str:
    """One `HANDOFF`/`DELEGATE` list entry at the standard depth.

    `rows` are the entry's lines relative to its key column (`TO: X` first); nested blocks keep
    their own extra indentation, e.g. `route("TO: A", "HISTORY:", "  mode: none")`.
    """
    first, *rest = rows
    return "".join([f"  - {first}\n", *(f"    {row}\n" for row in rest)])
