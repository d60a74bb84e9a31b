"""A padded batch split over several devices, its mask with it: the masked lowerings add
up each device's masked sum and number of real examples (rt/padding.py), simulated here
without processes: each device's all-reduce input is noted, then every device is given
their total."""

from __future__ import annotations

import pytest
import torch

from shapescript.rt import padding
from shapescript.rt.parallel import controller

SIZE = 64


class World:
    """Stands in for the all-reduce: a first pass notes what each device gives it, a
    second gives every device the total."""

    def __init__(self) -> None:
        self.given: list[torch.Tensor] = []
        self.total: torch.Tensor | None = None

    def __call__(self, value: torch.Tensor, where: str | None = None) -> torch.Tensor:
        if self.total is None:
            self.given.append(value)
            return value
        return self.total

    def run(self, each_device) -> list:
        for part in each_device:
            part()
        self.total = torch.stack(self.given).sum(0)
        return [part() for part in each_device]


def padded_batch(real: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(real)
    x = torch.randn(real, 5, generator=generator, dtype=torch.float64)
    y = torch.randint(0, 5, (real,), generator=generator)
    mask = padding.mask_for(real, SIZE)
    return x, y, padding.pad_along(x, 0, SIZE), mask


@pytest.mark.parametrize("real", [64, 36, 20])
def test_a_mean_over_a_split_padded_batch_is_over_its_real_examples(monkeypatch, real) -> None:
    x, y, padded, mask = padded_batch(real)
    sizes = controller.split_sizes(SIZE, 3)
    assert sizes == [22, 21, 21]
    masks = [part["?b"] for part in padding.split_pads({"?b": mask}, sizes)]
    if real == 20:
        assert not masks[1].any() and not masks[2].any()  # devices with only padding
    pieces = torch.split(padded, sizes)
    world = World()
    monkeypatch.setattr(padding, "_all_sum", world)
    means = world.run(
        [lambda p=p, m=m: padding.all_mean(p, 0, m) for p, m in zip(pieces, masks, strict=True)]
    )
    for mean in means:
        assert torch.allclose(mean, x.mean(0), rtol=0, atol=1e-12)


@pytest.mark.parametrize("real", [64, 36, 20])
def test_the_batchs_cross_entropy_split_over_devices_is_the_unpadded_one(monkeypatch, real):
    x, y, padded, mask = padded_batch(real)
    sizes = controller.split_sizes(SIZE, 3)
    labels = torch.split(padding.pad_along(y, 0, SIZE), sizes)
    parts = padding.split_pads({"?b": mask}, sizes)
    world = World()
    monkeypatch.setattr(padding, "_all_sum", world)
    losses = world.run(
        [
            lambda z=z, t=t, pads=pads: padding.all_cross_entropy(z, t, 1, pads, ((0, "?b"),))
            for z, t, pads in zip(torch.split(padded, sizes), labels, parts, strict=True)
        ]
    )
    expected = torch.nn.functional.cross_entropy(x, y)
    for loss in losses:
        assert torch.allclose(loss, expected, rtol=0, atol=1e-12)


def test_masks_that_are_none_stay_none_when_split() -> None:
    parts = padding.split_pads({"?b": None}, [2, 1])
    assert parts == [{"?b": None}, {"?b": None}]


def test_the_controller_sends_each_worker_its_part_of_the_batchs_masks() -> None:
    from shapescript.rt.parallel import wire

    mask = padding.mask_for(20, SIZE)
    other = torch.ones(7, dtype=torch.bool)
    sizes = controller.split_sizes(SIZE, 3)
    parts = controller.split_pads({"b": mask, "n": other, "off": None}, sizes, SIZE)
    decoded = [dict(wire.decode(part, {}, torch.device("cpu"))) for part in parts]
    assert [d["b"].shape[0] for d in decoded] == sizes
    assert torch.equal(torch.cat([d["b"] for d in decoded]), mask)
    assert all(torch.equal(d["n"], other) and d["off"] is None for d in decoded)
