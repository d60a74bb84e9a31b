"""The README example on three CPU workers gives what it gives on one device."""

from __future__ import annotations

import pytest
import torch

import shapescript
from shapescript.rt import data as rt_data
from tests.parallel.programs import alive, compiled, readme_on
from tests.python.datasets import ListDigits, ListSink


@pytest.fixture(autouse=True)
def one_thread(monkeypatch, tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    loaders = rt_data.loader_workers()
    rt_data.loader_workers(0)
    monkeypatch.chdir(tmp_path)
    yield
    rt_data.loader_workers(loaders)
    torch.set_num_threads(threads)


def _fit(module, examples: int) -> tuple[list[float], dict[str, torch.Tensor]]:
    sink = ListSink()
    m = module.Mlp.init(seed=0)
    module.fit(m, ListDigits(examples), sink, 3, shapescript.Eval)
    return [row["loss"] for row in sink.rows], {
        name: value.detach().clone() for name, value in m.state_dict().items()
    }


@pytest.mark.slow
def test_three_workers_train_as_one_device_does(tmp_path) -> None:
    # Batches of 30 from 50 examples: one that divides by 3 (10 each) and one that
    # doesn't (7/7/6) in every epoch, on the same workers.
    one = compiled(readme_on("cpu", 30), tmp_path / "one.ss")
    losses, weights = _fit(one, 50)
    three = compiled(readme_on("cpu[0 1 2]", 30), tmp_path / "three.ss")
    try:
        their_losses, their_weights = _fit(three, 50)
        pids = three._ss_program.pids()
        assert len(pids) == 3
    finally:
        three._ss_program.stop()
    assert len(their_losses) == len(losses) == 3 * 2
    for step, (mine, theirs) in enumerate(zip(losses, their_losses, strict=True)):
        assert abs(mine - theirs) <= 1e-5, f"step {step}: {mine} vs {theirs}"
    for name, value in weights.items():
        assert torch.allclose(their_weights[name], value, atol=1e-5, rtol=0), name
    assert not any(alive(pid) for pid in pids)
