# Reads through a pipe and a nested call; b is never read.
dim D = 4

model Mlp:
    param w: [D D] = zeros
    param b: [D] = zeros

fn forward(m: Mlp, x: [n D]) -> [n D] = x @ m.w

fn loss(m: Mlp, x: [n D]) -> [] = sum(m |> forward(x))

fn a(m: Mlp, x: [n D]) -> Grad[Mlp]:
    l, g = value_and_grad(loss, m, x)  # W1101
    return g
