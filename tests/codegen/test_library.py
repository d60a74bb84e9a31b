"""The prelude's and nn.ss's stubs, and extern fns with Axis, Axes and Size parameters."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

import shapescript
from tests.codegen.compiled import build, load

f64 = torch.float64
LIBRARY = Path(shapescript.__file__).parent


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, dtype=f64)


def stubs(file: str) -> set[str]:
    return set(re.findall(r"^extern fn (\w+)", (LIBRARY / file).read_text(), re.MULTILINE))


#: Each prelude stub, the torch function it is, and an input inside its domain.
PRELUDE = {
    "exp": (torch.exp, lambda: randn(3, 4)),
    "log": (torch.log, lambda: torch.rand(3, 4, dtype=f64) + 0.1),
    "log1p": (torch.log1p, lambda: torch.rand(3, 4, dtype=f64)),
    "expm1": (torch.expm1, lambda: randn(3, 4)),
    "sqrt": (torch.sqrt, lambda: torch.rand(3, 4, dtype=f64)),
    "rsqrt": (torch.rsqrt, lambda: torch.rand(3, 4, dtype=f64) + 0.1),
    "sin": (torch.sin, lambda: randn(3, 4)),
    "cos": (torch.cos, lambda: randn(3, 4)),
    "tanh": (torch.tanh, lambda: randn(3, 4)),
    "sigmoid": (torch.sigmoid, lambda: randn(3, 4)),
    "erf": (torch.erf, lambda: randn(3, 4)),
    "gelu": (F.gelu, lambda: randn(3, 4)),
    "silu": (F.silu, lambda: randn(3, 4)),
    "softplus": (F.softplus, lambda: randn(3, 4)),
    "log_sigmoid": (F.logsigmoid, lambda: randn(3, 4)),
}

PRELUDE_PROGRAM = "".join(
    f"fn p_{name}(x: [b n] f64) -> [b n] f64 = {name}(x)\n" for name in PRELUDE
) + "".join(f"fn h_{name}(x: float) -> float = {name}(x)\n" for name in PRELUDE)


def test_every_prelude_stub_is_here() -> None:
    assert set(PRELUDE) == stubs("prelude.ss")


@pytest.mark.parametrize("name", sorted(PRELUDE))
def test_prelude_stub_on_tensors_and_host_numbers(name: str) -> None:
    module = load(PRELUDE_PROGRAM, "prelude_test.ss")
    function, argument = PRELUDE[name]
    x = argument()
    torch.testing.assert_close(getattr(module, f"p_{name}")(x), function(x), rtol=0, atol=1e-12)
    number = float(x[0, 0])
    host = getattr(module, f"h_{name}")(number)
    assert isinstance(host, float)
    assert host == pytest.approx(float(function(torch.tensor(number, dtype=f64))), abs=1e-12)


NN = """\
dim D = 6
dim V = 11

fn nn_linear(x: [b n D] f64, w: [4 D] f64, bias: [4] f64) -> [b n 4] f64 = linear(x, w, bias)
fn nn_linear_no_bias(x: [b D] f64, w: [4 D] f64) -> [b 4] f64 = linear(x, w)
fn nn_layer_norm(x: [b n D] f64, w: [D] f64, bias: [D] f64) -> [b n D] f64 =
    layer_norm(x, over=D, weight=w, bias=bias)
fn nn_layer_norm_plain(x: [b D] f64) -> [b D] f64 = x |> layer_norm(over=D)
fn nn_rms_norm(x: [b D] f64, w: [D] f64) -> [b D] f64 = rms_norm(x, over=D, weight=w, eps=1e-5)
fn nn_conv2d(img: [b 3 8 8] f64, w: [5 3 3 3] f64, bias: [5] f64) -> [b 5 4 4] f64 =
    conv2d(img, w, bias, stride=2, padding=1)
fn nn_max_pool2d(img: [b 3 8 8] f64) -> [b 3 4 4] f64 = max_pool2d(img, 2)
fn nn_avg_pool2d(img: [b 3 8 8] f64) -> [b 3 3 3] f64 = avg_pool2d(img, 3, stride=2)
fn nn_embedding(ids: [b t] Index[V], table: [V D] f64) -> [b t D] f64 = embedding(ids, table)
fn nn_attention(q: [b n D] f64, k: [b m D] f64, v: [b m D] f64) -> [b n D] f64 =
    scaled_dot_product_attention(q, k, v)
fn nn_causal_attention(q: [b n D] f64, k: [b n D] f64, v: [b n D] f64) -> [b n D] f64 =
    scaled_dot_product_attention(q, k, v, attn_mask=causal[n n], scale=0.5)
"""
NN = re.sub(r"=\n    ", ":\n    return ", NN)

#: Each nn.ss stub compiled here, its arguments, and torch's result.
NN_CASES = {
    "linear": [
        ("nn_linear", lambda: (randn(2, 3, 6), randn(4, 6), randn(4)), F.linear),
        ("nn_linear_no_bias", lambda: (randn(2, 6), randn(4, 6)), F.linear),
    ],
    "layer_norm": [
        (
            "nn_layer_norm",
            lambda: (randn(2, 3, 6), randn(6), randn(6)),
            lambda x, w, b: F.layer_norm(x, (6,), w, b),
        ),
        ("nn_layer_norm_plain", lambda: (randn(2, 6),), lambda x: F.layer_norm(x, (6,))),
    ],
    "rms_norm": [
        (
            "nn_rms_norm",
            lambda: (randn(2, 6), randn(6)),
            lambda x, w: F.rms_norm(x, (6,), w, 1e-5),
        )
    ],
    "conv2d": [
        (
            "nn_conv2d",
            lambda: (randn(2, 3, 8, 8), randn(5, 3, 3, 3), randn(5)),
            lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
        )
    ],
    "max_pool2d": [("nn_max_pool2d", lambda: (randn(2, 3, 8, 8),), lambda x: F.max_pool2d(x, 2))],
    "avg_pool2d": [
        ("nn_avg_pool2d", lambda: (randn(2, 3, 8, 8),), lambda x: F.avg_pool2d(x, 3, stride=2))
    ],
    "embedding": [
        (
            "nn_embedding",
            lambda: (torch.randint(0, 11, (2, 5)), randn(11, 6)),
            F.embedding,
        )
    ],
    "scaled_dot_product_attention": [
        (
            "nn_attention",
            lambda: (randn(2, 3, 6), randn(2, 4, 6), randn(2, 4, 6)),
            F.scaled_dot_product_attention,
        ),
        (
            "nn_causal_attention",
            lambda: (randn(2, 3, 6), randn(2, 3, 6), randn(2, 3, 6)),
            lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5),
        ),
    ],
}
#: nn.ss stubs that take a Mode, compiled to the runtime's (see test_training.py).
NN_MODES = {"batch_norm", "dropout"}


def test_every_nn_stub_is_here() -> None:
    assert set(NN_CASES) | NN_MODES == stubs("nn.ss")


@pytest.mark.parametrize("name", sorted(NN_CASES))
def test_nn_stub_matches_torch(name: str) -> None:
    module = load(NN, "nn_test.ss")
    torch.manual_seed(0)
    for function, arguments, reference in NN_CASES[name]:
        values = arguments()
        actual = getattr(module, function)(*values)
        torch.testing.assert_close(actual, reference(*values), rtol=0, atol=1e-10, msg=function)


@pytest.mark.parametrize("name", sorted(NN_MODES))
def test_nn_stubs_with_a_mode_call_the_runtime(name: str) -> None:
    call = {"batch_norm": "batch_norm(x, mode, over=n)", "dropout": "dropout(x, 0.1, mode)"}
    text = f"fn f(x: [b n] f64, mode: Mode) -> [b n] f64 = {call[name]}\n"
    generated = build(text, f"nn_{name}.ss")
    assert generated.unsupported == []
    # batch_norm's statistics across a paddable axis call the masked version, which
    # calls the runtime's when there is no mask.
    runtime = "padding" if name == "batch_norm" else "randomness"
    assert f"_ss_rt.{runtime}.{name}(" in generated.source
    assert f"mode.child(_ss_calls.key('{name}'))" in generated.source


EXTERN = """\
dim K = 2

extern fn roll(input: [...], shifts: Size[S], dims: Axis[n]) -> [...] = "torch.roll"
extern fn flip(input: [...], dims: Axes[n]) -> [...] = "torch.flip"
## The complementary error function.
extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"

fn rolled(x: [b t D] f64) -> [b t D] f64 = roll(x, 2, dims=t)
fn rolled_by_dim(x: [b t D] f64) -> [b t D] f64 = x |> roll(K, b)
fn rolled_by_axis_size(x: [b t D] f64) -> [b t D] f64 = roll(x, D, dims=t)
fn flipped(x: [b t D] f64) -> [b t D] f64 = flip(x, dims=D)
fn complement(x: [b t D] f64) -> [b t D] f64 = erfc(x)
fn in_chain(x: [b t D] f64) -> [b t D] f64 = x |> map(row => flip(row, dims=D), over=b)
"""


def test_extern_fns_with_axis_axes_and_size_parameters() -> None:
    module = load(EXTERN, "extern.ss")
    x = randn(3, 4, 5)
    torch.testing.assert_close(module.rolled(x), torch.roll(x, 2, 1), rtol=0, atol=0)
    torch.testing.assert_close(module.rolled_by_dim(x), torch.roll(x, 2, 0), rtol=0, atol=0)
    torch.testing.assert_close(module.rolled_by_axis_size(x), torch.roll(x, 5, 1), rtol=0, atol=0)
    torch.testing.assert_close(module.flipped(x), torch.flip(x, [2]), rtol=0, atol=0)
    torch.testing.assert_close(module.complement(x), torch.special.erfc(x), rtol=0, atol=0)
    torch.testing.assert_close(module.in_chain(x), torch.flip(x, [2]), rtol=0, atol=0)
