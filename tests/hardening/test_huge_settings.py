"""Settings written with absurd numbers are read as unreadable (the default applies), never as
a crash of the lowering or of a run."""

from __future__ import annotations

import pytest

from abl.model import load_document
from abl.model.lower_steps import duration_ms


@pytest.mark.parametrize(
    "text,expected",
    [("15s", 15_000), ("500ms", 500), ("9" * 18, int("9" * 18)), ("9" * 19, None), ("9" * 5000 + "s", None)],
)
def test_durations_past_any_wait_are_unreadable(text: str, expected: int | None) -> None:
    assert duration_ms(text) == expected


@pytest.mark.parametrize("written", ["9" * 400, "1e999", "-1e999", "nan", "inf"])
def test_multi_intent_numbers_past_the_float_range_keep_their_defaults(written: str) -> None:
    doc = load_document(
        f"SUPERVISOR: S\nGOAL: g\nMULTI_INTENT:\n  max_intents: {written}\n  queue_max_age_ms: {written}\n"
    )
    settings = doc.agents[0].multi_intent
    assert settings is not None
    assert (settings.max_intents, settings.queue_max_age_ms) == (3, 600_000)


def test_a_large_finite_multi_intent_number_is_read() -> None:
    doc = load_document("SUPERVISOR: S\nGOAL: g\nMULTI_INTENT:\n  queue_max_age_ms: 1e20\n")
    settings = doc.agents[0].multi_intent
    assert settings is not None and settings.queue_max_age_ms == 10**20
