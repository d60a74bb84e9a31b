"""Pattern operations, batch_norm and calls into other files across a padded axis give the
unpadded results (float64, 1e-12): the operations issue 20 stopped blocking."""

from __future__ import annotations

import pytest
import torch

import shapescript
from shapescript.rt import padding

LIB = """dim D = 3

fn pool(x: [n D] f64) -> [D] f64 = mean(x, over=n)

fn ranked(x: [n D] f64) -> [n D] f64 = sort(x, over=n)
"""

SOURCE = """import lib

dim D = 3
dim C = 2

fn moved(x: [n D] f64) -> [D] f64 = sum(rearrange(x, n D -> D n) @ x, over=D)

fn kept(x: [n D] f64) -> [n D 2] f64 = repeat(x, n D -> n D r, r=2)

fn split_kept(x: [n 6] f64) -> [D] f64:
    a, b = split(x, n (2 D) -> n D)
    return mean(a * b, over=n)

fn contracted(x: [n D] f64, y: [n C] f64) -> [D C] f64 = einsum(x, y: n D, n C -> D C)

fn batched(x: [n D] f64, y: [n D] f64) -> [n] f64 = einsum(x, y: n D, n D -> n) + 0.0

fn reduced_sum(x: [n D] f64) -> [D] f64 = reduce(x, n D -> D, sum)

fn reduced_mean(x: [n D] f64) -> [] f64 = reduce(x, n D -> , mean)

fn reduced_max(x: [n D] f64) -> [D] f64 = reduce(x, n D -> D, max)

fn reduced_min(x: [n D] f64) -> [D] f64 = reduce(x, n D -> D, min)

fn normed(x: [n D] f64) -> [n D] f64 = batch_norm(x, Train(seed=0), over=D)

fn product(x: [n D] f64) -> [D] f64 = prod(x, over=n) + reduce(x, n D -> D, prod)

fn every_product(x: [n D] f64) -> [] f64 = prod(x)

fn imported(x: [n D] f64) -> [D] f64 = lib.pool(x) * 2.0

fn column_slice(x: [n D] f64) -> [] f64 = mean(x[:, 0:2])

fn column_slice_kept(x: [n D] f64) -> [n 2] f64 = x[:, 1:3] * 2.0

fn imported_ranked(x: [n D] f64) -> [n D] f64 = lib.ranked(x)
"""

PADDED = [
    "moved",
    "kept",
    "split_kept",
    "contracted",
    "batched",
    "reduced_sum",
    "reduced_mean",
    "reduced_max",
    "reduced_min",
    "normed",
    "product",
    "every_product",
    "imported",
    "column_slice",
    "column_slice_kept",
]


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    folder = tmp_path_factory.mktemp("patterns")
    (folder / "lib.ss").write_text(LIB, encoding="utf-8")
    path = folder / "main.ss"
    path.write_text(SOURCE, encoding="utf-8")
    return shapescript.compile(SOURCE, str(path))


def inputs(name: str, n: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(n)
    columns = {"split_kept": 6}.get(name, 3)
    x = torch.randn(n, columns, generator=generator, dtype=torch.float64)
    if name == "contracted":
        return [x, torch.randn(n, 2, generator=generator, dtype=torch.float64)]
    if name == "batched":
        return [x, torch.randn(n, 3, generator=generator, dtype=torch.float64)]
    return [x]


@pytest.mark.parametrize("name", PADDED)
def test_the_padded_call_gives_the_unpadded_result(module, name: str) -> None:
    function = getattr(module, name)
    assert function._ss_padding["axes"].get("n"), function._ss_padding
    padded = shapescript.padded(function, "n")
    for n in (6, 8, 13):
        assert padding.ladder_size(n) > n
        args = inputs(name, n)
        expected = function(*args)
        result = padded(*args)
        assert result.shape == expected.shape
        assert torch.allclose(result, expected, rtol=0, atol=1e-12), (name, n)


def test_a_padded_reduction_really_sees_padding(module) -> None:
    # Without its mask, the padded mean would count the copies: the test above can fail.
    x = inputs("reduced_mean", 6)[0]
    size = padding.ladder_size(6)
    unmasked = module.reduced_mean(padding.pad_along(x, 0, size))
    assert not torch.allclose(unmasked, module.reduced_mean(x), rtol=0, atol=1e-12)


def test_what_blocks_in_another_file_blocks_the_caller_and_is_named(module) -> None:
    with pytest.raises(ValueError, match="`sort` over `n` in `lib.ranked`"):
        shapescript.padded(module.imported_ranked, "n")
