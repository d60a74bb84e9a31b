# From the reference's section on E2310.
dim D = 4

model A:
    param w: [D] = zeros

model B:
    param v: [D] = zeros

fn same(a: M, b: M) -> [D] = zeros_like(a)

fn f(a: A, b: B) -> [D] = same(a, b)  # E2310
