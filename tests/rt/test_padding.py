"""Masked operations give the unpadded result (rt/padding.py)."""

from __future__ import annotations

import itertools

import pytest
import torch

from shapescript.rt import padding

REAL, SIZE = 5, 8


def padded_input(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """A [REAL 3] float64 tensor, the same padded along its first axis, and its mask."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(REAL, 3, generator=generator, dtype=torch.float64)
    return x, padding.pad_along(x, 0, SIZE), padding.mask_for(REAL, SIZE)


REDUCTIONS = ["sum", "mean", "var", "std", "max", "min", "logsumexp", "norm"]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_a_masked_reduction_gives_the_unpadded_result(name: str) -> None:
    x, padded, mask = padded_input()
    operation = getattr(padding, name)
    expected = operation(x, 0, None)
    assert torch.allclose(operation(padded, 0, mask), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_along_a_padded_axis_is_exact_at_real_positions(name: str) -> None:
    x, padded, mask = padded_input()
    operation = getattr(padding, name)
    result = operation(padded, 0, mask)
    assert torch.allclose(result[:REAL], operation(x, 0, None), rtol=0, atol=1e-12)
    assert torch.isfinite(padding.log_softmax(padded, 0, mask)).all()


def test_a_matmul_contracting_the_padded_axis_is_exact() -> None:
    x, padded, mask = padded_input()
    w = torch.randn(REAL, 4, dtype=torch.float64)
    expected = x.T @ w
    result = padding.matmul(padded.T, padding.pad_along(w, 0, SIZE), mask)
    assert torch.allclose(result, expected, rtol=0, atol=1e-12)


def test_cross_entropy_over_the_real_examples_of_a_padded_batch() -> None:
    z, padded, mask = padded_input()
    y = torch.tensor([0, 2, 1, 1, 0])
    expected = torch.nn.functional.cross_entropy(z, y)
    result = padding.cross_entropy(
        padded, padding.pad_along(y, 0, SIZE), 1, {"b": mask}, ((0, "b"),)
    )
    assert torch.allclose(result, expected, rtol=0, atol=1e-12)


def test_padded_positions_get_exactly_zero_gradient() -> None:
    _, padded, mask = padded_input()
    padded = padded.clone().requires_grad_()
    (padding.mean(padded, 0, mask).sum() + padding.logsumexp(padded, 0, mask).sum()).backward()
    assert padded.grad is not None
    assert (padded.grad[REAL:] == 0).all() and torch.isfinite(padded.grad).all()


def test_with_fixed_shapes_off_the_plain_operation_runs() -> None:
    _, padded, mask = padded_input()
    was = padding.fixed_shapes(False)
    try:
        assert torch.equal(padding.mean(padded, 0, mask), padded.mean(0))
    finally:
        padding.fixed_shapes(was)
    assert was is True


def test_the_ladder_is_the_reference_one() -> None:
    start = [1, 2, 3, 4, 5, 7, 9, 12, 15, 19, 24, 30, 38, 48, 60, 80, 104, 136, 176, 224]
    assert list(itertools.islice(padding.ladder(), 24))[:20] == start
    assert list(itertools.islice(padding.ladder(), 24))[20:] == [280, 352, 440, 552]
    assert len({padding.ladder_size(n) for n in range(1, 513)}) == 24


def test_a_kept_selection_has_its_targets_size_and_leaves_padding_out() -> None:
    x, padded, outer = padded_input()
    keep = padding.pad_along(x[:, 0] > 0, 0, SIZE)
    pads: dict = {}
    kept = padding.select(pads, "?k", padded, keep, outer)
    assert kept.shape == padded.shape
    selected = pads["?k"]
    assert torch.equal(selected, keep & outer)
    assert torch.equal(kept[selected], x[x[:, 0] > 0])
    # Unselected positions are copies of the first selected one: finite, never used.
    first = int(selected.to(torch.int8).argmax())
    assert torch.equal(kept[~selected], padded[first].expand(int((~selected).sum()), 3))
    total = padding.sum(kept, 0, selected)
    assert torch.allclose(total, x[x[:, 0] > 0].sum(0), rtol=0, atol=1e-12)


def test_with_fixed_shapes_off_a_selection_is_compact() -> None:
    x, padded, outer = padded_input()
    keep = x[:, 0] > 0
    pads: dict = {}
    was = padding.fixed_shapes(False)
    try:
        compact = padding.select(pads, "?k", x, keep)
    finally:
        padding.fixed_shapes(was)
    assert torch.equal(compact, x[keep]) and pads == {"?k": None}
