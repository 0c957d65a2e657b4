"""`abl dap`: the Debug Adapter Protocol at the edge, answering one request at a time.

Requests are read and answered on one thread; the run itself goes on the debuggee's thread
(`abl.dap.debuggee`), which sends the events of the run (`stopped`, `output`, `thread`,
`terminated`). A request that fails gets an error response with a message for the user; a
malformed stream ends the adapter with a message on standard error, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, Any

from abl.dap.breakpoints import Breakpoint, Breakpoints
from abl.dap.debuggee import EXCEPTION_FILTERS, Debuggee, Step
from abl.dap.inspect import EvaluationProblem, Inspector, source_of
from abl.dap.points import PausePoints
from abl.dap.program import LaunchProblem, Program, read_program
from abl.dap.wire import BadMessage, FramingError, Writer, read_message
from abl.launch import LaunchRefused, read_project

Handler = Callable[["DapServer", dict[str, Any]], dict[str, Any] | None]
HANDLERS: dict[str, Handler] = {}


class RequestFailed(Exception):
    """A request that cannot be answered; the message is shown to the user."""


def handles(command: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        HANDLERS[command] = handler
        return handler

    return register


class DapServer:
    def __init__(self, reader: IO[bytes], writer: IO[bytes]) -> None:
        self.reader = reader
        self.out = Writer(writer)
        self.breakpoints = Breakpoints()
        self.exception_filters: set[str] = set()
        self.program: Program | None = None
        self.debuggee: Debuggee | None = None
        self.inspector: Inspector | None = None
        self.configured = False
        self.line_base = 1
        self.column_base = 1
        self.done = False

    def serve(self) -> int:
        while not self.done:
            try:
                message = read_message(self.reader)
            except BadMessage as bad:
                print(f"abl dap: {bad}", file=sys.stderr, flush=True)
                continue
            except FramingError as err:
                print(f"abl dap: {err}; the adapter stops", file=sys.stderr)
                self._end_run()
                return 1
            if message is None:
                break
            if message.get("type") == "request":
                self.answer(message)
        self._end_run()
        return 0

    def answer(self, request: dict[str, Any]) -> None:
        command = str(request.get("command", ""))
        arguments = request.get("arguments")
        handler = HANDLERS.get(command)
        response: dict[str, Any] = {"type": "response", "request_seq": request.get("seq", 0), "command": command}
        if handler is None:
            response.update(success=False, message=f"`{command}` is not a request abl dap answers")
        else:
            try:
                body = handler(self, arguments if isinstance(arguments, dict) else {})
            except RequestFailed as failed:
                response.update(success=False, message=str(failed))
            except (LaunchProblem, EvaluationProblem) as problem:
                response.update(success=False, message=str(problem))
            except Exception as err:  # a bug answers this request with an error; the adapter goes on
                response.update(success=False, message=f"internal error in `{command}`: {type(err).__name__}: {err}")
            else:
                response["success"] = True
                if body is not None:
                    response["body"] = body
        if not response["success"]:
            response["body"] = {"error": {"id": 1, "format": response["message"], "showUser": True}}
        self.out.send(response)
        after = _AFTER.get(command)
        if after is not None and response["success"]:
            after(self)

    # --- the run -------------------------------------------------------------------------------

    def send_event(self, name: str, body: dict[str, Any] | None) -> None:
        if name == "output" and body is not None and "line" in body:
            body = {**body, "line": body["line"] - 1 + self.line_base}
        self.out.event(name, body)

    def start_run(self) -> None:
        if self.program is None or not self.configured or self.debuggee is not None:
            return
        self.breakpoints.reset_hits()
        debuggee = Debuggee(self.program, self.breakpoints, self.send_event)
        debuggee.exception_filters = set(self.exception_filters)
        self.debuggee = debuggee
        self.inspector = Inspector(debuggee, self.line_base, self.column_base)
        debuggee.start()

    def _end_run(self) -> None:
        if self.debuggee is not None:
            self.debuggee.abandon()

    def stopped(self) -> tuple[Debuggee, Inspector]:
        if self.debuggee is None or self.inspector is None:
            raise RequestFailed("the program is not running")
        return self.debuggee, self.inspector

    def resume(self, step: Step | None) -> None:
        debuggee, inspector = self.stopped()
        with debuggee.lock:
            inspector.forget()
            debuggee.resume(step)

    def breakpoint_body(self, made: Breakpoint) -> dict[str, Any]:
        body: dict[str, Any] = {"id": made.id, "verified": made.verified}
        if made.path and (made.verified or not made.name):
            body["line"] = made.line + self.line_base
            body["source"] = source_of(made.path)
        if made.message:
            body["message"] = made.message
        return body


def _points_for(server: DapServer, path: str) -> PausePoints | None:
    """The program's pause points; before a launch, those of the file itself."""
    if server.debuggee is not None:
        return server.debuggee.points
    if server.program is not None:
        return PausePoints(server.program.project)
    try:
        return PausePoints(read_project(path))
    except LaunchRefused:
        return None


# --- requests ------------------------------------------------------------------------------------


@handles("initialize")
def _initialize(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    server.line_base = 1 if args.get("linesStartAt1", True) is not False else 0
    server.column_base = 1 if args.get("columnsStartAt1", True) is not False else 0
    return {
        "supportsConfigurationDoneRequest": True,
        "supportsConditionalBreakpoints": True,
        "supportsFunctionBreakpoints": True,
        "supportsHitConditionalBreakpoints": True,
        "supportsLogPoints": True,
        "supportsEvaluateForHovers": True,
        "supportsCompletionsRequest": True,
        "supportsSetVariable": True,
        "supportsRestartRequest": True,
        "supportsTerminateRequest": True,
        "supportsExceptionInfoRequest": True,
        "supportsBreakpointLocationsRequest": True,
        "supportsDelayedStackTraceLoading": False,
        "exceptionBreakpointFilters": [
            {"filter": key, "label": label, "description": doc, "default": default}
            for key, (label, doc, default) in EXCEPTION_FILTERS.items()
        ],
    }


def _after_initialize(server: DapServer) -> None:
    server.out.event("initialized")


@handles("launch")
def _launch(server: DapServer, args: dict[str, Any]) -> None:
    if server.program is not None:
        raise RequestFailed("this adapter already launched a program")
    server.program = read_program(args)
    changed = server.breakpoints.rebind(PausePoints(server.program.project))
    for made in changed:
        server.out.event("breakpoint", {"reason": "changed", "breakpoint": server.breakpoint_body(made)})


@handles("attach")
def _attach(server: DapServer, args: dict[str, Any]) -> None:
    raise RequestFailed("abl dap runs the agent itself: use a `launch` configuration")


@handles("configurationDone")
def _configuration_done(server: DapServer, args: dict[str, Any]) -> None:
    server.configured = True


@handles("setBreakpoints")
def _set_breakpoints(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    source = args.get("source") or {}
    path = source.get("path") if isinstance(source, dict) else None
    if not isinstance(path, str):
        raise RequestFailed("a breakpoint's source needs a `path`")
    wanted = args.get("breakpoints")
    if wanted is None:
        wanted = [{"line": line} for line in args.get("lines") or []]
    requests = []
    for item in wanted:
        if not isinstance(item, dict) or not isinstance(item.get("line"), int):
            raise RequestFailed("each breakpoint needs a `line` number")
        requests.append({**item, "line": item["line"] - server.line_base})
    made = server.breakpoints.set(path, requests, _points_for(server, path))
    return {"breakpoints": [server.breakpoint_body(b) for b in made]}


@handles("setFunctionBreakpoints")
def _set_function_breakpoints(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    wanted = [b for b in args.get("breakpoints") or [] if isinstance(b, dict)]
    points = server.debuggee.points if server.debuggee is not None else None
    if points is None and server.program is not None:
        points = PausePoints(server.program.project)
    made = server.breakpoints.set_functions(wanted, points)
    return {"breakpoints": [server.breakpoint_body(b) for b in made]}


@handles("breakpointLocations")
def _breakpoint_locations(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    source = args.get("source") or {}
    path = source.get("path") if isinstance(source, dict) else None
    line = args.get("line")
    if not isinstance(path, str) or not isinstance(line, int):
        raise RequestFailed("`source.path` and `line` are required")
    given_end = args.get("endLine")
    end = given_end if isinstance(given_end, int) else line
    points = _points_for(server, path)
    if points is None:
        return {"breakpoints": []}
    lines = points.lines(path, line - server.line_base, end - server.line_base)
    return {"breakpoints": [{"line": n + server.line_base} for n in lines]}


@handles("setExceptionBreakpoints")
def _set_exception_breakpoints(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    asked: list[str] = [f for f in args.get("filters") or [] if isinstance(f, str)]
    asked += [str(o.get("filterId")) for o in args.get("filterOptions") or [] if isinstance(o, dict)]
    unknown = [f for f in asked if f not in EXCEPTION_FILTERS]
    if unknown:
        raise RequestFailed(f"unknown exception filter {unknown[0]!r}; known: {', '.join(EXCEPTION_FILTERS)}")
    server.exception_filters = set(asked)
    if server.debuggee is not None:
        server.debuggee.exception_filters = set(server.exception_filters)
    return {"breakpoints": [{"verified": True} for _ in asked]}


@handles("threads")
def _threads(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    if server.debuggee is None or server.inspector is None:
        return {"threads": []}
    with server.debuggee.lock:
        return {"threads": server.inspector.threads()}


@handles("stackTrace")
def _stack_trace(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    debuggee, inspector = server.stopped()
    with debuggee.lock:
        frames = inspector.stack(int(args.get("threadId", 0)))
    start = int(args.get("startFrame") or 0)
    levels = int(args.get("levels") or 0)
    shown = frames[start : start + levels] if levels > 0 else frames[start:]
    return {"stackFrames": shown, "totalFrames": len(frames)}


@handles("scopes")
def _scopes(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    debuggee, inspector = server.stopped()
    with debuggee.lock:
        return {"scopes": inspector.scopes(int(args.get("frameId", 0)))}


@handles("variables")
def _variables(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    debuggee, inspector = server.stopped()
    with debuggee.lock:
        found = inspector.variables(int(args.get("variablesReference", 0)))
    start = int(args.get("start") or 0)
    count = int(args.get("count") or 0)
    return {"variables": found[start : start + count] if count > 0 else found[start:]}


@handles("setVariable")
def _set_variable(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    debuggee, inspector = server.stopped()
    if debuggee.stop is None:
        raise RequestFailed("values can be changed only while the run is stopped")
    with debuggee.lock:
        return inspector.set_variable(
            int(args.get("variablesReference", 0)), str(args.get("name")), str(args.get("value"))
        )


@handles("evaluate")
def _evaluate(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    debuggee, inspector = server.stopped()
    expression = str(args.get("expression") or "")
    context = str(args.get("context") or "repl")
    frame = args.get("frameId")
    with debuggee.lock:
        answer = inspector.evaluate(expression, frame if isinstance(frame, int) else None, context)
    if answer is not None:
        return answer
    if debuggee.ended:
        raise RequestFailed("the session has ended: restart to talk to the agent again")
    debuggee.say(expression.strip())
    where = "" if debuggee.stop is None else " (it is answered when the run goes on)"
    return {"result": f"said to the agent{where}: {expression.strip()}", "variablesReference": 0}


@handles("completions")
def _completions(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    debuggee, inspector = server.stopped()
    text = str(args.get("text") or "")
    column = int(args.get("column") or len(text) + server.column_base) - server.column_base
    frame = args.get("frameId")
    with debuggee.lock:
        targets = inspector.completions(text, max(0, min(column, len(text))), frame if isinstance(frame, int) else None)
    if server.column_base:
        for target in targets:
            target["start"] += server.column_base
    return {"targets": targets}


@handles("customerMessage")
def _customer_message(server: DapServer, args: dict[str, Any]) -> None:
    debuggee, _ = server.stopped()
    text = args.get("text")
    if not isinstance(text, str) or not text.strip():
        raise RequestFailed("`text` is the customer's message")
    debuggee.say(text.strip())


@handles("exceptionInfo")
def _exception_info(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    debuggee, _ = server.stopped()
    stop = debuggee.stop
    if stop is None or stop.exception is None:
        raise RequestFailed("the run is not stopped on an exception")
    ident, text = stop.exception
    details = {"typeName": stop.event.type if stop.event is not None else ident, "message": text}
    return {"exceptionId": ident, "description": text, "breakMode": "always", "details": details}


@handles("continue")
def _continue(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    server.resume(None)
    return {"allThreadsContinued": True}


@handles("next")
def _next(server: DapServer, args: dict[str, Any]) -> None:
    server.resume(Step.NEXT)


@handles("stepIn")
def _step_in(server: DapServer, args: dict[str, Any]) -> None:
    server.resume(Step.IN)


@handles("stepOut")
def _step_out(server: DapServer, args: dict[str, Any]) -> None:
    server.resume(Step.OUT)


@handles("pause")
def _pause(server: DapServer, args: dict[str, Any]) -> None:
    debuggee, _ = server.stopped()
    debuggee.pause()


@handles("restart")
def _restart(server: DapServer, args: dict[str, Any]) -> None:
    if server.program is None:
        raise RequestFailed("nothing was launched to restart")
    given = args.get("arguments")
    program = read_program(given) if isinstance(given, dict) and given.get("program") else server.program
    server._end_run()
    server.program = program
    server.debuggee = None
    server.inspector = None
    for made in server.breakpoints.rebind(PausePoints(program.project)):
        server.out.event("breakpoint", {"reason": "changed", "breakpoint": server.breakpoint_body(made)})
    server.start_run()


@handles("terminate")
def _terminate(server: DapServer, args: dict[str, Any]) -> None:
    running = server.debuggee is not None and not server.debuggee.ended
    server._end_run()
    if running:
        server.out.event("terminated")


@handles("disconnect")
def _disconnect(server: DapServer, args: dict[str, Any]) -> None:
    server._end_run()


def _after_disconnect(server: DapServer) -> None:
    server.done = True


@handles("source")
def _source(server: DapServer, args: dict[str, Any]) -> dict[str, Any]:
    source = args.get("source") or {}
    path = source.get("path") if isinstance(source, dict) else None
    if not isinstance(path, str):
        raise RequestFailed("only sources on disk are shown")
    try:
        with open(path, encoding="utf-8") as handle:
            return {"content": handle.read(), "mimeType": "text/x-abl"}
    except OSError as err:
        raise RequestFailed(f"cannot read {path}: {err}") from None


_AFTER: dict[str, Callable[[DapServer], None]] = {
    "initialize": _after_initialize,
    "launch": DapServer.start_run,
    "configurationDone": DapServer.start_run,
    "disconnect": _after_disconnect,
}


def serve_stdio() -> int:
    return DapServer(sys.stdin.buffer, sys.stdout.buffer).serve()
