# Functions of one name, each taking another model first: a call of the second isn't
# checked against the first (overloads are resolved with modules, issue 23).
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
