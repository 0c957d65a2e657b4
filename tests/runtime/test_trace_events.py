"""Trace events: envelope, levels, deterministic export, redaction."""

from __future__ import annotations

import io
import json
from datetime import datetime, timedelta, timezone

import pytest

from abl.runtime.models.base import ChatMessage, ModelCallRecord
from abl.runtime.trace import (
    REDACTED,
    CounterIds,
    FixedClock,
    JsonlStream,
    Redactor,
    Trace,
    TraceLevel,
    event_level,
    format_timestamp,
    read_jsonl,
    redact_value,
    to_json,
)


def run_conversation(trace: Trace) -> None:
    """A fixed sequence of engine-like emits, used to compare two runs byte for byte."""
    ids = CounterIds()
    hub, child = ids.next_id("thread"), ids.next_id("thread")
    trace.emit(
        "handoff_condition_check",
        {
            "condition": 'intent.category == "return_item"',
            "result": True,
            "target": "Returns_Agent",
            "whenOutcome": "deterministic_match",
            "evaluatedContext": {"intent": {"category": "return_item"}},
        },
        turn=1,
        thread=hub,
        agent="Retail_Hub",
    )
    record = ModelCallRecord(
        "intent",
        "embedded",
        (ChatMessage("user", "I want to return these shoes"),),
        {"intent": "return_item", "confidence": 0.8},
    )
    trace.emit("model_call", record.trace_fields(), turn=1, thread=hub, agent="Retail_Hub")
    trace.emit(
        "handoff",
        {
            "from": "Retail_Hub",
            "to": "Returns_Agent",
            "returnExpected": False,
            "reasonCode": "handoff_permanent",
            "history": {"mode": "last_n", "count": 6},
            "historyMessages": 1,
            "passed": ["order_id"],
        },
        turn=1,
        thread=hub,
        agent="Retail_Hub",
    )
    trace.emit(
        "handoff_completed",
        {"to": "Returns_Agent", "outcome": "success", "durationMs": 0},
        turn=1,
        thread=child,
        agent="Returns_Agent",
    )
    trace.emit(
        "gather",
        {"field": "return_reason", "value": "too small", "valid": True, "attempt": 1},
        turn=2,
        thread=child,
        agent="Returns_Agent",
    )
    trace.emit(
        "complete",
        {"rule": {"index": 0, "condition": "return_reason IS SET"}, "terminal": True},
        turn=2,
        thread=child,
        agent="Returns_Agent",
    )


def test_two_runs_give_identical_jsonl_bytes() -> None:
    first, second = Trace(), Trace()
    run_conversation(first)
    run_conversation(second)
    assert first.to_jsonl().encode() == second.to_jsonl().encode()
    assert first.to_jsonl(TraceLevel.STANDARD) == second.to_jsonl(TraceLevel.STANDARD)


def test_envelope_order_seq_and_timestamps() -> None:
    trace = Trace()
    run_conversation(trace)
    rows = read_jsonl(trace.to_jsonl())
    assert [list(row)[:6] for row in rows] == [["type", "seq", "turn", "thread", "agent", "ts"]] * len(rows)
    assert [row["seq"] for row in rows] == [1, 2, 3, 4, 5, 6]
    assert rows[0]["ts"] == "2026-01-01T00:00:00.000Z"
    assert rows[1]["ts"] == "2026-01-01T00:00:01.000Z"
    assert rows[3]["thread"] == "thread-2"
    # Fields follow the envelope in sorted order, nested objects too.
    handoff = rows[2]
    assert list(handoff)[6:] == sorted(list(handoff)[6:])
    assert list(rows[0]["evaluatedContext"]) == ["intent"]
    assert handoff["from"] == "Retail_Hub" and handoff["passed"] == ["order_id"]


def test_to_json_is_compact_and_keeps_non_ascii() -> None:
    trace = Trace()
    event = trace.emit("error", {"message": "café ☕"}, turn=1, thread="t", agent="A")
    assert to_json(event) == (
        '{"type":"error","seq":1,"turn":1,"thread":"t","agent":"A","ts":"2026-01-01T00:00:00.000Z","message":"café ☕"}'
    )


@pytest.mark.parametrize(
    ("level", "types"),
    [
        ("minimal", ["handoff", "handoff_completed", "complete"]),
        ("standard", ["handoff_condition_check", "handoff", "handoff_completed", "gather", "complete"]),
        ("verbose", ["handoff_condition_check", "model_call", "handoff", "handoff_completed", "gather", "complete"]),
        ("debug", ["handoff_condition_check", "model_call", "handoff", "handoff_completed", "gather", "complete"]),
    ],
)
def test_levels_filter_events(level: str, types: list[str]) -> None:
    trace = Trace()
    run_conversation(trace)
    assert [event.type for event in trace.at_level(level)] == types
    assert [row["type"] for row in read_jsonl(trace.to_jsonl(level))] == types


def test_model_call_messages_only_at_debug() -> None:
    trace = Trace()
    run_conversation(trace)
    (verbose,) = [e for e in trace.at_level(TraceLevel.VERBOSE) if e.type == "model_call"]
    (debug,) = [e for e in trace.at_level(TraceLevel.DEBUG) if e.type == "model_call"]
    assert verbose.fields["messages"] == {"count": 1}
    assert debug.fields["messages"] == {
        "count": 1,
        "items": [{"content": "I want to return these shoes", "role": "user"}],
    }
    # The stored event keeps everything; the view does not change it.
    assert trace.of_type("model_call")[0].fields["messages"]["count"] == 1
    assert "items" in trace.of_type("model_call")[0].fields["messages"]


@pytest.mark.parametrize(
    ("event_type", "level"),
    [
        ("handoff", TraceLevel.MINIMAL),
        ("error", TraceLevel.MINIMAL),
        ("handoff_return_handler", TraceLevel.STANDARD),
        ("resume_intent", TraceLevel.STANDARD),
        ("thread_resume", TraceLevel.STANDARD),
        ("memory_error", TraceLevel.STANDARD),
        ("model_call", TraceLevel.VERBOSE),
        ("something_new", TraceLevel.STANDARD),
    ],
)
def test_event_levels(event_type: str, level: TraceLevel) -> None:
    assert event_level(event_type) is level


def test_level_names_are_checked() -> None:
    assert TraceLevel.parse(" Verbose ") is TraceLevel.VERBOSE
    with pytest.raises(
        ValueError, match="unknown trace level 'loud'; expected one of minimal, standard, verbose, debug"
    ):
        TraceLevel.parse("loud")


def test_envelope_names_cannot_be_fields() -> None:
    with pytest.raises(ValueError, match=r"field names \['seq', 'type'\] are reserved"):
        Trace().emit("error", {"type": "x", "seq": 3}, turn=1, thread="t", agent="A")


def test_fields_must_be_plain_data() -> None:
    with pytest.raises(TypeError, match="cannot hold a object"):
        Trace().emit("error", {"thing": object()}, turn=1, thread="t", agent="A")
    event = Trace().emit(
        "error",
        {"when": datetime(2026, 2, 3, 4, 5, 6, tzinfo=timezone.utc), "tags": {"b", "a"}, "pair": (1, 2)},
        turn=1,
        thread="t",
        agent="A",
    )
    assert event.fields == {"pair": [1, 2], "tags": ["a", "b"], "when": "2026-02-03T04:05:06.000Z"}


def test_fixed_clock_and_counter_ids() -> None:
    clock = FixedClock(step=timedelta(milliseconds=250))
    assert [format_timestamp(clock.now()) for _ in range(3)] == [
        "2026-01-01T00:00:00.000Z",
        "2026-01-01T00:00:00.250Z",
        "2026-01-01T00:00:00.500Z",
    ]
    ids = CounterIds()
    assert [ids.next_id("thread"), ids.next_id("session"), ids.next_id("thread")] == [
        "thread-1",
        "session-1",
        "thread-2",
    ]


# --- Redaction --------------------------------------------------------------------------------


def test_sensitive_field_names_are_redacted_at_any_depth() -> None:
    trace = Trace(redactor=Redactor(sensitive_names=["pin"]))
    event = trace.emit(
        "thread_resume", {"preservedData": {"pin": "4921", "name": "Ann"}}, turn=1, thread="t", agent="A"
    )
    assert event.fields["preservedData"] == {"name": "Ann", "pin": REDACTED}
    assert "4921" not in trace.to_jsonl()


def test_secret_values_are_redacted_in_text_and_numbers() -> None:
    trace = Trace(redactor=Redactor(secrets=["4921"]))
    trace.emit("gather", {"field": "pin", "value": 4921, "echo": "my pin is 4921."}, turn=1, thread="t", agent="A")
    exported = trace.to_jsonl()
    assert "4921" not in exported
    row = read_jsonl(exported)[0]
    assert row["value"] == REDACTED
    assert row["echo"] == f"my pin is {REDACTED}."


def test_secret_inside_a_longer_word_is_left_alone() -> None:
    redactor = Redactor(secrets=["12"])
    assert redactor.apply({"a": "order 12", "b": "A123", "c": "12-34"}) == {
        "a": f"order {REDACTED}",
        "b": "A123",
        "c": f"{REDACTED}-34",
    }


def test_protect_after_emit_scrubs_stored_events_and_exports() -> None:
    trace = Trace()
    record = ModelCallRecord("extract", "embedded", (ChatMessage("user", "pin 7788 please"),), {})
    trace.emit("model_call", record.trace_fields(), turn=1, thread="t", agent="Bank")
    assert "7788" in json.dumps(trace.events[0].fields)
    trace.protect("7788")
    assert "7788" not in json.dumps(trace.events[0].fields)
    for level in TraceLevel:
        assert "7788" not in trace.to_jsonl(level)


def test_protect_field_scrubs_earlier_events() -> None:
    trace = Trace()
    trace.emit("tool_result", {"result": {"ssn": "123-45-6789"}}, turn=1, thread="t", agent="A")
    trace.protect_field("ssn")
    assert trace.events[0].fields == {"result": {"ssn": REDACTED}}


def test_redact_value_helper() -> None:
    assert redact_value("4921", sensitive=True) == REDACTED
    assert redact_value("4921", sensitive=False) == "4921"
    assert redact_value(None, sensitive=True) is None


def test_live_jsonl_stream_respects_level_and_redaction() -> None:
    trace = Trace(redactor=Redactor(secrets=["4921"]))
    out = io.StringIO()
    trace.subscribe(JsonlStream(out, trace.redactor, TraceLevel.STANDARD))
    trace.emit("model_call", {"purpose": "extract"}, turn=1, thread="t", agent="A")
    trace.emit("gather", {"field": "pin", "value": "4921"}, turn=1, thread="t", agent="A")
    lines = out.getvalue().splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["gather"]
    assert "4921" not in out.getvalue()


def test_unsubscribe_stops_a_listener() -> None:
    trace = Trace()
    seen: list[str] = []
    stop = trace.subscribe(lambda event: seen.append(event.type))
    trace.emit("error", {}, turn=1, thread="t", agent="A")
    stop()
    trace.emit("error", {}, turn=1, thread="t", agent="A")
    assert seen == ["error"]


def test_write_jsonl_to_path_and_stream(tmp_path) -> None:  # type: ignore[no-untyped-def]
    trace = Trace()
    run_conversation(trace)
    target = tmp_path / "trace.jsonl"
    trace.write_jsonl(target, "minimal")
    stream = io.StringIO()
    trace.write_jsonl(stream, TraceLevel.MINIMAL)
    assert target.read_text(encoding="utf-8") == stream.getvalue() == trace.to_jsonl("minimal")
    assert stream.getvalue().endswith("\n") and stream.getvalue().count("\n") == 3
