"""Write `docs/conformance.md` from the conformance suite: every rule, its test and its status.

    python tests/conformance/generate.py           # rewrite the page
    python tests/conformance/generate.py --check   # exit 1 when the page is out of date

A rule is the `rule:` block of a conversation test (`docs/conversation-tests.md`); a folder of
the suite is one topic, titled by its test file's `description`. The expected failures listed
in `conftest.py` are shown as failing today, with their reason.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

SUITE = Path(__file__).resolve().parent
ROOT = SUITE.parent.parent
PAGE = ROOT / "docs" / "conformance.md"

if str(ROOT / "server") not in sys.path:
    sys.path.insert(0, str(ROOT / "server"))

from abl.runtime.testing.format import ConversationFile, RuleRef  # noqa: E402
from abl.runtime.testing.loader import discover, load_file  # noqa: E402
from abl.runtime.testing.yamlread import read_yaml  # noqa: E402

TOPICS = (
    "history",
    "history-tools",
    "history-default",
    "returns",
    "handback",
    "parent-return",
    "verification",
    "siblings",
    "turn-order",
    "routing",
    "nesting",
    "flow",
    "gather",
    "delegation",
    "memory",
    "templates",
    "not-run-locally",
)
"""The page's order of the suite's folders: the seeds' sentences first; a folder not listed comes last."""


@dataclass(frozen=True)
class Entry:
    """One rule of the suite with the test that checks it."""

    rule: RuleRef
    test_id: str  # folder/file.abltest.yaml::name, as conftest.py names it
    link: str  # the test file, relative to docs/
    line: int
    name: str
    failing: str | None  # the expected-failure reason, when the engine breaks the rule today


def known_failures() -> dict[str, str]:
    spec = importlib.util.spec_from_file_location("conformance_conftest", SUITE / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.KNOWN_FAILURES)


def suite_files() -> list[ConversationFile]:
    paths, _ = discover([SUITE])
    return [load_file(path) for path in sorted(paths, key=_topic_order)]


def _topic_order(path: Path) -> tuple[int, str]:
    relative = path.resolve().relative_to(SUITE)
    folder = relative.parts[0] if len(relative.parts) > 1 else ""
    rank = TOPICS.index(folder) if folder in TOPICS else len(TOPICS)
    return rank, relative.as_posix()


def python_rules(failures: dict[str, str]) -> list[tuple[str, list[Entry]]]:
    """Rules a conversation cannot state (a project that must not run, what a command prints),
    checked by the suite's Python tests: each module's `RULES`, titled by its docstring."""
    topics = []
    for path in sorted(SUITE.glob("test_*.py")):
        spec = importlib.util.spec_from_file_location(f"conformance_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        rules = getattr(module, "RULES", None)
        if not rules:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        rows = []
        for rule in rules:
            name = rule["test"]
            function = name.split("[")[0]
            line = next(i for i, text in enumerate(lines, 1) if text.startswith(f"def {function}("))
            ref = RuleRef(
                rule["id"], rule["source"], rule["quote"], rule["status"], rule.get("reason"), rule.get("reading")
            )
            test_id = f"{path.name}::{name}"
            rows.append(Entry(ref, test_id, f"../tests/conformance/{path.name}", line, name, failures.get(test_id)))
        title = (module.__doc__ or path.stem).strip().splitlines()[0].rstrip(".")
        topics.append((title, rows))
    return topics


def entries(files: list[ConversationFile], failures: dict[str, str]) -> list[tuple[ConversationFile, list[Entry]]]:
    topics = []
    for loaded in files:
        relative = loaded.path.resolve().relative_to(SUITE).as_posix()
        rows = []
        for conv in loaded.conversations:
            if conv.rule is None:
                continue
            test_id = f"{relative}::{conv.name}"
            link = f"../tests/conformance/{relative}"
            rows.append(Entry(conv.rule, test_id, link, conv.line, conv.name, failures.get(test_id)))
        topics.append((loaded, rows))
    return topics


def render(files: list[ConversationFile], failures: dict[str, str]) -> str:
    topics: list[tuple[str, list[Entry]]] = [(_title(loaded), rows) for loaded, rows in entries(files, failures)]
    topics += python_rules(failures)
    every = [e for _, rows in topics for e in rows]
    holding = sum(1 for e in every if e.rule.status == "holds" and e.failing is None)
    failing = sum(1 for e in every if e.failing is not None)
    not_local = sum(1 for e in every if e.rule.status == "not run locally" and e.failing is None)
    out = [
        "# Runtime conformance",
        "",
        "<!-- Generated by `python tests/conformance/generate.py` from `tests/conformance/`; do not edit. -->",
        "",
        "Each rule below is one sentence of the two seed documents (seed 000, how much history a handoff",
        "passes; seed 004, returnable handoffs) or of the reference platform's runtime behaviour, quoted",
        "with its source. Each has one conversation test in `tests/conformance/` that plays a project",
        "written for that sentence on the embedded runtime and checks the replies and the trace events",
        "the sentence implies. The status says whether the local engine honours the sentence, fails it",
        "today (the test is an expected failure, with the reason), or cannot run it locally (and why).",
        "The expected failures are listed in `tests/conformance/conftest.py`; when a fix makes one pass",
        "(pytest reports it as XPASS), delete its entry there and run the generator again.",
        "",
        f"{len(every)} rules: {holding} hold, {failing} fail today, {not_local} not run locally.",
        "",
    ]
    for title, rows in topics:
        if not rows:
            continue
        out += [f"## {title}", "", "| Rule | Sentence | Source | Test | Status |", "| - | - | - | - | - |"]
        out += [_row(e) for e in rows]
        out.append("")
    readings = [e for e in every if e.rule.reading]
    if readings:
        out += [
            "## Readings chosen",
            "",
            "Where a sentence allows more than one reading, the test follows the one below.",
            "",
        ]
        out += [f"- **{e.rule.id}**: {_cell(e.rule.reading or '')}" for e in readings]
        out.append("")
    return "\n".join(out)


def _title(loaded: ConversationFile) -> str:
    """The topic: the file's `description`, which the runner ignores, else its folder."""
    description = read_yaml(loaded.path).get("description")
    return str(description).strip() if description else loaded.path.parent.name


def _row(e: Entry) -> str:
    if e.failing is not None:
        status = f"fails today: {e.failing}"
    elif e.rule.status == "not run locally":
        status = f"not run locally: {e.rule.reason}"
    else:
        status = "holds"
    name = _cell(e.name).replace("[", "\\[").replace("]", "\\]")
    test = f"[{name}]({e.link}#L{e.line})"
    return f"| {e.rule.id} | {_cell(e.rule.quote)} | {_cell(e.rule.source)} | {test} | {_cell(status)} |"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/conformance.md is out of date")
    args = parser.parse_args(argv)
    text = render(suite_files(), known_failures())
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
        if current != text:
            print(f"{PAGE.relative_to(ROOT)} is out of date: run python tests/conformance/generate.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
