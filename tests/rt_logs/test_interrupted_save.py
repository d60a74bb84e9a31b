"""A save killed with SIGKILL while it writes leaves the previous checkpoint loadable, and
the next save removes the temporary files the killed ones left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import shapescript
from shapescript.rt.checkpoints import load
from tests.rt_logs.records import Big

ROOT = Path(__file__).resolve().parents[2]
COMPILER = Path(shapescript.__file__).resolve().parents[1]

#: Saves a 16 MB checkpoint over and over, each with its fields and its int set to i.
SAVER = """
import sys
import torch
import shapescript
from tests.rt_logs.records import Big
shapescript.devices("cpu")
m = Big.init(seed=0)
i = 0
while True:
    i += 1
    with torch.no_grad():
        m.a.fill_(i)
        m.b.fill_(i)
    shapescript.save(sys.argv[1], m, i)
"""
#: How long the saver may take to get going before the test gives up (not a timing check).
PATIENCE = 120.0


def _saving(directory: Path, path: Path, whole: int, before: frozenset[str] = frozenset()) -> bool:
    """Whether a save is under way: a new file beside the checkpoint (not one of `before`),
    or the checkpoint itself shorter than a whole one, being rewritten."""
    if any(name != path.name and name not in before for name in os.listdir(directory)):
        return True
    try:
        return path.stat().st_size < whole - 1024
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_save_killed_mid_write_leaves_the_previous_checkpoint(tmp_path: Path) -> None:
    directory = tmp_path / "ckpts"
    directory.mkdir()
    path = directory / "ckpt.pt"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(COMPILER), str(ROOT)])}
    saver = subprocess.Popen(
        [sys.executable, "-c", SAVER, str(path)], cwd=ROOT, env=env, stderr=subprocess.PIPE
    )
    try:
        shapescript.save(tmp_path / "whole.pt", Big.init(seed=0), 1)
        whole = (tmp_path / "whole.pt").stat().st_size
        deadline = time.monotonic() + PATIENCE
        while not path.exists():
            assert saver.poll() is None, saver.stderr.read().decode()
            assert time.monotonic() < deadline, "the saver never wrote a checkpoint"
            time.sleep(0.01)
        while not _saving(directory, path, whole):
            assert saver.poll() is None, saver.stderr.read().decode()
            assert time.monotonic() < deadline, "the saver never saved again"
        saver.send_signal(signal.SIGKILL)
        saver.wait()
    finally:
        if saver.poll() is None:
            saver.kill()
            saver.wait()
        saver.stderr.close()
    assert saver.returncode == -signal.SIGKILL

    m, i = load(path, Big, int)
    assert i >= 1
    assert torch.equal(m.a, torch.full_like(m.a, i))
    assert torch.equal(m.b, torch.full_like(m.b, i))


def _temporaries(directory: Path, path: Path) -> set[str]:
    return {name for name in os.listdir(directory) if name != path.name}


def _kill_mid_save(directory: Path, path: Path, whole: int, env: dict[str, str]) -> None:
    """Start a saver, wait until it is writing a new temporary file, and SIGKILL it."""
    before = frozenset(_temporaries(directory, path))
    saver = subprocess.Popen(
        [sys.executable, "-c", SAVER, str(path)], cwd=ROOT, env=env, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + PATIENCE
        while not _saving(directory, path, whole, before):
            assert saver.poll() is None, saver.stderr.read().decode()
            assert time.monotonic() < deadline, "the saver never started a save"
            time.sleep(0.005)
        saver.send_signal(signal.SIGKILL)
        saver.wait()
    finally:
        if saver.poll() is None:
            saver.kill()
            saver.wait()
        saver.stderr.close()
    assert saver.returncode == -signal.SIGKILL


def _assert_whole(path: Path) -> int:
    """The checkpoint at `path` is one save's, whole: its fields are all its int."""
    m, i = load(path, Big, int)
    assert torch.equal(m.a, torch.full_like(m.a, i))
    assert torch.equal(m.b, torch.full_like(m.b, i))
    return i


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_the_next_save_removes_what_killed_saves_left(tmp_path: Path) -> None:
    directory = tmp_path / "ckpts"
    directory.mkdir()
    path = directory / "ckpt.pt"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(COMPILER), str(ROOT)])}
    first = Big.init(seed=0)
    with torch.no_grad():
        first.a.fill_(-1)
        first.b.fill_(-1)
    shapescript.save(path, first, -1)
    whole = path.stat().st_size
    left: set[str] = set()
    for _kill in range(6):
        _kill_mid_save(directory, path, whole, env)
        left |= _temporaries(directory, path)
        _assert_whole(path)
    assert left, "no kill left a temporary file behind"

    last = Big.init(seed=0)
    with torch.no_grad():
        last.a.fill_(1000)
        last.b.fill_(1000)
    shapescript.save(path, last, 1000)
    assert _temporaries(directory, path) == set()
    assert _assert_whole(path) == 1000
