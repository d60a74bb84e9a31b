# A full training step of a 2-layer GPT whose blocks are held models, as gpt2_hf.ss and an
# nn.ModuleList hold them: the loss's value and gradient, then an AdamW update.
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

## One transformer block's weights.
model Block:
    param ln1_w: [D] = ones
    param ln1_b: [D] = zeros
    param w_qkv: [D 3*D] = normal(std=0.02)
    param w_o: [D D] = normal(std=0.02)
    param ln2_w: [D] = ones
    param ln2_b: [D] = zeros
    param w_fc: [D Dff] = normal(std=0.02)
    param b_fc: [Dff] = zeros
    param w_proj: [Dff D] = normal(std=0.02)
    param b_proj: [D] = zeros

## A GPT's weights: the blocks are held models, as an `nn.ModuleList` holds them.
model Gpt:
    param wte: [V D] = normal(std=0.02)
    param wpe: [T D] = normal(std=0.01)
    h: [L] Block
    param lnf_w: [D] = ones
    param lnf_b: [D] = zeros

## Causal multi-head self-attention.
fn attention(blk: Block, x: [b n D]) -> [b n D]:
    q, k, v = x @ blk.w_qkv |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(blk.w_o)

## The feed-forward layer.
fn mlp(blk: Block, x: [b n D]) -> [b n D]:
    return x @ blk.w_fc + blk.b_fc |> gelu |> matmul(blk.w_proj) |> add(blk.b_proj)

## A transformer block: attention, then the MLP, each with a residual connection.
fn block(blk: Block, x: [b n D]) -> [b n D]:
    x = x + attention(blk, layer_norm(x, over=D, weight=blk.ln1_w, bias=blk.ln1_b))
    return x + mlp(blk, layer_norm(x, over=D, weight=blk.ln2_w, bias=blk.ln2_b))

## Next-token logits; the output layer is tied to the token embedding.
fn forward(m: Gpt, ids: [b n] Index[V]) -> [b n V] Logit over V:
    x = embedding(ids, m.wte) + (m.wpe[0:n] as [n D])
    for blk in m.h:
        x = block(blk, x)
    x = layer_norm(x, over=D, weight=m.lnf_w, bias=m.lnf_b)
    return linear(x, m.wte)

## Mean cross-entropy of predicting each next token.
fn loss(m: Gpt, ids: [b n] Index[V], targets: [b n] Index[V]) -> [] NonNeg:
    return cross_entropy(forward(m, ids), targets, over=V)

## AdamW with PyTorch's defaults and a constant learning rate, stepped by PyTorch's fused
## kernel as the expert's `torch.optim.AdamW(fused=True)` is.
fn optimizer(m: Gpt) -> AdamW[Gpt] = adamw(m, lr=6e-4, fused=true)

## One training step on a batch; the loss before the update.
fn train_step(mut m: Gpt, mut opt: AdamW[Gpt], ids: [b n] Index[V], targets: [b n] Index[V]) -> []:
    l, g = value_and_grad(loss, m, ids, targets)
    update(mut m, mut opt, g)
    return l
