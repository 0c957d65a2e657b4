"""The server's settings, as an editor sends them (`workspace/configuration` section `abl`,
`initializationOptions`, or `workspace/didChangeConfiguration`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from abl.ide import BY_CODE, Diagnostic, Severity

TRACE_LEVELS = ("minimal", "standard", "verbose", "debug")


@dataclass(frozen=True, slots=True)
class Settings:
    select: frozenset[str] | None = None  # only these codes (None: all)
    ignore: frozenset[str] = frozenset()
    hints: bool = True  # production-readiness notes such as `HISTORY_NOT_SET`
    inlay_hints: bool = True
    code_lens: bool = True
    trace_level: str = "standard"  # for runs started from the editor
    unknown: tuple[str, ...] = ()  # keys or codes that were not understood, to tell the user

    @staticmethod
    def read(raw: Any) -> Settings:
        """Settings from a client's JSON; wrong types and unknown codes are noted, not fatal."""
        if not isinstance(raw, dict):
            return Settings()
        if isinstance(raw.get("abl"), dict):
            raw = raw["abl"]
        unknown: list[str] = []
        diagnostics = raw.get("diagnostics") if isinstance(raw.get("diagnostics"), dict) else {}
        select = _codes(diagnostics.get("select"), unknown)
        ignore = _codes(diagnostics.get("ignore"), unknown) or frozenset()
        hints = _flag(diagnostics.get("hints"), True)
        inlay = raw.get("inlayHints")
        inlay_hints = _flag(inlay.get("enable") if isinstance(inlay, dict) else inlay, True)
        lens = raw.get("codeLens")
        code_lens = _flag(lens.get("enable") if isinstance(lens, dict) else lens, True)
        trace = raw.get("run", {}).get("traceLevel") if isinstance(raw.get("run"), dict) else None
        trace_level = trace if trace in TRACE_LEVELS else "standard"
        return Settings(select, ignore, hints, inlay_hints, code_lens, trace_level, tuple(unknown))

    def shows(self, d: Diagnostic) -> bool:
        if d.code in self.ignore or (self.select is not None and d.code not in self.select):
            return False
        return self.hints or d.severity is not Severity.HINT


def _codes(value: Any, unknown: list[str]) -> frozenset[str] | None:
    """A list of codes; an empty or missing list selects nothing in particular (None)."""
    if not isinstance(value, list) or not value:
        return None
    codes = {str(v).strip() for v in value if str(v).strip()}
    unknown.extend(sorted(c for c in codes if c not in BY_CODE))
    return frozenset(codes)


def _flag(value: Any, default: bool) -> bool:
    return value if isinstance(value, bool) else default
