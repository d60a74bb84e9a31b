"""`shapescript.padded(f)`: generic axes padded up the size ladder, results as unpadded."""

from __future__ import annotations

import random

import pytest
import torch

import shapescript
from shapescript.rt import padding

SOURCE = """dim D = 3

fn pooled(x: [n D]) -> [D] = sum(softmax(x, over=n) * x, over=n) + mean(x, over=n)

fn weights(x: [n D]) -> [n D] = softmax(x, over=n) + x

fn ranked(x: [n D]) -> [n D] = sort(x, over=n)
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    path = tmp_path_factory.mktemp("padded") / "pooling.ss"
    path.write_text(SOURCE, encoding="utf-8")
    return shapescript.compile(SOURCE, str(path))


def test_padded_gives_the_unpadded_results_on_50_lengths_with_the_ladders_sizes(module):
    pooled = shapescript.padded(module.pooled)
    weights = shapescript.padded(module.weights)
    ladder = {padding.ladder_size(n) for n in range(1, 101)}
    padding._seen.clear()
    lengths = random.Random(0).choices(range(1, 101), k=50)
    generator = torch.Generator().manual_seed(0)
    for n in lengths:
        x = torch.randn(n, 3, generator=generator)
        assert torch.allclose(pooled(x), module.pooled(x), rtol=0, atol=1e-5)
        result = weights(x)
        assert result.shape == (n, 3)
        assert torch.allclose(result, module.weights(x), rtol=0, atol=1e-6)
    sizes = {shape[0][0] for shapes in padding.shapes_seen().values() for shape in shapes}
    assert sizes <= ladder
    assert len(sizes) < len(set(lengths))


def test_padding_an_axis_that_cant_be_padded_is_a_value_error_naming_the_operation(module):
    with pytest.raises(ValueError, match="`sort` over `n`"):
        shapescript.padded(module.ranked, "n")


def test_with_fixed_shapes_off_padded_calls_the_function_as_it_is(module):
    padding._seen.clear()
    was = shapescript.fixed_shapes(False)
    try:
        x = torch.randn(5, 3)
        assert torch.equal(shapescript.padded(module.pooled)(x), module.pooled(x))
    finally:
        shapescript.fixed_shapes(was)
    assert padding.shapes_seen() == {}
