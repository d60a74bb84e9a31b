# From the reference's section on E1106.
dim D = 64

model Mlp:
    param w: [D D] = zeros

fn out(m: Mlp, x: [b D]) -> [b D] = x @ m.w

fn f(m: Mlp, x: [b D]) -> [b D]:
    l, g = value_and_grad(out, m, x)  # E1106
    return l
