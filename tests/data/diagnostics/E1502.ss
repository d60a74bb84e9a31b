# From the reference's section on E1502.
dim D = 64

model Mlp:
    param w: [D D] = zeros

model Other:
    param w: [D D] = zeros

fn step(mut m: Mlp, mut opt: AdamW[Other], g: Grad[Mlp]):
    update(mut m, mut opt, g)  # E1502
