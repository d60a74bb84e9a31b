"""A safe, bounded workspace index: pipes, devices, links out, crashing files, many files."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from shapescript_lsp import workspace
from shapescript_lsp.library import Library
from shapescript_lsp.workspace import WorkspaceIndex
from tests.lsp.raw_client import RawServer

HANG_S = 60.0


def refreshed(root: Path) -> dict[str, dict[str, str]]:
    """Index `root` on a thread, failing (not hanging) if that doesn't end; names by module."""
    index = WorkspaceIndex()
    index.set_roots([root])
    done: list[object] = []
    thread = threading.Thread(target=lambda: done.append(index.refresh()), daemon=True)
    thread.start()
    thread.join(HANG_S)
    assert done, "indexing the workspace hangs"
    return {indexed.module: indexed.names for indexed in index.snapshot()}


def hostile_workspace(root: Path, outside: Path) -> None:
    (root / "good.ss").write_text("fn good_one(x: Real) -> Real = x\n")
    os.mkfifo(root / "pipe.ss")
    (root / "zero.ss").symlink_to("/dev/zero")
    outside.mkdir(exist_ok=True)
    (outside / "secret.ss").write_text("fn secret_name(x: Real) -> Real = x\n")
    (root / "secret.ss").symlink_to(outside / "secret.ss")
    (root / "inner").mkdir()
    (root / "inner" / "kept.ss").write_text("fn kept_name(x: Real) -> Real = x\n")
    (root / "alias.ss").symlink_to(root / "inner" / "kept.ss")


def test_pipes_devices_and_links_out_are_never_read(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    hostile_workspace(root, tmp_path / "outside")
    names = refreshed(root)
    assert set(names) == {"good", "inner.kept", "alias"}
    assert names["alias"] == {"kept_name": "fn"}


def test_a_file_over_the_size_limit_is_skipped(tmp_path: Path, monkeypatch, caplog):
    monkeypatch.setattr(workspace, "MAX_FILE_BYTES", 100)
    (tmp_path / "big.ss").write_text("fn big(x: Real) -> Real = x\n" * 10)
    (tmp_path / "small.ss").write_text("fn small(x: Real) -> Real = x\n")
    assert set(refreshed(tmp_path)) == {"small"}
    assert sum("big.ss" in record.getMessage() for record in caplog.records) == 1


def test_a_file_that_crashes_the_parser_is_skipped_alone(tmp_path: Path, monkeypatch):
    real = workspace.parse_text

    def parse_text(text: str, path: str):
        if path.endswith("crash.ss"):
            raise RecursionError("maximum recursion depth exceeded")
        return real(text, path)

    monkeypatch.setattr(workspace, "parse_text", parse_text)
    (tmp_path / "crash.ss").write_text("fn crash(x: Real) -> Real = x\n")
    (tmp_path / "fine.ss").write_text("fn fine(x: Real) -> Real = x\n")
    assert refreshed(tmp_path) == {"fine": {"fine": "fn"}}


def test_the_file_limit_is_reported_not_silent(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(workspace, "MAX_FILES", 10)
    for number in range(12):
        (tmp_path / f"f{number}.ss").write_text(f"fn f{number}(x: Real) -> Real = x\n")
    index = WorkspaceIndex()
    index.set_roots([tmp_path])
    assert len(index.refresh()) == 10
    assert index.truncated is not None and "10" in index.truncated


def test_library_files_replace_a_link_instead_of_writing_through_it(tmp_path: Path):
    target = tmp_path / "precious.txt"
    target.write_text("keep me")
    folder = tmp_path / "library"
    folder.mkdir()
    (folder / "builtins.ss").symlink_to(target)
    Library(folder).write()
    assert target.read_text() == "keep me"
    assert os.access(target, os.W_OK)
    written = folder / "builtins.ss"
    assert not written.is_symlink() and "fn " in written.read_text()
    assert not written.stat().st_mode & stat.S_IWUSR
    assert sorted(path.name for path in folder.iterdir()) == ["builtins.ss", "nn.ss", "prelude.ss"]
    Library(folder).write()


@pytest.fixture
def big_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "many").mkdir(parents=True)
    for number in range(5000):
        (root / "many" / f"m{number}.ss").write_text(f"fn helper_{number}(x: Real) -> Real = x\n")
    hostile_workspace(root, tmp_path / "outside")
    return root


def test_a_hostile_workspace_of_5000_files_over_the_protocol(big_workspace: Path):
    server = RawServer()
    try:
        server.initialize(big_workspace)
        begin = server.wait_for("$/progress", lambda p: p["value"]["kind"] == "begin")
        end = server.wait_for("$/progress", lambda p: p["value"]["kind"] == "end")
        assert begin["token"] == end["token"]
        text = "fn g(x: Real) -> Real = helper_4999\n"
        uri = (big_workspace / "main.ss").as_uri()
        server.open(uri, text)
        answer = server.request(
            "textDocument/completion",
            {"textDocument": {"uri": uri}, "position": {"line": 0, "character": len(text) - 1}},
        )
        labels = {item["label"] for item in answer["result"]["items"]}
        assert "m4999.helper_4999" in labels
        assert not any("secret_name" in label for label in labels)
    finally:
        server.close()
    assert b"Traceback" not in server.stderr
