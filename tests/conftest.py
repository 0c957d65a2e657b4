"""Make the package and the shared test helpers importable without installing anything."""

import sys
from pathlib import Path

_TESTS = Path(__file__).resolve().parent
_SERVER = _TESTS.parent / "server"
for _path in (_SERVER, _TESTS):  # the package, and the shared test helpers (fixture, checking)
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
