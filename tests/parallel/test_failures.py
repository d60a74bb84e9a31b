"""Workers that fail: a WorkerError at once, naming what happened, and no process left."""

from __future__ import annotations

import os
import signal
import threading

import pytest
import torch

import shapescript
from shapescript.rt.parallel import controller
from tests.parallel.programs import alive, compiled, readme_on


@pytest.fixture(autouse=True)
def one_thread(monkeypatch, tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    monkeypatch.chdir(tmp_path)
    yield
    controller._timeout = None
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    """The README example on cpu[0 1 2], compiled once: each test that stops its workers
    leaves the next call to start fresh ones."""
    compiled_module = compiled(
        readme_on("cpu[0 1 2]"), tmp_path_factory.mktemp("failures") / "train.ss"
    )
    yield compiled_module
    compiled_module._ss_program.stop()


def _batch(count: int = 12) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return {
        "img": torch.rand(count, 784, generator=generator),
        "label": torch.randint(0, 10, (count,), generator=generator),
    }


def test_devices_the_machine_lacks_are_a_device_error_before_any_worker_starts(tmp_path):
    if torch.cuda.device_count() >= 3:
        pytest.skip("this machine has three GPUs")
    with pytest.raises(shapescript.DeviceError, match="can't be used"):
        compiled(readme_on("cuda[0 1 2]"), tmp_path / "gpus.ss")
    assert not controller._RUNNING or not any(p.workers for p in controller._RUNNING)


@pytest.mark.slow
def test_an_error_on_the_workers_raises_in_the_controller_with_the_workers_traceback(module):
    program = module._ss_program
    m = module.Mlp.init(seed=0)
    opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
    wrong = {"img": torch.zeros(12, 783), "label": torch.zeros(12, dtype=torch.long)}
    with pytest.raises(shapescript.ShapeError) as caught:
        module.train_step(m, opt, wrong, shapescript.Eval)
    notes = "\n".join(getattr(caught.value, "__notes__", []))
    assert "raised on worker 0:" in notes
    assert "Traceback" in notes
    # The workers are still there (the next test uses them), and the model is as it was.
    assert len(program.pids()) == 3
    assert torch.equal(m.w1, module.Mlp.init(seed=0).w1)


@pytest.mark.slow
def test_ctrl_c_while_the_workers_run_stops_them(module, monkeypatch):
    program = module._ss_program
    m = module.Mlp.init(seed=0)
    opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
    module.train_step(m, opt, _batch(), shapescript.Eval)
    pids = program.pids()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(controller, "wait", interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            module.train_step(m, opt, _batch(), shapescript.Eval)
    finally:
        program.stop()
    assert program.pids() == []
    assert not any(alive(pid) for pid in pids)


@pytest.mark.slow
def test_a_killed_worker_is_a_worker_error_at_once_and_stops_the_others(module):
    program = module._ss_program
    m = module.Mlp.init(seed=0)
    opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
    batch = _batch()
    module.train_step(m, opt, batch, shapescript.Eval)
    pids = program.pids()
    victim = pids[1]
    timer = threading.Timer(0.5, os.kill, (victim, signal.SIGKILL))
    timer.start()
    try:
        with pytest.raises(shapescript.WorkerError) as caught:
            for _ in range(100_000):
                module.train_step(m, opt, batch, shapescript.Eval)
    finally:
        timer.cancel()
        program.stop()
    message = str(caught.value)
    assert "worker 1 stopped (killed by SIGKILL) while running `train_step` (" in message
    assert "train.ss:54:4)" in message
    assert "the models on the devices are gone" in message
    assert not any(alive(pid) for pid in pids)


@pytest.mark.slow
def test_a_worker_that_does_not_answer_is_a_timeout_naming_where_each_worker_was(module):
    program = module._ss_program
    program.stop()
    # Workers started from now on wait this long at a collective.
    shapescript.collective_timeout(8)
    m = module.Mlp.init(seed=0)
    opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
    module.train_step(m, opt, _batch(), shapescript.Eval)
    pids = program.pids()
    os.kill(pids[1], signal.SIGSTOP)
    try:
        with pytest.raises(shapescript.WorkerError) as caught:
            module.train_step(m, opt, _batch(), shapescript.Eval)
    finally:
        program.stop()
    lines = str(caught.value).splitlines()
    assert lines[0].startswith("a worker failed while running `train_step` (")
    assert lines[0].endswith("train.ss:54:4), and worker 1 didn't finish:")
    assert lines[1].startswith("  worker 0: was waiting for the other workers at ")
    assert lines[1].endswith("train.ss:46:12")
    assert lines[2] == "  worker 1: didn't answer"
    assert lines[3].endswith("train.ss:46:12")
    assert not any(alive(pid) for pid in pids)
