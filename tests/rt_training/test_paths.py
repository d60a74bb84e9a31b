"""Random draws in functions written as the code generator compiles them: a CallCounter per
invocation, and each call that passes a mode on extends its path."""

from __future__ import annotations

import torch

from shapescript.rt.gradients import value_and_grad
from shapescript.rt.randomness import CallCounter, Mode, Train, dropout
from tests.rt_training.nets import Tiny

X = torch.ones(32, 16)


def forward(x: torch.Tensor, mode: Mode) -> torch.Tensor:
    calls = CallCounter()
    first = dropout(x, 0.5, mode.child(calls.key("dropout")))
    second = dropout(x, 0.5, mode.child(calls.key("dropout")))
    return torch.stack([first, second])


def twice(x: torch.Tensor, mode: Mode) -> list[torch.Tensor]:
    calls = CallCounter()
    return [forward(x, mode.child(calls.key("forward"))) for _ in range(2)]


def epochs(x: torch.Tensor, mode: Mode, start: int, stop: int) -> list[torch.Tensor]:
    calls = CallCounter()
    return [
        forward(x, mode.child(calls.key("forward", f"{epoch}"))) for epoch in range(start, stop)
    ]


def _distinct(masks: list[torch.Tensor]) -> bool:
    flat = [mask for both in masks for mask in both]
    return all(
        not torch.equal(flat[i], flat[j]) for i in range(len(flat)) for j in range(i + 1, len(flat))
    )


def test_two_dropouts_two_calls_and_each_iteration_draw_different_masks() -> None:
    mode = Train(seed=0)
    assert _distinct(twice(X, mode))
    assert _distinct(epochs(X, mode, 0, 4))


def test_the_same_program_run_twice_draws_the_same_masks() -> None:
    first, second = twice(X, Train(seed=1)), twice(X, Train(seed=1))
    assert all(torch.equal(a, b) for a, b in zip(first, second, strict=True))
    assert not torch.equal(twice(X, Train(seed=2))[0], first[0])


def test_a_loop_draws_by_its_iterations_not_where_it_started() -> None:
    whole, tail = epochs(X, Train(seed=3), 0, 5), epochs(X, Train(seed=3), 3, 5)
    assert all(torch.equal(a, b) for a, b in zip(whole[3:], tail, strict=True))


def test_value_and_grad_draws_what_calling_the_loss_there_would() -> None:
    def loss(m: Tiny, x: torch.Tensor, mode: Mode) -> torch.Tensor:
        calls = CallCounter()
        return dropout(x @ m.w, 0.5, mode.child(calls.key("dropout"))).square().sum()

    m = Tiny.init(seed=0)
    x = torch.randn(64, 3, generator=torch.Generator().manual_seed(0))
    calls = CallCounter()
    value, g = value_and_grad(loss, m, x, Train(seed=4).child(calls.key("loss")))
    direct = loss(m, x, Train(seed=4).child("loss#0"))
    assert torch.equal(value, direct.detach())
    assert g.w.abs().sum() > 0
