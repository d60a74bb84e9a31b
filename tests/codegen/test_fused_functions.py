"""layer_norm, rms_norm, cross_entropy, gelu and softmax compile to torch's fused
functions, each operand computed once."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codegen import lowering

DTYPES = [torch.float32, torch.bfloat16]

NORMS = """
dim D = 6
fn normed(x: [n D], w: [D], b: [D]) -> [n D] = layer_norm(x * 2.0, over=D, weight=w, bias=b)
fn rms(x: [n D], w: [D]) -> [n D] = rms_norm(x * 2.0, over=D, weight=w)
fn tokens(x: [b n D]) -> [b n D] = layer_norm(x + 1.0, over=D)
"""


def test_a_norm_computes_its_operand_once_and_knows_its_shape() -> None:
    source = lowering.source(NORMS, lower=True)
    returns = [line.strip() for line in source.splitlines() if line.strip().startswith("return")]
    assert returns == [
        "return _ss_F.layer_norm((x * 2.0), (6,), w, b, 1e-05)",
        "return _ss_F.rms_norm((x * 2.0), (6,), w, 1e-06)",
        "return _ss_F.layer_norm((x + 1.0), (6,), None, None, 1e-05)",
    ]


def test_a_norm_equals_torchs() -> None:
    module = lowering.module(NORMS, lower=True)
    x, w, b = torch.randn(3, 6), torch.randn(6), torch.randn(6)
    torch.testing.assert_close(module.normed(x, w, b), F.layer_norm(x * 2, (6,), w, b))
    torch.testing.assert_close(module.rms(x, w), F.rms_norm(x * 2, (6,), w, 1e-6))


CROSS_ENTROPY = """
dim V = 7
fn loss(logits: [b n V] {dtype}, y: [b n] Index[V]) -> [] {dtype} = cross_entropy(logits, y, over=V)
fn classes_first(logits: [V b n] {dtype}, y: [b n] Index[V]) -> [] {dtype}:
    return cross_entropy(logits, y, over=V)
"""


def test_cross_entropy_over_the_last_axis_is_one_over_rows() -> None:
    text = CROSS_ENTROPY.format(dtype="f32")
    lowered = lowering.source(text, lower=True)
    note = "  # lowered: cross_entropy over rows"
    expected = f"return _ss_F.cross_entropy(logits.flatten(0, -2), y.flatten()){note}"
    assert expected in lowered
    # Classes on another axis than the last: moved to where torch wants them, as written.
    assert "_ss_F.cross_entropy(_ss_torch.movedim(logits, -3, 1), y)" in lowered
    assert "flatten" not in lowering.source(text, lower=False)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 3), st.integers(1, 5), st.sampled_from(DTYPES))
def test_cross_entropy_over_rows_equals_the_written_form(b, n, dtype) -> None:
    text = CROSS_ENTROPY.format(dtype={torch.float32: "f32", torch.bfloat16: "bf16"}[dtype])
    logits = torch.randn(b, n, 7, dtype=dtype)
    lowering.assert_same(text, "loss", [logits, torch.randint(7, (b, n))], dtype)
