"""pytest plugin: collect `*.abltest.yaml` conversation tests, one item per named conversation.

Registered through the `pytest11` entry point `abl_conversations`, so installing `abl-tools`
is enough. A failing conversation shows the same expected/actual diff as `abl test`, and a
project with errors fails its conversations the same way (the one loader, `abl.launch`); a
malformed file fails its collection with the file, line and what is wrong.
`--abl-coverage` adds the coverage summary of the conversations that ran.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from abl.launch import conversation_loader
from abl.runtime.testing.coverage import Coverage, compute_coverage
from abl.runtime.testing.format import TEST_FILE_SUFFIX, Conversation, ConversationFile
from abl.runtime.testing.loader import load_file
from abl.runtime.testing.render import coverage_full, render_failure
from abl.runtime.testing.runner import ConversationResult, ProjectProblem, Runner
from abl.runtime.testing.yamlread import FormatError

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr  # what pytest's own `repr_failure` may return

_RUNNER_KEY = pytest.StashKey["Runner"]()
_RESULTS_KEY = pytest.StashKey["list[ConversationResult]"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("abl", "ABL conversation tests")
    group.addoption(
        "--abl-coverage",
        action="store_true",
        default=False,
        help="after the run, list the routes, WHEN outcomes, COMPLETE rules and GATHER fields "
        "the *.abltest.yaml conversations never exercised",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_RESULTS_KEY] = []


def _runner(config: pytest.Config) -> Runner:
    if _RUNNER_KEY not in config.stash:
        config.stash[_RUNNER_KEY] = Runner(conversation_loader())
    return config.stash[_RUNNER_KEY]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.endswith(TEST_FILE_SUFFIX):
        return ConversationTestFile.from_parent(parent, path=file_path)
    return None


class ConversationTestFile(pytest.File):
    """One `*.abltest.yaml` file."""

    def collect(self) -> Iterator[pytest.Item]:
        try:
            loaded = load_file(self.path)
        except FormatError as err:
            raise TestFileError(str(err)) from err
        for conversation in loaded.conversations:
            yield ConversationItem.from_parent(
                self, name=conversation.name, test_file=loaded, conversation=conversation
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, TestFileError):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class TestFileError(Exception):
    """A conversation-test file that cannot be read; the message has the file and line."""

    __test__ = False


class ConversationFailed(Exception):
    """A conversation whose expectations were not met; carries the result to render."""

    def __init__(self, result: ConversationResult) -> None:
        super().__init__(result.name)
        self.result = result


class ConversationItem(pytest.Item):
    """One named conversation of a test file."""

    def __init__(self, *, test_file: ConversationFile, conversation: Conversation, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.test_file = test_file
        self.conversation = conversation
        # Some plugins' run hooks (pytest-lsp's, for one) expect every item to have fixture
        # values, as Python test functions do; a conversation uses none.
        self.funcargs: dict[str, Any] = {}
        if conversation.skip is not None:
            self.add_marker(pytest.mark.skip(reason=conversation.skip))

    def runtest(self) -> None:
        runner = _runner(self.config)
        result = runner.run(self.test_file, self.conversation)
        self.config.stash[_RESULTS_KEY].append(result)
        if result.status in ("failed", "error"):
            raise ConversationFailed(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, ConversationFailed):
            return render_failure(excinfo.value.result, relative_to=str(self.config.rootpath))
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, self.conversation.line - 1, f"conversation: {self.conversation.name}"


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if not config.getoption("--abl-coverage"):
        return
    results = [r for r in config.stash.get(_RESULTS_KEY, []) if r.status != "skipped"]
    if not results:
        return
    runner = _runner(config)
    by_project: dict[Path, list[ConversationResult]] = {}
    for result in results:
        by_project.setdefault(result.file.project, []).append(result)
    coverages = []
    for project_path, group in by_project.items():
        try:
            project = runner.project(project_path)
        except ProjectProblem:
            continue
        coverage = compute_coverage(project, [e for r in group for e in r.trace])
        coverages.append(Coverage(_relative(Path(coverage.project), config.rootpath), coverage.items))
    terminalreporter.section("ABL conversation coverage")
    terminalreporter.write(coverage_full(coverages))


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)
