"""Input limits the lowering applies: a file's agents past the 50,000th are not read.

## What it does
- `LIMIT_EXCEEDED`: the header of the first agent, supervisor or profile of the file that the
  lowering did not read because the file already holds `MAX_DOCUMENTS` of them. (Lines and lists
  beyond their limits are reported by the parser under the same code.)

## Why is this bad?
Nothing after that header is checked, run or shown in an editor's outline; a file this large is
generated or damaged, and reading it whole would let one file take the tools' time and memory.

## Fix safety
No fix: split the file.
"""

from __future__ import annotations

from abl.checks.context import Check, document_rule
from abl.model.lower import HEADERS
from abl.syntax import limits


@document_rule("LIMIT_EXCEEDED")
def too_many_documents(check: Check) -> None:
    doc = check.document
    if len(doc.agents) < limits.MAX_DOCUMENTS:
        return
    last_read = doc.agents[-1].header.row
    unread = [n for n in doc.source.nodes if n.row > last_read and n.is_entry and n.key.upper() in HEADERS]
    if unread:
        check.report("LIMIT_EXCEEDED", limits.documents_message(len(doc.agents) + len(unread)), unread[0].key_range)
