"""Models and optimizer state that a function on the workers returns come back to the
controller, and those a failed worker had are unusable, with an error that says so."""

from __future__ import annotations

import os
import signal

import pytest
import torch

import shapescript
from shapescript.rt.optimizers import Optimizer
from tests.parallel.programs import alive, compiled, readme_on

MAKERS = """
fn make_opt(m: Mlp) -> AdamW[Mlp]:
    return adamw(m, lr=3e-4)

fn make_model(seed: int) -> Mlp = Mlp.init(seed=seed)
"""


@pytest.fixture(autouse=True)
def one_thread(monkeypatch, tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    monkeypatch.chdir(tmp_path)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    """The README example with two makers, on cpu[0 1 2]."""
    folder = tmp_path_factory.mktemp("returned")
    compiled_module = compiled(readme_on("cpu[0 1 2]", extra=MAKERS), folder / "train.ss")
    yield compiled_module
    compiled_module._ss_program.stop()


def _batch(count: int = 12) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(0)
    return {
        "img": torch.rand(count, 784, generator=generator),
        "label": torch.randint(0, 10, (count,), generator=generator),
    }


@pytest.mark.slow
def test_optimizer_state_and_a_model_made_on_the_workers_come_back(module, tmp_path):
    m = module.Mlp.init(seed=0)
    opt = module.make_opt(m)
    assert isinstance(opt, Optimizer)
    assert (opt.type_text, opt.steps, opt.lr) == ("AdamW[Mlp]", 0, 3e-4)
    made = module.make_model(3)
    assert isinstance(made, module.Mlp)
    assert torch.equal(made.w1, module.Mlp.init(seed=3).w1)
    # The state is m's: a step with it on the workers is a step of adamw on one device.
    module.train_step(m, opt, _batch(), shapescript.Eval)
    alone = compiled(readme_on("cpu", extra=MAKERS), tmp_path / "one.ss")
    reference = alone.Mlp.init(seed=0)
    alone.train_step(reference, alone.make_opt(reference), _batch(), shapescript.Eval)
    assert opt.steps == 1
    torch.testing.assert_close(m.w1, reference.w1)


@pytest.mark.slow
def test_with_shard_params_what_comes_back_is_gathered_whole(tmp_path):
    sharded = compiled(
        readme_on("cpu[0 1 2]\n    shard params", extra=MAKERS), tmp_path / "sharded.ss"
    )
    try:
        m = sharded.Mlp.init(seed=0)
        opt = sharded.make_opt(m)
        sharded.train_step(m, opt, _batch(), shapescript.Eval)
        made = sharded.make_model(3)
        state = opt.state_dict()
    finally:
        sharded._ss_program.stop()
    assert torch.equal(made.w1, sharded.Mlp.init(seed=3).w1)
    assert state["steps"] == 1
    assert state["torch"]["state"][0]["exp_avg"].shape == (784, 256)


@pytest.mark.slow
def test_what_a_failed_worker_had_raises_when_used(module, tmp_path):
    program = module._ss_program
    m = module.Mlp.init(seed=0)
    opt = shapescript.rt.optimizers.adamw(m, lr=3e-4)
    kept = module.Mlp.init(seed=1)
    batch = _batch()
    module.train_step(m, opt, batch, shapescript.Eval)
    module.accuracy(kept, batch)
    pids = program.pids()
    os.kill(pids[1], signal.SIGKILL)
    try:
        with pytest.raises(shapescript.WorkerError):
            module.train_step(m, opt, batch, shapescript.Eval)
    finally:
        program.stop()
    assert not any(alive(pid) for pid in pids)
    said = "worker 1 stopped (killed by SIGKILL) while running `train_step`"
    for use in (
        lambda: m.w1,
        lambda: module.accuracy(m, batch),
        lambda: shapescript.save(tmp_path / "m.pt", m),
        lambda: opt.state_dict(),
        lambda: module.train_step(module.Mlp.init(seed=0), opt, batch, shapescript.Eval),
    ):
        with pytest.raises(shapescript.WorkerError) as caught:
            use()
        message = str(caught.value)
        assert said in message
        assert "make new ones, or load a checkpoint" in message
    assert "this Mlp was changed on the workers" in _error(lambda: m.w1)
    assert "this AdamW[Mlp] state was changed on the workers" in _error(opt.state_dict)
    # A model the workers had but never changed is still the controller's own.
    assert torch.equal(kept.w1, module.Mlp.init(seed=1).w1)


def _error(use) -> str:
    with pytest.raises(shapescript.WorkerError) as caught:
        use()
    return str(caught.value)
