"""How counts are written in messages: "1 error", "2 errors", never "1 errors" or "error(s)"."""

from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and the noun in the form that agrees with it (`plural` when adding "s" is wrong)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
