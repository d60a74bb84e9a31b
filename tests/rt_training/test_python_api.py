"""The reference's Python API: `shapescript.rt.sgd`, `adamw`, `cosine` and `warmup` make,
from Python, the same optimizer state and schedules that a program's `sgd(m, lr=...)`,
`adamw(m, lr=...)`, `cosine(...)` and `warmup(...)` make."""

from __future__ import annotations

import torch

import shapescript
import shapescript.rt as rt

PROGRAM = """\
dim D = 4

model Lin:
    param w: [D D] = normal(std=0.5)
    param b: [D] = zeros

fn loss(m: Lin, x: [n D]) -> [] = mean(square(x @ m.w + m.b))

fn train(mut m: Lin, mut opt: AdamW[Lin], x: [n D]):
    l, g = value_and_grad(loss, m, x)
    update(mut m, mut opt, g)

fn state(m: Lin) -> AdamW[Lin] = adamw(m, lr=warmup(2, cosine(0.01, 10)), beta1=0.8, eps=1e-6)
"""


def test_the_python_api_makes_the_values_the_program_makes() -> None:
    module = shapescript.compile(PROGRAM, "lin.ss")
    x = torch.randn(5, 4, generator=torch.Generator().manual_seed(0))
    from_program = module.Lin.init(seed=1)
    from_python = module.Lin.init(seed=1)
    program_opt = module.state(from_program)
    python_opt = rt.adamw(from_python, lr=rt.warmup(2, rt.cosine(0.01, 10)), beta1=0.8, eps=1e-6)
    for _ in range(4):
        module.train(from_program, program_opt, x)
        module.train(from_python, python_opt, x)
    assert python_opt.steps == program_opt.steps == 4
    assert torch.equal(from_python.w, from_program.w)
    assert python_opt.state_dict()["lr"] == program_opt.state_dict()["lr"]


def test_sgd_from_python_steps_a_compiled_model() -> None:
    program = PROGRAM.split("fn state")[0].replace("AdamW[Lin]", "SGD[Lin]")
    module = shapescript.compile(program, "lin_sgd.ss")
    m = module.Lin.init(seed=0)
    before = m.w.detach().clone()
    opt = rt.sgd(m, lr=0.1, momentum=0.9)
    module.train(m, opt, torch.ones(3, 4))
    assert opt.steps == 1
    assert not torch.equal(m.w, before)


def test_the_names_are_the_optimizer_modules() -> None:
    from shapescript.rt import optimizers

    assert (rt.sgd, rt.adamw, rt.cosine, rt.warmup) == (
        optimizers.sgd,
        optimizers.adamw,
        optimizers.cosine,
        optimizers.warmup,
    )
