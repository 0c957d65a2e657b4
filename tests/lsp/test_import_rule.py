"""`abl.lsp` converts between the protocol and `abl.ide`, and imports nothing else of `abl`:
every `abl` import of a module in `server/abl/lsp/` names `abl.ide` itself or another `abl.lsp`
module, and the third-party imports are the protocol libraries and the standard library."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

LSP = Path(__file__).resolve().parents[2] / "server" / "abl" / "lsp"
PROTOCOL_LIBRARIES = {"lsprotocol", "pygls", "cattrs", "attrs"}


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            found.append((node.lineno, node.module))
    return found


def _allowed(module: str) -> bool:
    if module == "abl.ide" or module == "abl.lsp" or module.startswith("abl.lsp."):
        return True
    top = module.split(".", 1)[0]
    return top != "abl" and (top in PROTOCOL_LIBRARIES or top in sys.stdlib_module_names)


@pytest.mark.parametrize("path", sorted(LSP.glob("*.py")), ids=lambda p: p.name)
def test_the_protocol_layer_imports_only_the_editor_api(path: Path) -> None:
    wrong = [f"{path.name}:{line} imports {module}" for line, module in _imports(path) if not _allowed(module)]
    assert not wrong, "abl.lsp may import only abl.ide (re-export what it needs there): " + "; ".join(wrong)


@pytest.mark.parametrize(
    ("module", "allowed"),
    [("abl.ide", True), ("abl.lsp.convert", True), ("abl.ide.host", False), ("abl.text", False), ("yaml", False)],
)
def test_the_rule_itself(module: str, allowed: bool) -> None:
    assert _allowed(module) is allowed
