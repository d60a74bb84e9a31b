"""A model or optimizer state the program no longer has is dropped by the controller and,
before the next call, by the workers: a loop that makes a model per trial keeps one."""

from __future__ import annotations

import gc
import weakref

import torch

import shapescript
from tests.parallel.programs import compiled

PROGRAM = """devices cpu[0 1]

dim D = 4

model Lin:
    param w: [D D] = normal(std=0.02)

extern fn live_models(x: []) -> [] = "tests.parallel.counting.live_models"

fn held(m: Lin, x: [b D]) -> []:
    return live_models(mean(x @ m.w))

fn loss(m: Lin, x: [b D]) -> []:
    return mean(x @ m.w)

fn step(mut m: Lin, mut opt: AdamW[Lin], x: [b D]):
    l, g = value_and_grad(loss, m, x)
    update(mut m, mut opt, g)
"""


def test_models_the_program_no_longer_has_are_dropped_here_and_by_the_workers(tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    module = compiled(PROGRAM, tmp_path / "dropped.ss")
    program = module._ss_program
    x = torch.ones(4, 4)
    try:
        counts = []
        for seed in range(4):
            model = module.Lin.init(seed=seed)
            opt = shapescript.rt.optimizers.adamw(model, lr=1e-3)
            module.step(model, opt, x)
            counts.append(float(module.held(model, x)))
            gone = weakref.ref(model)
            del model, opt
            gc.collect()
            assert gone() is None
        # Each worker holds the trial's model and no earlier one's.
        assert counts == [1.0, 1.0, 1.0, 1.0]
        assert len(program.objects) == 0
        assert program.numbers == {} and program.sent == {} and program.stale == set()
    finally:
        program.stop()
        torch.set_num_threads(threads)
