"""What the local runtime does not run is announced on standard error.

Said where the user looks: when `abl test` starts, not only in the trace.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent / "not-run-locally"

RULES = [
    {
        "id": "N-04",
        "source": "README.md, abl run",
        "quote": "What cannot run locally is said once, when the agent starts",
        "status": "holds",
        "reading": "Said where the user looks: on standard error when `abl test` or `abl run` starts, "
        "not only as a trace event.",
        "test": "test_abl_test_announces_constructs_not_run_locally_on_stderr",
    },
]


def test_abl_test_announces_constructs_not_run_locally_on_stderr():
    done = subprocess.run(
        [sys.executable, "-m", "abl", "test", str(PROJECT / "transfer-desk.abltest.yaml"), "-k", "CONSTRAINTS"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "CONSTRAINTS" in done.stderr and "not" in done.stderr, done.stderr
