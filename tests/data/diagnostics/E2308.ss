# From the reference's section on E2308.
dim D = 4

model A:
    param w: [D] = zeros

model B:
    param v: [D] = zeros

model Z:
    param z: [D] = zeros

fn forward(m: A, x: [D]) -> [D] = x * m.w

fn forward(m: B, x: [D]) -> [D] = x + m.v

fn f(z: Z, x: [D]) -> [D] = forward(z, x)  # E2308
