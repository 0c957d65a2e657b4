"""Checking never raises, whatever the author has typed so far.

The corpus files (correct and wrong ones) are mutated the way text changes in an editor: lines
inserted, deleted, duplicated, swapped or re-indented; characters inserted, deleted or repeated;
keywords of the catalogue typed in random places. Every rule then runs with
`strict_rules=True`, so an exception in any rule fails the test, and every diagnostic (and every
quick-fix edit) must point inside the text it is about.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from abl.checks.engine import CheckOptions, check_project
from abl.diagnostics import Diagnostic
from abl.schema import SECTIONS, Key
from abl.text import Range
from abl.workspace import Project, decode
from fixture import parse_fixture

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
STRICT = CheckOptions(strict_rules=True)


def _projects() -> list[dict[str, str]]:
    """Each corpus project as {path: text}: valid folders, valid loose files, invalid fixtures
    (annotation lines removed)."""
    found: list[dict[str, str]] = []
    valid = CORPUS / "valid"
    for unit in sorted(valid.iterdir()):
        files = sorted(unit.rglob("*.abl")) if unit.is_dir() else [unit] if unit.suffix == ".abl" else []
        if files:
            found.append({"/" + str(f.relative_to(valid)): decode(f.read_bytes()).text for f in files})
    found.extend(
        dict(parse_fixture(fixture.read_bytes().decode("utf-8")).files)
        for fixture in sorted((CORPUS / "invalid").glob("*.abl"))
    )
    return found


PROJECTS = _projects()


def _keywords() -> list[str]:
    """Every spelling the catalogue knows, with the words its closed values allow."""
    words: set[str] = set()
    seen: set[int] = set()

    def walk(key: Key) -> None:
        if id(key) in seen:
            return
        seen.add(id(key))
        if not key.name.startswith("<"):
            words.update(key.spellings)
        words.update(key.values)
        for child in key.children:
            walk(child)
        for extra in (key.entry, key.items):
            if extra is not None:
                walk(extra)

    for section in SECTIONS:
        walk(section.key)
    return sorted(words)


KEYWORDS = _keywords()
# Pieces that stress the reader: indentation, list dashes, quotes, brackets, pipes, comments.
PIECES = [
    "  ",
    "    ",
    "\t",
    "- ",
    "-",
    ":",
    ": ",
    " #",
    "#",
    "//",
    '"',
    "'",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    ",",
    "|",
    "|\n",
    "->",
    "{{",
    "}}",
    "\n",
    "\r\n",
    "=",
    " IS SET",
    " AND ",
    "true",
    "last_",
    "\ufeff",
]
# Values of every shape, written where a key expects another one (`PASS: {a: b}`, `MAP: [x]`).
VALUES = [
    "",
    "[]",
    "[a, b]",
    "{}",
    "{a: b}",
    "{a, b: c}",
    '""',
    "|",
    "true",
    "True",
    "0",
    "-1",
    "1.5",
    "last_n",
    "last_0",
    'x == ""',
    "{{x}}",
    '"open',
    "[a",
    "HANDOFF Nobody",
    'RESPOND "m"',
    "RESPOND",
    "a -> b",
    "(",
    "f(a: string) -> {b: c}",
    "- x",
    "x = 1",
    "mode: last_n",
    "none",
    "@",
    "\\",
]
CHILDREN = ["", "\n  - a", "\n  a: b", "\n  - a: b\n    c: d", "\n  x = y", "\n  mode: last_n\n  count: 0", "\n  |"]
TOKENS = st.one_of(
    st.sampled_from(PIECES),
    st.sampled_from(KEYWORDS),
    st.sampled_from(KEYWORDS).map(lambda k: f"{k}: "),
    st.sampled_from(KEYWORDS).map(lambda k: f"\n  {k}:"),
    st.text(max_size=4),
)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


@st.composite
def _mutated(draw: st.DrawFn) -> dict[str, str]:
    files = dict(draw(st.sampled_from(PROJECTS)))
    every_line = [line for text in files.values() for line in _lines(text)] or ["GOAL: x\n"]
    for _ in range(draw(st.integers(1, 6))):
        path = draw(st.sampled_from(sorted(files)))
        text = files[path]
        lines = _lines(text)
        action = draw(
            st.sampled_from(
                [
                    "insert_line",
                    "delete_line",
                    "duplicate_line",
                    "swap_lines",
                    "indent",
                    "reshape",
                    "insert",
                    "delete",
                    "repeat",
                ]
            )
        )
        if action in ("insert_line", "delete_line", "duplicate_line", "swap_lines", "indent", "reshape") and lines:
            i = draw(st.integers(0, len(lines) - 1))
            if action == "insert_line":
                lines.insert(i, draw(st.sampled_from(every_line)))
            elif action == "delete_line":
                del lines[i]
            elif action == "duplicate_line":
                lines.insert(i, lines[i])
            elif action == "reshape":
                # Give a `key:` line a value (and children) of another shape.
                head, colon, _ = lines[i].partition(":")
                if colon:
                    ending = "\r\n" if lines[i].endswith("\r\n") else "\n"
                    indent = " " * (len(head) - len(head.lstrip(" -")))
                    nested = draw(st.sampled_from(CHILDREN)).replace("\n", "\n" + indent + "  ")
                    lines[i] = f"{head}: {draw(st.sampled_from(VALUES))}{nested}{ending}"
            elif action == "swap_lines":
                j = draw(st.integers(0, len(lines) - 1))
                lines[i], lines[j] = lines[j], lines[i]
            else:
                indent = draw(st.sampled_from(["", " ", "  ", "   ", "    ", "      ", "\t", " \t", "        "]))
                lines[i] = indent + lines[i].lstrip(" \t")
            text = "".join(lines)
        else:
            at = draw(st.integers(0, len(text)))
            if action == "insert" or not text:
                text = text[:at] + draw(TOKENS) + text[at:]
            elif action == "delete":
                text = text[:at] + text[at + draw(st.integers(1, 12)) :]
            else:
                text = text[:at] + text[at : at + draw(st.integers(1, 30))] + text[at:]
        files[path] = text
    return files


def _inside(text: str, rng: Range) -> bool:
    lines = text.split("\n")
    for pos in (rng.start, rng.end):
        if pos.line < 0 or pos.character < 0 or pos.line >= len(lines):
            return False
        if pos.character > len(lines[pos.line]):
            return False
    return rng.start <= rng.end


def _check(files: dict[str, str]) -> None:
    project = Project("/")
    for path, text in files.items():
        source = decode(text.encode("utf-8", "surrogatepass"))
        project.update(path, source.text, source.diagnostics)
    results = check_project(project, STRICT)
    for path, diags in results.items():
        text = project.texts[path]
        for d in diags:
            assert isinstance(d, Diagnostic)
            assert _inside(text, d.range), f"{path}: {d.code} at {d.range} is outside the text"
            for fix in d.fixes:
                for edit in fix.edits:
                    assert _inside(text, edit.range), f"{path}: fix {fix.title!r} of {d.code} edits outside the text"


def test_the_corpus_is_checked_as_it_is() -> None:
    assert PROJECTS
    for files in PROJECTS:
        _check(files)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_mutated())
def test_checking_a_mutated_project_never_raises(files: dict[str, str]) -> None:
    _check(files)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TOKENS, max_size=80).map("".join))
def test_checking_keyword_soup_never_raises(text: str) -> None:
    _check({"/soup.agent.abl": 'AGENT: Soup\nGOAL: "x"\n' + text})


# Single characters that open and close things, for text pasted into the middle of a file.
_CHARACTERS = st.sampled_from([*"ab_: -\n\t\"'[]{}()#/|>=!<.,$@?*\\\r", "  ", "    ", "{{", "}}", "->", "\ufeff"])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    st.sampled_from(PROJECTS), st.lists(st.one_of(TOKENS, _CHARACTERS), max_size=40).map("".join), st.integers(0, 10**6)
)
def test_text_pasted_anywhere_never_breaks_checking(files: dict[str, str], pasted: str, where: int) -> None:
    files = dict(files)
    path = sorted(files)[where % len(files)]
    text = files[path]
    at = where % (len(text) + 1)
    files[path] = text[:at] + pasted + text[at:]
    _check(files)


# Inputs that once broke a rule or put a range outside the text, kept as plain regressions.
REGRESSIONS = [
    # An unclosed `[` on a continuation line was reported on the first line of the value.
    '[\n  1.1:[AGENT: X\nGOAL: "x"\n',
    '{{AGENT: A\nGOAL: "x"\nLANGUAGE: "en"\n\nEXECUTION:\n  model: m\n',
    'AGENT: A\nGOAL: "x"\nTOOLS:\n  f(\n    a: string,\n  ) -> {\n    b: [c,\n  }\n',
]


def test_inputs_that_once_broke_checking() -> None:
    for text in REGRESSIONS:
        _check({"/regression.agent.abl": text})
