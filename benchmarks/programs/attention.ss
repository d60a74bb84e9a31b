# Causal multi-head self-attention, as examples/attention.ss writes it: one projection
# for the queries, keys and values, the scores by einsum, the causal mask, the softmax
# over the keys, the values by einsum, the heads merged and projected.
# benchmarks/vs_torch.py sets D for each size; each head has 64 features.

## Width of each token's features.
dim D = 256
## Features per head.
dim Dh = 64
## Number of heads.
dim H = D / Dh

## Causal self-attention of x, with the projections w_qkv and w_o.
fn causal_attention(x: [b n D], w_qkv: [D 3*D], w_o: [D D]) -> [b n D]:
    q, k, v = x @ w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(w_o)
