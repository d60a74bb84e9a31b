# Functions of one name, each taking another model first: a call picks the one for its
# first argument's model, value_and_grad's function too.
dim D = 4

model A:
    param w: [D D] = zeros

model B:
    param v: [D D] = zeros

fn forward(m: A, x: [D]) -> [D] = x @ m.w

fn forward(m: B, x: [D]) -> [D] = x @ m.v

fn loss(m: A, x: [D]) -> [] = sum(forward(m, x))

fn loss(m: B, x: [D]) -> [] = sum(forward(m, x))

fn both(a: A, b: B, x: [D]) -> Grad[B]:
    y = forward(a, x) + forward(b, x)
    l, g = value_and_grad(loss, b, x)
    return g
