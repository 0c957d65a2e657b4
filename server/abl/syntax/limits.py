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

# Characters on one line. A longer line is generated or damaged; its value is not read.
MAX_LINE_CHARS = 100_000

# Items in one `[...]` list or entries in one `{...}` map; those after are not read.
MAX_LIST_ITEMS = 1_000

# Agents, supervisors and profiles in one file; those after are not read.
MAX_DOCUMENTS = 50_000

LIMIT_CODE = "LIMIT_EXCEEDED"


def nesting_message(what: str) -> str:
    return (
        f"{what} nested more than {MAX_NESTING_DEPTH} levels deep; the deeper levels are not read. "
        "Flatten the structure"
    )


def line_message(length: int) -> str:
    return (
        f"this line is {length:,} characters long, over the limit of {MAX_LINE_CHARS:,}, so its value is "
        "not read; split it (a long list can take one item per line)"
    )


def list_message() -> str:
    return (
        f"more than {MAX_LIST_ITEMS:,} items in one list or map; the items after the {MAX_LIST_ITEMS:,}th are not read"
    )


def documents_message(count: int) -> str:
    # Reads the limit when called, so that a test may lower it.
    return (
        f"this file declares more than {MAX_DOCUMENTS:,} agents, supervisors and profiles; from this one on "
        f"({count:,} in all) they are not read: split the file"
    )


def file_message(size: int) -> str:
    return (
        f"this file is {size / 2**20:.1f} MB, over the limit of {MAX_FILE_BYTES // 2**20} MB, so it is not read; "
        "split it"
    )
