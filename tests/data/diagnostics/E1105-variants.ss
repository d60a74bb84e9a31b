# What can't be differentiated: a value, a built-in, a fn with a mut parameter.
dim D = 4

model Mlp:
    param w: [D D] = zeros

fn step(mut m: Mlp, x: [b D]) -> [] = sum(x @ m.w)

fn a(m: Mlp, x: [b D]) -> []:
    l, g = value_and_grad(step, m, x)  # E1105
    return l

fn b(m: Mlp, x: [b D]) -> []:
    l, g = value_and_grad(sum, m, x)  # E1105
    return l
