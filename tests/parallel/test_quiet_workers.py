"""The controller waits for the first worker's answer to a step, never for the others': a
worker that has nothing to return says nothing unless it fails, so a slow one holds the
step back only at a collective, as with DDP. Its error is still the call's."""

from __future__ import annotations

import pytest
import torch

import shapescript
from shapescript.rt.parallel import controller, wire
from tests.parallel.programs import alive, compiled, readme_on


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    compiled_module = compiled(readme_on("cpu[0 1]"), tmp_path_factory.mktemp("quiet") / "t.ss")
    yield compiled_module
    compiled_module._ss_program.stop()
    torch.set_num_threads(threads)


def _batch(count: int = 8, width: int = 784) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return {
        "img": torch.rand(count, width, generator=generator),
        "label": torch.randint(0, 10, (count,), generator=generator),
    }


def _counting(monkeypatch, program) -> dict[int, int]:
    """Messages the controller reads from each worker from now on, by rank."""
    counts = {worker.rank: 0 for worker in program.workers}
    ranks = {id(worker.connection): worker.rank for worker in program.workers}
    receive = wire.receive

    def counted(connection):
        counts[ranks[id(connection)]] += 1
        return receive(connection)

    monkeypatch.setattr(wire, "receive", counted)
    return counts


def test_only_the_first_worker_answers_a_step(module, monkeypatch):
    program = module._ss_program
    m = module.Mlp.init(seed=0)
    opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
    module.train_step(m, opt, _batch(), shapescript.Eval)
    counts = _counting(monkeypatch, program)
    for _ in range(4):
        logs = module.train_step(m, opt, _batch(), shapescript.Eval)
    assert counts == {0: 4, 1: 0}
    assert torch.isfinite(logs.loss)


def test_an_error_on_every_worker_is_still_raised_and_they_go_on(module):
    program = module._ss_program
    m = module.Mlp.init(seed=0)
    opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
    pids = program.pids()
    with pytest.raises(shapescript.ShapeError):
        module.train_step(m, opt, _batch(width=783), shapescript.Eval)
    # The quiet worker's answer to that call was read too: the next call gets its own.
    logs = module.train_step(m, opt, _batch(), shapescript.Eval)
    assert torch.isfinite(logs.loss)
    assert program.pids() == pids
    assert all(alive(pid) for pid in pids)
    assert controller.ON_WORKER is False


LATE = """devices cpu[0 1]

dim D = 4

data Ex:
    x: [D]

extern fn fail_later(x: []) -> [] = "tests.parallel.late.fail_later"

fn total(batch: [b] Ex) -> []:
    return fail_later(mean(batch.x))
"""


@pytest.mark.slow
def test_a_quiet_workers_error_after_its_call_returned_stops_the_workers(tmp_path):
    # Worker 1 fails after the call's last collective, once worker 0 has answered: the
    # next call finds its error and stops every worker, naming the call it came from.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    late = compiled(LATE, tmp_path / "late.ss")
    program = late._ss_program
    batch = {"x": torch.ones(4, 4)}
    try:
        assert float(late.total(batch)) == 1.0
        pids = program.pids()
        with pytest.raises(shapescript.WorkerError) as caught:
            late.total(batch)
    finally:
        program.stop(keep=False)
        torch.set_num_threads(threads)
    message = str(caught.value)
    assert message.startswith("worker 1 failed running `total` (")
    assert "after its result was returned (worker 1 ran out of something)" in message
    assert program.pids() == []
    assert not any(alive(pid) for pid in pids)


def test_a_dataset_the_workers_cant_load_is_the_calls_one_answer(module, tmp_path):
    """Every worker fails to load the dataset sent ahead of a loop's first step: that error
    is the step's answer, and the next call gets its own (it once got the step's)."""
    from tests.parallel.unloadable import Unloadable

    program = module._ss_program
    m = module.Mlp.init(seed=0)
    opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
    module.train_step(m, opt, _batch(), shapescript.Eval)
    sink = _Sink()
    pids = program.pids()
    assert pids, "the workers run before the dataset is sent"
    with pytest.raises(RuntimeError, match="can't be loaded on a worker"):
        module.fit(m, Unloadable(), sink, 1, shapescript.Eval)
    logs = module.train_step(m, opt, _batch(), shapescript.Eval)
    assert torch.isfinite(logs.loss)
    assert program.pids() == pids
    assert sink.rows == []


class _Sink:
    def __init__(self) -> None:
        self.rows: list[dict] = []

    def write(self, record: dict) -> None:
        self.rows.append(dict(record))
