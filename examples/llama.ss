# A llama-style language model: RMSNorm, rotary position embeddings on neighbouring
# features, grouped-query attention, and a SwiGLU feed-forward layer. The sizes are small
# so that it runs in seconds; the layout of the fields is the one llama.cpp reads.

## Width of the residual stream.
dim D = 64
## Query heads.
dim H = 4
## Key and value heads; each serves R query heads.
dim Hkv = 2
dim R = H / Hkv
## Features per head, and half of them: rotary embeddings turn pairs of features.
dim Dh = D / H
dim Dh2 = Dh / 2
## Hidden width of the SwiGLU layers.
dim F = 128
## Number of blocks.
dim L = 2
## Size of the vocabulary.
dim V = 256
## Longest sequence.
dim P = 256

## A llama model with untied embeddings. Linear layers are [out in], as `linear` takes them.
model Llama:
    param embed: [V D] = normal(std=0.02)
    param attn_norm: [L D] = ones
    param w_q: [L D D] = normal(std=0.02)
    param w_k: [L Hkv*Dh D] = normal(std=0.02)
    param w_v: [L Hkv*Dh D] = normal(std=0.02)
    param w_o: [L D D] = normal(std=0.02)
    param mlp_norm: [L D] = ones
    param w_gate: [L F D] = normal(std=0.02)
    param w_up: [L F D] = normal(std=0.02)
    param w_down: [L D F] = normal(std=0.02)
    param norm: [D] = ones
    param output: [V D] = normal(std=0.02)

## The rotary frequencies $\theta^{-2i/D_h}$ for $i = 0, \dots, D_h/2 - 1$.
fn inv_freq(theta: float = 10000.0) -> [Dh2]:
    # Row i of the causal mask has i + 1 entries set.
    i = reduce(causal[Dh2 Dh2] to f32, r c -> r, sum) - 1.0
    return exp(-(2.0 / Dh) * log(theta) * i)

## Rotary position embeddings: each pair of neighbouring features of a head is turned by
## the angle of its position times its frequency.
fn rope(x: [b h n Dh], pos: [b n] Index[P]) -> [b h n Dh]:
    angle = einsum(pos to f32, inv_freq(): b n, Dh2 -> b n Dh2)
    c = cos(angle) |> rearrange(b n Dh2 -> b 1 n Dh2)
    s = sin(angle) |> rearrange(b n Dh2 -> b 1 n Dh2)
    x1, x2 = split(x, b h n (Dh2 2) -> b h n Dh2)
    return stack(x1 * c - x2 * s, x1 * s + x2 * c, over=t)
        |> rearrange(t b h n Dh2 -> b h n (Dh2 t))

## Grouped-query attention of block `l`.
fn attention(m: Llama, x: [b n D], pos: [b n] Index[P], l: int) -> [b n D]:
    q = linear(x, m.w_q[l]) |> rearrange(b n (H Dh) -> b H n Dh) |> rope(pos)
    k = linear(x, m.w_k[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh) |> rope(pos)
    v = linear(x, m.w_v[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh)
    # Each key and value head is repeated for the query heads that share it.
    k = repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)
    v = repeat(v, b Hkv n Dh -> b (Hkv R) n Dh)
    return scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
        |> rearrange(b H n Dh -> b n (H Dh))
        |> linear(m.w_o[l])

## The SwiGLU feed-forward layer of block `l`.
fn feed_forward(m: Llama, x: [b n D], l: int) -> [b n D]:
    return silu(linear(x, m.w_gate[l])) * linear(x, m.w_up[l]) |> linear(m.w_down[l])

## One pre-norm residual block.
fn block(m: Llama, x: [b n D], pos: [b n] Index[P], l: int) -> [b n D]:
    h = x + attention(m, rms_norm(x, over=D, weight=m.attn_norm[l], eps=1e-5), pos, l)
    return h + feed_forward(m, rms_norm(h, over=D, weight=m.mlp_norm[l], eps=1e-5), l)

## Next-token logits at every position.
fn forward(m: Llama, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    for l in 0..L:
        x = block(m, x, pos, l)
    return x |> rms_norm(over=D, weight=m.norm, eps=1e-5) |> linear(m.output)
