"""Tool calls, answered by mocks: no network call is ever made from here.

A mock is given per tool name (`RuntimeOptions.mocks`): one value used for every call, or a list
whose items are used in turn (the last one repeats). The call and its result are two messages of
the calling thread (one history unit) and two trace events; the result is stored as
`last_<tool>_result`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from abl.model.types import Tool
from abl.runtime.engine import Engine, TurnContext
from abl.runtime.state import Thread


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
    problems = []
    known = {p.name for p in tool.params}
    for param in tool.params:
        if not param.optional and arguments.get(param.name) is None:
            problems.append(f"missing argument `{param.name}`")
    for name in arguments:
        if name not in known:
            problems.append(f"unknown argument `{name}`")
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


def call_tool(
    engine: Engine, thread: Thread, name: str, arguments: Mapping[str, Any], ctx: TurnContext | None
) -> tuple[bool, Any]:
    """Call a tool through its mock; returns (success, result)."""
    call_id = engine.ids.next_id("call")
    args = dict(arguments)
    engine.emit("tool_call", {"tool": name, "callId": call_id, "input": args}, thread)
    thread.history.append(engine.new_entry("assistant", f"{name}({_compact(args)})", thread, call_id))
    problems = check_arguments(find_tool(engine, thread, name), args)
    mocks = engine.options.mocks
    if name not in mocks:
        problems.append(f"no mock result for tool `{name}`; give one with --mocks or RuntimeOptions.mocks")
    elif mocks[name] == []:
        problems.append(f"the mock for tool `{name}` is an empty list of results; give at least one "
                        "(a tool that returns a list is mocked as a list of lists)")
    if problems:
        message = "; ".join(problems)
        engine.emit("tool_result", {"tool": name, "callId": call_id, "success": False, "mocked": True,
                                    "error": message}, thread)
        thread.history.append(engine.new_entry("tool", json.dumps({"error": message}), thread, call_id))
        return False, None
    result = _next_mock(engine, name, mocks[name])
    engine.emit("tool_result", {"tool": name, "callId": call_id, "success": True, "mocked": True,
                                "output": result}, thread)
    thread.history.append(engine.new_entry("tool", _compact(result), thread, call_id))
    thread.set_value(f"last_{name}_result", result)
    return True, result


def _next_mock(engine: Engine, name: str, mock: Any) -> Any:
    if not isinstance(mock, list):
        return mock
    used = engine.data.tool_calls.get(name, 0)
    engine.data.tool_calls[name] = used + 1
    return mock[min(used, len(mock) - 1)]


def _compact(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(value)
