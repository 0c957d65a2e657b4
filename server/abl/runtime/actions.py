"""The actions a step, branch, handler or `ON_START` runs: say, set, clear, call, transform, log.

Each runs on one thread's values. A `SET` right-hand side and a call's arguments are
expressions; texts are templates. A failed call leaves its `AS` variable unset and its result
is returned, so the caller decides what a failure means (a step's `ON_ERROR` and `ON_FAIL`).
"""

from __future__ import annotations

from collections.abc import Sequence

from abl.model.steps import Action, Assign, Call, CallSpec, Clear, Log, Say, Transform
from abl.runtime.engine import Engine, TurnContext
from abl.runtime.evaluation import value_of
from abl.runtime.state import Thread
from abl.runtime.tools import CallResult, call_tool, find_tool, named_arguments
from abl.runtime.transform import run_transform


def run_actions(
    engine: Engine, thread: Thread, actions: Sequence[Action], ctx: TurnContext | None, step: str | None = None
) -> None:
    for action in actions:
        do_action(engine, thread, action, ctx, step)


def do_action(
    engine: Engine, thread: Thread, action: Action, ctx: TurnContext | None, step: str | None = None
) -> CallResult | None:
    """Run one action; a call's result is returned."""
    if isinstance(action, Say):
        text = engine.render(thread, action.text.text)
        if text.strip():
            engine.say(thread, text, ctx)
    elif isinstance(action, Assign):
        assign(engine, thread, action)
    elif isinstance(action, Clear):
        for name in action.names:
            thread.clear_value(name.text)
            thread.attempts.pop(name.text, None)
    elif isinstance(action, Call):
        return call(engine, thread, action.call, ctx, step)
    elif isinstance(action, Transform):
        spec = action.spec
        result, problem = run_transform(spec, thread.values, engine.env)
        into = spec.into.text if spec.into is not None else ""
        if result is None:
            engine.emit("warning", {"code": "transform_failed", "message": problem, "step": step or ""}, thread)
        elif into:
            thread.set_value(into, result)
            engine.emit("transform", {"step": step or "", "into": into, "count": len(result)}, thread)
    elif isinstance(action, Log):
        engine.emit(
            "log",
            {
                "step": step or "",
                "level": action.level,
                "message": engine.render(thread, action.message.text),
            },
            thread,
        )
    return None


def assign(engine: Engine, thread: Thread, action: Assign) -> None:
    for assignment in action.assignments:
        value, problems = value_of(assignment.expr, thread.values, engine.env)
        thread.set_value(assignment.target.text, value)
        if problems:
            engine.emit(
                "warning",
                {"code": "set_problem", "target": assignment.target.text, "message": "; ".join(problems)},
                thread,
            )


def call(engine: Engine, thread: Thread, spec: CallSpec, ctx: TurnContext | None, step: str | None) -> CallResult:
    written = []
    for name, expression in spec.arguments:
        value, _ = value_of(expression, thread.values, engine.env)
        written.append((name, value))
    arguments = named_arguments(find_tool(engine, thread, spec.tool.text), written)
    result = call_tool(engine, thread, spec.tool.text, arguments, ctx, step=step)
    if spec.result is not None:
        thread.set_value(spec.result.text, result.value if result.ok else None)
    return result
