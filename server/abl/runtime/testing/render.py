"""Text for conversation-test results: status lines, failure diffs, the summary, coverage.

Returns strings only; `abl test` prints them and the pytest plugin shows the same failure text,
so a failure reads the same wherever it is seen.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from abl.runtime.testing.coverage import KIND_TITLES, KINDS, Coverage
from abl.runtime.testing.describe import describe_event
from abl.runtime.testing.expectations import Failure
from abl.runtime.testing.runner import ConversationResult, TurnOutcome
from abl.runtime.trace import TraceLevel, event_level
from abl.wording import count

STATUS_WORDS = {"passed": "PASS", "failed": "FAIL", "error": "FAIL", "skipped": "SKIP"}
EXCERPT_LIMIT = 40


def status_line(result: ConversationResult) -> str:
    """`PASS name`, `FAIL name`, `SKIP name (reason)`."""
    line = f"{STATUS_WORDS[result.status]} {result.name}"
    if result.status == "skipped" and result.error and result.error != "skipped":
        line += f" ({result.error})"
    return line


def summary_line(results: Sequence[ConversationResult]) -> str:
    """Exactly `N passed, M failed`, plus `, K skipped` when some were skipped."""
    passed = sum(r.status == "passed" for r in results)
    failed = sum(r.status in ("failed", "error") for r in results)
    skipped = sum(r.status == "skipped" for r in results)
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    return line


def render_failure(result: ConversationResult, *, relative_to: str | None = None) -> str:
    """Expected against actual for every unmet expectation, with each failing turn's trace."""
    path = _display_path(str(result.file.path), relative_to)
    out = [f"{STATUS_WORDS[result.status]} {result.name} ({path}:{result.conversation.line})"]
    if result.status == "error":
        out.extend("  " + line for line in (result.error or "unknown error").splitlines())
        if result.trace:
            out.append("  trace (last events):")
            out.extend(_excerpt(result.trace[-10:], indent="    "))
        return "\n".join(out) + "\n"
    if result.failures:
        for failure in result.failures:
            out.extend(_failure(failure, indent="  "))
        if result.greeting and any(f.kind == "greeting" for f in result.failures):
            out.append("  greeting:")
            out.extend(f"    [{agent}] {text}" for agent, text in result.greeting)
    for turn in result.failed_turns:
        out.extend(_turn(turn))
    return "\n".join(out) + "\n"


def _turn(turn: TurnOutcome) -> list[str]:
    out = [f"  turn {turn.number} (line {turn.spec.line}): user: {turn.spec.user}"]
    for failure in turn.failures:
        out.extend(_failure(failure, indent="    "))
    out.append("    replies:")
    if turn.observed.replies:
        out.extend(f"      [{agent}] {line}" for agent, text in turn.observed.replies for line in _lines(text))
    else:
        out.append("      (no reply)")
    out.append(f"    active agent: {turn.observed.active_agent}")
    out.append(f"    trace (turn {turn.number}):")
    out.extend(_excerpt(turn.observed.events, indent="      "))
    return out


def _failure(failure: Failure, *, indent: str) -> list[str]:
    where = f" (line {failure.line})" if failure.line is not None else ""
    out = [f"{indent}- {failure.kind}{where}: {failure.summary}"]
    inner = indent + "    "
    if failure.expected is not None:
        out.extend(_labelled(inner, "expected: ", failure.expected))
    if failure.actual is not None:
        out.extend(_labelled(inner, "actual:   ", failure.actual))
    out.extend(f"{inner}{detail}" for detail in failure.details)
    return out


def _labelled(indent: str, label: str, text: str) -> list[str]:
    lines = _lines(text)
    first = [f"{indent}{label}{lines[0]}"]
    return first + [f"{indent}{' ' * len(label)}{line}" for line in lines[1:]]


def _lines(text: str) -> list[str]:
    return text.splitlines() or [""]


def _excerpt(events: Sequence[Mapping[str, Any]], *, indent: str) -> list[str]:
    shown = [e for e in events if event_level(str(e.get("type"))) <= TraceLevel.STANDARD]
    if not shown:
        return [f"{indent}(no events)"]
    lines = [f"{indent}{describe_event(e)}" for e in shown[:EXCERPT_LIMIT]]
    if len(shown) > EXCERPT_LIMIT:
        lines.append(f"{indent}... {count(len(shown) - EXCERPT_LIMIT, 'more event', 'more events')}")
    return lines


def _display_path(path: str, relative_to: str | None) -> str:
    if relative_to is None:
        return path
    try:
        rel = os.path.relpath(path, relative_to)
    except ValueError:  # another drive on Windows
        return path
    return path if rel.startswith("..") else rel


# --- coverage -----------------------------------------------------------------------------------


def coverage_short(coverages: Iterable[Coverage]) -> str:
    """One line per project: `coverage: routes 2/3, WHEN outcomes 3/4, ...`."""
    out = []
    for cov in coverages:
        parts = []
        for kind in KINDS:
            done, total = cov.totals(kind)
            if total:
                parts.append(f"{KIND_TITLES[kind]} {done}/{total}")
        missing = len(cov.uncovered)
        tail = f"; {missing} never exercised (--coverage lists them)" if missing else "; everything exercised"
        out.append(f"coverage of {cov.project}: " + (", ".join(parts) or "nothing to cover") + tail)
    return "\n".join(out) + ("\n" if out else "")


def coverage_full(coverages: Iterable[Coverage]) -> str:
    """Per agent, every route, WHEN outcome, COMPLETE rule and GATHER field never exercised."""
    out: list[str] = []
    for cov in coverages:
        out.append(f"coverage of {cov.project}")
        for kind in KINDS:
            done, total = cov.totals(kind)
            if total:
                percent = 100 * done // total
                out.append(f"  {KIND_TITLES[kind]:<15} {done:>3}/{total:<3} {percent:>3}%")
        by_agent = cov.uncovered_by_agent()
        if not by_agent:
            out.append("  every route, WHEN outcome, COMPLETE rule and GATHER field was exercised")
        for agent, items in by_agent.items():
            out.append(f"  {agent}: never exercised")
            out.extend(f"    - {item.label}" for item in items)
    return "\n".join(out) + ("\n" if out else "")
