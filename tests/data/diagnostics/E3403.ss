# A constant index outside a stack of models.
dim D = 4
dim L = 6

model Block:
    param w: [D D] = zeros

model Net:
    h: [L] Block

fn last(m: Net, x: [b D]) -> [b D]:
    return x @ m.h[7].w  # E3403
