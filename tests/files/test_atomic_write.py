"""The one write helper: nothing written through links, nothing half-written, nothing left."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from shapescript import atomic_write


def test_a_link_at_the_target_is_replaced_not_written_through(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"keep me")
    link = tmp_path / "out.py"
    link.symlink_to(secret)
    atomic_write.write_text(link, "new")
    assert secret.read_bytes() == b"keep me"
    assert not link.is_symlink()
    assert link.read_text() == "new"


def test_a_link_the_user_named_is_written_through_in_its_target_folder(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    real = elsewhere / "real.py"
    real.write_text("old")
    link = tmp_path / "named.py"
    link.symlink_to(real)
    atomic_write.write_text(link, "new", through_link=True)
    assert link.is_symlink()
    assert real.read_text() == "new"


def test_a_failed_write_leaves_the_old_file_whole_and_no_temporary(tmp_path):
    target = tmp_path / "model.ss"
    target.write_text("original\n" * 100)
    with pytest.raises(RuntimeError), atomic_write.atomic_writer(target) as handle:
        handle.write("half")
        raise RuntimeError("disk full")
    assert target.read_text() == "original\n" * 100
    assert sorted(os.listdir(tmp_path)) == ["model.ss"]


def test_the_replaced_files_permissions_are_kept(tmp_path):
    target = tmp_path / "run.sh"
    target.write_text("old")
    target.chmod(0o751)
    atomic_write.write_text(target, "new")
    assert target.stat().st_mode & 0o777 == 0o751


def test_a_stream_is_in_place_at_once_and_grows(tmp_path):
    target = tmp_path / "log.csv"
    target.write_text("old log")
    stream = atomic_write.open_stream(target)
    try:
        assert target.read_text() == ""
        stream.write("a,b\n")
        stream.flush()
        assert target.read_text() == "a,b\n"
    finally:
        stream.close()
    assert sorted(os.listdir(tmp_path)) == ["log.csv"]


def test_temporaries_of_dead_processes_on_this_host_are_removed(tmp_path):
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = int(child.stdout)
    host = atomic_write._host()
    stale = tmp_path / f".model.pt{atomic_write.TEMPORARY_MARK}{host}-{dead}-abc123.tmp"
    stale.write_bytes(b"x" * 1000)
    other_host = tmp_path / f".model.pt{atomic_write.TEMPORARY_MARK}otherhost-{dead}-abc.tmp"
    other_host.write_bytes(b"y")
    living = tmp_path / f".model.pt{atomic_write.TEMPORARY_MARK}{host}-{os.getpid()}-zz.tmp"
    living.write_bytes(b"z")
    atomic_write.write_bytes(tmp_path / "model.pt", b"new")
    assert not stale.exists()
    assert other_host.exists()
    assert living.exists()


def test_a_temporary_path_for_a_library_replaces_the_target_or_vanishes(tmp_path):
    target = tmp_path / "model.gguf"
    target.write_bytes(b"old")
    with atomic_write.temporary_path(target) as temporary:
        assert os.path.dirname(temporary) == str(tmp_path)
        assert atomic_write.TEMPORARY_MARK in temporary
        with open(temporary, "wb") as library_file:  # what a third-party writer does
            library_file.write(b"new")
    assert target.read_bytes() == b"new"
    with pytest.raises(RuntimeError), atomic_write.temporary_path(target) as temporary:
        with open(temporary, "wb") as library_file:
            library_file.write(b"half")
        raise RuntimeError("the library failed")
    assert target.read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path)) == ["model.gguf"]
