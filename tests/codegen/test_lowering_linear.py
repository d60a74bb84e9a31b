"""`x @ w + b` (and `matmul(w) |> add(b)`) with a [D E] weight compiles to one addmm
call, equal to the written form forward and backward (tolerances in
tests/codegen/lowering.py)."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codegen import lowering

DTYPES = [torch.float32, torch.bfloat16]

PROGRAM = """
fn plus(x: [b n D] {dtype}, w: [D E] {dtype}, bias: [E] {dtype}) -> [b n E] {dtype}:
    return x @ w + bias
fn bias_first(x: [n D] {dtype}, w: [D E] {dtype}, bias: [E] {dtype}) -> [n E] {dtype}:
    return bias + x @ w
fn piped(x: [b n D] {dtype}, w: [D E] {dtype}, bias: [E] {dtype}) -> [b n E] {dtype}:
    return x |> matmul(w) |> add(bias)
"""

#: Sums that are not a product and its bias: they stay as written.
NOT_LINEAR = """
fn batched_weight(x: [b n D], w: [b D E], bias: [E]) -> [b n E] = x @ w + bias
fn wider_bias(x: [n D] f32, w: [D E] f32, bias: [E] f64) -> [n E] f64 = x @ w + bias
fn matrix_bias(x: [n D], w: [D E], bias: [n E]) -> [n E] = x @ w + bias
fn difference(x: [n D], w: [D E], bias: [E]) -> [n E] = x @ w - bias
"""


def _text(dtype: torch.dtype) -> str:
    return PROGRAM.format(dtype={torch.float32: "f32", torch.bfloat16: "bf16"}[dtype])


@settings(max_examples=10, deadline=None)
@given(
    st.integers(1, 3),
    st.integers(1, 5),
    st.integers(1, 6),
    st.integers(1, 6),
    st.sampled_from(DTYPES),
)
def test_addmm_equals_matmul_plus_bias(b, n, width, out, dtype) -> None:
    text = _text(dtype)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, dtype=dtype)

    for function, x in (("plus", randn(b, n, width)), ("piped", randn(b, n, width))):
        lowering.assert_same(text, function, [x, randn(width, out), randn(out)], dtype)
    lowering.assert_same(
        text, "bias_first", [randn(n, width), randn(width, out), randn(out)], dtype
    )


def test_each_form_is_one_addmm_call_and_says_so() -> None:
    lowered = lowering.source(_text(torch.float32), lower=True)
    returns = [line.strip() for line in lowered.splitlines() if line.strip().startswith("return")]
    lowered_3d = "_ss_torch.addmm(bias, x.flatten(0, -2), w).view(b, n, E)"
    note = "  # lowered: x @ w + b as addmm"
    assert returns == [
        f"return {lowered_3d}{note}",
        f"return _ss_torch.addmm(bias, x, w){note}",
        f"return {lowered_3d}{note}",
    ]
    written = lowering.source(_text(torch.float32), lower=False)
    assert "addmm" not in written
    assert "lowered:" not in written


def test_a_sum_that_isnt_a_product_and_its_bias_stays_as_written() -> None:
    lowered = lowering.source(NOT_LINEAR, lower=True)
    assert "addmm" not in lowered
    assert "lowered:" not in lowered
