"""The container's side of a run (its events), and the files that come back applied here."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from shapescript.modal_run import sync
from shapescript.modal_run.container import run_in_container
from shapescript.modal_run.launch import play

PROGRAM = """import os, sys
print("to stdout", flush=True)
print("to stderr", file=sys.stderr, flush=True)
open("new.txt", "w").write("made")
open("changed.txt", "w").write("after")
os.remove("deleted.txt")
sys.exit(3)
"""


class Sink:
    """A binary stream that keeps what is written."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> int:
        self.data += data
        return len(data)

    def flush(self) -> None:
        pass


def container_events(folder: Path) -> list[tuple]:
    (folder / "prog.py").write_text(PROGRAM)
    (folder / "changed.txt").write_text("before")
    (folder / "deleted.txt").write_text("old")
    (folder / "same.txt").write_text("same")
    environment = {"PYTHONPATH": os.pathsep.join(sys.path)}
    return list(run_in_container(["prog.py"], str(folder), str(folder), environment))


def test_the_container_streams_output_then_files_then_the_status(tmp_path: Path) -> None:
    events = container_events(tmp_path)
    kinds = [event[0] for event in events]
    assert kinds[-1] == "exit" and events[-1] == ("exit", 3)
    outputs = {
        kind: b"".join(e[1] for e in events if e[0] == kind) for kind in ("stdout", "stderr")
    }
    assert outputs == {"stdout": b"to stdout\n", "stderr": b"to stderr\n"}
    files = {event[1]: event[2] for event in events if event[0] == "file"}
    assert files == {"new.txt": b"made", "changed.txt": b"after"}
    assert max(kinds.index("stdout"), kinds.index("stderr")) < kinds.index("file")


def test_play_writes_new_and_changed_files_and_keeps_deleted_ones(tmp_path: Path) -> None:
    remote, here = tmp_path / "remote", tmp_path / "here"
    remote.mkdir()
    here.mkdir()
    events = container_events(remote)
    (here / "changed.txt").write_text("before")
    (here / "deleted.txt").write_text("old")
    out, err = Sink(), Sink()
    assert play(events, out, err, str(here)) == 3
    assert (out.data, err.data) == (b"to stdout\n", b"to stderr\n")
    assert (here / "new.txt").read_text() == "made"
    assert (here / "changed.txt").read_text() == "after"
    assert (here / "deleted.txt").read_text() == "old"


def test_files_come_back_through_atomic_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[str] = []
    real = sync.write_bytes

    def recording(path: str, data: bytes) -> None:
        written.append(path)
        real(path, data)

    monkeypatch.setattr(sync, "write_bytes", recording)
    sync.apply(str(tmp_path), [sync.ChangedFile("deep/in/out.bin", b"\x00\x01")])
    assert written == [str(tmp_path / "deep" / "in" / "out.bin")]
    assert (tmp_path / "deep" / "in" / "out.bin").read_bytes() == b"\x00\x01"


@pytest.mark.parametrize("path", ["../escape.txt", "ABSOLUTE", "a/../../escape.txt"])
def test_a_file_outside_the_folder_is_refused(tmp_path: Path, path: str) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    if path == "ABSOLUTE":
        path = str(tmp_path / "escape.txt")
    with pytest.raises(ValueError, match="outside"):
        sync.apply(str(inner), [sync.ChangedFile(path, b"x")])
    assert not (tmp_path / "escape.txt").exists()


MPS_PROGRAM = """devices mps
import python torch

fn main():
    print("on", torch.ones(2).device)
"""


def test_a_program_on_mps_runs_on_the_containers_cpu(tmp_path: Path) -> None:
    (tmp_path / "prog.ss").write_text(MPS_PROGRAM)
    environment = {"PYTHONPATH": os.pathsep.join(sys.path)}
    events = list(run_in_container(["prog.ss"], str(tmp_path), str(tmp_path), environment))
    errors = b"".join(event[1] for event in events if event[0] == "stderr").decode()
    assert events[-1] == ("exit", 0), errors
    assert b"".join(event[1] for event in events if event[0] == "stdout") == b"on cpu\n"
