# Reads are followed through calls and pipes: here no param is read on any path.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn inner(m: Mlp, x: [b D]) -> [] = sum(x)

fn loss(m: Mlp, x: [b D]) -> [] = inner(m, x)

fn a(m: Mlp, x: [b D]) -> Grad[Mlp]:
    l, g = value_and_grad(loss, m, x)  # E1107
    return g
