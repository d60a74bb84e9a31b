"""Small `.ss` programs the export tests share (tiny dims: tracing on the CPU is slow)."""

from __future__ import annotations

ATTENTION = """dim D = 8
dim H = 2
dim Dh = D / H

export fn causal_attention(x: [b n D], w_qkv: [D 3*D], w_o: [D D]) -> [b n D]:
    q, k, v = x @ w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(w_o)
"""

TWO_EXPORTS = """export fn f(x: [n]) -> [n] = x * 2

export fn g(x: [n]) -> [n] = x + 1
"""

UNMARKED_HOST = """dim D = 4

fn shout(x: [n D]) -> [n D]:
    print(x)
    return x
"""
