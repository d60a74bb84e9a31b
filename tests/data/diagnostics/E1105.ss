# From the reference's section on E1105.
dim D = 64

model Mlp:
    param w: [D D] = zeros

fn loss(x: [b D], m: Mlp) -> [] = sum(x @ m.w)

fn f(m: Mlp, x: [b D]) -> []:
    l, g = value_and_grad(loss, x, m)  # E1105
    return l
