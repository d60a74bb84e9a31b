# From the reference's section on E2309.
dim D = 4

fn f(m: M, x: [M D]) -> [D] = x[0]  # E2309
