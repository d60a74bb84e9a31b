# From the reference's section on E1108.
dim D = 64

model Mlp:
    param w: [D D] = zeros

fn f(g: Grad[Mlp]) -> Grad[Mlp] = g * g  # E1108
