"""Suppression comments (`abl.checks.suppressions`): what they hide, and their fixes.

Which diagnostics fire is covered by the `UNUSED_SUPPRESSION` and `INVALID_SUPPRESSION`
fixtures in `cases/`; this file checks what the fixes write and the edge cases of reading.
"""

from __future__ import annotations

import pytest

from abl.checks import suppressions
from abl.checks.fixes import apply_fixes
from abl.diagnostics import Diagnostic, Severity
from abl.text import Range


def warning(code: str, line: int) -> Diagnostic:
    return Diagnostic(code, Severity.WARNING, code, Range.on_line(line, 0, 1))


def fixed(text: str, found: list[Diagnostic], code: str) -> str:
    (d,) = [d for d in suppressions.apply(text, found) if d.code == code]
    new, applied = apply_fixes(text, [d.fixes[0]])
    assert applied == [0]
    return new


def test_a_diagnostic_is_hidden_on_the_line_it_starts_on() -> None:
    text = "a: 1  # abl: ignore[W801]\nb: 2\n"
    spanning = Diagnostic(
        "W801", Severity.WARNING, "x", Range.on_line(0, 0, 1)._replace(end=Range.on_line(1, 0, 1).end)
    )
    assert suppressions.apply(text, [spanning]) == []
    assert suppressions.apply(text, [warning("W801", 1)]) != []


def test_removing_an_unused_trailing_suppression_keeps_the_line() -> None:
    text = "a: 1  # abl: ignore[E330]\n"
    assert fixed(text, [], "UNUSED_SUPPRESSION") == "a: 1\n"


def test_removing_an_unused_code_keeps_the_used_ones() -> None:
    text = "a: 1  # abl: ignore[W801, E330] why\n"
    assert fixed(text, [warning("W801", 0)], "UNUSED_SUPPRESSION") == "a: 1  # abl: ignore[W801] why\n"


def test_removing_a_suppression_keeps_the_note_after_it_as_a_comment() -> None:
    assert fixed("a: 1  # abl: ignore[E330] why\n", [], "UNUSED_SUPPRESSION") == "a: 1  # why\n"
    assert fixed("a: 1  # note # abl: ignore[E330]\n", [], "UNUSED_SUPPRESSION") == "a: 1  # note\n"


def test_removing_an_unused_comment_line_removes_the_line() -> None:
    text = "a: 1\n  # abl: ignore[W801]\nb: 2\n"
    assert fixed(text, [], "UNUSED_SUPPRESSION") == "a: 1\nb: 2\n"


def test_a_note_after_the_directive_stays() -> None:
    text = "# abl: ignore-file[W801] filled by the gateway\nAGENT: A\n"
    assert fixed(text, [], "UNUSED_SUPPRESSION") == "# filled by the gateway\nAGENT: A\n"


def test_a_misspelt_code_is_offered_the_right_one_first() -> None:
    text = "a: 1  # abl: ignore[W8O1]\n"
    (d,) = suppressions.apply(text, [warning("W801", 0)])[1:]
    assert d.code == "INVALID_SUPPRESSION"
    assert [f.title for f in d.fixes] == ["Write `W801`", "Remove the suppression"]
    assert apply_fixes(text, [d.fixes[0]])[0] == "a: 1  # abl: ignore[W801]\n"


def test_every_code_that_does_not_exist_is_removed_by_one_edit() -> None:
    text = "a: 1  # abl: ignore[x1, W801, x2 x3, UNUSED_SUPPRESSION] why\n"
    found = suppressions.apply(text, [warning("W801", 0)])
    assert [d.code for d in found] == ["INVALID_SUPPRESSION"] * 4
    assert len({d.fixes[-1] for d in found}) == 1
    assert found[0].fixes[-1].title == "Remove 4 codes that do not exist from the suppression"
    assert apply_fixes(text, [d.fixes[0] for d in found]) == ("a: 1  # abl: ignore[W801] why\n", [0, 1, 2, 3])


def test_a_misspelt_code_keeps_its_guess_when_the_others_are_removed() -> None:
    text = "a: 1  # abl: ignore[x1, W8O1, x2]\n"
    x1, misspelt, x2 = suppressions.apply(text, [warning("W801", 0)])[1:]
    assert [f.title for f in misspelt.fixes] == ["Write `W801`", "Remove `W8O1` from the suppression"]
    assert apply_fixes(text, [misspelt.fixes[-1]])[0] == "a: 1  # abl: ignore[x1, x2]\n"
    # `--fix --unsafe-fixes` takes each one's first fix: the guess and the shared removal, at once.
    assert apply_fixes(text, [x1.fixes[0], misspelt.fixes[0], x2.fixes[0]]) == (
        "a: 1  # abl: ignore[W801]\n",
        [0, 1, 2],
    )


def test_a_suppression_code_is_never_the_guess() -> None:
    (d,) = suppressions.apply("a: 1  # abl: ignore[UNUSED_SUPRESSION]\n", [])
    assert "did you mean" not in d.message
    assert [f.title for f in d.fixes] == ["Remove the suppression"]


def test_the_first_comment_block_may_start_after_blank_lines_and_a_byte_order_mark() -> None:
    text = "\ufeff\n# title\n# abl: ignore-file[W801]\n\nAGENT: A\n"
    assert suppressions.apply(text, [warning("W801", 4)]) == []


@pytest.mark.parametrize(
    "text",
    [
        'a: "x # abl: ignore[W801]"\n',  # inside quotes
        "a: x#abl: ignore[W801]\n",  # `#` glued to the value is not a comment
        "RESPOND: |\n  # abl: ignore[W801]\nb: 1\n",  # a line of a `|` block
        # Three tabs reach column 24, deeper than the key at 16, as the parser measures them.
        "Y:\n                N: |\n\t\t\t# abl: ignore[W801]\n",
        "Y:\n\t- N: |\n\t\t# abl: ignore[W801]\n",  # the key after a dash, at column 10
    ],
)
def test_text_that_is_not_a_comment_holds_no_directive(text: str) -> None:
    assert suppressions.read(text) == ([], [])


def test_a_file_without_the_marker_is_returned_as_is() -> None:
    found = [warning("W801", 0)]
    assert suppressions.apply("AGENT: A\n", found) == found
