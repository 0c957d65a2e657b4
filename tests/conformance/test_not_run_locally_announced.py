"""What the local runtime does not run is said where the user looks: on standard error when
`abl test` starts, not only in the trace (issue: constructs not enforced locally are announced)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent / "not-run-locally"


def test_abl_test_announces_constructs_not_run_locally_on_stderr():
    done = subprocess.run(
        [sys.executable, "-m", "abl", "test", str(PROJECT / "transfer-desk.abltest.yaml"), "-k", "CONSTRAINTS"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "CONSTRAINTS" in done.stderr and "not" in done.stderr, done.stderr
