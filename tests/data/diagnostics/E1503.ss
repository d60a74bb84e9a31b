# From the reference's section on E1503.
dim D = 64

model Mlp:
    param w: [D D] = zeros

fn step(mut m: Mlp, mut opt: SGD[Mlp], g: Grad[Mlp]):
    update(mut m, mut opt, g)

fn f(mut m: Mlp, g: Grad[Mlp]):
    opt = adamw(m, lr=3e-4)
    step(mut m, mut opt, g)  # E1503
