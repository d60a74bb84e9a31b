# A one-block language model without positions: vLLM can serve it, llama.cpp can't.
dim D = 8
dim H = 2
dim Dh = D / H
dim V = 16

model Lm:
    param embed: [V D] = normal(std=0.02)
    param w_qkv: [3*D D] = normal(std=0.02)
    param w_o: [D D] = normal(std=0.02)

fn attention(m: Lm, x: [b n D]) -> [b n D]:
    q, k, v = linear(x, m.w_qkv) |> split(b n (3 H Dh) -> b H n Dh)
    return scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
        |> rearrange(b H n Dh -> b n (H Dh)) |> linear(m.w_o)

fn forward(m: Lm, ids: [b n] Index[V]) -> [b n V] Logit over V:  # E3307
    x = embedding(ids, m.embed)
    return x + attention(m, x) |> linear(m.embed)
