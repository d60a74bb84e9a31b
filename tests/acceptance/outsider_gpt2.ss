# GPT-2 with Hugging Face's field names (GPT2LMHeadModel), small enough to test.

dim V = 96
dim T = 32
dim D = 64
dim H = 4
dim Dh = D / H
dim L = 2
dim D3 = 3 * D
dim Dff = 4 * D

## nn.LayerNorm(D).
model LayerNorm:
    param weight: [D] = ones
    param bias: [D] = zeros

## The token embedding table, nn.Embedding(V, D).
model TokenEmbedding:
    param weight: [V D] = normal(std=0.02)

## The position embedding table, nn.Embedding(T, D).
model PositionEmbedding:
    param weight: [T D] = normal(std=0.02)

## HF's Conv1D(3 D, D): queries, keys and values in one projection, stored [in out].
model QkvProjection:
    param weight: [D D3] = normal(std=0.02)
    param bias: [D3] = zeros

## HF's Conv1D(D, D).
model OutProjection:
    param weight: [D D] = normal(std=0.02)
    param bias: [D] = zeros

## HF's Conv1D(4 D, D).
model UpProjection:
    param weight: [D Dff] = normal(std=0.02)
    param bias: [Dff] = zeros

## HF's Conv1D(D, 4 D).
model DownProjection:
    param weight: [Dff D] = normal(std=0.02)
    param bias: [D] = zeros

## GPT2Attention's weights.
model Attention:
    c_attn: QkvProjection
    c_proj: OutProjection

## GPT2MLP's weights.
model Mlp:
    c_fc: UpProjection
    c_proj: DownProjection

## One pre-norm transformer block, GPT2Block.
model Block:
    ln_1: LayerNorm
    attn: Attention
    ln_2: LayerNorm
    mlp: Mlp

## GPT2Model.
model Gpt2Model:
    wte: TokenEmbedding
    wpe: PositionEmbedding
    h: [L] Block
    ln_f: LayerNorm

## GPT2LMHeadModel: the output layer is tied to `transformer.wte`.
model Gpt2LMHead:
    transformer: Gpt2Model

## HF's LayerNorm, layer_norm_epsilon = 1e-5.
fn norm(ln: LayerNorm, x: [b n D]) -> [b n D]:
    return layer_norm(x, over=D, weight=ln.weight, bias=ln.bias, eps=1e-5)

## Causal self-attention: heads split from one projection as (3 H Dh), scaled by 1/sqrt(Dh).
fn attention(a: Attention, x: [b n D]) -> [b n D]:
    q, k, v = split(x @ a.c_attn.weight + a.c_attn.bias, b n (3 H Dh) -> b H n Dh)
    scores = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
    p = scores
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    y = einsum(p, v: b H n m, b H m Dh -> b n H Dh)
    return rearrange(y, b n H Dh -> b n (H Dh)) @ a.c_proj.weight + a.c_proj.bias

## HF's "gelu_new": GELU with the tanh approximation, written as HF writes it
## (0.7978845608028654 is sqrt(2 / pi)).
fn gelu_new(x: [b n Dff]) -> [b n Dff]:
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * pow(x, 3.0))))

## The feed-forward layer: up, gelu_new, down.
fn mlp(f: Mlp, x: [b n D]) -> [b n D]:
    return gelu_new(x @ f.c_fc.weight + f.c_fc.bias) @ f.c_proj.weight + f.c_proj.bias

## x + attention(ln_1(x)), then + mlp(ln_2(.)).
fn block(blk: Block, x: [b n D]) -> [b n D]:
    x1 = x + attention(blk.attn, norm(blk.ln_1, x))
    return x1 + mlp(blk.mlp, norm(blk.ln_2, x1))

## Next-token logits for a batch of token ids.
fn forward(m: Gpt2LMHead, ids: [b n] Index[V]) -> [b n V] Logit over V:
    t = m.transformer
    x = embedding(ids, t.wte.weight) + t.wpe.weight[positions(n) as [n] Index[T]]
    for l in 0..L:
        x = block(t.h[l], x)
    return linear(norm(t.ln_f, x), t.wte.weight)

## Mean cross-entropy of the next tokens, targets already shifted.
fn loss(m: Gpt2LMHead, ids: [b n] Index[V], targets: [b n] Index[V]) -> [] NonNeg:
    return cross_entropy(forward(m, ids), targets, over=V)

## One AdamW step; returns the loss before the step.
fn train_step(mut m: Gpt2LMHead, mut opt: AdamW[Gpt2LMHead], ids: [b n] Index[V], targets: [b n] Index[V]) -> [] NonNeg:
    l, g = value_and_grad(loss, m, ids, targets)
    update(mut m, mut opt, g)
    return l
