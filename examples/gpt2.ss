# A GPT-2 style language model: learned position embeddings, pre-norm blocks with
# layer normalization, a fused query, key and value projection with biases, GELU with
# the tanh approximation, and an output layer tied to the token embeddings. The sizes are
# small so that it runs in seconds; GPT-2 itself has D = 768, H = 12, L = 12, V = 50257.

## Width of the residual stream.
dim D = 64
## Attention heads.
dim H = 4
## Features per head.
dim Dh = D / H
## Hidden width of the feed-forward layers.
dim F = 4 * D
## Number of blocks.
dim L = 2
## Size of the vocabulary.
dim V = 256
## Longest sequence: the number of learned positions.
dim P = 128

## A GPT-2 model whose output layer reuses the token embeddings.
model Gpt2:
    param wte: [V D] = normal(std=0.02)
    param wpe: [P D] = normal(std=0.01)
    param ln1_w: [L D] = ones
    param ln1_b: [L D] = zeros
    param w_qkv: [L 3*D D] = normal(std=0.02)
    param b_qkv: [L 3*D] = zeros
    param w_o: [L D D] = normal(std=0.02)
    param b_o: [L D] = zeros
    param ln2_w: [L D] = ones
    param ln2_b: [L D] = zeros
    param w_fc: [L F D] = normal(std=0.02)
    param b_fc: [L F] = zeros
    param w_proj: [L D F] = normal(std=0.02)
    param b_proj: [L D] = zeros
    param lnf_w: [D] = ones
    param lnf_b: [D] = zeros

## GELU with the tanh approximation GPT-2 uses:
## $\frac{x}{2}\left(1 + \tanh\left(\sqrt{2/\pi}\,(x + 0.044715 x^3)\right)\right)$.
fn gelu_tanh(x: [b n F]) -> [b n F]:
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))

## Causal self-attention of block `l`.
fn attention(m: Gpt2, x: [b n D], l: int) -> [b n D]:
    q, k, v = linear(x, m.w_qkv[l], m.b_qkv[l]) |> split(b n (3 H Dh) -> b H n Dh)
    return scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
        |> rearrange(b H n Dh -> b n (H Dh))
        |> linear(m.w_o[l], m.b_o[l])

## The feed-forward layer of block `l`.
fn mlp(m: Gpt2, x: [b n D], l: int) -> [b n D]:
    return linear(x, m.w_fc[l], m.b_fc[l]) |> gelu_tanh |> linear(m.w_proj[l], m.b_proj[l])

## One pre-norm residual block.
fn block(m: Gpt2, x: [b n D], l: int) -> [b n D]:
    h = x + attention(m, layer_norm(x, over=D, weight=m.ln1_w[l], bias=m.ln1_b[l], eps=1e-5), l)
    return h + mlp(m, layer_norm(h, over=D, weight=m.ln2_w[l], bias=m.ln2_b[l], eps=1e-5), l)

## Next-token logits at every position.
fn forward(m: Gpt2, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.wte) + embedding(pos, m.wpe)
    for l in 0..L:
        x = block(m, x, l)
    return x |> layer_norm(over=D, weight=m.lnf_w, bias=m.lnf_b, eps=1e-5) |> linear(m.wte)
