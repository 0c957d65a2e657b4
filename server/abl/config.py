"""The project configuration: `abl.toml`, or a `[tool.abl]` table in `pyproject.toml`.

`abl check` and the language server read it the same way, through three functions:

- `find_config(start)`: the nearest configuration file, walking up from `start` (a file or a
  folder). In each folder `abl.toml` wins over `pyproject.toml`, which counts only when it has
  a `[tool.abl]` (or `[tool.abl.<table>]`) header.
- `load_config(path)`: the `Config` and a list of `ConfigProblem`s (each with its position in
  the file). Problems never stop the reading: a wrong entry is left out and the rest applies.
  An unknown key is a problem, with a "did you mean".
- `Config.filter(path, text, diagnostics)`: one file's diagnostics as the project wants them.

## The `filter` contract
It takes the engine's diagnostics of one file (`abl.checks.engine.check_file`, every code, in
its order: by position), the file's text and its path, and returns a new list, sorted by position:
1. suppression comments in `text` are applied and the unused or invalid ones are reported
   (`abl.checks.suppressions`; judged on every code found, before selection);
2. codes are kept when enabled (`select`, then `extend-select`, minus `ignore`; `ignore` wins)
   and not turned off for this path by `per-file-ignores`;
3. `severity` overrides replace the registered severity.
It is a pure function of its arguments and the configuration: it never parses and never
touches the disk. A text without the string `abl:` costs one substring search; one with it, one
pass over its lines (to tell comments from quoted text and `|` blocks). Hints are kept: whether
to show them is the caller's choice.
Glob patterns (`per-file-ignores`, `include`, `exclude`) are matched against the path relative
to the configuration file's folder, with `/` separators; `*` matches across folders, a pattern
without `/` matches a file or folder name at any depth, and a folder pattern covers what is
under it.

## The keys
```toml
select = ["platform", "syntax", "HISTORY_FALLS_BACK_TO_FULL"]  # default: every code
extend-select = []          # added to `select`
ignore = ["ON_FAILURE_NOT_SET"]
include = ["agents/**"]     # the files to check (default: every *.abl file found)
exclude = ["generated"]     # files and folders to leave out (still read to resolve names)
default-history = "full"    # the history a route without HISTORY gets (seed 000)

[severity]                  # code = "error" | "warning" | "hint"
HISTORY_NOT_SET = "warning"

[per-file-ignores]          # glob = [codes]
"legacy/*.abl" = ["W801"]
```
A code list holds codes (`abl explain --list`) or group names (`platform`, `syntax`, `lint`,
`suppression`). In `pyproject.toml` the same keys sit under `[tool.abl]`,
`[tool.abl.severity]` and `[tool.abl.per-file-ignores]`.

`default-history` is one of `full`, `none`, `summary_only`, `auto` or `last_<n>`; the checker
reads it where a route sets no `HISTORY` (`HISTORY_NOT_SET`, `HISTORY_NONE_WITHOUT_CONTEXT`).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any

from abl.checks import suppressions
from abl.checks.code import Group
from abl.checks.registry import BY_CODE, CODES
from abl.diagnostics import Diagnostic, Severity
from abl.suggest import did_you_mean
from abl.text import Range
from abl.workspace.projects import PYPROJECT, config_file_in

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


GROUPS: Mapping[str, frozenset[str]] = {
    group.value: frozenset(c.code for c in CODES if c.group is group) for group in Group
}
ALL_CODES = frozenset(BY_CODE)
HISTORY_DEFAULTS = ("full", "none", "summary_only", "auto", "last_<n>")
_LAST_N = re.compile(r"last_([1-9]\d*)")
_SEVERITIES = {s.value: s for s in Severity}
_LIST_KEYS = ("select", "extend-select", "ignore", "include", "exclude")
_TABLE_KEYS = ("severity", "per-file-ignores")
KEYS = (*_LIST_KEYS, *_TABLE_KEYS, "default-history")


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    """Something wrong in a configuration file, at a place in it (0-based, code points)."""

    path: str
    range: Range
    message: str

    def __str__(self) -> str:
        start = self.range.start
        return f"{self.path}:{start.line + 1}:{start.character + 1}: {self.message}"


@dataclass(frozen=True)
class Config:
    """What a project asks of the checker; the default (no file) enables every code as registered."""

    path: Path | None = None  # the file it was read from
    root: Path | None = None  # the folder globs are relative to (the file's folder)
    select: tuple[str, ...] | None = None  # None: every code
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, Severity] = field(default_factory=dict)
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    default_history: str = "full"

    @cached_property
    def enabled(self) -> frozenset[str]:
        """The codes reported at all (before `per-file-ignores`)."""
        chosen = ALL_CODES if self.select is None else resolve(self.select)
        return (chosen | resolve(self.extend_select)) - resolve(self.ignore)

    @cached_property
    def _per_file(self) -> tuple[tuple[str, frozenset[str]], ...]:
        return tuple((pattern, resolve(codes)) for pattern, codes in self.per_file_ignores)

    @cached_property
    def _plain(self) -> bool:
        """Nothing to select, ignore or override: `filter` only applies suppressions."""
        return self.enabled == ALL_CODES and not self.per_file_ignores and not self.severity

    def with_overrides(
        self,
        select: Sequence[str] | None = None,
        extend_select: Sequence[str] = (),
        ignore: Sequence[str] = (),
    ) -> Config:
        """This configuration under command-line options: `select` replaces the file's,
        the others add to it."""
        return replace(
            self,
            select=tuple(select) if select is not None else self.select,
            extend_select=self.extend_select + tuple(extend_select),
            ignore=self.ignore + tuple(ignore),
        )

    def filter(self, path: str, text: str, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
        """One file's diagnostics as this project reports them (see the module docstring)."""
        found = suppressions.apply(text, diagnostics)
        if not self._plain:
            off = self.ignored_for(path)
            found = [self._with_severity(d) for d in found if d.code in self.enabled and d.code not in off]
        if suppressions.MARKER in text:  # the engine's order, unless comments added findings to it
            found.sort(key=lambda d: (d.range.start, d.range.end, d.code))
        return found

    def ignored_for(self, path: str) -> frozenset[str]:
        """The codes `per-file-ignores` turns off for `path`."""
        if not self._per_file:
            return frozenset()
        relative = self.relative(path)
        if relative is None:
            return frozenset()
        off: set[str] = set()
        for pattern, codes in self._per_file:
            if glob_matches(relative, pattern):
                off |= codes
        return frozenset(off)

    def is_included(self, path: str) -> bool:
        """Whether a file found in a folder is checked: it matches `include` (when given) and
        no `exclude` pattern."""
        if not self.include and not self.exclude:
            return True
        relative = self.relative(path)
        if relative is None:
            return True  # outside the configuration's folder: its globs say nothing about it
        if self.include and not any(glob_matches(relative, p) for p in self.include):
            return False
        return not any(glob_matches(relative, p) for p in self.exclude)

    def relative(self, path: str) -> str | None:
        """`path` relative to the configuration's folder, `/`-separated; None when outside it."""
        if self.root is None:
            return None
        relative = os.path.relpath(os.path.abspath(path), self.root)
        if relative == ".." or relative.startswith(".." + os.sep):
            return None
        return PurePosixPath(*Path(relative).parts).as_posix()

    def _with_severity(self, d: Diagnostic) -> Diagnostic:
        severity = self.severity.get(d.code)
        if severity is None or severity is d.severity:
            return d
        return replace(d, severity=severity)


DEFAULT = Config()


def resolve(selectors: Iterable[str]) -> frozenset[str]:
    """The codes named by codes and group names (unknown ones name nothing)."""
    codes: set[str] = set()
    for selector in selectors:
        word = selector.strip()
        if word.lower() in GROUPS:
            codes |= GROUPS[word.lower()]
        elif word.upper() in BY_CODE:
            codes.add(word.upper())
    return frozenset(codes)


def unknown_selector(selector: str) -> str | None:
    """Why `selector` names no code, with a "did you mean"; None when it is a code or a group."""
    word = selector.strip()
    if word.lower() in GROUPS or word.upper() in BY_CODE:
        return None
    guess = did_you_mean(word, [*BY_CODE, *GROUPS])
    hint = f"; did you mean `{guess}`?" if guess else "; `abl explain --list` lists the codes"
    return f"unknown code `{word}` (neither a diagnostic code nor a group: {', '.join(GROUPS)}){hint}"


def glob_matches(relative: str, pattern: str) -> bool:
    """Whether a `/`-separated relative path matches a configuration glob (module docstring)."""
    pattern = pattern.strip().removeprefix("./").rstrip("/")
    if not pattern:
        return False
    parts = relative.split("/")
    if "/" not in pattern:
        return any(fnmatchcase(part, pattern) for part in parts)
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    bare = pattern.removeprefix("**/")
    return any(fnmatchcase(c, pattern) or fnmatchcase(c, bare) for c in candidates)


# --- finding and reading a file ------------------------------------------------------------------


def find_config(start: Path) -> Path | None:
    """The configuration file that applies to `start`: the nearest `abl.toml`, or
    `pyproject.toml` with a `[tool.abl]` table, in its folder or any folder above."""
    folder = Path(os.path.abspath(start))
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        found = config_file_in(candidate)
        if found is not None:
            return found
    return None


def load_config(path: Path) -> tuple[Config, list[ConfigProblem]]:
    """Read a configuration file. Problems are returned, never raised; what can be read applies."""
    shown = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        return Config(path, path.parent), [
            ConfigProblem(shown, Range.empty(0, 0), f"cannot read the configuration: {reason}")
        ]
    return parse_config(text, path)


def parse_config(text: str, path: Path) -> tuple[Config, list[ConfigProblem]]:
    """A configuration from the text of `path` (an `abl.toml`, or a `pyproject.toml`)."""
    locate = _Locator(text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        return Config(path, path.parent), [
            ConfigProblem(str(path), _decode_error_range(err, text), f"not valid TOML: {_reason(err)}")
        ]
    prefix: tuple[str, ...] = ()
    if path.name == PYPROJECT:
        prefix = ("tool", "abl")
        data = data.get("tool", {}).get("abl", {})
    reader = _Reader(str(path), locate, prefix)
    values = reader.read(data if isinstance(data, dict) else {})
    return Config(path=path, root=path.parent, **values), reader.problems


class _Reader:
    """Checks each key and value, noting a problem (with its position) for each wrong one."""

    def __init__(self, path: str, locate: _Locator, prefix: tuple[str, ...]) -> None:
        self.path = path
        self.locate = locate
        self.prefix = prefix
        self.problems: list[ConfigProblem] = []

    def read(self, data: dict[str, Any]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in KEYS:
                self._unknown_key(key)
            elif key in ("select", "extend-select", "ignore"):
                values[key.replace("-", "_")] = self._selectors(key, value)
            elif key in ("include", "exclude"):
                values[key] = self._strings(key, value)
            elif key == "severity":
                values["severity"] = self._severities(value)
            elif key == "per-file-ignores":
                values["per_file_ignores"] = self._per_file_ignores(value)
            else:
                values["default_history"] = self._default_history(value)
        return {k: v for k, v in values.items() if v is not None}

    def _unknown_key(self, key: str) -> None:
        guess = did_you_mean(key, KEYS)
        hint = f"; did you mean `{guess}`?" if guess else f"; the keys are {', '.join(f'`{k}`' for k in KEYS)}"
        self._problem((), key, None, f"unknown key `{key}`{hint}")

    def _strings(self, key: str, value: object, table: tuple[str, ...] = ()) -> tuple[str, ...] | None:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self._problem(table, key, None, f'`{key}` takes a list of strings, such as ["W801"]')
            return None
        return tuple(value)

    def _selectors(self, key: str, value: object, table: tuple[str, ...] = ()) -> tuple[str, ...] | None:
        words = self._strings(key, value, table)
        if words is None:
            return None
        good = []
        for word in words:
            why = unknown_selector(word)
            if why is None:
                good.append(word)
            else:
                self._problem(table, key, word, f"in `{'.'.join((*table, key))}`: {why}")
        return tuple(good)

    def _severities(self, value: object) -> dict[str, Severity] | None:
        if not isinstance(value, dict):
            self._problem((), "severity", None, '`severity` takes a table of `CODE = "error" | "warning" | "hint"`')
            return None
        out: dict[str, Severity] = {}
        for code, level in value.items():
            if code.upper() not in BY_CODE:
                guess = did_you_mean(code, BY_CODE)
                hint = f"; did you mean `{guess}`?" if guess else ""
                self._problem(("severity",), code, None, f"`{code}` is not a diagnostic code{hint}")
            elif not isinstance(level, str) or level.lower() not in _SEVERITIES:
                self._problem(
                    ("severity",), code, None, f"the severity of `{code}` is one of `error`, `warning` or `hint`"
                )
            else:
                out[code.upper()] = _SEVERITIES[level.lower()]
        return out

    def _per_file_ignores(self, value: object) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
        if not isinstance(value, dict):
            self._problem((), "per-file-ignores", None, '`per-file-ignores` takes a table of `"glob" = [codes]`')
            return None
        out = []
        for pattern, codes in value.items():
            selected = self._selectors(pattern, codes, ("per-file-ignores",))
            if selected is not None:
                out.append((pattern, selected))
        return tuple(out)

    def _default_history(self, value: object) -> str | None:
        word = value.strip().lower() if isinstance(value, str) else ""
        if word in HISTORY_DEFAULTS[:-1] or _LAST_N.fullmatch(word):
            return word
        options = ", ".join(f"`{m}`" for m in HISTORY_DEFAULTS)
        self._problem(
            (), "default-history", None, f"`default-history` is one of {options} (with `<n>` a positive number)"
        )
        return None

    def _problem(self, table: tuple[str, ...], key: str, value: str | None, message: str) -> None:
        where = self.locate.find((*self.prefix, *table), key, value)
        self.problems.append(ConfigProblem(self.path, where, message))


class _Locator:
    """Positions of keys and string values in a TOML text, for problem messages. It reads
    `[table]` headers and `key = ...` lines; anything it cannot place points at the table's
    header, or the top of the file."""

    _HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$")
    _KEY = re.compile(r"""^\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_.-]+))\s*=""")

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def find(self, table: tuple[str, ...], key: str, value: str | None) -> Range:
        current: tuple[str, ...] = ()
        header_row = 0
        found: Range | None = None
        for row, line in enumerate(self.lines):
            header = self._HEADER.match(line)
            if header is not None:
                if found is not None:
                    break
                current = tuple(part.strip().strip("\"'") for part in header.group(1).split("."))
                if current == table:
                    header_row = row
                continue
            if current != table:
                continue
            if found is None:
                found = self._key_on(row, line, key)
                if found is not None and value is None:
                    return found
            if found is not None and value is not None:
                at = line.find(f'"{value}"')
                if at < 0:
                    at = line.find(f"'{value}'")
                if at >= 0:
                    return Range.on_line(row, at + 1, at + 1 + len(value))
        return found if found is not None else Range.empty(header_row, 0)

    def _key_on(self, row: int, line: str, key: str) -> Range | None:
        m = self._KEY.match(line)
        if m is None:
            return None
        group = next(g for g in (1, 2, 3) if m.group(g) is not None)
        if m.group(group) != key:
            return None
        return Range.on_line(row, m.start(group), m.end(group))


def _decode_error_range(err: Exception, text: str) -> Range:
    """Where the TOML reader stopped: its `(at line L, column C)`, or the end of the text."""
    m = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
    if m is not None:
        line, column = int(m.group(1)) - 1, int(m.group(2)) - 1
        return Range.on_line(line, column, column + 1)
    if "end of document" in str(err):
        return Range.empty(text.count("\n"), len(text) - (text.rfind("\n") + 1))
    return Range.empty(0, 0)


def _reason(err: Exception) -> str:
    return re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(err)) or "unreadable"
