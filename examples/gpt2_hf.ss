# GPT-2 written with Hugging Face's field names, so that the state dict of a
# transformers.GPT2LMHeadModel of the same sizes loads into it by name, unchanged:
# `transformer.h.0.attn.c_attn.weight` is `m.transformer.h[0].attn.c_attn.weight` here.
# HF's Conv1D keeps its weight as [in out], so each projection is `x @ weight + bias`.
# The output layer is tied to the token embeddings: there is no `lm_head` field, the
# logits read `transformer.wte.weight` again (docs/pytorch-weights.md says how to load
# HF's `lm_head.weight`, which is that same tensor). No dropout: HF's model in eval mode.
# The sizes are a small GPT2Config's; GPT-2 itself has D = 768, H = 12, L = 12,
# V = 50257, P = 1024.

## Width of the residual stream (`n_embd`).
dim D = 64
## Attention heads (`n_head`).
dim H = 4
## Features per head.
dim Dh = D / H
## Hidden width of the feed-forward layers (`n_inner`, 4 D by default).
dim F = 4 * D
## Number of blocks (`n_layer`).
dim L = 2
## Size of the vocabulary (`vocab_size`).
dim V = 100
## Longest sequence: the number of learned positions (`n_positions`).
dim P = 32

## `nn.Embedding(V, D)`: one row per token.
model TokenEmbedding:
    param weight: [V D] = normal(std=0.02)

## `nn.Embedding(P, D)`: one row per position.
model PositionEmbedding:
    param weight: [P D] = normal(std=0.01)

## `nn.LayerNorm(D)`.
model LayerNorm:
    param weight: [D] = ones
    param bias: [D] = zeros

## HF's `Conv1D(3 D, D)`: queries, keys and values in one projection, weight [in out].
model QkvProjection:
    param weight: [D (3 D)] = normal(std=0.02)
    param bias: [(3 D)] = zeros

## HF's `Conv1D(D, D)`: the attention's output projection.
model OutProjection:
    param weight: [D D] = normal(std=0.02)
    param bias: [D] = zeros

## HF's `Conv1D(F, D)`: the feed-forward layer's widening.
model FcProjection:
    param weight: [D F] = normal(std=0.02)
    param bias: [F] = zeros

## HF's `Conv1D(D, F)`: the feed-forward layer's narrowing.
model MlpProjection:
    param weight: [F D] = normal(std=0.02)
    param bias: [D] = zeros

## `GPT2Attention`.
model Attention:
    c_attn: QkvProjection
    c_proj: OutProjection

## `GPT2MLP`.
model Mlp:
    c_fc: FcProjection
    c_proj: MlpProjection

## `GPT2Block`: pre-norm attention, then a pre-norm feed-forward layer.
model Block:
    ln_1: LayerNorm
    attn: Attention
    ln_2: LayerNorm
    mlp: Mlp

## `GPT2Model`: embeddings, L blocks, a final norm.
model Transformer:
    wte: TokenEmbedding
    wpe: PositionEmbedding
    h: [L] Block
    ln_f: LayerNorm

## `GPT2LMHeadModel`, whose output layer is the token embeddings (tied).
model Gpt2LMHead:
    transformer: Transformer

## GELU with the tanh approximation, HF's `gelu_new`:
## $\frac{x}{2}\left(1 + \tanh\left(\sqrt{2/\pi}\,(x + 0.044715 x^3)\right)\right)$.
fn gelu_new(x: [b n F]) -> [b n F]:
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))

fn ln(p: LayerNorm, x: [b n D]) -> [b n D]:
    return layer_norm(x, over=D, weight=p.weight, bias=p.bias, eps=1e-5)

## Causal self-attention, heads of Dh features.
fn attend(a: Attention, x: [b n D]) -> [b n D]:
    q, k, v = x @ a.c_attn.weight + a.c_attn.bias |> split(b n (3 H Dh) -> b H n Dh)
    return scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(a.c_proj.weight)
        |> add(a.c_proj.bias)

fn feed(f: Mlp, x: [b n D]) -> [b n D]:
    return (x @ f.c_fc.weight + f.c_fc.bias |> gelu_new) @ f.c_proj.weight + f.c_proj.bias

fn block(k: Block, x: [b n D]) -> [b n D]:
    h = x + attend(k.attn, ln(k.ln_1, x))
    return h + feed(k.mlp, ln(k.ln_2, h))

## Next-token logits at every position; positions count from 0.
fn forward(m: Gpt2LMHead, ids: [b n] Index[V]) -> [b n V] Logit over V:
    t = m.transformer
    x = embedding(ids, t.wte.weight) + (t.wpe.weight[0:n] as [n D])
    for blk in t.h:
        x = block(blk, x)
    return linear(ln(t.ln_f, x), t.wte.weight)

## Mean cross-entropy of the next tokens `y` (already shifted).
fn loss(m: Gpt2LMHead, ids: [b n] Index[V], y: [b n] Index[V]) -> [] NonNeg:
    return cross_entropy(forward(m, ids), y, over=V)

## One AdamW step; the loss before it.
fn step(mut m: Gpt2LMHead, mut opt: AdamW[Gpt2LMHead], ids: [b n] Index[V], y: [b n] Index[V]) -> []:
    l, g = value_and_grad(loss, m, ids, y)
    update(mut m, mut opt, g)
    return l
