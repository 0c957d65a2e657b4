"""Trace events are typed: one schema per event type, committed in docs/, and every event the
engine emits in the scenario and example conversations validates against it."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema
import pytest
from engine_support import loan

from abl.launch import conversation_loader
from abl.runtime.event_files import LEVELS_TS, generated_files, levels_ts_text
from abl.runtime.event_files import main as event_files_main
from abl.runtime.events import EVENT_LEVELS, EVENT_TYPES, TraceLevel, json_schema, schema_text
from abl.runtime.testing.loader import discover, load_file
from abl.runtime.testing.runner import Runner
from abl.runtime.trace import Trace

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "docs" / "trace-events.schema.json"
LEVELS_FILE = ROOT / LEVELS_TS
REWRITE = "a generated file is out of date; rewrite it with python -m abl.runtime.event_files --write ."
CONVERSATIONS = sorted(discover([ROOT / "examples", ROOT / "tests" / "runtime" / "scenarios"])[0])


@cache
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_committed_schema_is_the_one_the_engine_describes() -> None:
    written = SCHEMA_FILE.read_text(encoding="utf-8")
    assert written == schema_text(), REWRITE


def test_the_extension_takes_its_levels_from_the_committed_schema() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert LEVELS_FILE.read_text(encoding="utf-8") == levels_ts_text(schema), REWRITE


def test_the_check_reports_a_stale_generated_file(tmp_path: Path) -> None:
    for relative, text in generated_files().items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    assert event_files_main(["--check", str(tmp_path)]) == 0
    (tmp_path / LEVELS_TS).write_text("export const LEVEL_OF_TYPE = {};\n", encoding="utf-8")
    assert event_files_main(["--check", str(tmp_path)]) == 1


def test_every_event_type_has_a_level_and_documented_fields() -> None:
    for event in EVENT_TYPES:
        assert event.level in TraceLevel
        assert event.doc.strip()
        assert set(event.required) <= set(event.fields), event.name
    assert {"return_to_parent", "session_reopened", "session_start"} <= set(EVENT_LEVELS)


def test_the_engine_refuses_an_event_type_it_does_not_describe() -> None:
    session = loan()
    with pytest.raises(ValueError, match="not an event type"):
        session._engine.emit("made_up_event", {})


def test_a_plain_trace_still_takes_any_type() -> None:
    Trace().emit("made_up_event", {}, turn=0, thread="t", agent="A")


@cache
def emitted() -> dict[str, list[dict]]:
    """Every event of every conversation under examples/ and the runtime scenarios, by file."""
    runner = Runner(conversation_loader())
    out: dict[str, list[dict]] = {}
    for path in CONVERSATIONS:
        events: list[dict] = []
        test_file = load_file(path)
        for conversation in test_file.conversations:
            events.extend(dict(e) for e in runner.run(test_file, conversation).trace)
        out[str(path.relative_to(ROOT))] = events
    return out


@pytest.mark.parametrize("path", [str(p.relative_to(ROOT)) for p in CONVERSATIONS])
def test_every_emitted_event_validates(path: str) -> None:
    events = emitted()[path]
    assert events
    for event in events:
        errors = sorted(validator().iter_errors(event), key=lambda e: list(e.path))
        assert not errors, f"{event['type']} #{event['seq']}: {[e.message for e in errors][:3]}\n{event}"


def test_the_scenarios_emit_nearly_every_event_type() -> None:
    seen = {event["type"] for events in emitted().values() for event in events}
    # Types only emitted on failures the scenarios are written to avoid.
    rare = {"error", "resume_intent_depth_limit", "session_reopened", "multi_intent_queue_expired"}
    missing = {e.name for e in EVENT_TYPES} - seen - rare
    assert not missing, f"no scenario conversation emits {sorted(missing)}"


def test_the_schema_is_one_branch_per_type() -> None:
    schema = json_schema()
    assert len(schema["oneOf"]) == len(EVENT_TYPES) == len(schema["$defs"])
