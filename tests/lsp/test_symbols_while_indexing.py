"""The first `workspace/symbol` while the workspace is being indexed waits for the index
(up to a limit), showing progress on the request's token, instead of answering an empty
list that looks complete. The server runs with its indexing held until the test lets it go."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.lsp.raw_client import RawServer

#: Starts the server with the index's walk held until the file named first exists, and
#: with `workspace/symbol`'s wait limited to the seconds given second.
HELD_SERVER = """
import sys, time
from pathlib import Path
from shapescript_lsp import indexing, workspace

release, limit = Path(sys.argv[1]), float(sys.argv[2])
walk = workspace.WorkspaceIndex.index

def held(self, *args, **kwargs):
    while not release.exists():
        time.sleep(0.01)
    return walk(self, *args, **kwargs)

workspace.WorkspaceIndex.index = held
indexing.SYMBOL_WAIT_S = limit
from shapescript_lsp.__main__ import main
sys.exit(main([]))
"""


def held_server(root: Path, release: Path, limit: float) -> RawServer:
    root.mkdir()
    (root / "lib.ss").write_text("fn unique_helper(x: Real) -> Real = x\n", encoding="utf-8")
    server = RawServer(command=[sys.executable, "-c", HELD_SERVER, str(release), str(limit)])
    server.initialize(root)
    server.wait_for("$/progress", lambda p: p["value"]["kind"] == "begin")
    return server


def ask_for_symbols(server: RawServer, token: str) -> int:
    identifier = server.request_id()
    params = {"query": "unique", "workDoneToken": token}
    server.send(
        {"jsonrpc": "2.0", "id": identifier, "method": "workspace/symbol", "params": params}
    )
    return identifier


def on_token(token: str, kind: str):
    return lambda params: params["token"] == token and params["value"]["kind"] == kind


def test_the_first_symbol_request_waits_for_the_index(tmp_path: Path):
    release = tmp_path / "release"
    server = held_server(tmp_path / "ws", release, limit=600.0)
    try:
        identifier = ask_for_symbols(server, "symbols-1")
        while True:
            message = server.next_message()
            assert message.get("id") != identifier, f"answered before the index: {message}"
            if message.get("method") == "$/progress" and on_token("symbols-1", "begin")(
                message["params"]
            ):
                break
        release.touch()
        answer = server.answer(identifier)
        assert [symbol["name"] for symbol in answer["result"]] == ["unique_helper"]
        assert server.wait_for("$/progress", on_token("symbols-1", "end"))
    finally:
        release.touch()
        server.close()
    assert b"Traceback" not in server.stderr


def test_past_the_limit_it_answers_what_is_there_and_says_so(tmp_path: Path):
    release = tmp_path / "release"
    server = held_server(tmp_path / "ws", release, limit=0.2)
    try:
        opened = (tmp_path / "ws" / "open.ss").as_uri()
        server.open(opened, "fn unique_opened(x: Real) -> Real = x\n")
        identifier = ask_for_symbols(server, "symbols-2")
        answer = server.answer(identifier)
        assert [symbol["name"] for symbol in answer["result"]] == ["unique_opened"]
        end = server.wait_for("$/progress", on_token("symbols-2", "end"))
        assert "so far" in end["value"]["message"]
    finally:
        release.touch()
        server.close()
