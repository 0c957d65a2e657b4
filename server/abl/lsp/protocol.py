"""The JSON-RPC protocol as pygls runs it, plus an answer to requests that cannot be read.

pygls turns a message into a typed object while the JSON is being decoded; when a request's
params do not fit its method (a position that is a string, `params: null` for a hover), or the
request is malformed (a method that is not a string), it logs the problem and drops the message.
JSON-RPC says such a request gets an error response; without one the client waits for ever.
Here the request is answered with `InvalidParams` (-32602) or `InvalidRequest` (-32600), and the
message is then skipped.
"""

from __future__ import annotations

import logging
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
