"""Every request gets an answer: malformed params, bodies and headers over raw stdio."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lsp.raw_client import SERVER, RawServer

PROGRAM = "dim D = 4\nfn f(x: [n D]) -> [n D] = x\n"
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[RawServer, str]]:
    root = tmp_path_factory.mktemp("edges")
    server = RawServer()
    server.initialize(root)
    uri = (root / "main.ss").as_uri()
    server.open(uri, PROGRAM)
    server.wait_for("textDocument/publishDiagnostics", lambda p: p["uri"] == uri)
    yield server, uri
    server.close()
    assert b"Traceback" not in server.stderr, server.stderr.decode(errors="replace")


def hover_answers(server: RawServer, uri: str) -> None:
    answer = server.hover(uri, 1, 26)
    assert "error" not in answer, answer
    assert "[n D]" in answer["result"]["contents"]["value"]


def position(line, character) -> dict:
    return {"line": line, "character": character}


def invalid_requests(uri: str) -> list[tuple[str, object]]:
    document = {"uri": uri}
    at = position(1, 26)
    whole = {"start": position(0, 0), "end": position(2, 0)}
    return [
        ("textDocument/hover", None),
        ("textDocument/hover", []),
        ("textDocument/hover", {"textDocument": document}),
        ("textDocument/hover", {"position": at}),
        ("textDocument/hover", {"textDocument": document, "position": None}),
        ("textDocument/hover", {"textDocument": document, "position": position(-1, 0)}),
        ("textDocument/hover", {"textDocument": document, "position": position(0, -3)}),
        ("textDocument/hover", {"textDocument": document, "position": position(1.5, 0)}),
        ("textDocument/hover", {"textDocument": document, "position": position(0, "3")}),
        ("textDocument/hover", {"textDocument": document, "position": position(2**40, 0)}),
        ("textDocument/hover", {"textDocument": {"uri": 5}, "position": at}),
        ("textDocument/completion", None),
        ("textDocument/completion", {"textDocument": document, "position": position(2.5, 1)}),
        ("textDocument/definition", {"textDocument": document, "position": position(0, -1)}),
        ("textDocument/references", {"textDocument": document, "position": at}),
        ("textDocument/references", {"textDocument": document, "position": at, "context": None}),
        (
            "textDocument/references",
            {"textDocument": document, "position": at, "context": {"includeDeclaration": "y"}},
        ),
        ("textDocument/signatureHelp", None),
        ("textDocument/inlayHint", {"textDocument": document}),
        (
            "textDocument/inlayHint",
            {"textDocument": document, "range": whole | {"end": position(-1, 0)}},
        ),
        ("completionItem/resolve", None),
        ("shapescript/declarationOf", None),
        ("shapescript/declarationOf", {"textDocument": document, "position": position(-2, 0)}),
    ]


def test_every_invalid_request_gets_invalid_params(server):
    client, uri = server
    unanswered = []
    for method, params in invalid_requests(uri):
        answer = client.request(method, params)
        if answer.get("error", {}).get("code") != INVALID_PARAMS:
            unanswered.append((method, params, answer))
    assert unanswered == []
    hover_answers(client, uri)


def test_enums_in_params_stay_enums_in_the_answer(server):
    """A resolve request carries enums as numbers and strings; they come back the same."""
    client, uri = server
    item = {
        "label": "softmax",
        "kind": 3,
        "insertText": "softmax(over=${1:n})",
        "insertTextFormat": 2,
        "documentation": {"kind": "markdown", "value": "x"},
    }
    answer = client.request("completionItem/resolve", item)
    assert "error" not in answer, answer
    assert answer["result"]["insertTextFormat"] == 2
    assert answer["result"]["kind"] == 3
    hover_answers(client, uri)


def test_a_request_without_params_gets_invalid_params(server):
    client, uri = server
    answer = client.call({"method": "textDocument/hover"})
    assert answer["error"]["code"] == INVALID_PARAMS
    hover_answers(client, uri)


@pytest.mark.parametrize("body", [b"{not json", b'{"jsonrpc": "2.0", "id": 1, ', b"[" * 100_000])
def test_a_body_that_is_not_json_gets_a_parse_error(server, body):
    client, uri = server
    client.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    assert client.answer(None)["error"]["code"] == PARSE_ERROR
    hover_answers(client, uri)


@pytest.mark.parametrize(
    "message", [b"[1, 2]", b"42", b'{"id": 9, "method": "textDocument/hover", "params": {}}']
)
def test_a_body_that_is_not_json_rpc_gets_invalid_request(server, message):
    client, uri = server
    client.send_bytes(b"Content-Length: %d\r\n\r\n" % len(message) + message)
    identifier = 9 if b'"id"' in message else None
    assert client.answer(identifier)["error"]["code"] == INVALID_REQUEST
    hover_answers(client, uri)


def test_a_message_over_the_limit_is_refused_and_the_connection_stays_usable(server):
    client, uri = server
    client.send_bytes(b"Content-Length: 99999999999\r\n\r\n" + b'{"jsonrpc": "2.0"}')
    assert client.answer(None)["error"]["code"] == INVALID_REQUEST
    hover_answers(client, uri)


@pytest.mark.parametrize("value", [b"-5", b"abc", b"1e3", b""])
def test_a_malformed_content_length_is_skipped_and_the_server_resynchronises(server, value):
    client, uri = server
    client.send_bytes(b"Content-Length: " + value + b'\r\n\r\n{"jsonrpc": "2.0"}')
    hover_answers(client, uri)
    assert client.logged(b"Content-Length"), client.stderr


def test_header_garbage_is_skipped(server):
    client, uri = server
    client.send_bytes(b"\r\n\r\nno colon here\r\nX-Other: 1\r\n\r\n")
    hover_answers(client, uri)


def test_exit_without_shutdown_exits_1(tmp_path: Path):
    client = RawServer()
    client.initialize(tmp_path)
    client.notify("exit")
    assert client.exit_status() == 1


def test_exit_after_shutdown_exits_0_and_requests_in_between_are_refused(tmp_path: Path):
    client = RawServer()
    client.initialize(tmp_path)
    assert client.request("shutdown") == {"jsonrpc": "2.0", "id": 1 + 1, "result": None}
    refused = client.hover((tmp_path / "main.ss").as_uri(), 0, 0)
    assert refused["error"]["code"] == INVALID_REQUEST
    client.notify("exit")
    assert client.exit_status() == 0
    assert b"Traceback" not in client.stderr


def test_tcp_uses_the_same_reader(tmp_path: Path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([*SERVER, "--tcp", str(port)], stderr=subprocess.DEVNULL)
    try:
        connection = _connect(port)
        with connection:
            for message in (
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
                {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": None},
                {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
                {"jsonrpc": "2.0", "method": "exit"},
            ):
                body = json.dumps(message).encode()
                connection.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            received = _read_all(connection)
        assert b"-32602" in received
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def _connect(port: int) -> socket.socket:
    for _ in range(600):
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=60)
        except OSError:
            time.sleep(0.1)
    raise AssertionError("the server never listened")


def _read_all(connection: socket.socket) -> bytes:
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return received
