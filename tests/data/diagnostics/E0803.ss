# From the reference's section on E0803.
dim D = 64

fn f(x: [b D], n: float) -> [b D]:
    for i in 0..n:  # E0803
        x = x * 2
    return x
