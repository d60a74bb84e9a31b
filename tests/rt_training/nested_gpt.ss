# A small GPT whose blocks are models of their own, with nanoGPT's field names.
dim V = 32
dim D = 16
dim H = 2
dim Dh = 8
dim Dff = 64
dim L = 2
dim N = 8

model Attention:
    param c_attn: [D (3 D)] = normal(std=0.02)
    param c_proj: [D D] = normal(std=0.02)

model Mlp:
    param c_fc: [D Dff] = normal(std=0.02)
    param c_proj: [Dff D] = normal(std=0.02)

model Block:
    param ln_1: [D] = ones
    attn: Attention
    param ln_2: [D] = ones
    mlp: Mlp

## A GPT: token and position embeddings, L blocks, a final norm, tied output.
model Gpt:
    param wte: [V D] = normal(std=0.02)
    param wpe: [N D] = normal(std=0.02)
    h: [L] Block
    param ln_f: [D] = ones

fn attend(a: Attention, x: [b n D]) -> [b n D]:
    q, k, v = x @ a.c_attn |> split(b n (3 H Dh) -> b H n Dh)
    att = einsum(q, k: b H n Dh, b H m Dh -> b H n m) / sqrt(Dh)
        |> masked_fill(!causal[n m], -inf)
        |> softmax(over=m)
    return einsum(att, v: b H n m, b H m Dh -> b H n Dh)
        |> rearrange(b H n Dh -> b n (H Dh))
        |> matmul(a.c_proj)

fn feed(f: Mlp, x: [b n D]) -> [b n D] = gelu(x @ f.c_fc) @ f.c_proj

fn block(k: Block, x: [b n D]) -> [b n D]:
    x = x + attend(k.attn, layer_norm(x, over=D, weight=k.ln_1))
    return x + feed(k.mlp, layer_norm(x, over=D, weight=k.ln_2))

fn forward(m: Gpt, ids: [b n] Index[V]) -> [b n V] Logit over V:
    x = embedding(ids, m.wte) + (m.wpe[0:n] as [n D])
    for l in 0..L:
        x = block(m.h[l], x)
    return linear(layer_norm(x, over=D, weight=m.ln_f), m.wte)

fn loss(m: Gpt, ids: [b n] Index[V], y: [b n] Index[V]) -> [] NonNeg:
    return cross_entropy(forward(m, ids), y, over=V)

fn train(mut m: Gpt, ids: [b n] Index[V], y: [b n] Index[V], steps: int) -> AdamW[Gpt]:
    opt = adamw(m, lr=1e-2)
    for i in 0..steps:
        l, g = value_and_grad(loss, m, ids, y)
        update(mut m, mut opt, g)
    return opt

fn first_block_grad(m: Gpt, ids: [b n] Index[V], y: [b n] Index[V]) -> [D (3 D)]:
    l, g = value_and_grad(loss, m, ids, y)
    return g.h[0].attn.c_attn

fn scale_last(mut m: Gpt, s: float):
    m.h[1].attn.c_proj = m.h[1].attn.c_proj * s
