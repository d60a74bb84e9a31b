"""JSON-RPC as this server speaks it: every request gets an answer.

pygls turns a message into typed objects while decoding the JSON; when that fails it
logs a traceback and the request is never answered. Here a message that doesn't decode
becomes a `Faulty` value, answered with the JSON-RPC error it deserves: ParseError for a
body that isn't JSON, InvalidRequest for one that isn't a JSON-RPC message, InvalidParams
for params that don't fit the method. An integer must be a JSON integer (not 1.5, "3" or
true), a string a JSON string.

Documents are synchronised by the server itself (`documents.py`), so pygls's own handling
of didOpen, didChange and didClose is switched off.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import os
import sys
from typing import Any

import attrs
from cattrs import Converter
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    LanguageServerProtocol,
    default_converter,
    lsp_method,
)
from pygls.protocol.json_rpc import RPCRequest

from shapescript_lsp.transport import Cut, Refused

log = logging.getLogger("shapescript_lsp.protocol")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
#: LSP's ServerNotInitialized: a request that came before `initialize`.
SERVER_NOT_INITIALIZED = -32002
MsgId = int | str


@attrs.define
class DeclarationPath:
    """`{path, name}`: the top-level declaration `name` (the first part of a dotted name;
    empty for the file itself) of the `.ss` file `path`."""

    path: str
    name: str


@attrs.define
class DeclarationOfRequest:
    """`shapescript/declarationOf`: where the declaration at a position is written, or
    where a `.ss` file declares a name (for go to definition from Python files)."""

    id: MsgId
    params: types.TextDocumentPositionParams | DeclarationPath
    method: str = "shapescript/declarationOf"
    jsonrpc: str = "2.0"


@attrs.define
class DocumentTextRequest:
    """`shapescript/documentText`: the server's copy of a document, for tests and bug reports."""

    id: MsgId
    params: types.TextDocumentIdentifier
    method: str = "shapescript/documentText"
    jsonrpc: str = "2.0"


@attrs.define
class ArchitectureParams:
    """`{textDocument, position, detail?, probe?}`: the model named at a position."""

    text_document: types.TextDocumentIdentifier
    position: types.Position
    detail: str | None = None
    probe: bool | None = None


@attrs.define
class ArchitectureRequest:
    """`shapescript/architecture`: the drawing of the model named at a position."""

    id: MsgId
    params: ArchitectureParams
    method: str = "shapescript/architecture"
    jsonrpc: str = "2.0"


CUSTOM_REQUESTS: dict[str, type] = {
    "shapescript/declarationOf": DeclarationOfRequest,
    "shapescript/documentText": DocumentTextRequest,
    "shapescript/architecture": ArchitectureRequest,
}
_SELF_SYNCED = (
    types.TEXT_DOCUMENT_DID_OPEN,
    types.TEXT_DOCUMENT_DID_CHANGE,
    types.TEXT_DOCUMENT_DID_CLOSE,
)


@attrs.define
class Faulty:
    """A message that could not be decoded: the error to answer with, if it was a request."""

    id: MsgId | None
    method: str | None
    code: int
    reason: str
    answer: bool


def _strict_int(value: Any, kind: type) -> int:
    if type(value) is not int:
        raise ValueError(f"expected an integer, got {value!r}")
    # The hook for int is also the one for integer enums (InsertTextFormat, ...): they
    # must come out as the enum, which turns them back into numbers when answering.
    return value if kind is int else kind(value)


def _strict_bool(value: Any, _type: type) -> bool:
    if type(value) is not bool:
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _strict_str(value: Any, kind: type) -> str:
    if type(value) is not str:
        raise ValueError(f"expected a string, got {value!r}")
    return value if kind is str else kind(value)


class Written(list):
    """A list result whose elements are already JSON text (ASCII), sent as they are."""


class WrittenJSON(str):
    """A result that is already JSON text (ASCII), sent as it is."""


def written_body(message_id: MsgId, result: Written | WrittenJSON) -> str:
    """A response's JSON text with a written result, as `json.dumps` would write it."""
    text = result if isinstance(result, WrittenJSON) else f"[{', '.join(result)}]"
    return f'{{"id": {json.dumps(message_id)}, "result": {text}, "jsonrpc": "2.0"}}'


def strict_converter() -> Converter:
    """pygls's converter, with integers, booleans and strings that must be JSON ones, and
    `Written` results passed through."""
    converter = default_converter()
    converter.register_unstructure_hook(Written, lambda value: [json.loads(v) for v in value])
    converter.register_unstructure_hook(WrittenJSON, json.loads)
    converter.register_structure_hook(str, _strict_str)
    converter.register_structure_hook(int, _strict_int)
    converter.register_structure_hook(bool, _strict_bool)
    return converter


def _message_id(data: dict) -> MsgId | None:
    value = data.get("id")
    return value if isinstance(value, int | str) and not isinstance(value, bool) else None


def _cut_id(body: bytes) -> MsgId | None:
    """The id of a message cut short, if what arrived of it is JSON with one, so that the
    client's request is answered, with an error, rather than left waiting."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return _message_id(data) if isinstance(data, dict) else None


def _reason(error: BaseException) -> str:
    """A one-line account of a structuring error, from its innermost causes."""
    causes = getattr(error, "exceptions", None)
    if causes:
        return "; ".join(_reason(cause) for cause in causes[:3])
    notes = getattr(error, "__notes__", None)
    where = f" ({notes[-1]})" if notes else ""
    return f"{error}{where}" if str(error) else f"{type(error).__name__}{where}"


class ShapeScriptProtocol(LanguageServerProtocol):
    #: Whether `initialize` has come: until then requests are refused and notifications
    #: other than `exit` dropped, as LSP says.
    initialize_seen = False

    def _register_builtin_features(self) -> None:
        super()._register_builtin_features()
        for method in _SELF_SYNCED:
            self.fm.builtin_features.pop(method, None)

    def get_message_type(self, method: str) -> type | None:
        return CUSTOM_REQUESTS.get(method) or super().get_message_type(method)

    def decode(self, body: bytes | Refused | Cut) -> Any:
        """A body as a message object, or `Faulty`; runs on the reader's thread."""
        if isinstance(body, Refused):
            return Faulty(None, None, INVALID_REQUEST, body.reason, True)
        if isinstance(body, Cut):
            return Faulty(_cut_id(body.body), None, PARSE_ERROR, body.reason, True)
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as error:
            return Faulty(None, None, PARSE_ERROR, f"the body is not JSON: {error}", True)
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            identifier = _message_id(data) if isinstance(data, dict) else None
            method = data.get("method") if isinstance(data, dict) else None
            return Faulty(identifier, method, INVALID_REQUEST, "not a JSON-RPC 2.0 message", True)
        return self.structure(data)

    def structure(self, data: dict) -> Any:
        """A decoded message as the typed object its method calls for, or `Faulty`."""
        method = data.get("method")
        if method is not None and not isinstance(method, str):
            reason = "a method that isn't a string"
            return Faulty(_message_id(data), None, INVALID_REQUEST, reason, True)
        try:
            if "id" in data and "error" in data:
                return self._converter.structure(data, types.ResponseErrorMessage)
            if "id" in data and method is not None:
                kind = self.get_message_type(method) or JsonRPCRequestMessage
                return self._converter.structure(data, kind)
            if "id" in data:
                kind = self._result_types.pop(data["id"], None) or JsonRPCResponseMessage
                return self._converter.structure(data, kind)
            kind = self.get_message_type(method or "") or JsonRPCNotification
            return self._converter.structure(data, kind)
        except Exception as error:
            is_request = "id" in data and method is not None
            return Faulty(
                _message_id(data),
                method,
                INVALID_PARAMS if is_request else INVALID_REQUEST,
                f"invalid params for {method}: {_reason(error)}",
                is_request,
            )

    def handle_message(self, message: Any) -> None:
        if isinstance(message, Faulty):
            self._refuse(message)
            return
        is_request = isinstance(message, RPCRequest)
        if not self.initialize_seen and not self._before_initialize(message, is_request):
            return
        if self._shutdown and is_request and message.method != types.EXIT:
            self._send_error(message.id, INVALID_REQUEST, "the server is shutting down")
            return
        super().handle_message(message)

    def _before_initialize(self, message: Any, is_request: bool) -> bool:
        """Whether a message that came before `initialize` is handled: `initialize` and
        `exit` are; another request is answered ServerNotInitialized, a notification dropped."""
        method = getattr(message, "method", None)
        if method == types.INITIALIZE:
            self.initialize_seen = True
            return True
        if method == types.EXIT:
            return True
        if is_request:
            reason = f"the server is not initialized: send `initialize` before `{method}`"
            log.warning("%s", reason)
            self._send_error(message.id, SERVER_NOT_INITIALIZED, reason)
        elif method is not None:
            log.warning("dropped the notification `%s`, which came before `initialize`", method)
        return False

    def _send_handler_result(self, future: Any, *, msg_id: MsgId) -> None:
        """Answer a request; a `JsonRpcException` its handler raised is the answer it chose
        (a rename refused, say), sent with one log line instead of pygls's traceback."""
        error = None if future.cancelled() else future.exception()
        if not isinstance(error, JsonRpcException):
            super()._send_handler_result(future, msg_id=msg_id)
            return
        self._request_futures.pop(msg_id, None)
        log.info("refused request %s: %s", msg_id, error.message)
        self._send_response(msg_id, error=error.to_response_error())

    def _send_data(self, data: Any) -> None:
        """Send a message; a `Written` result's text goes out without being decoded and
        encoded again."""
        result = getattr(data, "result", None)
        if not isinstance(result, Written | WrittenJSON) or self.writer is None:
            super()._send_data(data)
            return
        body = written_body(data.id, result).encode(self.CHARSET)
        if self._include_headers:
            # Content-Length counts bytes: a symbol's detail may hold `→` or `·`.
            header = (
                f"Content-Length: {len(body)}\r\n"
                f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            )
            body = header.encode(self.CHARSET) + body
        pending = self.writer.write(body)
        if inspect.isawaitable(pending):
            asyncio.ensure_future(pending)

    def _refuse(self, faulty: Faulty) -> None:
        log.warning("%s", faulty.reason)
        if faulty.answer:
            self._send_error(faulty.id, faulty.code, faulty.reason)

    def _send_error(self, msg_id: MsgId | None, code: int, message: str) -> None:
        self._send_response(msg_id, error=types.ResponseError(code=code, message=message))

    @lsp_method(types.EXIT)
    def lsp_exit(self, *args: Any) -> None:
        """End the process: status 0 after `shutdown`, 1 without, as LSP says."""
        code = 0 if self._shutdown else 1
        log.info("exit %s shutdown: status %d", "after" if self._shutdown else "without", code)
        end_process(code)


def end_process(code: int) -> None:
    """Flush what was written and end the process now, whatever threads are still busy."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    logging.shutdown()
    os._exit(code)
