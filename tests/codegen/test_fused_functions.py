"""layer_norm, rms_norm, cross_entropy, gelu and softmax compile to torch's fused
functions, each operand computed once."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from tests.codegen import lowering

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
