"""Tool calls, answered by mocks: no network call is ever made from here.

A mock is given per tool name (`RuntimeOptions.mocks`): one value used for every call, or a list
whose items are used in turn (the last one repeats). A mock `{"$error": "message"}` (or
`{"$error": {"type": ..., "subtype": ..., "message": ...}}`) makes that call fail, so error paths
can be tried. The call and its result are two messages of the calling thread (one history unit)
and two trace events; a result is stored as `last_<tool>_result`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from abl.model.types import Tool
from abl.runtime.engine import Engine, TurnContext, compact_json
from abl.runtime.state import Thread

ERROR_KEY = "$error"


@dataclass(frozen=True, slots=True)
class CallResult:
    ok: bool
    value: Any = None
    error_type: str = "tool_error"
    subtype: str | None = None
    message: str = ""


def find_tool(engine: Engine, thread: Thread, name: str) -> Tool | None:
    agent = engine.agent(thread.agent)
    if agent is not None:
        for tool in agent.tools:
            if tool.name.text == name:
                return tool
    for doc in engine.project.documents.values():
        for tool in doc.library_tools:
            if tool.name.text == name:
                return tool
    return None


def check_arguments(tool: Tool | None, arguments: Mapping[str, Any]) -> list[str]:
    """Problems with the arguments against the tool's signature (missing or unknown names)."""
    if tool is None:
        return []
    known = {p.name for p in tool.params}
    problems = [
        f"missing argument `{param.name}`"
        for param in tool.params
        if not param.optional and arguments.get(param.name) is None
    ]
    problems.extend(f"unknown argument `{name}`" for name in arguments if name not in known)
    for param in tool.params:
        value = arguments.get(param.name)
        if value is not None and not _fits(param.type, value):
            problems.append(f"argument `{param.name}` should be {param.type}, not {type_name(value)}")
    return problems


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "float": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def _fits(declared: str, value: Any) -> bool:
    """Whether a value fits a declared parameter type; types the runtime does not know fit."""
    kind = declared.strip().lower()
    if kind.endswith("[]"):
        return isinstance(value, list)
    wanted = _TYPES.get(kind)
    if wanted is None:
        return True
    if isinstance(value, bool) and bool not in wanted:
        return False
    return isinstance(value, wanted)


def type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def named_arguments(tool: Tool | None, written: Sequence[tuple[str | None, Any]]) -> dict[str, Any]:
    """Arguments by parameter name; positional ones (`CALL: tool(x, y)`) take the signature's order."""
    params = [p.name for p in tool.params] if tool is not None else []
    out: dict[str, Any] = {}
    position = 0
    for name, value in written:
        if name is None:
            if position < len(params):
                out[params[position]] = value
            else:
                out[f"arg{position + 1}"] = value
            position += 1
        else:
            out[name] = value
    return out


def call_tool(
    engine: Engine,
    thread: Thread,
    name: str,
    arguments: Mapping[str, Any],
    ctx: TurnContext | None,
    *,
    step: str | None = None,
    confidence: float | None = None,
) -> CallResult:
    """Call a tool through its mock."""
    call_id = engine.ids.next_id("call")
    args = dict(arguments)
    fields: dict[str, Any] = {"tool": name, "callId": call_id, "input": args}
    if step is not None:
        fields["step"] = step
    if confidence is not None:
        fields["confidence"] = confidence
    engine.emit("tool_call", fields, thread)
    thread.history.append(engine.new_entry("assistant", f"{name}({compact_json(args)})", thread, call_id, name))
    problems = check_arguments(find_tool(engine, thread, name), args)
    mocks = engine.options.mocks
    if name not in mocks:
        problems.append(f"no mock result for tool `{name}`; give one with --mocks or RuntimeOptions.mocks")
    elif mocks[name] == []:
        problems.append(
            f"the mock for tool `{name}` is an empty list of results; give at least one "
            "(a tool that returns a list is mocked as a list of lists)"
        )
    result = CallResult(False, message="; ".join(problems)) if problems else _mocked(engine, name, mocks[name])
    if not result.ok:
        failed: dict[str, Any] = {
            "tool": name,
            "callId": call_id,
            "success": False,
            "mocked": True,
            "error": result.message,
            "errorType": result.error_type,
        }
        if result.subtype is not None:
            failed["subtype"] = result.subtype
        engine.emit("tool_result", failed, thread)
        thread.history.append(engine.new_entry("tool", json.dumps({"error": result.message}), thread, call_id, name))
        return result
    engine.emit(
        "tool_result",
        {"tool": name, "callId": call_id, "success": True, "mocked": True, "output": result.value},
        thread,
    )
    thread.history.append(engine.new_entry("tool", compact_json(result.value), thread, call_id, name))
    thread.set_value(f"last_{name}_result", result.value)
    return result


def _mocked(engine: Engine, name: str, mock: Any) -> CallResult:
    value = _next_mock(engine, name, mock)
    if isinstance(value, Mapping) and ERROR_KEY in value:
        error = value[ERROR_KEY]
        if isinstance(error, Mapping):
            return CallResult(
                False,
                error_type=str(error.get("type") or "tool_error"),
                subtype=str(error["subtype"]) if error.get("subtype") else None,
                message=str(error.get("message") or f"`{name}` failed"),
            )
        return CallResult(False, message=str(error))
    return CallResult(True, value)


def _next_mock(engine: Engine, name: str, mock: Any) -> Any:
    if not isinstance(mock, list):
        return mock
    used = engine.data.tool_calls.get(name, 0)
    engine.data.tool_calls[name] = used + 1
    return mock[min(used, len(mock) - 1)]
