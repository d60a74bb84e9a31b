# Attention written with @ and with a bias (Broadcasting by name > Matrix
# multiplication and The order rule), keys and values with fewer heads repeated to H
# (Pattern operations: repeat(b Hkv n Dh -> b (Hkv R) n Dh), from Serving engines),
# and scaled_dot_product_attention with attn_mask=causal[n n] (Serving engines).
dim D = 512
dim H = 8
dim Hkv = 2
dim R = H / Hkv
dim Dh = D / H

fn scores(q: [b H n Dh], kt: [b H Dh m], bias: [n m]) -> [b H n m] Prob over m:
    s = q @ kt / sqrt(Dh) + bias
    return softmax(s, over=m)

fn grouped_keys(k: [b Hkv n Dh]) -> [b H n Dh] = repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)

fn gqa(q: [b H n Dh], k: [b Hkv n Dh], v: [b Hkv n Dh]) -> [b H n Dh]:
    kf = grouped_keys(k)
    vf = grouped_keys(v)
    s = einsum(q, kf: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
    p = s |> masked_fill(!causal[n m], -inf) |> softmax(over=m)
    return p @ vf

fn fused(q: [b H n Dh], k: [b H n Dh], v: [b H n Dh]) -> [b H n Dh]:
    return scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
