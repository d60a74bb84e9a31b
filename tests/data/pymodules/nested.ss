devices cpu

dim D = 4
dim L = 2

model Attention:
    param c_attn: [D D] = normal(std=0.02)

## One block: a norm weight and its attention.
model Block:
    param ln_1: [D] = ones
    ## The block's attention.
    attn: Attention

model Gpt:
    ## The blocks.
    h: [L] Block
    param ln_f: [D] = ones

fn forward(m: Gpt, x: [b D]) -> [b D]:
    for blk in m.h:
        x = x @ blk.attn.c_attn * blk.ln_1
    return x * m.ln_f
