"""Compiled programs compute what hand-written torch computes, on random float64 inputs."""

from __future__ import annotations

import re

import einops
import pytest
import torch
import torch.nn.functional as F

from tests.codegen.compiled import build, load

TOLERANCE = 1e-10
f64 = torch.float64


def close(actual: torch.Tensor, expected: torch.Tensor) -> None:
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    torch.testing.assert_close(actual, expected, rtol=0, atol=TOLERANCE)


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, dtype=f64)


ATTENTION = """\
dim D = 64
dim H = 4
dim Dh = D / H

fn causal_attention(x: [b n D] f64, w_qkv: [D 3*D] f64, w_o: [D D] f64) -> [b n D] f64:
    q, k, v = x @ w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(w_o)
"""


def test_causal_attention_matches_scaled_dot_product_attention() -> None:
    module = load(ATTENTION, "attention.ss")
    x, w_qkv, w_o = randn(2, 16, 64), randn(64, 192) * 0.1, randn(64, 64) * 0.1
    q, k, v = (x @ w_qkv).view(2, 16, 3, 4, 16).permute(2, 0, 3, 1, 4).unbind(0)
    heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    expected = heads.transpose(1, 2).reshape(2, 16, 64) @ w_o
    close(module.causal_attention(x, w_qkv, w_o), expected)


PATCHIFY = """\
dim D = 768
dim Pd = 3 * 16 * 16
dim Images = [b 3 16gh 16gw]

fn patchify(img: Images Unit f64, w: [Pd D] f64, bias: [D] f64) -> [b (gh gw) D] f64:
    return img
        |> rearrange(b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c))
        |> matmul(w)
        |> add(bias)

fn patches(img: [b 3 16gh 16gw] f64) -> [b gh gw 16 16 3] f64:
    return rearrange(img, b c (gh p1) (gw p2) -> b gh gw p1 p2 c)
"""


def test_patchify_matches_einops() -> None:
    module = load(PATCHIFY, "patchify.ss")
    img, w, bias = torch.rand(2, 3, 32, 48, dtype=f64), randn(768, 768) * 0.05, randn(768)
    flat = einops.rearrange(img, "b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c)", p1=16, p2=16)
    close(module.patchify(img, w, bias), flat @ w + bias)
    grid = einops.rearrange(img, "b c (gh p1) (gw p2) -> b gh gw p1 p2 c", p1=16, p2=16)
    close(module.patches(img), grid)


def test_patchify_matches_a_stride_16_convolution() -> None:
    module = load(PATCHIFY, "patchify.ss")
    img = torch.rand(2, 3, 32, 48, dtype=f64)
    # Output channel (p1 p2 c) of the convolution picks pixel (p1, p2) of channel c.
    weight = torch.zeros(768, 3, 16, 16, dtype=f64)
    for p1 in range(16):
        for p2 in range(16):
            for c in range(3):
                weight[(p1 * 16 + p2) * 3 + c, c, p1, p2] = 1.0
    convolved = F.conv2d(img, weight, stride=16)
    expected = einops.rearrange(convolved, "b d gh gw -> b (gh gw) d")
    close(module.patchify(img, torch.eye(768, dtype=f64), torch.zeros(768, dtype=f64)), expected)


MLP = """\
dim D = 20
dim Hd = 32
dim C = 5

fn mlp(x: [b D] f64, w1: [D Hd] f64, b1: [Hd] f64, w2: [Hd C] f64, b2: [C] f64) -> [b C] f64:
    return x @ w1 + b1
        |> gelu
        |> matmul(w2)
        |> add(b2)
"""


def test_two_layer_mlp() -> None:
    module = load(MLP, "mlp.ss")
    x, w1, b1, w2, b2 = randn(7, 20), randn(20, 32), randn(32), randn(32, 5), randn(5)
    close(module.mlp(x, w1, b1, w2, b2), F.gelu(x @ w1 + b1) @ w2 + b2)


CHAINS = """\
dim D = 8
dim C = 4

fn scale_rows(x: [n D] f64, w: [n] f64) -> [n D] f64 = n |> map(i => x[i] * w[i])

fn per_row(x: [n D] f64, w: [D C] f64) -> [n C] f64:
    return x |> map(row => softmax(row @ w, over=C), over=n)

fn gram(x: [n D] f64) -> [n n] f64 = x |> map(a => x |> map(b => sum(a * b), over=n), over=n)

fn table() -> [3 D] f32 = 3 |> map(i => D |> map(j => j to f32))

fn positive(x: [n D] f64) -> [] f64 = x
    |> map(row => sum(row), over=n)
    |> filter(t => t > 0.0)
    |> sum
"""


def test_scale_rows() -> None:
    module = load(CHAINS, "chains.ss")
    x, w = randn(5, 8), randn(5)
    expected = torch.stack([x[i] * w[i] for i in range(5)])
    close(module.scale_rows(x, w), expected)


def test_per_row() -> None:
    module = load(CHAINS, "chains.ss")
    x, w = randn(5, 8), randn(8, 4)
    expected = torch.stack([torch.softmax(row @ w, 0) for row in x])
    close(module.per_row(x, w), expected)


def test_gram() -> None:
    module = load(CHAINS, "chains.ss")
    x = randn(5, 8)
    expected = torch.stack([torch.stack([(a * b).sum() for b in x]) for a in x])
    close(module.gram(x), expected)


def test_table() -> None:
    module = load(CHAINS, "chains.ss")
    expected = torch.tensor([[float(j) for j in range(8)] for _ in range(3)])
    close(module.table(), expected)


def test_positive() -> None:
    module = load(CHAINS, "chains.ss")
    x = randn(9, 8)
    sums = [row.sum() for row in x]
    expected = sum((t for t in sums if t > 0), torch.zeros((), dtype=f64))
    close(module.positive(x), expected)


BROADCASTING = """\
fn heads_plus_matrix(x: [b H n m] f64, y: [n m] f64) -> [b H n m] f64 = x + y
fn matrix_plus_heads(y: [n m] f64, x: [b H n m] f64) -> [b H n m] f64 = y + x
fn rows_plus_vector(x: [n D] f64, y: [D] f64) -> [n D] f64 = x + y
fn rows_plus_batch(x: [b n] f64, y: [b] f64) -> [b n] f64 = x + y
fn batch_minus_rows(y: [b] f64, x: [b n] f64) -> [b n] f64 = y - x
fn transposed(x: [n m] f64, y: [m n] f64) -> [n m] f64 = x + y
fn transposed_first(y: [m n] f64, x: [n m] f64) -> [m n] f64 = y * x
fn masked(x: [n m] f64, keep: [m n] Mask) -> [n m] f64 = masked_fill(x, keep, 0.0)
fn masked_rows(x: [b n m] f64, keep: [b n] Mask) -> [b n m] f64 = masked_fill(x, !keep, -1.0)
fn piped(x: [b n] f64, y: [b] f64) -> [b n] f64 = y |> add(x)
fn in_chain(x: [n D] f64, w: [n] f64, v: [D] f64) -> [n D] f64 = n |> map(i => x[i] * w[i] + v)
fn batch_by_name(x: [b H n d] f64, y: [H b d m] f64) -> [b H n m] f64 = x @ y
fn batch_piped(y: [H b d m] f64, x: [b H n d] f64) -> [b H n m] f64 = x |> matmul(y)
fn batch_fewer(x: [H n d] f64, y: [b H d m] f64) -> [b H n m] f64 = matmul(x, y)
"""


@pytest.mark.parametrize(
    ("name", "shapes", "reference"),
    [
        ("heads_plus_matrix", [(2, 3, 4, 5), (4, 5)], lambda x, y: x + y),
        ("matrix_plus_heads", [(4, 5), (2, 3, 4, 5)], lambda y, x: y + x),
        ("rows_plus_vector", [(4, 5), (5,)], lambda x, y: x + y),
        ("rows_plus_batch", [(4, 5), (4,)], lambda x, y: x + y[:, None]),
        ("batch_minus_rows", [(4,), (4, 5)], lambda y, x: y[:, None] - x),
        ("transposed", [(4, 5), (5, 4)], lambda x, y: x + y.T),
        ("transposed_first", [(5, 4), (4, 5)], lambda y, x: y * x.T),
        ("piped", [(4, 5), (4,)], lambda x, y: y[:, None] + x),
        ("in_chain", [(4, 5), (4,), (5,)], lambda x, w, v: x * w[:, None] + v),
        ("batch_by_name", [(2, 3, 4, 5), (3, 2, 5, 6)], lambda x, y: x @ y.transpose(0, 1)),
        ("batch_piped", [(3, 2, 5, 6), (2, 3, 4, 5)], lambda y, x: x @ y.transpose(0, 1)),
        ("batch_fewer", [(3, 4, 5), (2, 3, 5, 6)], lambda x, y: x @ y),
    ],
)
def test_broadcasting_by_name(name: str, shapes: list[tuple[int, ...]], reference) -> None:
    module = load(BROADCASTING, "broadcasting.ss")
    args = [randn(*shape) for shape in shapes]
    close(getattr(module, name)(*args), reference(*args))


def test_masked_fill_with_a_permuted_mask() -> None:
    module = load(BROADCASTING, "broadcasting.ss")
    x, keep = randn(4, 5), torch.rand(5, 4) > 0.5
    close(module.masked(x, keep), x.masked_fill(keep.T, 0.0))
    x3, rows = randn(2, 4, 5), torch.rand(2, 4) > 0.5
    close(module.masked_rows(x3, rows), x3.masked_fill(~rows[:, :, None], -1.0))


def test_chains_run_as_the_checker_recorded() -> None:
    """An elementwise stage is whole-tensor code, with no torch.vmap and no Python loop;
    the others go through torch.vmap."""
    source = build(CHAINS, "chains.ss", checks="never", value_checks="never").source
    bodies = dict(re.findall(r"\ndef (\w+)\(.*\n((?:    .*\n)+)", source))
    assert "vmap" not in bodies["scale_rows"]
    assert "w[:, None]" in bodies["scale_rows"]
    for name in ("per_row", "gram", "positive"):
        assert "_ss_torch.vmap" in bodies[name]
    assert all(" for " not in body for body in bodies.values())
