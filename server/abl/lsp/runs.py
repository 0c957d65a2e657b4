"""Running agents from any editor: the `abl/run/*` methods and the `abl.runAgent` command.

Requests (params and results in camelCase, documented with a JSON Schema in docs/editors.md):
- `abl/run/start` `{uri, agent?, model?, mocks?, traceLevel?}` → `{runId, agent, greeting, events,
  notEnforced}` (`notEnforced`: `[{construct, agent, instead, location}]`, what the agents the
  run may reach declare that the local runtime does not enforce, `runtime.local_limits`);
  refused (InvalidParams, with the errors in `data.problems`) while the project has errors.
- `abl/run/send` `{runId, text}` → `{replies: [{agent, text}], activeAgent, events, ended}`;
- `abl/run/reset` `{runId}` → `{greeting, events}`;
- `abl/run/state`, `abl/run/stop` `{runId}`; `abl/run/save`, `abl/run/saveTest` `{runId, uri}`;
- `abl/run/load` `{runId, uri}` → the state, with `events`: the loaded session's trace, told again.
Notification `abl/run/event` `{runId, event}` for every trace event shown at the run's level, in
order: during a turn each one is written the moment the engine stores it, so a client draws the
trace as it happens; all of them come before the request that caused them is answered, and the
answer's `events` repeats them (the same `seq`s) for clients that ignore notifications. Each event
carries `location: {uri, range}` where the source that caused it is known.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from abl.ide import FormatError, LineDict, LocatedEvent, NotEnforced, RunError, RunManager, plain, read_yaml
from abl.lsp.commands import RUN_AGENT
from abl.lsp.convert import path_to_uri, uri_to_path
from abl.lsp.handlers import command, handler
from abl.lsp.server import AblServer, log

EVENT = "abl/run/event"


class RunRefused(JsonRpcInvalidParams):
    """A run request that cannot be carried out, with the reasons for the client to show, and the
    errors that stand in the way as locations it can open (`data.errors`: `{uri, range, code,
    message}`)."""

    def __init__(
        self, message: str, problems: list[str] | None = None, errors: list[dict[str, Any]] | None = None
    ) -> None:
        listed = list(problems or [])
        shown = "\n".join(listed[:10]) + (f"\n… and {len(listed) - 10} more" if len(listed) > 10 else "")
        super().__init__(
            f"{message}\n{shown}" if listed else message, data={"problems": listed, "errors": errors or []}
        )


def refused(ls: AblServer, err: RunError) -> RunRefused:
    """The error answer for a refused run, its errors located in the client's encoding."""
    errors = []
    for path, d in err.errors:
        where = ls.positions(path).range_to_client(d.range)
        errors.append(
            {
                "uri": path_to_uri(path),
                "range": {
                    "start": {"line": where.start.line, "character": where.start.character},
                    "end": {"line": where.end.line, "character": where.end.character},
                },
                "code": d.code,
                "message": d.message,
            }
        )
    return RunRefused(str(err), err.problems, errors)


def _get(params: Any, name: str, default: Any = None) -> Any:
    """A field of custom params, which arrive as a mapping or as an object with attributes."""
    if params is None:
        return default
    if isinstance(params, dict):
        return params.get(name, default)
    return getattr(params, name, default)


def _required_str(params: Any, name: str) -> str:
    value = _get(params, name)
    if not isinstance(value, str) or not value:
        raise RunRefused(f"`{name}` is required")
    return value


# Each server's runs (its state, not a closure's).
_RUNS: WeakKeyDictionary[AblServer, RunManager] = WeakKeyDictionary()


def _runs(ls: AblServer) -> RunManager:
    found = _RUNS.get(ls)
    if found is None:
        found = _RUNS[ls] = RunManager()
    return found


def event_json(ls: AblServer, located: LocatedEvent) -> dict[str, Any]:
    out = dict(located.event)
    if located.location is not None:
        where = ls.positions(located.location.path).range_to_client(located.location.range)
        out["location"] = {
            "uri": path_to_uri(located.location.path),
            "range": {
                "start": {"line": where.start.line, "character": where.start.character},
                "end": {"line": where.end.line, "character": where.end.character},
            },
        }
    return out


def not_enforced_json(ls: AblServer, item: NotEnforced) -> dict[str, Any]:
    where = ls.positions(item.path).range_to_client(item.range)
    return {
        "construct": item.construct,
        "agent": item.agent,
        "instead": item.instead,
        "location": {
            "uri": path_to_uri(item.path),
            "range": {
                "start": {"line": where.start.line, "character": where.start.character},
                "end": {"line": where.end.line, "character": where.end.character},
            },
        },
    }


def notify(ls: AblServer, run_id: str, events: list[LocatedEvent]) -> list[dict[str, Any]]:
    shown = [event_json(ls, e) for e in events]
    for event in shown:
        ls.protocol.notify(EVENT, {"runId": run_id, "event": event})
    return shown


def start(ls: AblServer, params: Any) -> dict[str, Any]:
    uri = _required_str(params, "uri")
    path = uri_to_path(uri)
    project = ls.analysis().project(path) if path is not None else None
    if project is None and path is not None:
        project = next((p for p in ls.analysis().projects() if path.startswith(p.root)), None)
    if project is None:
        raise RunRefused(f"{uri} is not part of an ABL project the server knows")
    mocks = _read_mocks(_get(params, "mocks"))
    try:
        run = _runs(ls).start(
            project,
            agent=_get(params, "agent"),
            model=_get(params, "model") or "embedded",
            mocks=mocks,
            trace_level=_get(params, "traceLevel") or ls.settings.trace_level,
        )
    except RunError as err:
        raise refused(ls, err) from None
    events = notify(ls, run.id, run.greeting_events)
    greeting = [{"agent": r.agent, "text": r.text} for r in run.session.greeting]
    not_enforced = [not_enforced_json(ls, item) for item in run.not_enforced]
    return {
        "runId": run.id,
        "agent": run.agent,
        "greeting": greeting,
        "events": events,
        "notEnforced": not_enforced,
    }


@handler("abl/run/start", lambda: None)
def run_start(ls: AblServer, params: Any) -> dict[str, Any]:
    return start(ls, params)


@handler("abl/run/send", lambda: None)
def run_send(ls: AblServer, params: Any) -> dict[str, Any]:
    run_id = _required_str(params, "runId")
    text = _get(params, "text")
    if not isinstance(text, str):
        raise RunRefused("`text` is required")

    def live(located: LocatedEvent) -> None:
        # Called from inside the engine's turn: a failure to tell the client must not stop
        # the conversation half way (the answer repeats every event).
        try:
            ls.protocol.notify(EVENT, {"runId": run_id, "event": event_json(ls, located)})
        except Exception:
            log.exception("abl/run/event for %s", located.event.get("type"))

    try:
        turn = _runs(ls).send(run_id, text, on_event=live)
    except RunError as err:
        raise RunRefused(str(err), err.problems) from None
    return {
        "replies": [{"agent": agent, "text": reply} for agent, reply in turn.replies],
        "activeAgent": turn.active_agent,
        "events": [event_json(ls, e) for e in turn.events],
        "ended": turn.ended,
    }


@handler("abl/run/state", lambda: None)
def run_state(ls: AblServer, params: Any) -> dict[str, Any]:
    return _checked(lambda: _runs(ls).state(_required_str(params, "runId")))


@handler("abl/run/reset", lambda: None)
def run_reset(ls: AblServer, params: Any) -> dict[str, Any]:
    run_id = _required_str(params, "runId")
    greeting, events = _checked(lambda: _runs(ls).reset(run_id))
    return {"greeting": [{"agent": a, "text": t} for a, t in greeting], "events": notify(ls, run_id, events)}


@handler("abl/run/stop", lambda: None)
def run_stop(ls: AblServer, params: Any) -> None:
    _runs(ls).stop(_required_str(params, "runId"))


@handler("abl/run/save", lambda: None)
def run_save(ls: AblServer, params: Any) -> None:
    _checked(lambda: _runs(ls).save(_required_str(params, "runId"), _file(params)))


@handler("abl/run/load", lambda: None)
def run_load(ls: AblServer, params: Any) -> dict[str, Any]:
    run_id = _required_str(params, "runId")
    events = _checked(lambda: _runs(ls).load(run_id, _file(params)))
    return {**_runs(ls).state(run_id), "events": notify(ls, run_id, events)}


@handler("abl/run/saveTest", lambda: None)
def run_save_test(ls: AblServer, params: Any) -> None:
    _checked(lambda: _runs(ls).save_test(_required_str(params, "runId"), _file(params)))


@command(RUN_AGENT, lambda: None)
def run_agent(ls: AblServer, *arguments: Any) -> dict[str, Any]:
    """The code lens command: `[uri, agent]`."""
    uri = arguments[0] if arguments else None
    agent = arguments[1] if len(arguments) > 1 else None
    return start(ls, {"uri": uri, "agent": agent})


@handler(lsp.SHUTDOWN, lambda: None)
def stop_runs(ls: AblServer, params: Any) -> None:
    _runs(ls).stop_all()


_T = TypeVar("_T")


def _checked(action: Callable[[], _T]) -> _T:
    """`action()`, with a refused run or an unusable file as the request's error answer."""
    try:
        return action()
    except RunError as err:
        raise RunRefused(str(err), err.problems) from None
    except OSError as err:
        raise RunRefused(f"cannot use the file: {err.strerror or err}") from None


def _file(params: Any) -> str:
    uri = _required_str(params, "uri")
    path = uri_to_path(uri)
    if path is None:
        raise RunRefused(f"{uri} is not a file")
    return path


def _read_mocks(uri: Any) -> dict[str, Any]:
    if not uri:
        return {}
    path = uri_to_path(str(uri))
    if path is None:
        raise RunRefused(f"{uri} is not a file")
    try:
        data = read_yaml(path)
    except (FormatError, OSError) as err:
        raise RunRefused(f"bad mocks file: {err}") from None
    if data is None:
        return {}
    if not isinstance(data, LineDict):
        raise RunRefused("bad mocks file: expected a mapping of tool name to result")
    return {str(k): plain(v) for k, v in data.items()}
