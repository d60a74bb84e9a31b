# A small GPT: token and position embeddings, L transformer blocks, a final
# LayerNorm and an output layer tied to the token embedding.

## Vocabulary size.
dim V = 512
## Longest context, in tokens.
dim T = 128
## Width of each token's features.
dim D = 256
## Attention heads.
dim H = 8
## Features per head.
dim Dh = D / H
## Hidden width of each block's MLP.
dim Dff = 4 * D
## Transformer blocks.
dim L = 6

## A GPT's weights; each block's params are stacked along a first axis of L.
model Gpt:
    param wte: [V D] = normal(std=0.02)
    param wpe: [T D] = normal(std=0.01)
    param ln1_w: [L D] = ones
    param ln1_b: [L D] = zeros
    param w_qkv: [L D 3*D] = normal(std=0.02)
    param w_o: [L D D] = normal(std=0.02)
    param ln2_w: [L D] = ones
    param ln2_b: [L D] = zeros
    param w_fc: [L D Dff] = normal(std=0.02)
    param b_fc: [L Dff] = zeros
    param w_proj: [L Dff D] = normal(std=0.02)
    param b_proj: [L D] = zeros
    param lnf_w: [D] = ones
    param lnf_b: [D] = zeros

## Causal multi-head self-attention of block l.
fn attention(m: Gpt, x: [b n D], l: int) -> [b n D]:
    q, k, v = x @ m.w_qkv[l] |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(m.w_o[l])

## The feed-forward layer of block l.
fn mlp(m: Gpt, x: [b n D], l: int) -> [b n D]:
    return x @ m.w_fc[l] + m.b_fc[l] |> gelu |> matmul(m.w_proj[l]) |> add(m.b_proj[l])

## Transformer block l: attention, then the MLP, each with a residual connection.
fn block(m: Gpt, x: [b n D], l: int) -> [b n D]:
    x = x + attention(m, layer_norm(x, over=D, weight=m.ln1_w[l], bias=m.ln1_b[l]), l)
    return x + mlp(m, layer_norm(x, over=D, weight=m.ln2_w[l], bias=m.ln2_b[l]), l)

## Next-token logits for each position of each sequence. The output layer reads the
## token embedding's table, so its weights are tied to it.
fn forward(m: Gpt, ids: [b n] Index[V]) -> [b n V] Logit over V:
    x = embedding(ids, m.wte) + (m.wpe[0:n] as [n D])
    for l in 0..L:
        x = block(m, x, l)
    x = layer_norm(x, over=D, weight=m.lnf_w, bias=m.lnf_b)
    return linear(x, m.wte)

## Mean cross-entropy of predicting each next token.
fn loss(m: Gpt, ids: [b n] Index[V], targets: [b n] Index[V]) -> [] NonNeg:
    return cross_entropy(forward(m, ids), targets, over=V)
