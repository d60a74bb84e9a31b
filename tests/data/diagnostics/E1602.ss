# From the reference's section on E1602.
dim D = 64

model Mlp:
    param w: [D D] = zeros

fn f(m: Mlp) -> Mlp:
    return load("ckpt.pt", m)  # E1602
