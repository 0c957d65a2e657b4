"""A `launch` request's arguments read into what a debug run needs, or a clear refusal.

The project goes through the one loader (`abl.launch`), so a project with errors is refused
here as `abl run` refuses it; mocks and scripts are read as `abl run` reads them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from abl.cli.run import UsageProblem, read_mocks, script_messages
from abl.launch import LaunchRefused, launch, read_project
from abl.runtime import RuntimeOptions
from abl.runtime.models import PROVIDER_NAMES
from abl.suggest import did_you_mean
from abl.workspace import Project

# What a launch configuration may hold: ours, and what editors add to every configuration.
LAUNCH_ARGUMENTS = ("program", "agent", "model", "modelOptions", "mocks", "messages", "script", "stopOnEntry", "cwd")
_EDITOR_KEYS = frozenset(
    {
        "type",
        "request",
        "name",
        "noDebug",
        "presentation",
        "preLaunchTask",
        "postDebugTask",
        "internalConsoleOptions",
        "debugServer",
        "suppressMultipleSessionWarning",
    }
)


class LaunchProblem(Exception):
    """The launch cannot go ahead; the message says why, for the user."""


@dataclass(frozen=True)
class Program:
    program: str
    project: Project
    agent: str
    options: RuntimeOptions  # without an observer: the debuggee adds its own
    messages: tuple[str, ...] | None  # None: the customer types in the debug console
    stop_on_entry: bool = False
    no_debug: bool = False
    arguments: Mapping[str, Any] = field(default_factory=dict)
    ignored: tuple[str, ...] = ()  # what the configuration holds that means nothing here, said once


def read_program(arguments: Mapping[str, Any]) -> Program:
    program = arguments.get("program")
    if not isinstance(program, str) or not program.strip():
        raise LaunchProblem("`program` is required: the .abl file or the project folder to debug")
    where = _absolute(program, arguments)
    agent = _optional_text(arguments, "agent")
    try:
        ready = launch(read_project(where), agent, where=str(where), naming=" with `agent`")
    except LaunchRefused as refused:
        detail = "".join(f"\n  {p}" for p in refused.problems[:20])
        raise LaunchProblem(f"cannot debug {program}: {refused.message}{detail}") from None
    model = _optional_text(arguments, "model") or "embedded"
    if model not in PROVIDER_NAMES:
        raise LaunchProblem(f"`model` is {model!r}; choose one of: {', '.join(PROVIDER_NAMES)}")
    model_options = arguments.get("modelOptions") or {}
    if not isinstance(model_options, dict):
        raise LaunchProblem("`modelOptions` is an object of the model provider's settings")
    if model == "openai" and "api_key" not in model_options and os.environ.get("OPENAI_API_KEY"):
        model_options = {**model_options, "api_key": os.environ["OPENAI_API_KEY"]}
    mocks: dict[str, Any] = {}
    mocks_file = _optional_text(arguments, "mocks")
    if mocks_file is not None:
        try:
            mocks = read_mocks(str(_absolute(mocks_file, arguments)))
        except UsageProblem as problem:
            raise LaunchProblem(str(problem).replace("abl run: error: bad --mocks file", "bad `mocks` file")) from None
    options = RuntimeOptions(model=model, model_options=model_options, mocks=mocks, trace_level="debug")
    return Program(
        program=program,
        project=ready.project,
        agent=ready.agent,
        options=options,
        messages=_messages(arguments),
        stop_on_entry=arguments.get("stopOnEntry") is True,
        no_debug=arguments.get("noDebug") is True,
        arguments=dict(arguments),
        ignored=tuple(_unknown(arguments)),
    )


def _unknown(arguments: Mapping[str, Any]) -> list[str]:
    """A line for each key of the configuration that abl dap does not read (never silently)."""
    said = []
    for key in arguments:
        if key in LAUNCH_ARGUMENTS or key in _EDITOR_KEYS or key.startswith("__"):
            continue
        close = did_you_mean(key, LAUNCH_ARGUMENTS)
        hint = f" (did you mean `{close}`?)" if close else ""
        said.append(f"launch: `{key}` is not an argument of abl dap{hint}; it is ignored")
    return said


def _messages(arguments: Mapping[str, Any]) -> tuple[str, ...] | None:
    messages = arguments.get("messages")
    script = _optional_text(arguments, "script")
    if messages is not None and script is not None:
        raise LaunchProblem("give `messages` or `script`, not both")
    if messages is not None:
        if not isinstance(messages, list) or not all(isinstance(m, str) for m in messages):
            raise LaunchProblem("`messages` is a list of the customer's messages (strings), one per turn")
        return tuple(m for m in messages if m.strip())
    if script is not None:
        path = _absolute(script, arguments)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as err:
            raise LaunchProblem(f"cannot read `script` {script}: {err}") from None
        return tuple(script_messages(lines))
    return None


def _optional_text(arguments: Mapping[str, Any], key: str) -> str | None:
    value = arguments.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise LaunchProblem(f"`{key}` is a string, not {type(value).__name__}")
    return value.strip() or None


def _absolute(path: str, arguments: Mapping[str, Any]) -> Path:
    """A path as given, or under `cwd` when the configuration names one and the path is relative."""
    given = Path(path).expanduser()
    cwd = arguments.get("cwd")
    if not given.is_absolute() and isinstance(cwd, str) and cwd:
        given = Path(cwd) / given
    return given
