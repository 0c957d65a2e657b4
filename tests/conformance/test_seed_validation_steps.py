"""The seeds' validation steps, on their minimal working examples.

Each seed's Verification starts by validating the example project; `abl check` is the validator.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

RULES = [
    {
        "id": "V0-1",
        "source": "seed 000, Verification, step 1",
        "quote": "Run the validator on all four files. Expect no errors and no warnings.",
        "status": "holds",
        "test": "test_the_retail_hub_validates_without_errors_or_warnings",
    },
    {
        "id": "V4-1a",
        "source": "seed 004, Verification, step 1",
        "quote": "Validate the project. Every `TO` target must exist.",
        "status": "holds",
        "test": "test_the_loan_supervisor_validates_without_errors",
    },
]


def _check(folder: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "abl", "check", str(folder), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return json.loads(done.stdout)


def test_the_retail_hub_validates_without_errors_or_warnings():
    report = _check(EXAMPLES / "retail-hub")
    assert report["files"] == 4
    assert report["summary"]["errors"] == 0 and report["summary"]["warnings"] == 0, report["diagnostics"]


def test_the_loan_supervisor_validates_without_errors():
    report = _check(EXAMPLES / "loan-supervisor")
    assert report["summary"]["errors"] == 0, report["diagnostics"]
