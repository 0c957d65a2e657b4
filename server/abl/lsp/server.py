"""The language server: document sync, analysis scheduling and diagnostics.

Execution model. Everything runs on the server's one event-loop thread. Notifications that
change the workspace (`didOpen`, `didChange`, `didClose`, watched files, settings) only record
the change in the `AnalysisHost` and schedule analysis; requests read the analysis through
`AblServer.analysis()`, which first applies every change received so far. No handler awaits
while it holds an `Analysis`, so no request ever sees a project half way through an edit.

Scheduling. Analysis runs as soon as no newer message is waiting on the input (the transport
reads ahead and says so): a burst of keystrokes is coalesced into one analysis, and a lone
keystroke is analysed at once, without a fixed debounce.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sys
import threading
import traceback
from collections.abc import Callable, Coroutine
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer

from abl.ide import LARGE_FILE_BYTES, Analysis, AnalysisHost, Diagnostic, LineIndex, __version__
from abl.lsp.convert import Positions, diagnostic, path_to_uri
from abl.lsp.memory import HeapKeeper
from abl.lsp.protocol import AblProtocol
from abl.lsp.settings import Settings
from abl.lsp.transport import ReadAheadReader, widen_pipe
from abl.lsp.wire import DiagnosticWire, publish_body, write_message

log = logging.getLogger("abl.lsp")

# A handler, and what `guarded` answers when the handler fails.
Handler = TypeVar("Handler", bound=Callable[..., Any])
Fallback = TypeVar("Fallback")

# Analysis waits this long for the rest of a message that has started to arrive.
_PARTIAL_MESSAGE_WAIT_S = 0.002


class AblServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("abl", __version__, protocol_cls=AblProtocol)  # answers unreadable requests
        self.host = AnalysisHost()
        self.settings = Settings()
        self.reader: ReadAheadReader | None = None
        self.pull_diagnostics = False
        self.snippets = True
        self.client_commands: frozenset[str] = frozenset()  # what the editor runs itself
        self._scheduled = False
        self._tasks: set[asyncio.Task[None]] = set()  # kept referenced until they finish
        self._published: dict[str, tuple[int | None, tuple[Diagnostic, ...]]] = {}
        self._config_published: dict[str, tuple[tuple[int, str], ...]] = {}
        self._large_notice_given: set[str] = set()
        self.wire = DiagnosticWire(self.protocol._converter.unstructure)
        self.on_analysed: list[Callable[[set[str]], None]] = []  # listeners (graph, runs)
        self.heap = HeapKeeper(busy=lambda: self.host.has_pending or bool(self.reader and self.reader.has_pending()))

    # --- transport ------------------------------------------------------------------------

    def start_stdio(self) -> int:
        """Serve on standard input and output, reading input ahead (see `transport`). Returns
        the exit code: 0 after `shutdown` then `exit`, 1 for an `exit` without `shutdown`."""
        self._stop_event = threading.Event()
        self.reader = ReadAheadReader(sys.stdin.buffer)
        widen_pipe(sys.stdout.buffer)
        self.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
        try:
            asyncio.run(
                run_async(
                    stop_event=self._stop_event,
                    reader=self.reader,
                    protocol=self.protocol,
                    logger=log,
                    error_handler=self.report_server_error,
                )
            )
        except BrokenPipeError:
            log.error("the client closed the connection")
        except SystemExit as stop:  # the `exit` notification, with the code the protocol asks for
            return stop.code if isinstance(stop.code, int) else 0
        except KeyboardInterrupt:
            return 130
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]  # pygls leaves it unannotated
        return 0

    def background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run a coroutine on the server's loop; its failure is logged, never raised."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)

        def finished(done: asyncio.Task[None]) -> None:
            self._tasks.discard(done)
            if not done.cancelled() and done.exception() is not None:
                log.error("background work failed", exc_info=done.exception())

        task.add_done_callback(finished)

    # --- reading the analysis -------------------------------------------------------------

    def analysis(self) -> Analysis:
        if self.host.has_pending:
            self.schedule()  # this request reads the edits; their checks and diagnostics follow
        return self.host.analysis()

    def positions(self, path: str, analysis: Analysis | None = None) -> Positions:
        analysis = analysis or self.analysis()
        doc = analysis.document(path)
        index = doc.source.index if doc is not None else LineIndex(analysis.text(path) or "")
        return Positions(index, self.workspace.position_encoding or lsp.PositionEncodingKind.Utf16)

    # --- scheduling -----------------------------------------------------------------------

    def schedule(self) -> None:
        if self._scheduled:
            return
        self._scheduled = True
        asyncio.get_event_loop().call_soon(self._analyse_when_idle)

    def _analyse_when_idle(self) -> None:
        if self.protocol._shutdown:  # nothing is sent after `shutdown` (the output may be closed)
            self._scheduled = False
            return
        if self.reader is not None and self.reader.has_pending():
            asyncio.get_event_loop().call_later(_PARTIAL_MESSAGE_WAIT_S, self._analyse_when_idle)
            return
        self._scheduled = False
        self.analyse_and_publish()

    def analyse_and_publish(self) -> None:
        with self.heap.quiet():
            try:
                result = self.host.analyse()
            except Exception:  # analysis must never take the server down with it
                log.exception("analysis failed")
                return
            # Open files whose version moved get their diagnostics again even when unchanged: the
            # version tells the client they are current.
            moved = {p for p in self.host.open_paths() if self._published.get(p, (None,))[0] != self.host.version(p)}
            self.publish(set(result.diagnostics) | moved)
            self._publish_config_problems()
        self.heap.after_activity()
        for listener in self.on_analysed:
            try:
                listener(set(result.diagnostics))
            except Exception:
                log.exception("a listener of analysis results failed")

    # --- diagnostics ------------------------------------------------------------------------

    def visible(self, diags: tuple[Diagnostic, ...]) -> list[Diagnostic]:
        return [d for d in diags if self.settings.shows(d)]

    def to_lsp(self, analysis: Analysis, path: str, diags: list[Diagnostic]) -> list[lsp.Diagnostic]:
        here = self.positions(path, analysis)
        return [diagnostic(d, here, lambda other: self.positions(other, analysis)) for d in diags]

    def publish(self, paths: set[str]) -> None:
        """Push diagnostics for files whose diagnostics changed (unless the client pulls)."""
        analysis = self.host.analysis()
        if self.pull_diagnostics:
            if paths:
                self.refresh_pulled()
            return
        for path in sorted(paths):
            self._publish_one(analysis, path)

    def _publish_one(self, analysis: Analysis, path: str) -> None:
        diags = tuple(self.visible(analysis.diagnostics(path)))
        version = analysis.version(path)
        if self._published.get(path) == (version, diags):
            return
        if analysis.text(path) is None:  # gone: deleted, or its folder removed
            self._published.pop(path, None)
            self.wire.forget(path)
            write_message(self.protocol, publish_body(path_to_uri(path), None, []))
            return
        self._published[path] = (version, diags)
        here = self.positions(path, analysis)
        fragments = self.wire.fragments(path, list(diags), here, lambda other: self.positions(other, analysis))
        write_message(self.protocol, publish_body(path_to_uri(path), version, fragments))
        if analysis.is_large(path) and path not in self._large_notice_given:
            self._large_notice_given.add(path)
            self.window_show_message(
                lsp.ShowMessageParams(
                    lsp.MessageType.Info,
                    f"{Path(path).name} is larger than {LARGE_FILE_BYTES // 1_000_000} MB: ABL shows syntax "
                    "problems, outline and folding for it, but does not check it.",
                )
            )

    def _publish_config_problems(self) -> None:
        """Problems in `abl.toml` (or `[tool.abl]`) shown on that file, as `abl check` reports them."""
        by_file: dict[str, list[lsp.Diagnostic]] = {path: [] for path in self._config_published}
        for problem in self.host.analysis().config_problems():
            where = Positions(_read_text(problem.path), self.workspace.position_encoding or "utf-16")
            by_file.setdefault(problem.path, []).append(
                lsp.Diagnostic(
                    where.range_to_client(problem.range),
                    problem.message,
                    lsp.DiagnosticSeverity.Error,
                    source="abl",
                    code="CONFIG",
                )
            )
        for path, diags in by_file.items():
            key = tuple((d.range.start.line, d.message) for d in diags)
            if self._config_published.get(path) == key:
                continue
            self._config_published[path] = key
            self.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=path_to_uri(path), diagnostics=diags)
            )

    def republish_all(self) -> None:
        analysis = self.host.analysis()
        self._published.clear()
        if self.pull_diagnostics:
            self.refresh_pulled()
            return
        for path in analysis.paths():
            self._publish_one(analysis, path)

    def refresh_pulled(self) -> None:
        """Tell a client that pulls to pull again (only such a client pulls: see `lifecycle`)."""
        self.workspace_diagnostic_refresh(None)

    # --- errors -----------------------------------------------------------------------------

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log instead of showing a dialog: one failed message must not nag the user."""
        if isinstance(error, JsonRpcException):
            log.info("%s", error)  # already answered to the client as an error
            return
        log.error("%s: %s", getattr(source, "__name__", source), "".join(traceback.format_exception(error)))


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def guarded(default: Callable[[], Fallback]) -> Callable[[Handler], Handler]:
    """Run a handler so that an exception becomes a logged traceback and an empty answer:
    one failing feature never takes the server, or the other features, down. A refusal
    (`JsonRpcException`) is not a failure: it goes on as the request's error response, logged
    at info without a traceback (`AblProtocol`). Takes coroutine handlers and commands (which
    are given the command's arguments one by one) alike."""

    def wrap(handler: Handler) -> Handler:
        if inspect.iscoroutinefunction(handler):

            @wraps(handler)
            async def run_async(server: AblServer, *args: Any) -> Any:
                try:
                    return await handler(server, *args)
                except JsonRpcException:
                    raise
                except Exception:
                    log.exception("%s failed", handler.__name__)
                    return default()

            return run_async  # type: ignore[return-value]

        @wraps(handler)
        def run(server: AblServer, *args: Any) -> Any:
            try:
                return handler(server, *args)
            except JsonRpcException:
                raise  # a deliberate error answer, such as a rename that cannot be done
            except Exception:
                log.exception("%s failed", handler.__name__)
                return default()

        return run  # type: ignore[return-value]

    return wrap
