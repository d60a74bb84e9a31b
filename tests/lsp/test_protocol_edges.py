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
SERVER_NOT_INITIALIZED = -32002
REQUEST_FAILED = -32803


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


def log_mark(client: RawServer) -> int:
    """Where the server's log is now: a marker header is logged by the reader, after
    everything the answers already received had logged, and waited for."""
    client.next_id += 1
    marker = b"marker-%d" % client.next_id
    client.send_bytes(b"Content-Length: " + marker + b"\r\n\r\n")
    assert client.logged(marker), client.stderr
    return client.stderr.index(marker)


def log_since(client: RawServer, mark: int) -> str:
    """What the server logged from `mark` until now."""
    return client.stderr[mark : log_mark(client)].decode(errors="replace")


def a_request(identifier: int, method: str, params: object) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": identifier, "method": method, "params": params})
    return b"Content-Length: %d\r\n\r\n" % len(body) + body.encode()


@pytest.mark.parametrize("extra", [1, 40, 10_000])
def test_a_body_shorter_than_its_content_length_loses_no_later_request(server, extra):
    """The reader sees the next header inside the short body: the broken message gets a
    parse error, the request after it its answer."""
    client, uri = server
    hover = {"textDocument": {"uri": uri}, "position": position(1, 26)}
    body = a_request(900 + extra, "textDocument/hover", hover).partition(b"\r\n\r\n")[2]
    broken = b"Content-Length: %d\r\n\r\n" % (len(body) + extra) + body
    client.send_bytes(broken + a_request(800 + extra, "textDocument/hover", hover))
    refused = client.answer(900 + extra)
    assert refused["error"]["code"] == PARSE_ERROR
    assert "Content-Length" in refused["error"]["message"]
    answered = client.answer(800 + extra)
    assert "[n D]" in answered["result"]["contents"]["value"], answered
    hover_answers(client, uri)


def test_a_short_body_that_is_not_json_gets_a_parse_error_with_id_null(server):
    client, uri = server
    hover = {"textDocument": {"uri": uri}, "position": position(1, 26)}
    client.send_bytes(
        b"Content-Length: 500\r\n\r\n{broken" + a_request(777, "textDocument/hover", hover)
    )
    assert client.answer(None)["error"]["code"] == PARSE_ERROR
    assert "[n D]" in client.answer(777)["result"]["contents"]["value"]


def test_requests_before_initialize_are_refused_and_notifications_dropped(tmp_path: Path):
    client = RawServer()
    uri = (tmp_path / "early.ss").as_uri()
    try:
        early = client.hover(uri, 0, 0)
        assert early["error"]["code"] == SERVER_NOT_INITIALIZED, early
        client.open(uri, PROGRAM)
        client.initialize(tmp_path)
        assert client.request("shapescript/documentText", {"uri": uri})["result"] is None
    finally:
        client.close()
    assert b"Traceback" not in client.stderr


def test_an_invalid_new_name_is_refused_without_a_traceback(server):
    client, uri = server
    mark = log_mark(client)
    answer = client.request(
        "textDocument/rename",
        {"textDocument": {"uri": uri}, "position": position(1, 3), "newName": "1bad"},
    )
    assert answer["error"]["code"] == REQUEST_FAILED
    assert "isn't a name" in answer["error"]["message"]
    nowhere = client.request(
        "textDocument/prepareRename", {"textDocument": {"uri": uri}, "position": position(0, 9)}
    )
    assert nowhere["error"]["code"] == REQUEST_FAILED
    assert "Traceback" not in log_since(client, mark)


@pytest.mark.parametrize("line, character", [(-1, 0), (0, -5), (2**40, 0), (0, 2**40), (1.5, 0)])
def test_architecture_positions_out_of_range_get_invalid_params(server, line, character):
    client, uri = server
    mark = log_mark(client)
    answer = client.request(
        "shapescript/architecture",
        {"textDocument": {"uri": uri}, "position": position(line, character)},
    )
    assert answer.get("error", {}).get("code") == INVALID_PARAMS, answer
    assert "Traceback" not in log_since(client, mark)
