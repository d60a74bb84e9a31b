# From the reference's section on E0901.
dim D = 64

model Mlp:
    param w1: [D D] = normal(std=0.02)

fn f(m: Mlp, x: [b D]) -> [b D] = x @ m.w2  # E0901
