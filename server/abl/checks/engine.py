"""Run every rule over a project and collect diagnostics per file.

A rule that raises is isolated: its failure is logged, reported as a RULE_FAILED error (so a
broken rule never reads as "no problems"), and the other rules still run (tests turn this off
with `strict_rules=True`, so a crashing rule fails loudly there).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from functools import partial

from abl.checks import rules as _rules  # noqa: F401  (importing registers every rule)
from abl.checks.cache import CheckCache
from abl.checks.context import AGENT_RULES, BLOCK_RULES, DOCUMENT_RULES, Check, ProjectView
from abl.checks.layout import blocks
from abl.checks.registry import lookup
from abl.checks.tabs import with_tab_fix
from abl.diagnostics import Diagnostic, Severity
from abl.identity import same_objects
from abl.text import Range
from abl.workspace import Project

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CheckOptions:
    select: frozenset[str] | None = None  # only these codes (None: all)
    strict_rules: bool = False  # re-raise a rule's exception instead of logging it


DEFAULT_OPTIONS = CheckOptions()


def check_project(
    project: Project, options: CheckOptions = DEFAULT_OPTIONS, cache: CheckCache | None = None
) -> dict[str, list[Diagnostic]]:
    """Every file's diagnostics. With a `cache` kept between calls, only stale rules run again."""
    if cache is None:
        return {path: check_file(project, path, options) for path in sorted(project.documents)}
    with cache.session(project):
        return {path: check_file(project, path, options, cache) for path in sorted(project.documents)}


def check_file(
    project: Project, path: str, options: CheckOptions = DEFAULT_OPTIONS, cache: CheckCache | None = None
) -> list[Diagnostic]:
    doc = project.documents[path]
    read = project.read_diagnostics.get(path, ())
    sink: list[Diagnostic] = list(read)
    sink.extend(with_tab_fix(doc.source, doc.source.diagnostics))
    if cache is not None:
        token = cache.check_file(project, doc, sink, lambda codes, call: _run(options, codes, call, sink))
        # A file whose findings were all taken over: what they normalised to last time, too.
        key = (token, read, doc.source.diagnostics, options.select)
        known = cache.normalised.get(path)
        if token is not None and known is not None and same_objects(known[0], key):
            return list(known[1])
        result = _selected(_normalise(sink), options)
        cache.normalised[path] = (key, tuple(result))
        return result
    else:
        # Every rule over every block and agent: a hundred thousand calls for a large file, so
        # each is made directly, its failure caught where it is (a `try` costs nothing until
        # something raises).
        view = ProjectView(project)
        check = Check(view, doc, None, sink)
        for codes, rule in DOCUMENT_RULES:
            _run(options, codes, partial(rule, check), sink)
        for block in blocks(doc):
            for codes, block_rule in BLOCK_RULES:
                try:
                    block_rule(check, block)
                except Exception as error:  # isolated as `_run` isolates it
                    _failed(options, codes, error, sink)
        for agent in doc.agents:
            agent_check = Check(view, doc, agent, sink)
            for codes, agent_rule in AGENT_RULES:
                try:
                    agent_rule(agent_check, agent)
                except Exception as error:  # isolated as `_run` isolates it
                    _failed(options, codes, error, sink)
    return _selected(_normalise(sink), options)


def _selected(result: list[Diagnostic], options: CheckOptions) -> list[Diagnostic]:
    if options.select is not None:
        result = [d for d in result if d.code in options.select]
    return result


def _run(options: CheckOptions, codes: str, call, sink: list[Diagnostic]) -> bool:
    """Run one rule; False when it failed (logged, and reported as RULE_FAILED in `sink`)."""
    try:
        call()
    except Exception as error:  # one broken rule must not take the others (or the editor) down
        _failed(options, codes, error, sink)
        return False
    return True


def _failed(options: CheckOptions, codes: str, error: Exception, sink: list[Diagnostic]) -> None:
    """A rule raised: logged and reported as RULE_FAILED (raised again with `strict_rules`)."""
    if options.strict_rules:
        raise error
    log.exception("rule for %s failed", codes, exc_info=error)
    sink.append(rule_failed(codes, error))


def rule_failed(codes: str, error: BaseException) -> Diagnostic:
    """The error that says a rule could not run, at the top of the file (the rule's own
    position is unknown). Its text is bounded: an exception can carry any amount of input."""
    detail = f"{type(error).__name__}: {error}"
    if len(detail) > 200:
        detail = detail[:200] + "…"
    return Diagnostic(
        "RULE_FAILED",
        Severity.ERROR,
        f"the check for {codes} failed with an internal error ({detail}); "
        "problems it looks for are not reported for this file",
        Range.empty(0, 0),
    )


# Each code's registry severity and whether its fixes may be safe: read for every diagnostic of
# a file at every keystroke.
_REGISTERED: dict[str, tuple[Severity, bool]] = {}


def _normalise(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Registry severities and fix safety, one copy of each diagnostic, in source order."""
    seen: set[tuple] = set()
    out: list[Diagnostic] = []
    for d in diags:
        known = _REGISTERED.get(d.code)
        if known is None:
            entry = lookup(d.code)
            known = _REGISTERED[d.code] = (entry.severity, entry.fix_safety.allows_safe_fixes)
        severity, allows_safe = known
        fixes = d.fixes
        if fixes and not allows_safe and any(f.safe for f in fixes):
            # The registry is the one source of fix safety (what the docs page says).
            fixes = tuple(replace(f, safe=False) for f in fixes)
        if severity is not d.severity or fixes is not d.fixes:
            d = Diagnostic(d.code, severity, d.message, d.range, fixes, d.related)
        key = (d.code, d.range, d.message)
        if key in seen:
            continue
        seen.add(key)
        out.append(d)
    out.sort(key=lambda d: (d.range.start, d.range.end, d.code))
    return out


def has_errors(diags: list[Diagnostic], strict: bool = False) -> bool:
    bad = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
    return any(d.severity in bad for d in diags)
