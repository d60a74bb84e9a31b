"""`as` and `to`, host scalars, control flow, indexing, pipes, patterns, Python values, and
iterator chains in both of their lowerings."""

from __future__ import annotations

import math

import pytest
import torch

import shapescript
from tests.codegen.compiled import load

f64 = torch.float64


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, dtype=f64)


def same(actual, expected) -> None:
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    torch.testing.assert_close(actual, expected, rtol=0, atol=1e-12)


CONVERSIONS = """\
fn bytes_to_unit(x: [n] u8) -> [n] Unit = x to Unit
fn mask_to_binary(m: [n] Mask) -> [n] Binary = m to Binary
fn mask_to_additive(m: [n] Mask) -> [n] Additive = m to Additive
fn unit_to_signed(x: [n] Unit f64) -> [n] Signed f64 = x to Signed
fn signed_to_unit(x: [n] Signed f64) -> [n] Unit f64 = x |> to Unit
fn binary_to_additive(x: [n] Binary f64) -> [n] Additive f64 = x to Additive
fn additive_to_binary(x: [n] Additive f64) -> [n] Binary f64 = x to Binary
fn unit_to_signed_f16(x: [n] Unit f64) -> [n] Signed f16 = x to Signed f16
fn narrower(x: [n] f64) -> [n] f32 = x to f32
fn mask_to_float(m: [n] Mask) -> [n] Binary f64 = m to f64
fn ints_to_float(i: [n] i64) -> [n] f64 = i to f64
fn floats_to_ints(x: [n] f64) -> [n] i32 = x to i32
fn claimed(x: [n] f64) -> [n] Unit f64 = relu(x) as Unit
fn claimed_shape(x: [n m] f64) -> [m n] f64 = x as [m n]
"""


def test_every_row_of_the_to_table_and_dtype_conversions() -> None:
    module = load(CONVERSIONS, "conversions.ss")
    raw = torch.tensor([0, 51, 255], dtype=torch.uint8)
    same(module.bytes_to_unit(raw), raw.to(torch.float32) / 255)
    keep = torch.tensor([True, False, True])
    same(module.mask_to_binary(keep), torch.tensor([1.0, 0.0, 1.0]))
    same(module.mask_to_additive(keep), torch.tensor([0.0, -math.inf, 0.0]))
    unit = torch.tensor([0.0, 0.25, 1.0], dtype=f64)
    same(module.unit_to_signed(unit), unit * 2 - 1)
    same(module.signed_to_unit(unit * 2 - 1), unit)
    binary = torch.tensor([1.0, 0.0, 1.0], dtype=f64)
    additive = torch.tensor([0.0, -math.inf, 0.0], dtype=f64)
    same(module.binary_to_additive(binary), additive)
    same(module.additive_to_binary(additive), binary)
    same(module.unit_to_signed_f16(unit), (unit * 2 - 1).to(torch.float16))
    x = randn(4)
    same(module.narrower(x), x.to(torch.float32))
    same(module.mask_to_float(keep), keep.to(f64))
    same(module.ints_to_float(torch.arange(3)), torch.arange(3, dtype=f64))
    same(module.floats_to_ints(x * 3), (x * 3).to(torch.int32))
    same(module.claimed(unit - 0.5), torch.relu(unit - 0.5))
    square = randn(3, 3)
    same(module.claimed_shape(square), square)


HOST = """\
dim D = 64
dim H = 4
dim Dh = D / H

fn scale() -> float = 1.0 / sqrt(Dh)
fn arithmetic(a: int, b: float) -> float = (a * 3 + 1) / 2 + b * 2.0 - D
fn integer(a: int) -> int = a * a + 2 * a - Dh
fn steps(x: [n] f64, times: int) -> [n] f64:
    y = x
    for i in 0..times:
        y = y + x * (i to f64)
    return y
fn sign(flag: bool, x: [n] f64) -> [n] f64:
    if flag and !(Dh < 0):
        return x
    else:
        return -x
fn positive_total(x: [n] f64) -> [] f64:
    total = sum(x)
    if total > 0.0:
        return total
    return -total
fn host_clamp(a: float) -> float = clamp(a, 0.0, 1.0)
fn host_clamp_hi(a: float) -> float = a |> clamp(hi=0.5)
fn host_max(a: float, b: float) -> float = maximum(a, b) + minimum(a, b) + abs(a) + relu(b)
fn host_round(a: float) -> float = floor(a) + ceil(a) + round(a) + square(a) + pow(a, 2)
fn sizes(x: [n 2*h] f64) -> int = n * 10 + h
"""


def test_host_scalars_and_control_flow() -> None:
    module = load(HOST, "host.ss")
    assert module.scale() == pytest.approx(0.25)
    assert module.arithmetic(3, 0.5) == (3 * 3 + 1) / 2 + 0.5 * 2.0 - 64
    assert module.integer(5) == 5 * 5 + 10 - 16
    x = randn(3)
    same(module.steps(x, 4), x + x * 0 + x * 1 + x * 2 + x * 3)
    same(module.sign(True, x), x)
    same(module.sign(False, x), -x)
    same(module.positive_total(x), x.sum().abs())
    assert module.host_clamp(1.5) == 1.0
    assert module.host_clamp(-1.5) == 0.0
    assert module.host_clamp(0.25) == 0.25
    assert module.host_clamp_hi(0.75) == 0.5
    assert module.host_max(-2.0, 3.0) == 3.0 + -2.0 + 2.0 + 3.0
    assert module.host_round(1.5) == math.floor(1.5) + 2 + round(1.5) + 2.25 + 2.25
    assert module.sizes(randn(3, 8)) == 34
    assert (module.D, module.H, module.Dh) == (64, 4, 16)


INDEXING = """\
dim V = 7

fn tail(x: [n D] f64) -> [n-1 D] f64 = x[1:]
fn head(x: [n D] f64) -> [n-1 D] f64 = x[:-1]
fn evens(x: [b 2*h] f64) -> [b h] f64:
    return rearrange(x, b c -> c b)[0:2*h:2] |> rearrange(h b -> b h)
fn first(x: [n D] f64) -> [D] f64 = x[0]
fn last_row(x: [n D] f64) -> [D] f64 = x[-1]
fn cell(x: [n D] f64, i: int) -> [] f64 = x[i, 2]
fn lookup(table: [V D] f64, ids: [b t] Index[V]) -> [b t D] f64 = table[ids]
fn rows(x: [n D] f64) -> [?k D] f64 = x[sum(x, over=D) > 0.0]
fn clipped(x: [5 D] f64) -> [5 D] f64 = x[0:1000]
"""


def test_indexing_and_slices() -> None:
    module = load(INDEXING, "indexing.ss")
    x = randn(6, 4)
    same(module.tail(x), x[1:])
    same(module.head(x), x[:-1])
    same(module.evens(x), x[:, 0:4:2])
    same(module.first(x), x[0])
    same(module.last_row(x), x[-1])
    same(module.cell(x, 3), x[3, 2])
    table, ids = randn(7, 4), torch.randint(0, 7, (2, 3))
    same(module.lookup(table, ids), table[ids])
    same(module.rows(x), x[x.sum(1) > 0])
    same(module.clipped(x[:5]), x[:5])


PIPES = """\
fn affine(a: Real, s: Real) -> Real = a * s + 1.0

fn placeholder(x: [b n] f64, y: [b n] f64) -> [b n] f64 = x |> sub(y, _)
fn keyword_placeholder(x: [b n] f64) -> [b n] f64 = x |> clamp(_, lo=-0.5, hi=0.5)
fn piped_elementwise(y: [b] f64, x: [b n] f64) -> [b n] f64 = y |> affine(x)
fn placed_elementwise(y: [b] f64, x: [b n] f64) -> [b n] f64 = y |> affine(x, _)
fn called_elementwise(x: [b n] f64, y: [b] f64) -> [b n] f64 = affine(y, x)
fn reductions(x: [b n d] f64) -> [b d] f64:
    total = reduce(x, b n d -> b d, sum)
    average = reduce(x, b n d -> b d, mean)
    top = reduce(x, b n d -> b d, max)
    bottom = reduce(x, b n d -> b d, min)
    product = reduce(x, b n d -> b d, prod)
    return total + average + top + bottom + product
fn pooled(x: [b 4*h] f64) -> [b h] f64 = reduce(x, b (h 4) -> b h, max)
fn tiled(x: [n d] f64) -> [n (2 d)] f64 = repeat(x, n d -> n (2 d))
fn parts(x: [n 3*d] f64) -> [n d] f64:
    a, b, c = split(x, n (3 d) -> n d)
    return a * 100.0 + b * 10.0 + c
fn heads(x: [b n 8] f64) -> [b 2 n 4] f64 = rearrange(x, b n (h e) -> b h n e, h=2)
fn underscored(x: [b n_ d] f64) -> [b d 3] f64:
    return repeat(reduce(x, b n_ d -> b d, sum), b d -> b d r_, r_=3)
"""


def test_pipes_and_patterns() -> None:
    module = load(PIPES, "pipes.ss")
    x, y, v = randn(2, 3), randn(2, 3), randn(2)
    same(module.placeholder(x, y), y - x)
    same(module.keyword_placeholder(x), x.clamp(-0.5, 0.5))
    same(module.piped_elementwise(v, x), v[:, None] * x + 1.0)
    same(module.placed_elementwise(v, x), x * v[:, None] + 1.0)
    same(module.called_elementwise(x, v), v[:, None] * x + 1.0)
    x3 = randn(2, 3, 4)
    expected = x3.sum(1) + x3.mean(1) + x3.amax(1) + x3.amin(1) + x3.prod(1)
    same(module.reductions(x3), expected)
    wide = randn(2, 8)
    same(module.pooled(wide), wide.view(2, 2, 4).amax(2))
    same(module.tiled(x), torch.cat((x, x), 1))
    rows = randn(2, 6)
    a, b, c = rows.view(2, 3, 2).unbind(1)
    same(module.parts(rows), a * 100 + b * 10 + c)
    x8 = randn(2, 3, 8)
    same(module.heads(x8), x8.view(2, 3, 2, 4).permute(0, 2, 1, 3))
    same(module.underscored(x3), x3.sum(1)[..., None].expand(2, 4, 3))


PYTHON = """\
import python torch

dim D = 4

fn weights() -> [D 3*D] f64 = (torch.zeros(D, 3 * D, dtype=torch.float64) + 1.5) as [D 3*D] f64
fn count(n: int) -> int = torch.tensor(n).item() as int
fn passed(x: [n D] f64) -> [n D] f64:
    scale = torch.ones(1, dtype=torch.float64) * 2.0
    return x * (scale as [1] f64)
"""


def test_python_values() -> None:
    module = load(PYTHON, "python_values.ss")
    same(module.weights(), torch.full((4, 12), 1.5, dtype=f64))
    assert module.count(7) == 7
    x = randn(3, 4)
    same(module.passed(x), x * 2)


CHAINS = """\
dim D = 3

fn zipped(x: [n D] f64, w: [n] f64) -> [n D] f64 :
    return x |> zip(w, over=n) |> map((row, s) => softmax(row * s, over=D))
fn numbered(x: [n D] f64) -> [n D] f64 :
    return x |> enumerate(over=n) |> map((i, row) => row * (i to f64))
fn numbered_whole(x: [n D] f64) -> [n D] f64 :
    return x |> enumerate(over=n) |> map((i, row) => cumsum(row, over=D) + (i to f64))
fn kept(x: [n D] f64) -> [?k D] f64 = x |> filter(row => sum(row, over=D) > 0.0, over=n)
fn kept_pairs(x: [n D] f64, w: [n] f64) -> [?k] f64 :
    return x |> zip(w, over=n) |> filter((row, s) => s > 0.0) |> map((row, s) => sum(row) * s)
fn by_name(x: [n D] f64) -> [n D] f64 = x |> map(gelu, over=n)
fn staged(x: [n D] f64) -> [n D] f64 = x |> map(softmax(over=D), over=n)
fn clamped(x: [n D] f64) -> [n D] f64 = x |> map(clamp(0.0, 1.0), over=n)
fn converted(x: [n D] f64) -> [n D] f32 = x |> map(to f32, over=n)
fn columns(x: [n D] f64) -> [D n] f64 = x |> map(column => column * 2.0, over=D)
fn ranged(x: [n D] f64) -> [n-1 D] f64 = 1..n |> map(i => x[i] - x[i - 1])
fn sizes() -> [2*D] f64 = 2 * D |> map(i => i to f64)
fn broadcast_index(x: [n D] f64, v: [D] f64) -> [n D] f64 = n |> map(i => v * (i to f64) + x[i])
fn constant(x: [n D] f64) -> [n] f32 = n |> map(i => 1.5)
fn copies(x: [n D] f64, v: [D] f64) -> [n D] f64 = x |> map(_ => v, over=n)
"""


def numbered(x: torch.Tensor) -> torch.Tensor:
    return torch.stack([row * i for i, row in enumerate(x)])


def test_chains_in_both_lowerings() -> None:
    module = load(CHAINS, "chains_more.ss")
    x, w = randn(4, 3), randn(4)
    pairs = list(zip(x, w, strict=True))
    same(module.zipped(x, w), torch.stack([torch.softmax(r * s, 0) for r, s in pairs]))
    same(module.numbered(x), numbered(x))
    same(
        module.numbered_whole(x),
        torch.stack([torch.cumsum(row, 0) + i for i, row in enumerate(x)]),
    )
    same(module.kept(x), x[x.sum(1) > 0])
    same(module.kept_pairs(x, w), torch.stack([r.sum() * s for r, s in pairs if s > 0]))
    same(module.by_name(x), torch.nn.functional.gelu(x))
    same(module.staged(x), torch.softmax(x, 1))
    same(module.clamped(x), x.clamp(0, 1))
    same(module.converted(x), x.to(torch.float32))
    same(module.columns(x), x.T * 2)
    same(module.ranged(x), torch.stack([x[i] - x[i - 1] for i in range(1, 4)]))
    same(module.sizes(), torch.arange(6, dtype=f64))
    v = randn(3)
    same(module.broadcast_index(x, v), torch.stack([v * i + x[i] for i in range(4)]))
    same(module.constant(x), torch.full((4,), 1.5))
    same(module.copies(x, v), torch.stack([v for _ in range(4)]))


CALLS = """\
dim D = 3

fn scale(x: [n] f64, by: float = 2.0) -> [n] f64 = x * by
fn use(x: [n] f64) -> [n] f64 = scale(x) + scale(x, by=3.0) + scale(by=1.0, x=x)
fn normalize(v: [D] f64) -> [D] Prob over D f64 = softmax(v, over=D)
fn doubled(p: [D] Prob over D f64) -> [D] f64 = p * 2.0
fn rows(x: [n D] f64) -> [n D] f64 = x |> map(row => doubled(normalize(row)), over=n)
fn unnormalized(x: [n D] f64) -> [n D] f64 = x |> map(row => doubled(row as Prob over D), over=n)
fn picked(x: [n D] f64) -> [n D] f64 = n |> map(i => softmax(x[i], over=D))
fn masks(x: [n] f64, y: [n] f64) -> [n] f64 = where(x > 0.0 and !(y > 0.0) or x > 1.0, x, y)
fn branch(x: [n] f64) -> [n] f64:
    if any(x > 0.0):
        y = x
    else:
        y = -x
    return y
"""


def test_calls_with_defaults_and_keywords() -> None:
    module = load(CALLS, "calls.ss")
    x = randn(4)
    same(module.use(x), 2 * x + 3 * x + x)
    same(module.scale(x, by=0.5), x * 0.5)
    same(module.masks(x, -x), torch.where((x > 0) & ~(-x > 0) | (x > 1), x, -x))
    same(module.branch(x), x if bool((x > 0).any()) else -x)


def test_checks_inside_a_vmapped_stage_check_every_element() -> None:
    module = load(CALLS, "calls.ss")
    x = randn(4, 3)
    same(module.rows(x), torch.softmax(x, 1) * 2)
    same(module.picked(x), torch.softmax(x, 1))
    with pytest.raises(shapescript.DomainError) as raised:
        module.unnormalized(x)
    assert raised.value.function == "unnormalized"
    with pytest.raises(shapescript.ShapeError) as raised:
        module.rows(randn(4, 2))
    assert raised.value.parameter == "x"


SHADOWING = """\
fn max(x: [n] f64) -> [n] f64 = x
fn abs(x: [n] f64) -> [n] f64 = x
fn range(x: [n] f64) -> [n] f64 = x
fn bool(x: [n] f64) -> [n] f64 = x
fn keyword(from: [n] f64, class: float = 1.0) -> [n] f64 = from * class
fn host(a: float) -> float = clamp(a, 0.0, 1.0) + maximum(a, 0.5) + minimum(a, 9.0) + relu(a)
fn loop(x: [n] f64, times: int) -> [n] f64:
    y = x
    for i in 0..times:
        if any(y > 100.0):
            y = y
        else:
            y = y + keyword(x, class=2.0)
    return y
"""


def test_declarations_that_hide_python_builtins_and_keywords() -> None:
    module = load(SHADOWING, "shadowing.ss")
    assert module.host(2.0) == 1.0 + 2.0 + 2.0 + 2.0
    x = randn(3)
    same(module.loop(x, 3), x + 6 * x)
    same(module.keyword(x), x)


STAGES = """\
dim D = 4

fn nested(x: [n D] f64) -> [n D] f64 = x |> map(row => D |> map(j => row[j] * 2.0), over=n)
fn zip_size(x: [n D] f64) -> [n D] f64 =
    n |> zip(x, over=n) |> map((i, row) => row * (i to f64))
fn filter_map(x: [n] f64) -> [?k] f64 = x |> filter(t => t > 0.0) |> map(t => t * 2.0)
fn map_map(x: [n D] f64) -> [n] f64 = x |> map(row => row * 2.0, over=n) |> map(r => sum(r))
fn map_sum(x: [n D] f64) -> [D] f64 = x |> map(row => relu(row), over=n) |> sum(over=n)
fn enumerated(x: [n D] f64) -> [n D] f64 =
    x |> map(row => row * 2.0, over=n) |> enumerate |> map((i, r) => r + (i to f64))
fn triples(x: [n D] f64, w: [n] f64, v: [n] f64) -> [n D] f64 =
    x |> zip(w, over=n) |> zip(v) |> map((row, a, b) => row * a + b)
fn ranged(x: [n D] f64) -> [n-2 D] f64 = 2..n |> map(i => x[i] + x[i - 2])
fn masked(x: [n D] f64, m: [n] Mask) -> [n D] f64 = n |> map(i => where(m[i], x[i], 0.0))
fn middle(x: [b n D] f64) -> [n b] f64 = x |> map(s => sum(s, over=D), over=n)
fn middle_whole(x: [b n D] f64) -> [n b D] f64 = x |> map(s => s * 2.0, over=n)
"""
STAGES = STAGES.replace(" =\n    ", ":\n    return ")


@pytest.mark.parametrize(
    ("name", "shapes", "reference"),
    [
        ("nested", [(3, 4)], lambda x: x * 2),
        ("zip_size", [(3, 4)], lambda x: x * torch.arange(3, dtype=f64)[:, None]),
        ("filter_map", [(6,)], lambda x: x[x > 0] * 2),
        ("map_map", [(3, 4)], lambda x: (x * 2).sum(1)),
        ("map_sum", [(3, 4)], lambda x: x.relu().sum(0)),
        ("enumerated", [(3, 4)], lambda x: x * 2 + torch.arange(3, dtype=f64)[:, None]),
        ("triples", [(3, 4), (3,), (3,)], lambda x, w, v: x * w[:, None] + v[:, None]),
        ("ranged", [(5, 4)], lambda x: x[2:] + x[:-2]),
        ("masked", [(3, 4), None], lambda x, m: torch.where(m[:, None], x, 0.0)),
        ("middle", [(2, 3, 4)], lambda x: x.sum(2).T),
        ("middle_whole", [(2, 3, 4)], lambda x: (x * 2).permute(1, 0, 2)),
    ],
)
def test_stages_compose(name: str, shapes: list, reference) -> None:
    module = load(STAGES, "stages.ss")
    args = [torch.rand(3) > 0.5 if shape is None else randn(*shape) for shape in shapes]
    same(getattr(module, name)(*args), reference(*args))
