"""Which all-reduces' backward passes need no message: those the loss reaches through
whole values only, and none past another collective (checked on a process group of one)."""

from __future__ import annotations

import pytest
import torch

from shapescript.rt.parallel import collectives

pytestmark = pytest.mark.usefixtures("group_of_one")


def _marked(*values: torch.Tensor) -> list[bool]:
    return [bool(getattr(value.grad_fn, "whole_seed", False)) for value in values]


def _x() -> torch.Tensor:
    return torch.randn(5, 3, requires_grad=True)


def test_the_loss_itself_and_a_total_over_a_count_need_no_message() -> None:
    x = _x()
    mean = collectives.all_sum(x.sum())
    collectives.seeded(mean)
    assert _marked(mean) == [True]
    packed = collectives.all_sum(torch.stack([x.sum(), torch.tensor(5.0)]))
    loss = packed[0] / packed[1]
    collectives.seeded(loss)
    assert _marked(packed) == [True]


def test_an_all_reduce_whose_result_goes_back_into_split_values_sends_its_gradient() -> None:
    x = _x()
    centre = collectives.all_sum(x.sum(0))
    loss = collectives.all_sum(((x - centre) ** 2).sum())
    collectives.seeded(loss)
    assert _marked(loss, centre) == [True, False]


def test_one_reached_both_directly_and_past_another_collective_sends_its_gradient() -> None:
    x = _x()
    scale = collectives.all_sum(x.sum())
    other = collectives.all_sum((x * scale).sum())
    loss = scale + other
    collectives.seeded(loss)
    assert _marked(scale, other) == [False, True]
