# A one-block language model whose attention breaks E3304.
dim D = 8
dim H = 2
dim Dh = D / H
dim V = 16
dim P = 32

model Lm:
    param embed: [V D] = normal(std=0.02)
    param w_qkv: [3*D D] = normal(std=0.02)
    param w_o: [D D] = normal(std=0.02)

fn attention(m: Lm, x: [b n D]) -> [b n D]:
    q, k, v = linear(x, m.w_qkv) |> split(b n (3 H Dh) -> b H n Dh)
    return scaled_dot_product_attention(q, k, v)  # E3304
        |> rearrange(b H n Dh -> b n (H Dh)) |> linear(m.w_o)

fn forward(m: Lm, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    return x + attention(m, x) |> linear(m.embed)
