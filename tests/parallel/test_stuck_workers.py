"""A worker stuck outside a collective (here in an extern fn that never returns) hits the
collective timeout too: a WorkerError says where each worker was, and no process is left."""

from __future__ import annotations

import pytest
import torch

import shapescript
from shapescript.rt.parallel import controller
from tests.parallel.programs import alive, compiled

PROGRAM = """devices cpu[0 1 2]

dim D = 4

data Ex:
    x: [D]

extern fn stall(x: [b D]) -> [b D] = "tests.parallel.stuck.stall"

fn total(batch: [b] Ex) -> []:
    y = stall(batch.x)
    return mean(y)

fn late(batch: [b] Ex) -> [b D]:
    return stall(batch.x) * 2
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    shapescript.collective_timeout(3)
    module = compiled(PROGRAM, tmp_path_factory.mktemp("stuck") / "stuck.ss")
    yield module
    module._ss_program.stop()
    controller._timeout = None
    torch.set_num_threads(threads)


def _batch() -> dict[str, torch.Tensor]:
    return {"x": torch.ones(6, 4)}


def _stuck(module, name: str) -> tuple[list[str], list[int]]:
    program = module._ss_program
    program.start()
    pids = program.pids()
    with pytest.raises(shapescript.WorkerError) as caught:
        getattr(module, name)(_batch())
    assert program.pids() == []
    assert not any(alive(pid) for pid in pids)
    return str(caught.value).splitlines()


@pytest.mark.slow
def test_a_worker_stuck_before_a_collective_is_named_with_its_location(program):
    lines = _stuck(program, "total")
    assert lines[0].startswith("a worker failed while running `total` (")
    assert lines[0].endswith("stuck.ss:10:4), and worker 1 didn't finish:")
    assert lines[1].startswith("  worker 0: was waiting for the other workers at ")
    assert lines[1].endswith("stuck.ss:12:12")
    assert lines[2].startswith("  worker 1: didn't answer; it was running `total` at ")
    assert lines[2].endswith("stuck.ss:11:5")
    assert lines[3].endswith("stuck.ss:12:12")


@pytest.mark.slow
def test_a_worker_stuck_after_the_others_finished_is_named_too(program):
    lines = _stuck(program, "late")
    assert lines[0].endswith("and worker 1 didn't finish:")
    assert lines[1] == "  worker 0: finished"
    assert lines[2].startswith("  worker 1: didn't answer; it was running `late` at ")
    assert lines[2].endswith("stuck.ss:15:5")
    assert lines[3] == "  worker 2: finished"
