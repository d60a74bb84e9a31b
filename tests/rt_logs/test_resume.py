"""Training that saves, loads and carries on gives what training that didn't stop gives, bit
for bit: AdamW with a warmup-cosine schedule, gradient clipping and dropout."""

from __future__ import annotations

from pathlib import Path

import torch

from shapescript.rt.checkpoints import AdamW, load, save
from shapescript.rt.gradients import clip_norm, value_and_grad
from shapescript.rt.models import Field, Model, fields_of
from shapescript.rt.optimizers import Optimizer, adamw, cosine, update, warmup
from shapescript.rt.randomness import Mode, Train, dropout

D, HD, C, BATCH = 32, 16, 4, 8
STEPS, STOP = 12, 5


class Net(Model):
    _ss_fields = (
        Field("w1", "param", (D, HD), "f32", ("normal", {"std": 0.5})),
        Field("b1", "param", (HD,), "f32", ("zeros", {})),
        Field("w2", "param", (HD, C), "f32", ("uniform", {"lo": -0.5, "hi": 0.5})),
        Field("seen", "buffer", (), "i64", ("zeros", {})),
    )


def loss(m: Net, x: torch.Tensor, y: torch.Tensor, mode: Mode) -> torch.Tensor:
    h = dropout(torch.relu(x @ m.w1 + m.b1), 0.25, mode)
    return torch.nn.functional.cross_entropy(h @ m.w2, y)


def _batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(step)
    x = torch.randn(BATCH, D, generator=generator)
    return x, torch.randint(0, C, (BATCH,), generator=generator)


def _run(m: Net, opt: Optimizer, first: int, last: int) -> list[torch.Tensor]:
    losses = []
    for step in range(first, last):
        x, y = _batch(step)
        value, g = value_and_grad(loss, m, x, y, Train(seed=3).child(f"step@{step}"))
        update(m, opt, clip_norm(g, 0.5))
        with torch.no_grad():
            m.seen.add_(BATCH)
        losses.append(value)
    return losses


def test_saving_loading_and_carrying_on_is_training_without_stopping(tmp_path: Path) -> None:
    straight = Net.init(seed=0)
    straight_opt = adamw(straight, lr=warmup(3, cosine(0.05, STEPS)), weight_decay=0.1)
    expected = _run(straight, straight_opt, 0, STEPS)

    m = Net.init(seed=0)
    opt = adamw(m, lr=warmup(3, cosine(0.05, STEPS)), weight_decay=0.1)
    first = _run(m, opt, 0, STOP)
    save(tmp_path / "ckpt.pt", m, opt, STOP)
    del m, opt
    m, opt, done = load(tmp_path / "ckpt.pt", Net, AdamW[Net], int)
    rest = _run(m, opt, done, STEPS)

    assert len(first + rest) == STEPS
    for step, (mine, theirs) in enumerate(zip(first + rest, expected, strict=True)):
        assert torch.equal(mine, theirs), f"step {step}"
    for name, tensor in fields_of(straight).items():
        assert torch.equal(fields_of(m)[name], tensor), name
    assert opt.steps == straight_opt.steps == STEPS
    mine, theirs = opt.torch.state_dict()["state"], straight_opt.torch.state_dict()["state"]
    for index, entry in theirs.items():
        for key, value in entry.items():
            assert torch.equal(mine[index][key], value), (index, key)
