# From the reference's section on E0904.
dim D = 64

model A:
    param w: [D D] = zeros

model B:
    param w: [D D] = zeros

fn apply(m: A, x: [b D]) -> [b D] = x @ m.w

fn f(m: B, x: [b D]) -> [b D] = apply(m, x)  # E0904
