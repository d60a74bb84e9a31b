# A full training step of a 2-layer GPT, as examples/gpt.ss writes the model: the loss's
# value and gradient, then an AdamW update.
# benchmarks/vs_torch.py sets D for each size; each head has 64 features.

## Vocabulary size.
dim V = 512
## Longest context, in tokens.
dim T = 512
## Width of each token's features.
dim D = 256
## Features per head.
dim Dh = 64
## Number of heads.
dim H = D / Dh
## Hidden width of each block's MLP.
dim Dff = 4 * D
## Transformer blocks.
dim L = 2

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

## Next-token logits; the output layer is tied to the token embedding.
fn forward(m: Gpt, ids: [b n] Index[V]) -> [b n V] Logit over V:
    x = embedding(ids, m.wte) + (m.wpe[0:n] as [n D])
    for l in 0..L:
        x = block(m, x, l)
    x = layer_norm(x, over=D, weight=m.lnf_w, bias=m.lnf_b)
    return linear(x, m.wte)

## Mean cross-entropy of predicting each next token.
fn loss(m: Gpt, ids: [b n] Index[V], targets: [b n] Index[V]) -> [] NonNeg:
    return cross_entropy(forward(m, ids), targets, over=V)

## AdamW with PyTorch's defaults and a constant learning rate.
fn optimizer(m: Gpt) -> AdamW[Gpt] = adamw(m, lr=6e-4)

## One training step on a batch; the loss before the update.
fn train_step(mut m: Gpt, mut opt: AdamW[Gpt], ids: [b n] Index[V], targets: [b n] Index[V]) -> []:
    l, g = value_and_grad(loss, m, ids, targets)
    update(mut m, mut opt, g)
    return l
