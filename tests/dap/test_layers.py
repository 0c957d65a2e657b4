"""The debugger sits at the protocol edge: nothing of `abl` imports `abl.dap` but the CLI's
`abl dap`, and `abl.dap` does not reach into the language server."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "abl"


def _modules(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            found.append((node.lineno, node.module))
    return found


def _outside_dap() -> list[Path]:
    return sorted(
        p for p in PACKAGE.rglob("*.py") if "dap" not in p.relative_to(PACKAGE).parts[:1] and p.name != "dap.py"
    )


@pytest.mark.parametrize("path", _outside_dap(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_the_cli_starts_the_debugger(path: Path) -> None:
    wrong = [f"line {line}" for line, module in _modules(path) if module == "abl.dap" or module.startswith("abl.dap.")]
    assert not wrong, (
        f"{path.relative_to(PACKAGE)} imports abl.dap ({', '.join(wrong)}); the engine knows nothing of debugging"
    )


@pytest.mark.parametrize("path", sorted((PACKAGE / "dap").glob("*.py")), ids=lambda p: p.name)
def test_the_debugger_does_not_use_the_language_server(path: Path) -> None:
    wrong = [module for _, module in _modules(path) if module == "abl.lsp" or module.startswith("abl.lsp.")]
    assert not wrong, f"dap/{path.name} imports {wrong}"
