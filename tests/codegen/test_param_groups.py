"""A program's `no_decay` and `lr_scale` reach the runtime: the compiled `adamw` and `sgd`
make the param groups the options say."""

from __future__ import annotations

import torch

from tests.codegen.compiled import load

PROGRAM = """\
dim V = 11
dim D = 4

model Net:
    param wte: [V D] = normal(std=0.02)
    param w: [D D] = normal(std=0.02)
    param b: [D] = zeros
    param ln_w: [D] = ones

fn adam(m: Net) -> AdamW[Net]:
    return adamw(m, lr=0.01, weight_decay=0.1, no_decay="vectors", lr_scale="wte=0.1")

fn plain(m: Net) -> SGD[Net] = sgd(m, lr=0.5, weight_decay=0.1, no_decay="b ln_w")
"""


def test_compiled_optimizers_group_their_params_as_the_options_say() -> None:
    module = load(PROGRAM, "param_groups.ss")
    m = module.Net.init(seed=0)
    groups = module.adam(m).torch.param_groups
    assert [[p is m.wte for p in g["params"]] for g in groups][0] == [True]
    assert [(len(g["params"]), g["weight_decay"], g["lr"]) for g in groups] == [
        (1, 0.1, 0.01 * 0.1),
        (1, 0.1, 0.01),
        (2, 0.0, 0.01),
    ]
    assert groups[2]["params"] == [m.b, m.ln_w]
    assert isinstance(module.plain(m).torch, torch.optim.SGD)
    assert [g["weight_decay"] for g in module.plain(m).torch.param_groups] == [0.1, 0.0]
