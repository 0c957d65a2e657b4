"""The JSON-RPC protocol as pygls runs it, plus an answer to requests that cannot be read.

pygls turns a message into a typed object while the JSON is being decoded; when a request's
params do not fit its method (a position that is a string, `params: null` for a hover), or the
request is malformed (a method that is not a string), it logs the problem and drops the message.
JSON-RPC says such a request gets an error response; without one the client waits for ever.
Here the request is answered with `InvalidParams` (-32602) or `InvalidRequest` (-32600), and the
message is then skipped.

pygls also logs a deliberate error answer (a refused rename, a refused run) as an exception with
its traceback, and a cancel of a request already answered (routine: the client cancels what it no
longer needs, often after the answer left) as a warning. Here a refusal is an ordinary error
response, logged at info with its message, and such a cancel is not logged above debug.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Any

from lsprotocol.types import ResponseError
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol

log = logging.getLogger("abl.lsp")


class _Answered:
    """Stands for a message that was already answered (or, for a notification, dropped) while
    it was decoded; handling it does nothing."""


ANSWERED = _Answered()


class AblProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as problem:
            method = data.get("method")
            msg_id = data.get("id")
            if method is not None and isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool):
                if isinstance(method, str):
                    error = ResponseError(problem.code, f"{problem.message}: `{method}` cannot take these params")
                else:
                    error = ResponseError(JsonRpcInvalidRequest.CODE, "Invalid Request: the method is not a string")
                self._send_response(msg_id, error=error)
            log.warning("a message that could not be read was %s", "answered" if msg_id is not None else "dropped")
            return ANSWERED

    def handle_message(self, message: Any) -> None:
        if message is ANSWERED:
            return
        super().handle_message(message)

    def _send_handler_result(self, future: Future[Any], *, msg_id: Any) -> None:
        refusal = None if future.cancelled() else future.exception()
        if not isinstance(refusal, JsonRpcException):
            super()._send_handler_result(future, msg_id=msg_id)  # answers, and bugs with their traceback
            return
        self._request_futures.pop(msg_id, None)
        log.info("request %s refused: %s", msg_id, refusal.message)
        self._send_response(msg_id, error=refusal.to_response_error())

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        if msg_id not in self._request_futures:
            log.debug("cancel of request %s, already answered", msg_id)
            return
        super()._handle_cancel_notification(msg_id)
