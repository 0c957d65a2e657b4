"""Document links: the file paths an ABL file names, made clickable.

ABL names other files in a few places, each relative to the folder of the file that names it:
tool imports (`file: "./tools/hotels.tools.abl" [a, b]`), supervisor agent references
(`REF: ./agents/cards.agent.abl`) and NLU files (`EXAMPLES_FILE: "./nlu/x.txt"`,
`config_file: "./nlu/config.yaml"`). Every `file:`, `REF:` and `*_file:` key is read, wherever
it sits. A link is made only to a file that exists, on disk or in the project, and covers the
path text alone (inside the quotes, without the `[names]` after it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from abl.syntax.cst import Node
from abl.text import Range
from abl.workspace import Project

# The path: a quoted text, or a bare word up to the first blank or `[`.
_PATH = re.compile(r"""\s*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'\[\]]+))""")
# Values that are not files of the project (URLs, template placeholders).
_NOT_A_FILE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://|\{\{|\$\{")


@dataclass(frozen=True, slots=True)
class Link:
    range: Range
    target_path: str


def document_links(project: Project, path: str) -> list[Link]:
    """The links of the file `path` of `project`, in source order."""
    document = project.documents.get(path)
    if document is None:
        return []
    folder = os.path.dirname(path)
    links: list[Link] = []
    for node in _all_nodes(document.source.nodes):
        if not (node.is_entry and _names_a_file(node.key) and node.has_value and not node.is_pipe):
            continue
        found = _path_in_value(node)
        if found is None:
            continue
        written, where = found
        target = _resolve(folder, written)
        if _exists(project, target):
            links.append(Link(where, target))
    return links


def _names_a_file(key: str) -> bool:
    lowered = key.lower()
    return lowered in ("file", "ref") or lowered.endswith("_file")


def _path_in_value(node: Node) -> tuple[str, Range] | None:
    """The path written first in the value and its range (quotes excluded)."""
    m = _PATH.match(node.value)
    if m is None:
        return None
    group = next(g for g in (1, 2, 3) if m.group(g) is not None)
    written = m.group(group)
    if not written.strip() or _NOT_A_FILE.search(written):
        return None
    start = node.value_start + m.start(group) - node.line_start
    return written, Range.on_line(node.row, start, start + len(written))


def _resolve(folder: str, written: str) -> str:
    """The path as the project names files: relative to the naming file's folder."""
    path = written if os.path.isabs(written) else os.path.join(folder, written)
    return os.path.normpath(path)


def _exists(project: Project, target: str) -> bool:
    # `isfile` answers False (never raises) for names the OS refuses, such as ones with NUL.
    return target in project.documents or os.path.isfile(target)


def _all_nodes(roots: list[Node]) -> Iterator[Node]:
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))
