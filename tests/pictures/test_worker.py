"""The torch worker: answers, limits, restarts, and an event loop that keeps running."""

from __future__ import annotations

import asyncio
import logging
import sys

import pytest

from shapescript_lsp.pictures.runs import Failed, PictureRuns
from shapescript_lsp.pictures.worker import Worker, WorkerError

pytest.importorskip("torch")

DOUBLE = {
    "code": "def f(x):\n    return x * 2\n",
    "call": "f",
    "args": [{"tensor": [1.0, 2.5], "dtype": "float32"}],
}
FOREVER = {"code": "def f():\n    while True:\n        pass\n", "call": "f"}
TEN_GB = {
    "code": (
        "import torch\ndef f():\n    return torch.ones(10 * 1024**3, dtype=torch.uint8).sum()\n"
    ),
    "call": "f",
}
TEN_GB_PYTHON = {"code": "def f():\n    return len(bytearray(10 * 1024**3))\n", "call": "f"}
CRASH = {"code": "import os\ndef f():\n    os._exit(3)\n", "call": "f"}


def _ours(caplog) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "shapescript_lsp.pictures"]


async def test_it_runs_a_function_on_tensors_with_gradients_off():
    worker = Worker(sys.executable)
    grad = {"code": "import torch\ndef f():\n    return torch.is_grad_enabled()\n", "call": "f"}
    try:
        assert await worker.run(DOUBLE) == {"tensor": [2.0, 5.0], "dtype": "float32", "shape": [2]}
        assert await worker.run(grad) is False
        assert worker.starts == 1
    finally:
        await worker.close()


async def test_a_function_that_loops_forever_is_stopped_and_the_next_request_answers():
    worker = Worker(sys.executable, time_limit=1.0)
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.01)

    ticker = asyncio.get_running_loop().create_task(tick())
    try:
        await worker.run(DOUBLE)
        before = ticks
        with pytest.raises(WorkerError) as stopped:
            await worker.run(FOREVER)
        assert stopped.value.kind == "time"
        assert ticks > before + 10, "the event loop was blocked while the worker ran"
        assert worker.process is None
        assert (await worker.run(DOUBLE))["tensor"] == [2.0, 5.0]
        assert worker.starts == 2
    finally:
        ticker.cancel()
        await worker.close()


@pytest.mark.parametrize("request_", [TEN_GB, TEN_GB_PYTHON], ids=["torch", "python"])
async def test_a_function_that_allocates_10_gb_is_stopped_and_the_next_request_answers(request_):
    worker = Worker(sys.executable, memory_limit=1024**3)
    try:
        with pytest.raises(WorkerError) as stopped:
            await worker.run(request_)
        assert stopped.value.kind == "memory"
        assert (await worker.run(DOUBLE))["tensor"] == [2.0, 5.0]
        assert worker.starts == 2
    finally:
        await worker.close()


async def test_crashes_are_logged_once(caplog):
    worker = Worker(sys.executable)
    try:
        with caplog.at_level(logging.WARNING, logger="shapescript_lsp.pictures"):
            for _ in range(2):
                with pytest.raises(WorkerError) as crashed:
                    await worker.run(CRASH)
                assert crashed.value.kind == "crash"
        assert len(_ours(caplog)) == 1
    finally:
        await worker.close()


async def test_a_python_that_doesnt_exist_fails_once(tmp_path, caplog):
    missing = tmp_path / "no-python"
    worker = Worker(str(missing))
    with caplog.at_level(logging.WARNING, logger="shapescript_lsp.pictures"):
        for _ in range(2):
            with pytest.raises(WorkerError) as failed:
                await worker.run(DOUBLE)
            assert failed.value.kind == "start"
    assert len(_ours(caplog)) == 1


async def test_a_late_answer_is_kept_for_the_next_hover():
    slow = {
        "code": "import time\ndef f(x):\n    time.sleep(0.5)\n    return x + 1\n",
        "call": "f",
        "args": [1],
    }
    runs = PictureRuns(wait=0.05)
    try:
        assert await runs.answer(sys.executable, slow) is None
        while runs.running:
            await asyncio.sleep(0.05)
        assert await runs.answer(sys.executable, slow) == 2
        assert runs.worker is not None and runs.worker.starts == 1
    finally:
        await runs.close()


async def test_a_failed_request_is_kept_and_not_sent_again():
    # A wait long enough for starting the worker (importing torch) on a busy machine.
    runs = PictureRuns(wait=120.0, time_limit=0.5)
    try:
        first = await runs.answer(sys.executable, FOREVER)
        assert isinstance(first, Failed) and first.kind == "time"
        assert await runs.answer(sys.executable, FOREVER) is first
        assert runs.worker is not None and runs.worker.starts == 1
    finally:
        await runs.close()


async def test_a_cancelled_request_doesnt_answer_the_next_one():
    slow = {"code": "import time\ndef f():\n    time.sleep(0.5)\n    return 1\n", "call": "f"}
    worker = Worker(sys.executable)
    try:
        await worker.run(DOUBLE)
        task = asyncio.get_running_loop().create_task(worker.run(slow))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert (await worker.run(DOUBLE))["tensor"] == [2.0, 5.0]
    finally:
        await worker.close()
