"""Suppression codes: `# abl: ignore[...]` comments that hide nothing, or cannot be read.

The syntax and where a comment counts are described in `abl.checks.suppressions`; these codes
keep suppressions honest: a comment that hides nothing today would hide the mistake tomorrow.
"""

from __future__ import annotations

from abl.checks.catalogue import project, route
from abl.checks.catalogue.agents import card_route
from abl.checks.code import Code, FixSafety, Group
from abl.diagnostics import Severity

_HOW_TO_SUPPRESS = (
    "`# abl: ignore[CODE, ...]` at the end of a line hides those codes for diagnostics that start "
    "on that line; `# abl: ignore-file[CODE, ...]` in the file's first comment block hides them in "
    "the whole file. Without a list, either form hides every code."
)


def _verified_caller(comment: str) -> str:
    """A front door whose route reads `caller_verified`, which the telephony gateway sets and
    the project never declares; `comment` ends the `WHEN` line."""
    supervisor = project(
        """
        SUPERVISOR: Bank_Front_Door
        GOAL: "Route banking requests to the right specialist"

        INTENTS:
          card: "Lost, stolen or blocked cards."

        HANDOFF:
        """
    ) + route(
        "TO: Card_Agent",
        f'WHEN: intent.category == "card" AND caller_verified == true{comment}',
        'SUMMARY: "The customer needs help with a card."',
        "HISTORY: summary_only",
        "ON_FAILURE: continue",
    )
    return project(supervisor, 'AGENT: Card_Agent\nGOAL: "Help with lost, stolen or blocked cards"\n')


UNUSED_SUPPRESSION = Code(
    code="UNUSED_SUPPRESSION",
    severity=Severity.WARNING,
    group=Group.SUPPRESSION,
    title="Suppression comment hides nothing",
    summary="An `# abl: ignore` comment, or a code in one, hides no diagnostic where it is written.",
    explanation=(
        f"{_HOW_TO_SUPPRESS}\n\n"
        "A suppression that hides nothing is left over from a problem that was fixed, sits on a "
        "line of its own (a line suppression covers only its own line), or is an `ignore-file` "
        "below the first comment block. Left in place, it would hide the same mistake if it came "
        "back. Whether a code is reported there is judged on everything the checker finds, before "
        "the configuration selects codes."
    ),
    bad_example=card_route("RETURN: false  # abl: ignore[RETURN_NOT_LOWERCASE_TRUE]"),
    good_example=card_route("RETURN: false"),
    fix=("Removes the unused codes, or the whole comment when none is used. Safe: nothing that is reported changes."),
    fix_safety=FixSafety.SAFE,
    runtime="None: comments are not read by the platform.",
    see_also=("INVALID_SUPPRESSION",),
)

INVALID_SUPPRESSION = Code(
    code="INVALID_SUPPRESSION",
    severity=Severity.WARNING,
    group=Group.SUPPRESSION,
    title="Suppression comment cannot be read",
    summary=(
        "An `# abl:` comment names a code that does not exist, is neither `ignore` nor "
        "`ignore-file`, or lists no code, so it suppresses nothing."
    ),
    explanation=(
        f"{_HOW_TO_SUPPRESS}\n\n"
        "A misspelt code hides nothing, so the diagnostic it was meant for is still reported, and "
        "the comment reads as if it were handled. The suppression codes themselves cannot be "
        "suppressed by a comment; turn them off with `ignore` in the project configuration."
    ),
    bad_example=_verified_caller("  # abl: ignore[UNDEFINED_CONDITION_VARS] set by the telephony gateway"),
    good_example=_verified_caller("  # abl: ignore[UNDEFINED_CONDITION_VAR] set by the telephony gateway"),
    also_fires=("UNDEFINED_CONDITION_VAR",),
    fix=(
        "Offers the code with the closest name (never a suppression code), and removing the "
        "unknown code; the codes with no close name in one list share one fix that removes them "
        "all, so `--fix` clears a list of any length at once. Unsafe: the first starts hiding a "
        "diagnostic, and the second deletes what the author wrote."
    ),
    fix_safety=FixSafety.UNSAFE,
    runtime="None: comments are not read by the platform.",
    see_also=("UNUSED_SUPPRESSION",),
)

CODES: tuple[Code, ...] = (UNUSED_SUPPRESSION, INVALID_SUPPRESSION)
