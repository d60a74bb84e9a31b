# From the reference's section on W1101.
dim D = 64

model Mlp:
    param w: [D D] = zeros
    param unused: [D] = zeros

fn loss(m: Mlp, x: [b D]) -> [] = sum(x @ m.w)

fn f(m: Mlp, x: [b D]) -> []:
    l, g = value_and_grad(loss, m, x)  # W1101
    return l
