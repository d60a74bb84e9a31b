"""examples/attention.ss's causal attention, small and in float64, padded along its
sequence: the split into heads, both einsums, the causal mask, the masked softmax and the
merge give the unpadded result (1e-12)."""

from __future__ import annotations

import torch

import shapescript
from shapescript.rt import padding

SOURCE = """dim D = 8
dim H = 2
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


def test_padded_causal_attention_gives_the_unpadded_result(tmp_path) -> None:
    path = tmp_path / "attention.ss"
    path.write_text(SOURCE, encoding="utf-8")
    module = shapescript.compile(SOURCE, str(path))
    attention = module.causal_attention
    assert attention._ss_padding["takes"] and not attention._ss_padding["blocked"]
    padded = shapescript.padded(attention, "n")
    generator = torch.Generator().manual_seed(0)
    w_qkv = torch.randn(8, 24, generator=generator, dtype=torch.float64)
    w_o = torch.randn(8, 8, generator=generator, dtype=torch.float64)
    for n in (6, 10, 13):
        assert padding.ladder_size(n) > n
        x = torch.randn(2, n, 8, generator=generator, dtype=torch.float64)
        expected = attention(x, w_qkv, w_o)
        result = padded(x, w_qkv, w_o)
        assert result.shape == expected.shape
        assert torch.allclose(result, expected, rtol=0, atol=1e-12), n
