# From the reference's section on E0801.
dim D = 64

fn f(x: [b D], w: [D 2*D], n: int) -> [b D]:
    for i in 0..n:
        x = x @ w  # E0801
    return x
