# From the reference's section on E1107.
dim D = 64

model Mlp:
    param w: [D D] = zeros

fn loss(m: Mlp, x: [b D]) -> [] = sum(x)

fn f(m: Mlp, x: [b D]) -> []:
    l, g = value_and_grad(loss, m, x)  # E1107
    return l
