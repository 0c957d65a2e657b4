"""The analysis's editor features, asked as a whole: `FEATURES` is the one list, and both the
protocol layer and these tests go by it, so a feature added there is covered the day it is."""

from __future__ import annotations

import ast
import shutil
from collections.abc import Sized
from pathlib import Path

import pytest
from fuzz.features import file_calls, once_per_file, project_calls, refused

from abl.ide import FEATURES, AnalysisHost
from abl.text import Position, Range

ROOT = Path(__file__).resolve().parents[2]
LSP = ROOT / "server" / "abl" / "lsp"
EXAMPLE = ROOT / "examples" / "loan-supervisor"


@pytest.fixture
def analysed(tmp_path: Path):
    folder = tmp_path / "loan"
    shutil.copytree(EXAMPLE, folder)
    host = AnalysisHost()
    host.add_folder(str(folder))
    return host.analysis()


def _empty(answer: object) -> bool:
    return answer is None or (isinstance(answer, Sized) and len(answer) == 0)


def test_every_feature_answers_every_file_and_position(analysed) -> None:
    asked: set[str] = set()
    for path in analysed.paths():
        text = analysed.text(path) or ""
        whole = Range(Position(0, 0), Position(text.count("\n") + 1, 0))
        points = [Position(row, column) for row in range(0, text.count("\n") + 1, 3) for column in (0, 4, 12)]
        for name, call in file_calls(analysed, path, whole, points):
            refused(call)
            asked.add(name.split(" ")[0])
        for calls in once_per_file(analysed, path, whole, points):
            for name, call in calls:
                asked.add(name.split(" ")[0])
                if not refused(call)[0]:
                    break
        for name, call in project_calls(analysed, path, ["Loan_Supervisor", "Nobody"]):
            call()
            asked.add(name.split(" ")[0])
    assert asked == set(FEATURES)


def test_a_file_outside_the_analysis_gets_the_empty_answer(analysed) -> None:
    nowhere = "/nowhere/else.abl"
    here = Range(Position(0, 0), Position(1, 0))
    for name, call in file_calls(analysed, nowhere, here, [Position(0, 0)]):
        was_refused, answer = refused(call)
        assert not was_refused and _empty(answer), name
    for calls in once_per_file(analysed, nowhere, here, [Position(0, 0)]):
        for name, call in calls:
            assert refused(call) == (False, None), name
    for name, call in project_calls(analysed, nowhere, ["Loan_Supervisor"]):
        if not name.startswith("workspace_symbols"):
            assert _empty(call()), name


def _called_in_lsp() -> set[str]:
    names: set[str] = set()
    for path in LSP.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                names.add(node.attr)
    return names


def test_every_feature_has_a_protocol_handler() -> None:
    # One handler per feature: the protocol layer asks each method of the analysis somewhere.
    missing = sorted(set(FEATURES) - _called_in_lsp())
    assert not missing, f"features no handler asks: {missing}"
