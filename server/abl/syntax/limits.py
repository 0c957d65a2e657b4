"""Limits on what one file may hold, each reported with a diagnostic when it is reached.

The tools read files from anywhere (an editor opens whatever the user opens), so nothing may
grow without bound with the input: not the Python stack, not the time, not the output.
"""

from __future__ import annotations

# Indentation levels, and `[`/`{` inside one value. Real agents stay below ten; the cap keeps
# every reader of the tree and of flow values far from Python's recursion limit.
MAX_NESTING_DEPTH = 64

# Parentheses and operators nested inside one condition, as on the platform.
MAX_EXPRESSION_DEPTH = 32

# A file larger than this is not read (`abl check` says which file and why).
MAX_FILE_BYTES = 10 * 1024 * 1024


def nesting_message(what: str) -> str:
    return (
        f"{what} nested more than {MAX_NESTING_DEPTH} levels deep; the deeper levels are not read. "
        "Flatten the structure"
    )
