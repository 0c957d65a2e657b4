"""The single registry of diagnostic codes.

Every code any layer emits is defined here once, with its severity, group and documentation
(`abl.checks.code.Code`). Lower layers (syntax, model) cannot import this package; they name a
code and the severity registered for it, and a test keeps the two in step.
"""

from __future__ import annotations

from typing import Final

from abl.checks.catalogue import lint, platform, suppression, syntax
from abl.checks.code import Code, FixSafety, Group

__all__ = ["BY_CODE", "CODES", "DOCS_BASE_URL", "DOCS_DIR", "Code", "FixSafety", "Group", "docs_url", "lookup"]

# In reading order: the platform's codes, then syntax and structure, then our lint codes, then
# the codes about suppression comments.
CODES: Final[tuple[Code, ...]] = platform.CODES + syntax.CODES + lint.CODES + suppression.CODES

BY_CODE: Final[dict[str, Code]] = {c.code: c for c in CODES}

# Where the pages live, relative to the repository root.
DOCS_DIR: Final = "docs/diagnostics"

# Prefix for absolute links (LSP `codeDescription`, terminal output). Empty means links stay
# relative to the repository root, which is what the docs pages themselves use.
DOCS_BASE_URL: Final = ""


def lookup(code: str) -> Code:
    """The registered code. Raises `KeyError` for an unregistered one: callers name codes in
    source, so an unknown name is a programming error and should fail loudly and early."""
    try:
        return BY_CODE[code]
    except KeyError:
        raise KeyError(f"{code!r} is not a registered diagnostic code") from None


def docs_url(code: str, base_url: str = DOCS_BASE_URL) -> str:
    """The stable link to a code's page: `docs/diagnostics/<CODE>.md`, after `base_url` if given.

    Raises `KeyError` for an unregistered code, so that no dead link is handed out.
    """
    relative = f"{DOCS_DIR}/{lookup(code).code}.md"
    return f"{base_url.rstrip('/')}/{relative}" if base_url else relative
