"""Loader worker processes: the same batches as the calling process, started once per
dataset, never importing the main module, and a worker that dies is an error, not a hang.

Each worker is a fresh Python that imports torch, so these tests start as few as they can.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import torch

import shapescript
from shapescript.rt import worker_pool
from shapescript.rt.data import Batch, LoaderError, batches, shuffle
from tests.rt_data.records import Blocking, Digit, Digits, Dying

WHERE = "mnist.ss:20:5"
ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging when the block takes longer than `seconds`."""

    def expired(_signal: int, _frame: Any) -> None:
        raise TimeoutError(f"the loader didn't answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(autouse=True)
def stop_workers() -> Iterator[None]:
    yield
    worker_pool.shutdown_all()


def until_error(dataset: Any) -> tuple[list[Batch], str]:
    """The batches a loop gets before the bad item's error, and the error."""
    loaded = []
    with pytest.raises(shapescript.ShapeError) as caught:
        for batch in batches(dataset, 10, Digit, WHERE):
            loaded.append(batch)
    return loaded, str(caught.value)


def pids(dataset: Any) -> list[int]:
    pool = worker_pool._entries[id(dataset)]
    assert isinstance(pool, worker_pool.WorkerPool)
    return [worker.process.pid for worker in pool.workers]


def test_two_workers_give_the_batches_and_errors_of_the_calling_process() -> None:
    dataset = Digits(100, bad=95)
    runs = {}
    with deadline(180):
        for count in (0, 2):
            shapescript.loader_workers(count)
            runs[count] = [until_error(dataset), until_error(shuffle(dataset, 4))]
            if count:
                started = pids(dataset)
                assert len(started) == 2
                # Started once for the dataset, and kept for its next loops, even after
                # one that stopped early.
                for batch in batches(dataset, 10, Digit, WHERE):
                    assert torch.equal(batch.img, runs[0][0][0][0].img)
                    break
                assert until_error(shuffle(dataset, 4))[1] == runs[count][1][1]
                assert pids(dataset) == started
    for (in_process, message), (in_workers, worker_message) in zip(runs[0], runs[2], strict=True):
        assert message == worker_message
        assert message.endswith("field `img` of item 95 should be [D] = (784,), got shape (783,)")
        assert len(in_process) == len(in_workers)
        for one, other in zip(in_process, in_workers, strict=True):
            assert torch.equal(one.img, other.img) and torch.equal(one.label, other.label)
    assert len(runs[0][0][0]) == 9


def test_a_worker_that_dies_names_the_item_it_was_loading() -> None:
    shapescript.loader_workers(1)
    loaded = []
    with deadline(180), pytest.raises(LoaderError) as caught:
        for batch in batches(Dying(20, fatal=7), 4, Digit, WHERE):
            loaded.append(batch)
    assert str(caught.value) == (
        "mnist.ss:20:5: a loader worker process exited with code 3 while loading item 7 of "
        "the dataset (for the batch of items 4, 5, 6 and 7)"
    )
    assert isinstance(caught.value, RuntimeError)
    assert len(loaded) == 1


def test_the_loader_time_limit_is_a_positive_number_of_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(worker_pool, "_timeout_setting", None)
    monkeypatch.delenv("SHAPESCRIPT_LOADER_TIMEOUT", raising=False)
    assert shapescript.loader_timeout() == worker_pool.DEFAULT_TIMEOUT
    monkeypatch.setenv("SHAPESCRIPT_LOADER_TIMEOUT", "7.5")
    assert shapescript.loader_timeout() == 7.5
    monkeypatch.setenv("SHAPESCRIPT_LOADER_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="SHAPESCRIPT_LOADER_TIMEOUT is 'soon'"):
        shapescript.loader_timeout()
    for wrong in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="positive number"):
            shapescript.loader_timeout(wrong)
    with pytest.raises(TypeError, match="not str"):
        shapescript.loader_timeout("3")  # type: ignore[arg-type]
    assert shapescript.loader_timeout(3) == 3.0


@pytest.mark.slow
def test_an_item_that_never_loads_is_an_error_after_the_time_limit_and_stops_the_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(worker_pool, "_timeout_setting", None)
    shapescript.loader_workers(2)
    shapescript.loader_timeout(2)
    dataset = Blocking(20, stuck=9)
    loaded = []
    with deadline(180), pytest.raises(LoaderError) as caught:
        for batch in batches(shuffle(dataset, 0), 4, Digit, WHERE):
            loaded.append(batch)
    message = str(caught.value)
    assert message.startswith(
        "mnist.ss:20:5: loading item 9 of the dataset (Blocking) took longer than the time "
        "limit, 2 s (for the batch of items "
    )
    assert "its loader worker processes were stopped" in message
    assert "shapescript.loader_timeout(seconds) sets the limit" in message
    assert all(batch for batch in loaded)
    # No loader process is left: each was stopped and waited for.
    assert not [child for child in multiprocessing.active_children() if "loader" in child.name]
    # The next loop starts a fresh worker, and loads every batch once no item blocks.
    shapescript.loader_workers(1)
    monkeypatch.setattr(dataset, "stuck", 10**6)
    with deadline(180):
        assert len(list(batches(dataset, 10, Digit, WHERE))) == 2


def test_a_dataset_that_cant_be_pickled_loads_here_with_a_warning() -> None:
    shapescript.loader_workers(2)
    dataset = Digits(12)
    dataset.transform = lambda image: image  # type: ignore[attr-defined]
    with pytest.warns(RuntimeWarning, match="loaded in this process.*can't be pickled") as caught:
        assert len(list(batches(dataset, 5, Digit, WHERE))) == 3
    assert caught[0].filename == __file__
    assert isinstance(worker_pool._entries[id(dataset)], worker_pool._InProcess)

    class Local(Digits):
        pass

    Local.__module__ = "__main__"
    with pytest.warns(RuntimeWarning, match="refers to `.*Local`, defined in the main script"):
        assert len(list(batches(Local(3), 5, Digit, WHERE))) == 1


SCRIPT = """
print("the script's top level runs")
import warnings

import shapescript
import torch
from shapescript.rt.data import batches, shuffle
from tests.rt_data.records import Digit, Digits

class Here(torch.utils.data.Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, index):
        return torch.zeros(784), index

shapescript.devices("cpu")
shapescript.loader_workers(1)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    here = sum(len(batch) for batch in batches(Here(), 2, Digit, "s.ss:1:1"))
print("warned:", [str(warning.message) for warning in caught])
dataset = Digits(30)
sizes = [
    len(batch) for epoch in range(2) for batch in batches(shuffle(dataset, epoch), 8, Digit, "s")
]
print("loaded:", here, sizes)
"""


def test_workers_never_import_the_main_script(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(SCRIPT))
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join([str(ROOT), *(part for part in sys.path if part)])
    ran = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert lines.count("the script's top level runs") == 1
    assert "defined in the main script" in lines[1]
    assert lines[2] == "loaded: 3 [8, 8, 8, 6, 8, 8, 8, 6]"


def test_an_error_in_a_worker_travels_with_its_traceback() -> None:
    error = KeyError("gone")
    assert worker_pool._portable(error, 5) is error
    assert "loading item 5; its traceback there:" in error.__notes__[0]
    unpicklable = ValueError(lambda: None)
    text = worker_pool._portable(unpicklable, 6)
    assert isinstance(text, str) and "ValueError" in text
