# Causal multi-head self-attention, as in the README and examples/attention.ss,
# without the model: Pattern operations (split, einsum, rearrange), Indexing
# (causal), Built-in operations (masked_fill, softmax), Pipes, and Dims (Dh = D / H).
dim D = 768
dim H = 12
dim Dh = D / H

fn causal_attention(x: [b n D], w_qkv: [D 3*D], w_o: [D D]) -> [b n D]:
    q, k, v = x @ w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(w_o)

fn heads(x: [b n D], w_qkv: [D 3*D]) -> [b H n Dh]:
    q, k, v = split(x @ w_qkv, b n (3 H Dh) -> b H n Dh)
    scores = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
    p = scores
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(p, v: b H n m, b H m Dh -> b H n Dh)

fn two_layers(x: [b n D], w1: [D 3*D], o1: [D D], w2: [D 3*D], o2: [D D]) -> [b n D]:
    h = x + causal_attention(x, w1, o1)
    return h + causal_attention(h, w2, o2)
