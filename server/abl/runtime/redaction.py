"""What leaves the engine: the one redaction point every output path goes through.

The engine keeps sensitive values in clear while it works (a gather must read them, a tool may
need them). Whatever it gives out passes through the session's `Redactor` (`abl.runtime.trace`),
which knows the sensitive names (gathered `SENSITIVE` fields, sensitive `MEMORY` variables and
the variables computed from them, see `plan.py`) and the secret values registered so far (the
values of those names, the API key of a model endpoint):

- replies: templates render sensitive values masked per `sensitive_display`/`mask_config`
  (`Engine.render`), and the text said is scrubbed of any registered secret (`Engine.say`);
- the trace: every event as it is stored, and again when exported (`Trace.emit`, `Trace.to_jsonl`);
- saved sessions and the journal: the functions below (`saved_state`, `saved_thread`, ...);
- recorded tests: the customer's message as the turn reports it (`Turn.user`);
- model prompts: every earlier message of the conversation (`Engine.conversation`); only the
  message being answered goes as typed, since a value must be read from it;
- the session API an editor shows: `Session.state()` values and `Session.history`.
"""

from __future__ import annotations

from typing import Any

from abl.runtime.engine import Engine
from abl.runtime.state import Thread
from abl.runtime.trace import REDACTED, Redactor


def shown_values(engine: Engine, thread: Thread) -> dict[str, Any]:
    """A thread's values as they may be shown or stored: sensitive names as `[redacted]` (the
    key stays, so `IS SET` still holds after a resume), secrets scrubbed from the others."""
    sensitive = engine.plan(thread.agent).sensitive
    redactor = engine.trace.redactor
    return {
        name: (REDACTED if name in sensitive and value is not None else redactor.apply(value))
        for name, value in thread.values.items()
    }


def saved_thread(engine: Engine, thread: Thread, with_history: bool = True) -> dict[str, Any]:
    """A thread as a saved session holds it."""
    redactor = engine.trace.redactor
    data = thread.to_data(with_history)
    data["values"] = shown_values(engine, thread)
    if with_history:
        data["history"] = [saved_entry(redactor, entry) for entry in data["history"]]
    # The flow position and queued requests hold the customer's words, and field names as keys
    # (attempts per field), so only texts are scrubbed there, never keys.
    data["flow"] = scrub_texts(redactor, data["flow"])
    data["intents"] = scrub_texts(redactor, data["intents"])
    return data


def saved_entry(redactor: Redactor, entry: dict[str, Any]) -> dict[str, Any]:
    """One stored message (`Entry.to_data()`) with secrets scrubbed from its text."""
    text = redactor.text(entry["text"])
    return entry if text == entry["text"] else {**entry, "text": text}


def saved_small_state(engine: Engine) -> dict[str, Any]:
    """The session's fields besides threads and log (`SessionData.small_data`), scrubbed."""
    redactor = engine.trace.redactor
    data = engine.data.small_data()
    for frame in data["stack"]:
        frame["utterance"] = saved_entry(redactor, frame["utterance"])
    data["greeting"] = [[agent, redactor.text(text)] for agent, text in data["greeting"]]
    return data


def saved_state(engine: Engine) -> dict[str, Any]:
    """The whole session state as a saved session holds it."""
    redactor = engine.trace.redactor
    return {
        "threads": [saved_thread(engine, thread) for thread in engine.data.threads.values()],
        "log": [saved_entry(redactor, entry.to_data()) for entry in engine.data.log],
        **saved_small_state(engine),
    }


def scrub_texts(redactor: Redactor, value: Any) -> Any:
    """`value` (plain data) with secrets scrubbed from every text in it; keys are kept."""
    if isinstance(value, str):
        return redactor.text(value)
    if isinstance(value, dict):
        return {key: scrub_texts(redactor, item) for key, item in value.items()}
    if isinstance(value, list):
        return [scrub_texts(redactor, item) for item in value]
    return value
