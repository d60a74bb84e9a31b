"""A training loop written with the runtime against the same loop in plain PyTorch."""

from __future__ import annotations

import torch

from shapescript.rt.gradients import clip_norm, value_and_grad
from shapescript.rt.optimizers import adamw, cosine, sgd, update, warmup
from shapescript.rt.randomness import Eval, Mode, dropout
from tests.rt_training.nets import C, D, Mlp

BATCH = 64
STEPS = 100


def _batches(steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    generator = torch.Generator().manual_seed(1234)
    return [
        (
            torch.randn(BATCH, D, generator=generator),
            torch.randint(0, C, (BATCH,), generator=generator),
        )
        for _ in range(steps)
    ]


def forward(m: Mlp, x: torch.Tensor, mode: Mode) -> torch.Tensor:
    h = dropout(torch.relu((x - m.mean) @ m.w1 + m.b1), 0.1, mode)
    return h @ m.w2 + m.b2


def loss(m: Mlp, x: torch.Tensor, y: torch.Tensor, mode: Mode) -> torch.Tensor:
    return torch.nn.functional.cross_entropy(forward(m, x, mode), y)


def _reference_lr(t: int) -> float:
    """warmup(10, cosine(3e-3, 90)), written out."""
    if t < 10:
        return 3e-3 * t / 10
    t = min(t - 10, 90)
    return 3e-3 * (1 + torch.cos(torch.tensor(torch.pi * t / 90, dtype=torch.float64)).item()) / 2


def _reference_params(m: Mlp) -> list[torch.nn.Parameter]:
    return [torch.nn.Parameter(p.detach().clone()) for p in m.parameters()]


def _reference_loss(params: list[torch.Tensor], mean: torch.Tensor, x, y) -> torch.Tensor:
    w1, b1, w2, b2 = params
    h = torch.relu((x - mean) @ w1 + b1)
    return torch.nn.functional.cross_entropy(h @ w2 + b2, y)


def test_adamw_with_clip_norm_and_a_schedule_trains_as_the_pytorch_loop_does() -> None:
    batches = _batches(STEPS)
    m = Mlp.init(seed=0)
    opt = adamw(m, lr=warmup(10, cosine(3e-3, 90)))
    params = _reference_params(m)
    mean = m.mean.clone()
    reference = torch.optim.AdamW(params, lr=0.0)
    rng = torch.get_rng_state()
    for step, (x, y) in enumerate(batches):
        value, g = value_and_grad(loss, m, x, y, Eval)
        update(m, opt, clip_norm(g, 1.0))

        reference.zero_grad()
        for group in reference.param_groups:
            group["lr"] = _reference_lr(step)
        expected = _reference_loss(params, mean, x, y)
        expected.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        reference.step()

        assert abs(value.item() - expected.item()) <= 1e-5, f"step {step}"
    assert opt.steps == STEPS
    for mine, theirs in zip(m.parameters(), params, strict=True):
        torch.testing.assert_close(mine, theirs, rtol=1e-5, atol=1e-6)
    assert all(p.grad is None for p in m.parameters())
    assert torch.equal(rng, torch.get_rng_state())


def test_sgd_with_momentum_trains_as_the_pytorch_loop_does() -> None:
    batches = _batches(5)
    m = Mlp.init(seed=1)
    opt = sgd(m, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
    params = _reference_params(m)
    mean = m.mean.clone()
    reference = torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
    for step, (x, y) in enumerate(batches):
        value, g = value_and_grad(loss, m, x, y, Eval)
        update(m, opt, g)
        reference.zero_grad()
        expected = _reference_loss(params, mean, x, y)
        expected.backward()
        reference.step()
        assert abs(value.item() - expected.item()) <= 1e-5, f"step {step}"
