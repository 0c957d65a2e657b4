"""checks layer: the registry of diagnostic codes and the rules that report them."""

from abl.checks.registry import BY_CODE, CODES, Code, FixSafety, Group, docs_url, lookup

__all__ = ["BY_CODE", "CODES", "Code", "FixSafety", "Group", "docs_url", "lookup"]
