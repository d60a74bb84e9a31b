"""The exact run's conversions, running sums, sorts, dropout and convolutions, each
against the compiled f32 run, and the float errors they show."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shapescript.verify import VerifyError, verify
from shapescript.verify.arith import Exact, Float32

OPS = """dim C = 6
dim L = 2048

fn to_bf16(x: [b C]) -> [b C] = (x to bf16) to f32

fn to_f16(x: [b C]) -> [b C] = (x |> to f16) to f32

fn to_int(x: [b C]) -> [b C] i32 = (x * 3.0) to i32

fn bf16_product(x: [b C], y: [b C]) -> [b C] = ((x to bf16) * (y to bf16)) to f32

fn running(x: [b C]) -> [b C] = cumsum(x, over=C)

fn long_running(x: [b L]) -> [b L] = cumsum(x, over=L)

fn ordered(x: [b C]) -> [b C] = sort(x, over=C)

fn order(x: [b C]) -> [b C] Index[C] = argsort(x, over=C)

fn tied_order(x: [b C]) -> [b C] Index[C] = argsort(x * 0.0, over=C)

fn evaluated(x: [b C], mode: Mode) -> [b C] = dropout(x, 0.5, mode)

fn trained(x: [b C]) -> [b C] = dropout(x, 0.5, Train(seed=1))

fn convolved(img: [b 3 8 8], k: [4 3 3 3], bias: [4]) -> [b 4 4 4]:
    return conv2d(img, k, bias, stride=2, padding=1)
"""


@pytest.fixture
def ops(tmp_path: Path) -> Path:
    path = tmp_path / "ops.ss"
    path.write_text(OPS, encoding="utf-8")
    return path


def _f32(path: Path, fn: str, inputs: tuple[str, ...] = ("typical",), **options):
    return verify(path, fn, dtypes=("f32",), inputs=inputs, **options)


@pytest.mark.parametrize("fn", ["to_bf16", "to_f16", "to_int"])
def test_a_conversion_rounds_as_torch_does(ops, fn):
    assert _f32(ops, fn).largest_relative("f32") == 0.0


def test_a_product_in_bf16_shows_bf16s_error(ops):
    error = _f32(ops, "bf16_product").largest_relative("f32")
    assert 1e-4 < error <= 2**-8


@pytest.mark.parametrize(
    ("value", "bf16", "f16"),
    [
        (1 + 2**-8, 1.0, 1 + 2**-8),  # a tie in bf16: to the even neighbour
        (1 + 3 * 2**-8, 1 + 2**-6, 1 + 3 * 2**-8),  # a tie in bf16: up to the even one
        (70000.0, 70144.0, float("inf")),  # past f16's largest
        (2.0**-20, 2.0**-20, 2.0**-20),  # an f16 subnormal, exact
        (-(2.0**-25), -(2.0**-25), -0.0),  # half of f16's smallest subnormal: to 0
    ],
)
def test_rounding_to_a_float_dtype_is_to_nearest_even(value, bf16, f16):
    exact = Exact(30)
    array = exact.array(np.array([value]))
    assert float(exact.convert(array, "bf16")[0]) == bf16
    assert float(exact.convert(array, "f16")[0]) == f16
    assert float(Float32().convert(np.array([value], dtype=np.float32), "bf16")[0]) == bf16


def test_conversion_to_an_integer_truncates_toward_zero():
    exact = Exact(30)
    got = exact.convert(exact.array(np.array([2.7, -2.7, -0.5, 3.0])), "i32")
    assert got.tolist() == [2, -2, 0, 3]
    assert exact.convert(exact.array(np.array([300.5, 1e30])), "u8").tolist()[0] == 44


def test_cumsum_agrees_with_the_exact_run(ops):
    assert _f32(ops, "running").largest_relative("f32") <= 1e-5


def test_cumsum_of_a_long_axis_shows_its_error_growing(ops):
    short = _f32(ops, "running").largest_absolute("f32")
    long = _f32(ops, "long_running", dims={"L": 2048}).largest_absolute("f32")
    assert long > 10 * short


def test_sort_and_argsort_agree_with_the_exact_run(ops):
    assert _f32(ops, "ordered").largest_relative("f32") == 0.0
    assert _f32(ops, "order").largest_absolute("f32") == 0.0


def test_argsort_keeps_ties_in_their_order(ops):
    report = _f32(ops, "tied_order")
    assert report.largest_absolute("f32") == 0.0


def test_dropout_under_eval_is_the_identity(ops):
    assert _f32(ops, "evaluated").largest_relative("f32") == 0.0


def test_dropout_under_train_is_refused_with_the_reason(ops):
    with pytest.raises(VerifyError, match=r"line 24: `dropout` under `Train`.*Eval\(\)"):
        _f32(ops, "trained")


def test_a_convolution_agrees_with_the_exact_run(ops):
    assert _f32(ops, "convolved").largest_relative("f32") <= 1e-5


ASSERTS = """dim D = 12

fn heads(x: [b D], w: [h]) -> [b D]:
    assert D % h == 0 and h <= D
    return x * 2.0

fn too_long(x: [b D]) -> [b D]:
    assert b > 100
    return x

fn grouped(x: [b g], y: [b D]) -> [b g]:
    assert g % D == 0
    return x + 1.0
"""


def test_a_function_with_asserts_runs_exactly_when_they_hold(tmp_path):
    path = tmp_path / "asserts.ss"
    path.write_text(ASSERTS, encoding="utf-8")
    # D made small is 6, so h is drawn as 3, a divisor of it, not the usual 5.
    report = _f32(path, "heads")
    assert report.largest_relative("f32") == 0.0 and report.dims["D"] == 6
    assert _f32(path, "heads", dims={"D": 60}).largest_relative("f32") == 0.0
    with pytest.raises(VerifyError, match=r"line 8: `assert b > 100` fails for the drawn"):
        _f32(path, "too_long")
    # A generic size that a dim must divide is drawn as a multiple of it.
    assert _f32(path, "grouped").largest_relative("f32") < 1e-6
